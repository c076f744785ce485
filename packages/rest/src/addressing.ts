/**
 * Addressing, before routing (Fastify's `rewriteUrl`): which URLs are REST
 * requests (`/cms-json/...`), the `?rest_route=/ns/route` form of the same
 * address, and the method override (`_method`, `X-HTTP-Method-Override`).
 */
import type { IncomingMessage } from 'node:http'
import { splitPath } from './dispatch.js'

export const API_PREFIX = '/cms-json'

/** Where a `rest_route` that is not a string is sent (answered 400 by the caller hook). */
export const INVALID_ROUTE = `${API_PREFIX}/__rest_route_not_a_string`
/** Where a URL longer than the limit is sent (answered 414 by the caller hook, its query unread). */
export const URI_TOO_LONG = `${API_PREFIX}/__rest_uri_too_long`
/** Where an override to a method no route has is sent (answered as an unknown route). */
const NO_ROUTE = `${API_PREFIX}/__rest_no_route`
const OVERRIDABLE = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const

/** `?rest_route=/ns/route&x=1` -> `/cms-json/ns/route?x=1`; also applies `_method`. */
export function rewriteRestUrl (this: unknown, req: IncomingMessage): string {
  const url = req.url ?? '/'
  const { pathname, search } = splitPath(url)
  let out = url
  if (search !== '' && (pathname === '/' || pathname === '/index.php') && /(^|&)rest_route(=|%5B|\[)/i.test(search)) {
    const kept: string[] = []
    let route: string | null = null
    for (const part of search.split('&')) {
      const eq = part.indexOf('=')
      const key = safeDecode(eq === -1 ? part : part.slice(0, eq))
      if (key === 'rest_route') route = safeDecode(eq === -1 ? '' : part.slice(eq + 1))
      else if (key.startsWith('rest_route[')) route = '\0'
      else if (part !== '') kept.push(part)
    }
    if (route === '\0') {
      out = INVALID_ROUTE
    } else if (route !== null && route !== '') {
      route = route.replace(/\/+$/, '')
      if (!route.startsWith('/')) route = `/${route}`
      const encoded = route.replace(/[?#%\s]/g, (c) => encodeURIComponent(c))
      out = API_PREFIX + encoded + (kept.length > 0 ? `?${kept.join('&')}` : '')
    }
  }
  // Read from the request's own query: a refused rest_route must not drop the override (a HEAD stays body-less).
  // As in PHP's query parsing, the last `_method` given wins.
  const override = search.includes('_method=') ? [...`?${search}`.matchAll(/(?:^|[?&])_method=([^&]*)/g)].at(-1) ?? null : null
  const header = req.headers['x-http-method-override']
  const wanted = override !== null ? safeDecode(override[1]!) : typeof header === 'string' && header !== '' ? header : undefined
  if (wanted !== undefined) {
    if (override === null) (req as IncomingMessage & { cmsOverridden?: boolean }).cmsOverridden = true
    const method = wanted.toUpperCase()
    // A method no route has cannot match: answered as an unknown route.
    if (!(OVERRIDABLE as readonly string[]).includes(method)) return NO_ROUTE
    req.method = method
  }
  return out
}

/** Whether the method was overridden by a header (set by {@link rewriteRestUrl}). */
export function overriddenByHeader (raw: IncomingMessage): boolean {
  return (raw as IncomingMessage & { cmsOverridden?: boolean }).cmsOverridden === true
}

function safeDecode (s: string): string {
  try { return decodeURIComponent(s.replace(/\+/g, ' ')) } catch { return s }
}

export function isRestPath (url: string): boolean {
  // Only the prefix is compared: a long URL is not copied to lower case.
  const head = url.slice(0, API_PREFIX.length + 1).toLowerCase()
  return head === API_PREFIX || head === `${API_PREFIX}/` || head === `${API_PREFIX}?`
}

/** `/cms-json/cms/v2/posts?x=1` -> `/cms/v2/posts`, the path relative to the API root. */
export function restPathOf (url: string): string {
  return url.slice(API_PREFIX.length).split('?')[0] || '/'
}
