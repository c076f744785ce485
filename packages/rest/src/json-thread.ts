/**
 * Large JSON off the request thread (issue 27): a request body over
 * `OFF_THREAD_BYTES` is decoded, scanned and parsed, and an answer whose
 * strings and members weigh more is serialized, encoded and hashed, in one
 * worker thread of the kernel's (json-worker.mjs), so that while a
 * megabyte post is read or answered the loop answers everyone else. What
 * crosses the threads is cheap to copy: the body's bytes are moved there,
 * the parsed value copied back (its long strings moved; a large one in
 * pieces taken a turn each, json-tasks.ts `piecesOf`), the answer's value
 * copied there (its strings are copied, never re-encoded) and its bytes moved
 * back. Smaller JSON is handled inline: handing it over would cost as much
 * as the work. An answer holding anything but plain objects, arrays and
 * primitives (a Date, a class with `toJSON`) is serialized inline as
 * before: a copy to another thread would lose its methods.
 * If the thread cannot be started the work runs inline.
 */
import { receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import { randomUUID } from 'node:crypto'
import { setImmediate } from 'node:timers/promises'
import { assemblePiece, parseBody, serialize, type MovedString, type ParseOutcome, type Piece, type Serialized } from './json-tasks.js'
import { bytesOfSliced, MOVE_MIN_CHARS, putLongStrings, type StringBytes } from './moved-strings.js'
import type { TextLimits } from './json-scan.js'

/** Bytes of a body, or weight of an answer (characters of strings plus a few per member), from which the work runs in the thread. */
export const OFF_THREAD_BYTES = 64 * 1024

/** Makes the stand-ins of an answer's long strings this process's own: no string an answer holds is one by chance. */
const STAND_IN_NONCE = randomUUID()

/** Members an answer's walk visits at most: beyond it (or in a cycle) the answer is serialized inline, as before. */
const MAX_WALK = 1_000_000

/**
 * The weight of `value` when it is plain JSON data (objects with the plain
 * prototypes, arrays, strings, numbers, booleans, null, undefined): the
 * characters of its strings and keys plus 4 per member; undefined when it
 * holds anything else or is larger than the walk's bound.
 */
export function plainWeight (value: unknown, longs?: Array<[Record<string, unknown>, string]>): number | undefined {
  let weight = 0
  let visited = 0
  const stack: unknown[] = [value]
  // Leaves (strings, numbers, booleans, null) are weighed where they are met; only
  // objects and arrays go on the stack. Measured in docs/benchmarks.md.
  while (stack.length > 0) {
    const v = stack.pop()
    weight += 4
    if (typeof v !== 'object' || v === null) {
      if (typeof v === 'string') weight += v.length
      else if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol') return undefined
      continue
    }
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype || (visited += v.length + 1) > MAX_WALK) return undefined
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i]
        if (typeof x === 'string') {
          weight += 4 + x.length
          if (longs !== undefined && x.length >= MOVE_MIN_CHARS) longs.push([v as unknown as Record<string, unknown>, String(i)])
        } else if (typeof x === 'number' || typeof x === 'boolean' || x === null || x === undefined) weight += 4
        else stack.push(x)
      }
      continue
    }
    const proto = Object.getPrototypeOf(v) as unknown
    if (proto !== Object.prototype && proto !== null) return undefined
    const keys = Object.keys(v)
    if ((visited += keys.length + 1) > MAX_WALK) return undefined
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!
      const x = (v as Record<string, unknown>)[k]
      weight += k.length
      if (typeof x === 'string') {
        weight += 4 + x.length
        if (longs !== undefined && x.length >= MOVE_MIN_CHARS) longs.push([v as Record<string, unknown>, k])
      } else if (typeof x === 'number' || typeof x === 'boolean' || x === null || x === undefined) weight += 4
      else stack.push(x)
    }
  }
  return weight
}

/** The values of bodies parsed in the thread (large bodies). */
const offThreadValues = new WeakSet<object>()

/** Whether `value` is a body parsed in the thread: a body over OFF_THREAD_BYTES. */
export function parsedOffThread (value: unknown): boolean {
  return typeof value === 'object' && value !== null && offThreadValues.has(value)
}

type Task = { task: 'parseBody', input: Parameters<typeof parseBody>[0] } | { task: 'serialize', input: Parameters<typeof serialize>[0] }

interface Waiting { resolve: (outcome: unknown) => void, reject: (err: Error) => void }

class JsonThread {
  private worker: Worker | undefined
  /** Set when the thread failed to start or died: the work runs inline from then on. */
  private broken = false
  private next = 0
  private readonly waiting = new Map<number, Waiting>()
  /** Work done in the thread and inline: for tests that count it (never for timing). */
  readonly counts = { parsedOff: 0, parsedInline: 0, serializedOff: 0, serializedInline: 0, piecesBack: 0, pieceTurns: 0, heaviestPiece: 0 }

