/**
 * Long parameters handed to PostgreSQL's socket as they are (issue 27).
 *
 * pg-protocol's `bind` writes every parameter of a statement into one shared
 * buffer: a 1.9 MB parameter made it allocate a buffer of that size (whose
 * pages the copy then faults in) and copy the bytes, and a string parameter
 * was UTF-8 encoded there too, on the request thread (10-20 ms of a
 * contributor's create under load). A Bind message with a parameter of
 * `LONG_PARAM_BYTES` or more, as bytes (a Buffer, sent in the binary format
 * as pg sends it; a `Utf8Text`, sent in the text format), is written here
 * in parts instead: those bytes are a write of their own and the rest is
 * written as pg-protocol writes it. The statement's writes are corked
 * (pg's `Query.submit`), so the socket is given every part in one `writev`,
 * the long bytes from their own buffer: the only copy left is the kernel's.
 * Any other Bind message is pg-protocol's.
 */
import { Utf8Text } from './columns.js'

/** Bytes from which a parameter is written apart (a smaller one costs less than a write of its own). */
export const LONG_PARAM_BYTES = 64 * 1024

/** What of pg's `Connection` this needs (pg 8: `client.connection`, whose `bind` `Query.prepare` calls). */
interface BindConnection {
  stream: { writable: boolean, write: (chunk: Uint8Array) => boolean }
  bind: (config: BindConfig) => unknown
}

/** pg-protocol's `bind` configuration. */
export interface BindConfig {
  portal?: string
  statement?: string
  binary?: boolean
  values?: unknown[]
  valueMapper?: (value: unknown, index: number) => unknown
}

/** Counted for tests: Bind messages written in parts, and the bytes of the long parameters given as bytes (written as they are). */
export const bindCounts = { messages: 0, bytes: 0 }

const isLong = (value: unknown): boolean =>
  (value instanceof Utf8Text && value.utf8.byteLength >= LONG_PARAM_BYTES) ||
  (value instanceof Uint8Array && value.byteLength >= LONG_PARAM_BYTES)

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

const int32 = (n: number): Buffer => {
  const b = Buffer.allocUnsafe(4)
  b.writeInt32BE(n, 0)
  return b
}

/**
 * The Bind message of `config` as the buffers to write in turn, byte for
 * byte what pg-protocol's `serialize.bind` makes; undefined when no
 * parameter is long (pg-protocol writes it). A long parameter's bytes are
 * one of the buffers, the very one given (not copied); `given` counts them.
 */
export function bindParts (config: BindConfig): { parts: Buffer[], given: number } | undefined {
  const values = config.values ?? []
  if (!values.some(isLong)) return undefined
  // Each value as pg-protocol maps it (pg's `prepareValue`): null, bytes (binary) or a string (text); a Utf8Text as
  // its bytes, in the text format.
  const formats = Buffer.alloc(2 * values.length)
  const asGiven = new Set<Buffer>()
  const params: Array<Buffer | null> = values.map((value, i) => {
    if (value instanceof Utf8Text) return own(asGiven, asBuffer(value.utf8))
    const mapped = config.valueMapper === undefined ? value : config.valueMapper(value, i)
    if (mapped === null || mapped === undefined) return null
    if (mapped instanceof Uint8Array) {
      formats[2 * i + 1] = 1
      return own(asGiven, asBuffer(mapped))
    }
    return Buffer.from(mapped as string, 'utf8')
  })
  const portal = Buffer.from(`${config.portal ?? ''}\0`, 'utf8')
  const statement = Buffer.from(`${config.statement ?? ''}\0`, 'utf8')
  const count = Buffer.allocUnsafe(2)
  count.writeInt16BE(values.length, 0)
  const tail = Buffer.from([0, 1, 0, config.binary === true ? 1 : 0])
  let length = 4 + portal.length + statement.length + 2 + formats.length + 2 + tail.length
  for (const p of params) length += 4 + (p?.length ?? 0)
  const head = Buffer.allocUnsafe(5)
  head[0] = 0x42 // 'B'
  head.writeInt32BE(length, 1)

  const parts: Buffer[] = []
  let given = 0
  let run: Buffer[] = [head, portal, statement, count, formats, count]
  for (const p of params) {
    run.push(int32(p === null ? -1 : p.length))
    if (p === null) continue
    if (p.length < LONG_PARAM_BYTES) {
      run.push(p)
      continue
    }
    parts.push(Buffer.concat(run), p)
    if (asGiven.has(p)) given += p.length
    run = []
  }
  run.push(tail)
  parts.push(Buffer.concat(run))
  return { parts, given }
}

const own = (set: Set<Buffer>, bytes: Buffer): Buffer => {
  set.add(bytes)
  return bytes
}

/**
 * Makes a pg client's connection write a Bind message with a long parameter
 * in parts (`bindParts`); any other goes to pg-protocol as before.
 */
export function bindLongParamsApart (connection: BindConnection): void {
  const bind = connection.bind
  connection.bind = function (this: BindConnection, config: BindConfig) {
    // Mapped before anything is written: a value pg cannot map throws here, as in pg-protocol, with nothing sent.
    const made = bindParts(config)
    if (made === undefined) return bind.call(this, config)
    // As pg's `_send`: a closed stream takes nothing (the query fails on the connection's error).
    if (!this.stream.writable) return false
    bindCounts.messages++
    bindCounts.bytes += made.given
    let written = true
    for (const part of made.parts) written = this.stream.write(part)
    return written
  }
}
