/**
 * The JSON thread's tasks (json-thread.ts runs them in a worker thread, or
 * inline when it cannot start one): reading a large request body (decode,
 * the nesting and string scan, JSON.parse) and writing a large answer
 * (JSON.stringify, UTF-8 encoding, the ETag's hash), each of which costs
 * tens of milliseconds per megabyte on whichever thread runs it. Refusals
 * come back as values (an error object does not cross threads as itself).
 */
import { createHash } from 'node:crypto'
import type { MessagePort } from 'node:worker_threads'
import { scanJson, type TextLimits } from './json-scan.js'
import { takeLongStrings, textOf, type MovedAt, type StringBytes } from './moved-strings.js'
import { noteKeys } from './listed-keys.js'

export interface Refusal { code: string, message: string, status: number, data: Record<string, unknown> }

/**
 * A parsed body: its value, nothing (a blank body), a refusal of the scan, or not JSON at all. A large value comes
 * from the thread as an empty container of its kind and `pieces` to fill it with (`piecesOf`), handed to the
 * caller's thread on a port of its own (`port`, `count` pieces) by json-worker.mjs.
 */
export type ParseOutcome = { value: unknown, moved?: MovedAt[], pieces?: Piece[], port?: MessagePort, count?: number } | { empty: true } | { refused: Refusal } | { invalid: true }

/**
 * Weight a piece of a parsed value copied back from the thread holds at most (issue 27): deserializing the
 * structured clone of a 22,500-member object took about 20 ms in one turn of the request thread. A value counts 1,
 * and a string or key 1 more per 64 characters (long strings are moved apart, moved-strings.ts).
 */
export const PIECE_WEIGHT = 2048

/**
 * Members of one container (`c`: 0 the root, then the large containers in the order their placeholders come), in
 * order: their keys (`k`, for an object) and values (`v`); `sub` lists the places of `v` that hold a large
 * container (0 an object, 1 an array), filled by later pieces; `w` is the piece's weight.
 */
export interface Piece { c: number, k?: string[], v: unknown[], sub?: number[], w: number }

function weigh (v: unknown, weights: Map<object, number>): number {
  if (typeof v === 'string') return 1 + (v.length >> 6)
  if (typeof v !== 'object' || v === null) return 1
  let w = 1
  if (Array.isArray(v)) for (const x of v) w += weigh(x, weights)
  else for (const k of Object.keys(v)) w += (k.length >> 6) + weigh((v as Record<string, unknown>)[k], weights)
  weights.set(v, w)
  return w
}

/**
 * A parsed value as pieces of at most `max` weight (a member heavier than that alone, as its container's
 * placeholder, its own members in pieces of their own), or undefined when it is no heavier (one message, as
 * before). The value is JSON.parse's: nothing is shared, the nesting is bounded by the scan.
 */
export function piecesOf (root: unknown, max = PIECE_WEIGHT): Piece[] | undefined {
  if (typeof root !== 'object' || root === null) return undefined
  const weights = new Map<object, number>()
  if (weigh(root, weights) <= max) return undefined
  const pieces: Piece[] = []
  const queue: object[] = [root]
  for (let c = 0; c < queue.length; c++) {
    const o = queue[c] as Record<string, unknown>
    const keys = Array.isArray(o) ? undefined : Object.keys(o)
    const n = keys === undefined ? (o as unknown as unknown[]).length : keys.length
    let piece: Piece | undefined
    for (let i = 0; i < n; i++) {
      const key = keys?.[i]
      const x = key === undefined ? (o as unknown as unknown[])[i] : o[key]
      const xw = typeof x === 'object' && x !== null ? weights.get(x)! : weigh(x, weights)
      const large = xw > max
      const w = (key === undefined ? 0 : key.length >> 6) + (large ? 1 : xw)
      if (piece !== undefined && piece.w + w > max) {
        pieces.push(piece)
        piece = undefined
      }
      piece ??= keys === undefined ? { c, v: [], w: 0 } : { c, k: [], v: [], w: 0 }
      if (large) {
        (piece.sub ??= []).push(piece.v.length)
        piece.v.push(Array.isArray(x) ? 1 : 0)
        queue.push(x as object)
      } else piece.v.push(x)
      if (key !== undefined) piece.k!.push(key)
      piece.w += w
    }
    if (piece !== undefined) pieces.push(piece)
  }
  return pieces
}

/**
 * Puts `piece` in place: `containers` holds the root first, and gets each large container as its placeholder comes.
 * An object's keys are noted as they come (listed-keys.ts), for the sliced walks of its validation.
 */
export function assemblePiece (containers: unknown[], piece: Piece): void {
  const target = containers[piece.c] as Record<string, unknown>
  const { k, v, sub } = piece
  if (k !== undefined) noteKeys(containers[0] as object, target, k)
  let s = 0
  for (let i = 0; i < v.length; i++) {
    let x = v[i]
    if (sub !== undefined && sub[s] === i) {
      s++
      x = x === 1 ? [] : {}
      containers.push(x)
    }
    if (k === undefined) (target as unknown as unknown[]).push(x)
    // An own data property, as JSON.parse makes it: assigning `__proto__` would set the prototype.
    else if (k[i] === '__proto__') Object.defineProperty(target, '__proto__', { value: x, writable: true, enumerable: true, configurable: true })
    else target[k[i]!] = x
  }
}

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
  // A large value goes back in pieces (json-worker.mjs), its long strings already taken out.
  const pieces = piecesOf(value)
  const out: { value: unknown, moved?: MovedAt[], pieces?: Piece[] } = pieces === undefined ? { value } : { value: Array.isArray(value) ? [] : {}, pieces }
  if (moved.length > 0) out.moved = moved
  return out
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
