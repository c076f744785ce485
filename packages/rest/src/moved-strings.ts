/**
 * Long strings of a JSON value cross to and from the kernel's JSON thread
 * (json-thread.ts) as moved bytes, not structured-clone copies (issue 27:
 * copying an answer holding a 1.9 MB content, raw and rendered, to the thread
 * held the request thread up to 42 ms). A string becomes Latin-1 bytes when
 * every character fits a byte (V8 keeps such a string one byte per
 * character), else UTF-16: both conversions copy memory, with no loop over
 * the characters. The core's text pool does the same with the fields of its
 * tasks (core text/moved-strings.ts), through this module's own entry
 * (`@cms/rest/moved-strings`): it imports nothing, so the pool's threads load
 * none of the kernel.
 */
import { setImmediate } from 'node:timers/promises'

/** Characters from which a string is moved as bytes; shorter ones are cheaper to copy. */
export const MOVE_MIN_CHARS = 64 * 1024

/** A string as bytes: Latin-1 or UTF-16. */
export interface StringBytes { latin1: boolean, bytes: Uint8Array }

/**
 * Characters converted in one turn of the event loop by the sliced
 * conversions (`bytesOfSliced`, `textOfSliced`, for the request thread): a
 * 1.9 MB text converted whole was one task of 20-40 ms of CPU under load
 * (`latin1Write`/`latin1Slice`, issue 27); a slice is an eighth of it.
 */
export const CONVERT_SLICE = 256 * 1024

/** Strings moved each way, and the turns the sliced conversions yielded: for tests that count the work (never for timing). */
export const movedCounts = { carried: 0, restored: 0, turns: 0, reused: 0 }

const WIDE = /[^\x00-\xff]/

export function bytesOf (text: string): StringBytes {
  const latin1 = !WIDE.test(text)
  const b = Buffer.from(text, latin1 ? 'latin1' : 'utf16le')
  // A long string gets a buffer of its own (not the shared pool's): moved as it is, else copied once.
  const own = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength
  movedCounts.carried++
  return { latin1, bytes: own ? b : new Uint8Array(b) }
}

export function textOf (s: StringBytes): string {
  movedCounts.restored++
  return Buffer.from(s.bytes.buffer, s.bytes.byteOffset, s.bytes.byteLength).toString(s.latin1 ? 'latin1' : 'utf16le')
}

const nextTurn = async (): Promise<void> => {
  movedCounts.turns++
  await setImmediate()
}

/**
 * The bytes the request thread last decoded long strings from
 * (`textOfSliced`), each with its string: when that very string is sent to a
 * thread again (the body's content to the filter, the filtered text to the
 * renderer, the rendered text to the JSON thread), its bytes are moved on as
 * they are, not made again (`bytesOfSliced`; a string read from pieces is
 * copied whole, in one task, the first time it is sliced). Taken once (moved
 * bytes are gone), at most `KEEP_DECODED` kept, the oldest let go.
 */
const decoded: Array<{ text: string, bytes: StringBytes }> = []
const KEEP_DECODED = 8

/**
 * `bytesOf` for the request thread: the bytes `textOfSliced` decoded the
 * text from when it is one of its last; else a text longer than `CONVERT_SLICE` is
 * checked and copied a slice a turn into one buffer of its own (moved as it
 * is). Latin-1 until a slice holds a wider character; then the copy starts
 * again as UTF-16 (a slice may end inside a surrogate pair: UTF-16 bytes are
 * the code units as they are, so the halves join again).
 */
export async function bytesOfSliced (text: string): Promise<StringBytes> {
  if (text.length <= CONVERT_SLICE) return bytesOf(text)
  movedCounts.carried++
  // Identity first (`===` answers at once for the same string; another string of its length is compared).
  const kept = decoded.findIndex((d) => d.text === text)
  if (kept >= 0) {
    movedCounts.reused++
    return decoded.splice(kept, 1)[0]!.bytes
  }
  let latin1 = true
  let bytes = Buffer.allocUnsafeSlow(text.length)
  for (let at = 0; at < text.length; at += CONVERT_SLICE) {
    if (at > 0) await nextTurn()
    const part = text.slice(at, at + CONVERT_SLICE)
    if (latin1 && WIDE.test(part)) {
      latin1 = false
      bytes = Buffer.allocUnsafeSlow(text.length * 2)
      // The slices already copied as Latin-1, copied again as UTF-16 in the turns to come.
      for (let again = 0; again < at; again += CONVERT_SLICE) {
        await nextTurn()
        bytes.write(text.slice(again, again + CONVERT_SLICE), again * 2, 'utf16le')
      }
    }
    if (latin1) bytes.write(part, at, 'latin1')
    else bytes.write(part, at * 2, 'utf16le')
  }
  return { latin1, bytes }
}

/** `textOf` for the request thread: bytes of more than `CONVERT_SLICE` characters decoded a slice a turn. */
export async function textOfSliced (s: StringBytes): Promise<string> {
  const unit = s.latin1 ? 1 : 2
  const chars = s.bytes.byteLength / unit
  if (chars <= CONVERT_SLICE) return textOf(s)
  movedCounts.restored++
  const b = Buffer.from(s.bytes.buffer, s.bytes.byteOffset, s.bytes.byteLength)
  let text = ''
  for (let at = 0; at < chars; at += CONVERT_SLICE) {
    if (at > 0) await nextTurn()
    // Joined as V8 joins strings (a rope): flattened, a copy of memory, where it is first read whole.
    text += b.toString(s.latin1 ? 'latin1' : 'utf16le', at * unit, Math.min(chars, at + CONVERT_SLICE) * unit)
  }
  decoded.push({ text, bytes: { latin1: s.latin1, bytes: s.bytes } })
  if (decoded.length > KEEP_DECODED) decoded.shift()
  return text
}

/** A long string taken out of a parsed value: where it was (keys from the root) and its bytes. */
export interface MovedAt extends StringBytes { path: string[] }

/**
 * Takes the long strings out of `root` (a value just parsed, owned by the
 * caller): each is replaced by '' and answered with its path and bytes.
 * The walk is bounded by the value's size, which the body's scan bounded.
 */
export function takeLongStrings (root: unknown): MovedAt[] {
  const moved: MovedAt[] = []
  const stack: Array<{ v: unknown, path: string[] }> = [{ v: root, path: [] }]
  while (stack.length > 0) {
    const { v, path } = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    const o = v as Record<string, unknown>
    for (const k of Object.keys(o)) {
      const child = o[k]
      if (typeof child === 'string' && child.length >= MOVE_MIN_CHARS) {
        moved.push({ path: [...path, k], ...bytesOf(child) })
        o[k] = ''
      } else if (typeof child === 'object' && child !== null) stack.push({ v: child, path: [...path, k] })
    }
  }
  return moved
}

/** Puts the strings `takeLongStrings` took back into the value (as it arrived on this thread), each decoded a slice a turn. */
export async function putLongStrings (root: unknown, moved: readonly MovedAt[]): Promise<void> {
  for (const m of moved) {
    let o = root as Record<string, unknown>
    for (let i = 0; i < m.path.length - 1; i++) o = o[m.path[i]!] as Record<string, unknown>
    o[m.path[m.path.length - 1]!] = await textOfSliced(m)
  }
}
