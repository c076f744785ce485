/**
 * The JSON thread's tasks (json-thread.ts runs them in a worker thread, or
 * inline when it cannot start one): reading a large request body (decode,
 * the nesting and string scan, JSON.parse) and writing a large answer
 * (JSON.stringify, UTF-8 encoding, the ETag's hash), each of which costs
 * tens of milliseconds per megabyte on whichever thread runs it. Refusals
 * come back as values (an error object does not cross threads as itself).
 */
import { createHash } from 'node:crypto'
import { scanJson, type TextLimits } from './json-scan.js'
import { takeLongStrings, textOf, type MovedAt, type StringBytes } from './moved-strings.js'

export interface Refusal { code: string, message: string, status: number, data: Record<string, unknown> }

/** A parsed body: its value, nothing (a blank body), a refusal of the scan, or not JSON at all. */
export type ParseOutcome = { value: unknown, moved?: MovedAt[] } | { empty: true } | { refused: Refusal } | { invalid: true }

/** `moveLong` (in the thread): the value's long strings are answered apart as bytes, to be moved (moved-strings.ts). */
export function parseBody ({ bytes, limits, moveLong }: { bytes: Uint8Array, limits: TextLimits, moveLong?: boolean }): ParseOutcome {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  if (text.trim() === '') return { empty: true }
  // Nesting and strings counted before anything is built.
  const shape = scanJson(text, limits)
  if (shape instanceof Error) return { refused: { code: shape.code, message: shape.message, status: shape.status, data: { ...shape.data } } }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { invalid: true }
  }
  if (moveLong !== true) return { value }
  const moved = takeLongStrings(value)
  return moved.length === 0 ? { value } : { value, moved }
}

/** A long string of an answer sent apart as bytes, and the stand-in that holds its place in the answer. */
export interface MovedString extends StringBytes { standIn: string }

/** An answer's bytes (its own buffer, to be moved to the caller's thread) and, when asked, the hash an ETag is made of. */
export interface Serialized { bytes: Uint8Array, hash?: string }

export function serialize ({ body, pretty, hash, moved = [] }: { body: unknown, pretty: boolean, hash: boolean, moved?: MovedString[] }): Serialized {
  let json = pretty ? JSON.stringify(body, null, 4) : JSON.stringify(body)
  // Each stand-in's JSON replaced by its string's (every place it holds: an object reached twice holds one twice).
  for (const m of moved) json = json.split(JSON.stringify(m.standIn)).join(JSON.stringify(textOf(m)))
  // TextEncoder's array owns its whole buffer: it can be transferred, not copied.
  const bytes = new TextEncoder().encode(json)
  return hash ? { bytes, hash: createHash('sha1').update(bytes).digest('base64url') } : { bytes }
}
