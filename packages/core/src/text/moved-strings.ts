/**
 * Long strings cross to and from the text pool's threads as moved bytes
 * (issue 27). A structured clone of a 1.9 MB text cost the request thread
 * 9-18 ms each way (piscina's `postTask`); turned into bytes it costs a copy
 * of memory: Latin-1 when every character fits a byte (V8 keeps such a
 * string one byte per character), else UTF-16, both encoded and decoded
 * without a character loop, and the bytes are moved, not copied. UTF-8 would
 * be smaller but costs a pass over every character on both sides.
 * Used for the fields of a task's input and of its outcome: strings and the
 * strings of lists. Imports nothing of the kernel (it is loaded into each
 * thread, text-worker.mjs).
 */

/** Characters from which a string is moved as bytes; shorter ones are cheaper to copy. */
export const MOVE_MIN_CHARS = 64 * 1024

/** A string carried as bytes: the field it goes back to (and its place, in a list). */
interface MovedString { key: string, index: number, latin1: boolean, bytes: Uint8Array }

/** An object's fields with its long strings carried apart, as bytes. */
export interface Carried { fields: Record<string, unknown>, moved: MovedString[] }

/** Strings moved each way: for tests that count the work (never for timing). */
export const movedCounts = { carried: 0, restored: 0 }

const WIDE = /[^\x00-\xff]/

function bytesOf (text: string): { latin1: boolean, bytes: Uint8Array } {
  const latin1 = !WIDE.test(text)
  const b = Buffer.from(text, latin1 ? 'latin1' : 'utf16le')
  // A long string gets a buffer of its own (not the shared pool's): moved as it is, else copied once.
  const own = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength
  return { latin1, bytes: own ? b : new Uint8Array(b) }
}

/** `fields` with each long string (or long string of a list) replaced by '' and carried as bytes; the buffers to move. */
export function carry (fields: Record<string, unknown>): { carried: Carried, transfer: ArrayBuffer[] } {
  let copy: Record<string, unknown> | undefined
  const moved: MovedString[] = []
  const transfer: ArrayBuffer[] = []
  const move = (key: string, index: number, text: string): void => {
    const m = bytesOf(text)
    moved.push({ key, index, ...m })
    transfer.push(m.bytes.buffer as ArrayBuffer)
    movedCounts.carried++
  }
  for (const key of Object.keys(fields)) {
    const v = fields[key]
    if (typeof v === 'string' && v.length >= MOVE_MIN_CHARS) {
      copy ??= { ...fields }
      copy[key] = ''
      move(key, -1, v)
    } else if (Array.isArray(v)) {
      let list: unknown[] | undefined
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i]
        if (typeof item !== 'string' || item.length < MOVE_MIN_CHARS) continue
        copy ??= { ...fields }
        list ??= copy[key] = [...v]
        list[i] = ''
        move(key, i, item)
      }
    }
  }
  return { carried: { fields: copy ?? fields, moved }, transfer }
}

/** The fields `carry` was given, its strings restored from their bytes. */
export function restore (carried: Carried): Record<string, unknown> {
  if (carried.moved.length === 0) return carried.fields
  const out = { ...carried.fields }
  for (const m of carried.moved) {
    const text = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength).toString(m.latin1 ? 'latin1' : 'utf16le')
    if (m.index < 0) out[m.key] = text
    else {
      // Each list is copied once, on its first moved string.
      if (out[m.key] === carried.fields[m.key]) out[m.key] = [...(carried.fields[m.key] as unknown[])]
      ;(out[m.key] as unknown[])[m.index] = text
    }
    movedCounts.restored++
  }
  return out
}
