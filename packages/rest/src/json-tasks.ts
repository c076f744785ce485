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

export interface Refusal { code: string, message: string, status: number, data: Record<string, unknown> }

/** A parsed body: its value, nothing (a blank body), a refusal of the scan, or not JSON at all. */
export type ParseOutcome = { value: unknown } | { empty: true } | { refused: Refusal } | { invalid: true }

export function parseBody ({ bytes, limits }: { bytes: Uint8Array, limits: TextLimits }): ParseOutcome {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  if (text.trim() === '') return { empty: true }
  // Nesting and strings counted before anything is built.
  const shape = scanJson(text, limits)
  if (shape instanceof Error) return { refused: { code: shape.code, message: shape.message, status: shape.status, data: { ...shape.data } } }
  try {
    return { value: JSON.parse(text) }
  } catch {
    return { invalid: true }
  }
}

/** An answer's bytes (its own buffer, to be moved to the caller's thread) and, when asked, the hash an ETag is made of. */
export interface Serialized { bytes: Uint8Array, hash?: string }

export function serialize ({ body, pretty, hash }: { body: unknown, pretty: boolean, hash: boolean }): Serialized {
  const json = pretty ? JSON.stringify(body, null, 4) : JSON.stringify(body)
  // TextEncoder's array owns its whole buffer: it can be transferred, not copied.
  const bytes = new TextEncoder().encode(json)
  return hash ? { bytes, hash: createHash('sha1').update(bytes).digest('base64url') } : { bytes }
}
