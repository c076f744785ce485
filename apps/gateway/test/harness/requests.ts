/**
 * A request as plain data (so a failing one can be printed and replayed),
 * the PHP-style encoders for query strings and form bodies, and two ways
 * to send it: in process (`app.inject`) or over a real loopback socket.
 */
import type { FastifyInstance } from 'fastify'
import { request as httpRequest } from 'undici'

export interface HttpRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string
}

export interface HttpResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** `a[b][0]=1&c=x`: how PHP (and the kernel) read nested values from a query string or form body. */
export function encodeParams (params: Record<string, unknown>): string {
  const parts: string[] = []
  const add = (key: string, value: unknown): void => {
    if (value === undefined) return
    if (value === null) { parts.push(`${encodeKey(key)}=`); return }
    if (Array.isArray(value)) {
      if (value.length === 0) parts.push(`${encodeKey(key)}=`)
      value.forEach((v, i) => { add(`${key}[${typeof v === 'object' && v !== null ? i : ''}]`, v) })
      return
    }
    if (typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>)
      if (entries.length === 0) parts.push(`${encodeKey(key)}=`)
      for (const [k, v] of entries) add(`${key}[${k}]`, v)
      return
    }
    parts.push(`${encodeKey(key)}=${encodeURIComponent(String(value))}`)
  }
  for (const [k, v] of Object.entries(params)) add(k, v)
  return parts.join('&')
}

function encodeKey (key: string): string {
  return encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']')
}

export async function inject (app: FastifyInstance, req: HttpRequest): Promise<HttpResponse> {
  const res = await app.inject({
    method: req.method as 'GET',
    url: req.url,
    headers: req.headers,
    ...(req.payload === undefined ? {} : { payload: req.payload })
  })
  return { status: res.statusCode, headers: res.headers as HttpResponse['headers'], body: res.body }
}

/** Sends over HTTP to `base` (a loopback URL), with a deadline. */
export async function send (base: string, req: HttpRequest, timeoutMs = 30_000): Promise<HttpResponse> {
  const res = await httpRequest(base + req.url, {
    method: req.method as 'GET',
    headers: req.headers,
    body: req.payload,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs
  })
  const body = await res.body.text()
  return { status: res.statusCode, headers: res.headers as HttpResponse['headers'], body }
}

export function describe (req: HttpRequest): string {
  const payload = req.payload === undefined ? '' : ` body(${req.payload.length})=${clip(req.payload, 300)}`
  const headers = Object.entries(req.headers).filter(([k]) => k !== 'authorization').map(([k, v]) => `${k}: ${clip(v, 80)}`).join('; ')
  const auth = req.headers.authorization
  const who = auth === undefined ? 'no credentials' : `authorization: ${clip(auth, 40)}`
  return `${req.method} ${clip(req.url, 400)} [${who}${headers === '' ? '' : `; ${headers}`}]${payload}`
}

export function clip (s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}…(${s.length} chars)`
}
