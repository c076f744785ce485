/**
 * A request as plain data (so a failing one can be printed and replayed),
 * the PHP-style encoders for query strings and form bodies, and two ways
 * to send it: in process (`app.inject`) or over a real loopback socket.
 */
import type { HttpRequest, HttpResponse } from '@cms/core/testing'
import { request as httpRequest } from 'undici'

export { encodeParams, inject, type HttpRequest, type HttpResponse } from '@cms/core/testing'

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
