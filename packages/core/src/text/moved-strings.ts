/**
 * Long strings cross to and from the text pool's threads as moved bytes
 * (issue 27). A structured clone of a 1.9 MB text cost the request thread
 * 9-18 ms each way (piscina's `postTask`); turned into bytes it costs a copy
 * of memory (the kernel's `bytesOf`/`textOf`: Latin-1 or UTF-16, no loop
 * over the characters), and the bytes are moved, not copied.
 * Used for the fields of a task's input and of its outcome: strings and the
 * strings of lists. Imports nothing of the kernel but its `moved-strings`
 * entry, which imports nothing (it is loaded into each thread, text-worker.mjs).
 */
import { bytesOf, bytesOfSliced, MOVE_MIN_CHARS, textOf, textOfSliced, type StringBytes } from '@cms/rest/moved-strings'

export { CONVERT_SLICE, MOVE_MIN_CHARS, movedCounts } from '@cms/rest/moved-strings'

/** A string carried as bytes: the field it goes back to (and its place, in a list). */
interface MovedString extends StringBytes { key: string, index: number }

/** An object's fields with its long strings carried apart, as bytes. */
export interface Carried { fields: Record<string, unknown>, moved: MovedString[] }

/**
 * `fields` with each long string (or long string of a list) replaced by '' and carried as bytes; the buffers to move.
 * `sliced` (the request thread): each string converted a slice a turn of the event loop (`bytesOfSliced`); a pool's
 * thread converts in one piece.
 */
export async function carry (fields: Record<string, unknown>, sliced = false): Promise<{ carried: Carried, transfer: ArrayBuffer[] }> {
  let copy: Record<string, unknown> | undefined
  const moved: MovedString[] = []
  const transfer: ArrayBuffer[] = []
  const move = async (key: string, index: number, text: string): Promise<void> => {
    const m = sliced ? await bytesOfSliced(text) : bytesOf(text)
    moved.push({ key, index, ...m })
    transfer.push(m.bytes.buffer as ArrayBuffer)
  }
  for (const key of Object.keys(fields)) {
    const v = fields[key]
    if (typeof v === 'string' && v.length >= MOVE_MIN_CHARS) {
      copy ??= { ...fields }
      copy[key] = ''
      await move(key, -1, v)
    } else if (Array.isArray(v)) {
      let list: unknown[] | undefined
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i]
        // Bytes with a buffer of their own (a text's UTF-8, made in a thread) are moved as they are.
        if (item instanceof Uint8Array && item.byteLength >= MOVE_MIN_CHARS && item.byteOffset === 0 && item.byteLength === item.buffer.byteLength) {
          transfer.push(item.buffer as ArrayBuffer)
          continue
        }
        if (typeof item !== 'string' || item.length < MOVE_MIN_CHARS) continue
        copy ??= { ...fields }
        list ??= copy[key] = [...v]
        list[i] = ''
        await move(key, i, item)
      }
    }
  }
  return { carried: { fields: copy ?? fields, moved }, transfer }
}

/** The fields `carry` was given, its strings restored from their bytes (`sliced`: a slice a turn, `textOfSliced`). */
export async function restore (carried: Carried, sliced = false): Promise<Record<string, unknown>> {
  if (carried.moved.length === 0) return carried.fields
  const out = { ...carried.fields }
  for (const m of carried.moved) {
    const text = sliced ? await textOfSliced(m) : textOf(m)
    if (m.index < 0) out[m.key] = text
    else {
      // Each list is copied once, on its first moved string.
      if (out[m.key] === carried.fields[m.key]) out[m.key] = [...(carried.fields[m.key] as unknown[])]
      ;(out[m.key] as unknown[])[m.index] = text
    }
  }
  return out
}
