/**
 * Dispatch is one function: batch, `_embed` and the gateway send a request
 * through it and get a response back, whether the namespace is served in
 * this process or by another service (remote.ts).
 */
import type { HeaderValue } from './response.js'

export interface DispatchRequest {
  method: string
  /** Path relative to the API root, may carry its own query string: `/cms/v2/posts?per_page=1`. */
  path: string
  query?: Record<string, unknown>
  /** Parsed body; sent as JSON. */
  body?: unknown
  headers?: Record<string, string | string[]>
}

export interface DispatchResponse {
  status: number
  headers: Record<string, HeaderValue>
  body: unknown
}

export type Dispatch = (req: DispatchRequest) => Promise<DispatchResponse>

/** Headers of a response that belong to it rather than to the server (as the envelope shows them). */
const SERVER_HEADERS = new Set([
  'content-type', 'content-length', 'connection', 'date', 'keep-alive', 'transfer-encoding',
  'x-robots-tag', 'x-content-type-options', 'access-control-expose-headers',
  'access-control-allow-headers', 'access-control-allow-origin', 'access-control-allow-methods',
  'access-control-allow-credentials', 'vary', 'expires', 'cache-control'
])

export function ownHeaders (headers: Record<string, unknown>): Record<string, HeaderValue> {
  const out: Record<string, HeaderValue> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || SERVER_HEADERS.has(name.toLowerCase())) continue
    out[canonicalHeaderName(name)] = value as HeaderValue
  }
  return out
}

const CANONICAL: Record<string, string> = {
  'x-cms-total': 'X-CMS-Total',
  'x-cms-totalpages': 'X-CMS-TotalPages',
  'x-cms-nonce': 'X-CMS-Nonce'
}

export function canonicalHeaderName (name: string): string {
  const lower = name.toLowerCase()
  return CANONICAL[lower] ?? lower.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase())
}

export function splitPath (path: string): { pathname: string, search: string } {
  const q = path.indexOf('?')
  return q === -1 ? { pathname: path, search: '' } : { pathname: path.slice(0, q), search: path.slice(q + 1) }
}
