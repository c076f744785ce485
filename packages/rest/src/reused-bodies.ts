/**
 * Bodies a handler answers with again: a handler that keeps what it
 * answered (a list page formatted for one caller's rights, kept while
 * nothing is committed) marks it with `reusedBody`, and the kernel keeps the
 * bytes that body was shaped and serialized into, with the shaping that made
 * them (the context, `_fields`, `_pretty`). The next request answered with
 * the same object and the same shaping writes those bytes and their tag:
 * shaping, serialization and hashing ran once for both.
 *
 * The bytes live as long as the body does: the handler's cache bounds them.
 * A marked body must never be changed once returned. Answers this does not
 * cover are made as before: `_embed` (the embedded answers are other
 * requests'), `_envelope` and `_jsonp` (they wrap the headers or a name),
 * an answer with its own tag, and in-process dispatch (batch, `_embed`:
 * those want the data, not bytes).
 */
import type { Rendered } from './render.js'

const marked = new WeakSet<object>()
/** One shaping per body: the one asked last (callers of one page mostly ask it one way). */
const kept = new WeakMap<object, { key: string, bytes: Buffer, etag: string }>()

/** Marks `body` as one the handler answers with again, unchanged, for requests that would get the same bytes. */
export function reusedBody<T extends object> (body: T): T {
  marked.add(body)
  return body
}

/**
 * The key of a marked body's bytes for this request's shaping, or
 * undefined when they are not reused (see above).
 */
export function reuseKey (body: unknown, query: Record<string, unknown>, context: unknown, ownTag: boolean): string | undefined {
  if (typeof body !== 'object' || body === null || !marked.has(body) || ownTag) return undefined
  if (query._embed !== undefined || query._envelope !== undefined || query._jsonp !== undefined) return undefined
  return `${typeof context === 'string' ? context : ''}\u0000${JSON.stringify(query._fields) ?? ''}\u0000${query._pretty !== undefined ? 1 : 0}`
}

/** The bytes and tag `body` was answered with under `key`. */
export function reusedBytes (body: object, key: string): { bytes: Buffer, etag: string } | undefined {
  const hit = kept.get(body)
  return hit?.key === key ? hit : undefined
}

/** Keeps what `body` was rendered into under `key` (a 200 with a tag of its bytes); the bytes are set on `response` for the wire. */
export function keepBytes (body: object, key: string, response: Rendered): void {
  if (response.status !== 200 || response.etag === undefined) return
  const bytes = response.bytes ?? (response.payload === undefined ? undefined : Buffer.from(response.payload))
  if (bytes === undefined) return
  response.bytes = bytes
  kept.set(body, { key, bytes, etag: response.etag })
}
