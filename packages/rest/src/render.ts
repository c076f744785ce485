/**
 * Rendering an answer for the wire: the `_envelope`, `_jsonp` and `_pretty`
 * forms, a route's own serializer, the ETag of a GET, and the 304 answer to
 * a matching `If-None-Match`.
 */
import { hash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { kernelErrors } from './errors.js'
import { ownHeaders } from './dispatch.js'
import type { HeaderValue } from './response.js'
import type { Serializer } from './route.js'
import { jsonThread } from './json-thread.js'

const JSONP_NAME = /^[\w.]+$/

/** A response ready for the wire; cacheable as it is. */
export interface Rendered {
  status: number
  headers: Record<string, HeaderValue>
  contentType: string
  payload: string | undefined
  /** The payload encoded, when kept for reuse. */
  bytes?: Buffer
  etag?: string
}

/** What an answer is before it is serialized: done already (a route's own serializer, no body, a refused callback), or data to write as JSON. */
type Prepared =
  | { done: Rendered }
  | { done?: undefined, status: number, headers: Record<string, HeaderValue>, body: unknown, pretty: boolean, jsonp?: string }

export const JSON_TYPE = 'application/json; charset=UTF-8'

function prepare (
  request: Pick<FastifyRequest, 'method' | 'query'>,
  status: number,
  headers: Record<string, HeaderValue>,
  body: unknown,
  serialize?: Serializer
): Prepared {
  const query = (request.query ?? {}) as Record<string, unknown>
  const custom = query._envelope === undefined ? serialize?.(query, status, body) : undefined
  if (custom !== undefined) {
    return { done: { status, headers, contentType: custom.contentType, payload: custom.payload, etag: etagOf(request, status, headers, custom.payload) } }
  }
  if (query._envelope !== undefined) {
    const own = ownHeaders(headers)
    body = { body, status, headers: Object.keys(own).length === 0 ? [] : own }
    status = 200
    headers = {}
  }
  if (status === 204 || ((body === null || body === undefined) && request.method === 'HEAD')) {
    return { done: { status, headers, contentType: JSON_TYPE, payload: undefined } }
  }
  const jsonp = query._jsonp
  if (typeof jsonp === 'string' && jsonp !== '') {
    // A refused callback is answered as plain JSON: there is no script to run.
    if (!JSONP_NAME.test(jsonp)) {
      return { done: { status: 400, headers: {}, contentType: JSON_TYPE, payload: JSON.stringify(kernelErrors.rest_callback_invalid().toBody()) } }
    }
    return { status, headers, body, pretty: query._pretty !== undefined, jsonp }
  }
  return { status, headers, body, pretty: query._pretty !== undefined }
}

/** Envelope, JSONP and pretty printing, and the ETag of a GET. */
export function render (
  request: Pick<FastifyRequest, 'method' | 'query'>,
  status: number,
  headers: Record<string, HeaderValue>,
  body: unknown,
  serialize?: Serializer
): Rendered {
  const p = prepare(request, status, headers, body, serialize)
  if (p.done !== undefined) return p.done
  const payload = p.body === undefined ? 'null' : p.pretty ? JSON.stringify(p.body, null, 4) : JSON.stringify(p.body)
  if (p.jsonp !== undefined) return { status: p.status, headers: p.headers, contentType: 'application/javascript; charset=UTF-8', payload: `/**/${p.jsonp}(${payload})` }
  return { status: p.status, headers: p.headers, contentType: JSON_TYPE, payload, etag: etagOf(request, p.status, p.headers, payload) }
}

/**
 * `render`, with a large answer serialized, encoded and hashed in the
 * kernel's JSON thread (json-thread.ts): the same bytes and tag, as bytes
 * (`payload` undefined). Small answers, JSONP and anything the thread
 * cannot take are rendered inline.
 */
export async function renderAnswer (
  request: Pick<FastifyRequest, 'method' | 'query'>,
  status: number,
  headers: Record<string, HeaderValue>,
  body: unknown,
  serialize?: Serializer
): Promise<Rendered> {
  const p = prepare(request, status, headers, body, serialize)
  if (p.done !== undefined) return p.done
  if (p.jsonp === undefined && p.body !== undefined) {
    const own = taggedBy(request, p.status, p.headers)
    let off: Awaited<ReturnType<typeof jsonThread.serialize>>
    try {
      off = await jsonThread.serialize(p.body, p.pretty, own === null)
    } catch {
      // The thread failed (it is not used again): rendered here.
      off = undefined
    }
    if (off !== undefined) {
      const etag = own === undefined ? undefined : own === null ? `W/"${off.hash!}"` : own
      return { status: p.status, headers: p.headers, contentType: JSON_TYPE, payload: undefined, bytes: off.bytes, ...(etag === undefined ? {} : { etag }) }
    }
  }
  return render(request, status, headers, body, serialize)
}

/** Whether an answer is tagged: undefined not (not a 200 GET), null by a hash of its bytes, else by the handler's own tag (a version). */
function taggedBy (request: Pick<FastifyRequest, 'method'>, status: number, headers: Record<string, HeaderValue>): string | null | undefined {
  if ((request.method !== 'GET' && request.method !== 'HEAD') || status !== 200) return undefined
  const own = headers.ETag ?? headers.Etag ?? headers.etag
  return own === undefined ? null : String(own)
}

/** GET answers carry a tag: the handler's own (a version), else a hash of the bytes. */
function etagOf (request: Pick<FastifyRequest, 'method'>, status: number, headers: Record<string, HeaderValue>, payload: string): string | undefined {
  const own = taggedBy(request, status, headers)
  return own === null ? `W/"${hash('sha1', payload, 'base64url')}"` : own
}

/** Writes a rendered response, answering 304 when the client's tag matches. */
export function write (request: FastifyRequest, reply: FastifyReply, r: Rendered): FastifyReply {
  for (const [name, value] of Object.entries(r.headers)) reply.header(name, value)
  reply.code(r.status).type(r.contentType)
  if (r.etag !== undefined) {
    reply.header('ETag', r.etag)
    const inm = request.headers['if-none-match']
    if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === r.etag || t.trim() === '*')) {
      return reply.code(304).send()
    }
  }
  return reply.send(request.method === 'HEAD' ? undefined : r.bytes ?? r.payload)
}

/** Renders and writes data in one step (errors, OPTIONS, unknown routes). */
export async function send (
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  headers: Record<string, HeaderValue>,
  body: unknown
): Promise<FastifyReply> {
  return write(request, reply, render(request, status, headers, body))
}
