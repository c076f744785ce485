/**
 * Rendering an answer for the wire: the `_envelope`, `_jsonp` and `_pretty`
 * forms, a route's own serializer, the ETag of a GET, and the 304 answer to
 * a matching `If-None-Match`.
 */
import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { kernelErrors } from './errors.js'
import { ownHeaders } from './dispatch.js'
import type { HeaderValue } from './response.js'
import type { Serializer } from './route.js'

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

/** Envelope, JSONP and pretty printing, and the ETag of a GET. */
export function render (
  request: Pick<FastifyRequest, 'method' | 'query'>,
  status: number,
  headers: Record<string, HeaderValue>,
  body: unknown,
  serialize?: Serializer
): Rendered {
  const query = (request.query ?? {}) as Record<string, unknown>
  const custom = query._envelope === undefined ? serialize?.(query, status, body) : undefined
  if (custom !== undefined) {
    return { status, headers, contentType: custom.contentType, payload: custom.payload, etag: etagOf(request, status, headers, custom.payload) }
  }
  if (query._envelope !== undefined) {
    const own = ownHeaders(headers)
    body = { body, status, headers: Object.keys(own).length === 0 ? [] : own }
    status = 200
    headers = {}
  }
  const json = 'application/json; charset=UTF-8'
  if (status === 204 || ((body === null || body === undefined) && request.method === 'HEAD')) {
    return { status, headers, contentType: json, payload: undefined }
  }
  const payload = body === undefined ? 'null' : query._pretty !== undefined ? JSON.stringify(body, null, 4) : JSON.stringify(body)
  const jsonp = query._jsonp
  if (typeof jsonp === 'string' && jsonp !== '') {
    // A refused callback is answered as plain JSON: there is no script to run.
    if (!JSONP_NAME.test(jsonp)) {
      return { status: 400, headers: {}, contentType: json, payload: JSON.stringify(kernelErrors.rest_callback_invalid().toBody()) }
    }
    return { status, headers, contentType: 'application/javascript; charset=UTF-8', payload: `/**/${jsonp}(${payload})` }
  }
  return { status, headers, contentType: json, payload, etag: etagOf(request, status, headers, payload) }
}

/** GET answers carry a tag: the handler's own (a version), else a hash of the bytes. */
function etagOf (request: Pick<FastifyRequest, 'method'>, status: number, headers: Record<string, HeaderValue>, payload: string): string | undefined {
  if ((request.method !== 'GET' && request.method !== 'HEAD') || status !== 200) return undefined
  const own = headers.ETag ?? headers.Etag ?? headers.etag
  return own === undefined ? `W/"${createHash('sha1').update(payload).digest('base64url')}"` : String(own)
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
