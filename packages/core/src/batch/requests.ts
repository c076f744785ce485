/**
 * One request of a batch: its path split into route and query, checked
 * against the route it names before anything runs (route exists, batch
 * allowed, parameters valid), and turned into a dispatch request.
 */
import { endpointValidator, isPlainObject, kernelErrors, mergeParams, parseQuery, patternOf, RestError, routePathOf, type DispatchRequest, type EndpointDecl, type RestRequest, type RouteDecl } from '@cms/rest'
// The kernel's validation, run ahead of dispatch; @cms/rest does not export it from its index.
import { batchErrors } from './errors.js'

export interface BatchItem {
  /** Absent means POST (nested defaults are not applied by validation). */
  method?: string
  path: string
  body?: Record<string, unknown>
  headers?: Record<string, string | string[]>
}

export type Prepared =
  /** `joins`: its endpoint runs in the batch's transaction (`batchTransaction`). */
  | { ok: true, dispatch: DispatchRequest, joins: boolean }
  /** `route` is set when the path matched a route (its Allow header goes with the error; the audit log records it). */
  | { ok: false, error: RestError, route?: RouteDecl, sub?: RestRequest, endpoint?: EndpointDecl<any>, vars?: Record<string, string> }

/** Parameters that shape a whole response; a sub-response is always plain JSON with its links. */
const STEERING = new Set(['_method', '_envelope', '_embed', '_jsonp', '_pretty'])

/** Headers the dispatch sets itself or that would change what is dispatched. */
const RESERVED_HEADERS = new Set([
  'host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade',
  'expect', 'te', 'trailer', 'authorization', 'cookie', 'x-http-method-override', 'x-cms-internal'
])

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** `path?query#fragment`, with any `scheme://host` dropped as the core drops it; null when unusable. */
export function splitItemPath (raw: string): { pathname: string, search: string } | null {
  if (/[\u0000-\u001f\u007f]/.test(raw)) return null
  let rest = raw.replace(/#[\s\S]*$/, '')
  const authority = /^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/?#]*/i.exec(rest)
  if (authority !== null) {
    try {
      // eslint-disable-next-line no-new
      new URL(authority[0].startsWith('//') ? `http:${authority[0]}` : authority[0])
    } catch {
      return null
    }
    rest = rest.slice(authority[0].length)
  }
  const q = rest.indexOf('?')
  return q === -1 ? { pathname: rest, search: '' } : { pathname: rest.slice(0, q), search: rest.slice(q + 1) }
}

function keyOf (part: string): string {
  const eq = part.indexOf('=')
  const raw = eq === -1 ? part : part.slice(0, eq)
  let key: string
  try { key = decodeURIComponent(raw.replace(/\+/g, ' ')) } catch { key = raw }
  const bracket = key.indexOf('[')
  return bracket === -1 ? key : key.slice(0, bracket)
}

function cleanHeaders (headers: BatchItem['headers']): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase()
    if (!TOKEN.test(name) || RESERVED_HEADERS.has(lower)) continue
    const joined = Array.isArray(value) ? value.join(', ') : String(value)
    if (/[\r\n\0]/.test(joined)) continue
    out[lower] = joined
  }
  return out
}

/** Everything the core checks before running any request of the batch; no permission checks. */
export function prepare (item: BatchItem, parent: RestRequest, off: ReadonlySet<string> = new Set()): Prepared {
  const split = splitItemPath(item.path)
  if (split === null) return { ok: false, error: batchErrors.parse_path_failed() }
  const search = split.search.split('&').filter((p) => p !== '' && !STEERING.has(keyOf(p))).join('&')
  const method = item.method ?? 'POST'
  const match = parent.registry.match(method, split.pathname)
  // A deactivated plugin's route (the kernel's activation) is no route.
  if (match === null || off.has(match.route.namespace)) return { ok: false, error: kernelErrors.rest_no_route() }

  const query = parseQuery(search)
  const body = isPlainObject(item.body) && Object.keys(item.body).length > 0 ? item.body : undefined
  const headers = cleanHeaders(item.headers)
  const sub: RestRequest = {
    ...parent,
    method: method as RestRequest['method'],
    route: patternOf(match.route),
    path: split.pathname,
    routePath: routePathOf(patternOf(match.route), match.vars),
    params: mergeParams(query, body, match.vars),
    query,
    headers
  }
  if ((match.endpoint.allowBatch ?? match.route.allowBatch) !== true) {
    return { ok: false, error: batchErrors.rest_batch_not_allowed(), route: match.route, sub, endpoint: match.endpoint, vars: match.vars }
  }
  try {
    endpointValidator(match.endpoint)(sub.params)
  } catch (err) {
    if (err instanceof RestError) return { ok: false, error: err, route: match.route, sub, endpoint: match.endpoint, vars: match.vars }
    throw err
  }
  return {
    ok: true,
    joins: match.endpoint.batchTransaction === true,
    dispatch: {
      method,
      path: search === '' ? split.pathname : `${split.pathname}?${search}`,
      body,
      headers
    }
  }
}

/** The methods of a route this caller may use (the Allow header the core adds to a matched route's errors). */
export async function allowedMethods (route: RouteDecl, sub: RestRequest): Promise<string> {
  const allowed: string[] = []
  for (const ep of route.endpoints) {
    try {
      if ((await ep.permission.check({ ...sub, method: ep.methods[0]! })) === true) allowed.push(...ep.methods)
    } catch {
      // A permission check that fails on unvalidated input does not grant the method.
    }
  }
  return allowed.join(', ')
}
