/**
 * Small helpers for the rendering passes that scan text instead of running
 * regular expressions that rescan to the end of the input at every start
 * position (quadratic on unclosed `[gallery `, `<img `, `<` and long runs of
 * spaces). Each helper does work proportional to the text it reads.
 */

/**
 * The first index of `needle` at or after a position, remembered: asked again
 * from a later position that still lies before the remembered hit, the
 * answer is the same, so a text is searched at most once per needle as long
 * as positions never go back.
 */
export class NextIndex {
  private from = -1
  private found = -1

  constructor (private readonly text: string, private readonly needle: string) {}

  at (position: number): number {
    if (this.from >= 0 && position >= this.from && (this.found === -1 || position <= this.found)) return this.found
    this.from = position
    this.found = this.text.indexOf(this.needle, position)
    return this.found
  }
}

/** Same as `NextIndex` for a global (or sticky) regular expression that matches one fixed-length token. */
export class NextMatch {
  private from = -1
  private found: RegExpExecArray | null = null

  constructor (private readonly text: string, private readonly re: RegExp) {}

  at (position: number): RegExpExecArray | null {
    if (this.from >= 0 && position >= this.from && (this.found === null || position <= this.found.index)) return this.found
    this.from = position
    this.re.lastIndex = position
    this.found = this.re.exec(this.text)
    return this.found
  }
}

const SPACES = /\s*/y

/** The end of the run of whitespace (`\s`) starting at `position`. */
export function skipSpace (text: string, position: number): number {
  SPACES.lastIndex = position
  SPACES.test(text)
  return SPACES.lastIndex
}

/** `\w` of a regular expression without the `u` flag, for one character (undefined: end of text). */
export function isWordChar (c: string | undefined): boolean {
  if (c === undefined) return false
  const code = c.charCodeAt(0)
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
}

const LINE_END = /[\n\r\u2028\u2029]/g

/** The first line terminator (what `.` does not match) at or after `position`, or -1. */
export function nextLineEnd (text: string, position: number): number {
  LINE_END.lastIndex = position
  return LINE_END.exec(text)?.index ?? -1
}