  /** A request body's value (parseBody's outcome); `bytes` is handed over and must not be used after. */
  async parse (bytes: Buffer, limits: TextLimits): Promise<ParseOutcome> {
    if (bytes.byteLength <= OFF_THREAD_BYTES || this.broken) {
      this.counts.parsedInline++
      return parseBody({ bytes, limits })
    }
    this.counts.parsedOff++
    // Moved when the buffer is the body's own (a concatenation of chunks is), else copied.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    const view = own ? new Uint8Array(bytes.buffer) : new Uint8Array(bytes)
    const outcome = await this.run({ task: 'parseBody', input: { bytes: view, limits: { ...limits }, moveLong: true } }, [view.buffer as ArrayBuffer]) as ParseOutcome
    // A large value came as an empty container and its pieces on a port of their own: put together a piece a turn.
    if ('value' in outcome && outcome.port !== undefined) {
      const { port, count = 0 } = outcome
      delete outcome.port
      delete outcome.count
      await this.assemble(outcome.value, port, count)
    }
    // The value's long strings came as moved bytes (moved-strings.ts): put back in place.
    if ('value' in outcome && outcome.moved !== undefined) {
      await putLongStrings(outcome.value, outcome.moved)
      delete outcome.moved
    }
    // Known as a large body's value: the kernel validates it a walk a turn (request-args.ts, `sliced`).
    if ('value' in outcome && typeof outcome.value === 'object' && outcome.value !== null) offThreadValues.add(outcome.value)
    return outcome
  }

  /**
   * Fills `root` with the `count` pieces waiting on `port` (json-tasks.ts, `piecesOf`), one a turn: each is
   * deserialized only when it is taken (receiveMessageOnPort), so a turn copies at most PIECE_WEIGHT of the value.
   */
  private async assemble (root: unknown, port: MessagePort, count: number): Promise<void> {
    const containers: unknown[] = [root]
    try {
      for (let i = 0; i < count; i++) {
        this.counts.pieceTurns++
        await setImmediate()
        const received = receiveMessageOnPort(port)
        if (received === undefined) throw new Error('the JSON thread\'s pieces of a value ended early')
        const piece = received.message as Piece
        this.counts.piecesBack++
        if (piece.w > this.counts.heaviestPiece) this.counts.heaviestPiece = piece.w
        assemblePiece(containers, piece)
      }
    } finally {
      port.close()
    }
  }

  /** An answer's bytes and hash, made in the thread: undefined when it is small or not plain data (the caller serializes it). */
  async serialize (body: unknown, pretty: boolean, hash: boolean): Promise<{ bytes: Buffer, hash?: string } | undefined> {
    if (this.broken) return undefined
    const longs: Array<[Record<string, unknown>, string]> = []
    const weight = plainWeight(body, longs)
    if (weight === undefined || weight <= OFF_THREAD_BYTES) {
      this.counts.serializedInline++
      return undefined
    }
    this.counts.serializedOff++
    // Each long string goes as moved bytes: converted first, a slice a turn (bytesOfSliced), then, in one synchronous
    // piece, a short stand-in takes its place while the answer is copied (postMessage copies synchronously) and it is
    // put back; the thread writes the string's JSON where its stand-in's is.
    const converted: Array<[Record<string, unknown>, string, string, StringBytes]> = []
    for (const [container, key] of longs) {
      const text = container[key]
      if (typeof text === 'string' && text.length >= MOVE_MIN_CHARS) converted.push([container, key, text, await bytesOfSliced(text)])
    }
    const moved: MovedString[] = []
    const swapped: Array<[Record<string, unknown>, string, string]> = []
    const transfer: ArrayBuffer[] = []
    for (const [container, key, text, b] of converted) {
      // A container reached twice (a shared object) was swapped already; a value that cannot be set is copied.
      if (container[key] !== text) continue
      const standIn = `\u0000moved ${STAND_IN_NONCE} ${moved.length}\u0000`
      if (!Reflect.set(container, key, standIn)) continue
      swapped.push([container, key, text])
      moved.push({ standIn, ...b })
      transfer.push(b.bytes.buffer as ArrayBuffer)
    }
    let sent: Promise<unknown>
    try {
      sent = this.run({ task: 'serialize', input: { body, pretty, hash, moved } }, transfer)
    } finally {
      for (let i = swapped.length - 1; i >= 0; i--) swapped[i]![0][swapped[i]![1]] = swapped[i]![2]
    }
    const out = await sent as Serialized
    return { bytes: Buffer.from(out.bytes.buffer, out.bytes.byteOffset, out.bytes.byteLength), ...(out.hash === undefined ? {} : { hash: out.hash }) }
  }

  /** Posts the task at once (its value is copied before this returns); the outcome when it comes. */
  private run (task: Task, transfer: ArrayBuffer[]): Promise<unknown> {
    const worker = this.start()
    const id = this.next++
    // Held while it has work (an injected request has no socket to keep the process up), let go when idle.
    if (this.waiting.size === 0) worker.ref()
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      worker.postMessage({ id, ...task }, transfer)
    })
  }

  private start (): Worker {
    if (this.worker !== undefined) return this.worker
    const worker = new Worker(new URL('./json-worker.mjs', import.meta.url))
    worker.on('message', (m: { id: number, outcome?: unknown, failed?: string }) => {
      const w = this.waiting.get(m.id)
      this.waiting.delete(m.id)
      if (this.waiting.size === 0) worker.unref()
      if (m.failed !== undefined) w?.reject(new Error(m.failed))
      else w?.resolve(m.outcome)
    })
    const fail = (err: Error): void => {
      this.broken = true
      this.worker = undefined
      for (const w of this.waiting.values()) w.reject(err)
      this.waiting.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => { if (this.worker === worker) fail(new Error(`the JSON thread exited (${code})`)) })
    // An idle thread does not keep the process up (unref'd after the listeners: adding one refs the port again).
    worker.unref()
    this.worker = worker
    return worker
  }
}

/** The process's JSON thread. */
export const jsonThread = new JsonThread()
