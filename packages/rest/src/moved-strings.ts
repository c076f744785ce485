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

/** Characters from which a string is moved as bytes; shorter ones are cheaper to copy. */
export const MOVE_MIN_CHARS = 64 * 1024

/** A string as bytes: Latin-1 or UTF-16. */
export interface StringBytes { latin1: boolean, bytes: Uint8Array }

/** Strings moved each way: for tests that count the work (never for timing). */
export const movedCounts = { carried: 0, restored: 0 }

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

/** Puts the strings `takeLongStrings` took back into the value (as it arrived on this thread). */
export function putLongStrings (root: unknown, moved: readonly MovedAt[]): void {
  for (const m of moved) {
    let o = root as Record<string, unknown>
    for (let i = 0; i < m.path.length - 1; i++) o = o[m.path[i]!] as Record<string, unknown>
    o[m.path[m.path.length - 1]!] = textOf(m)
  }
}
