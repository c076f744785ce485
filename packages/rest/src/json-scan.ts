/**
 * What a request may make the service do with text, checked before any of
 * that work starts: a JSON text is scanned once, character by character,
 * building nothing, and refused when it nests deeper, holds more strings
 * or more characters of strings than the limits allow. JSON.parse (and
 * every walk over the parsed value: validation, filtering, storing) then
 * only ever sees bounded input. The same scan serves request bodies (the
 * kernel's body parsers) and JSON carried inside a value (builder data).
 */
import { kernelErrors, type RestError } from './errors.js'

export interface TextLimits {
  /** Deepest nesting of arrays and objects. */
  maxDepth: number
  /** Most strings (keys included): each string is a unit of work (validated, filtered, stored) whatever its length. */
  maxStrings: number
}

/**
 * The defaults: deeper than any builder tree (the builder refuses 256
 * levels itself) and more strings than a long builder page holds. The
 * characters are bounded by the body's byte limit.
 */
export const DEFAULT_TEXT_LIMITS: Readonly<TextLimits> = Object.freeze({ maxDepth: 512, maxStrings: 50_000 })

export interface JsonShape {
  depth: number
  strings: number
  stringChars: number
}

const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** The error naming the limit a text passed (`data.limit`, `data.max`). */
export function tooMuchText (limit: keyof TextLimits, max: number): RestError {
  return kernelErrors.rest_too_much_text({ limit, max }, `The request holds too much text to process: more than ${max} ${LIMIT_WORDS[limit]}.`)
}

const LIMIT_WORDS: Record<keyof TextLimits, string> = {
  maxDepth: 'levels of nesting',
  maxStrings: 'strings'
}

/**
 * The shape of a JSON text, or the error of the first limit it passes
 * (stopping there). Linear: one look at each character. Malformed JSON is
 * not this scan's concern (JSON.parse refuses it next); an unbalanced
 * close only lowers the depth.
 */
export function scanJson (text: string, limits: TextLimits = DEFAULT_TEXT_LIMITS): JsonShape | RestError {
  let depth = 0
  let deepest = 0
  let strings = 0
  let chars = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      if (++strings > limits.maxStrings) return tooMuchText('maxStrings', limits.maxStrings)
      const start = i + 1
      // To the closing quote: an escaped one (`\"`) does not close.
      for (i = start; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d === BACKSLASH) i++
        else if (d === QUOTE) break
      }
      chars += i - start
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limits.maxDepth) return tooMuchText('maxDepth', limits.maxDepth)
      if (depth > deepest) deepest = depth
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--
    }
  }
  return { depth: deepest, strings, stringChars: chars }
}
