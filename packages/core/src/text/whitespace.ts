/**
 * The core's `normalize_whitespace()`: how revisions and autosaves tell
 * whether a text changed. Trimmed as PHP's `trim()` trims (space, tab,
 * newline, carriage return, NUL, vertical tab; not every Unicode space, as
 * `String.prototype.trim` would), carriage returns made newlines, runs of
 * newlines one, runs of spaces and tabs one space.
 */
export function normalizeWhitespace (s: string): string {
  let start = 0
  let end = s.length
  while (start < end && isPhpTrimmed(s.charCodeAt(start))) start++
  while (end > start && isPhpTrimmed(s.charCodeAt(end - 1))) end--
  return s.slice(start, end).replace(/\r/g, '\n').replace(/\n+/g, '\n').replace(/[ \t]+/g, ' ')
}

function isPhpTrimmed (c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x00 || c === 0x0b
}

/** Whether each pair of `texts` (0 and 1, 2 and 3, ...) is the same once normalised. */
export function sameNormalized (texts: readonly string[]): boolean {
  for (let i = 0; i + 1 < texts.length; i += 2) {
    const a = texts[i]!
    const b = texts[i + 1]!
    if (a !== b && normalizeWhitespace(a) !== normalizeWhitespace(b)) return false
  }
  return true
}
