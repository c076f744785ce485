/**
 * Namespaces served by another service (a namespace service). The gateway
 * streams every request under such a namespace to the service with
 * @fastify/reply-from, whether or not it has that package's code: the bytes
 * come back as the service rendered them (`_envelope`, `_jsonp`, `_fields`
 * applied once, there). Batch and `_embed` sub-requests go to the service
 * too, with the caller's credentials. The service's route table (fetched from
 * its namespace root and OpenAPI document, and refreshed) feeds the gateway's
 * index, OpenAPI document and batch eligibility.
 *
 * A refused or reset connection is `502 rest_upstream_error`; no answer
 * within the timeout is `504 rest_upstream_timeout`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { Agent } from 'undici'
import { kernelErrors, type RestError } from './errors.js'
import { restUrl } from './links.js'
import { ownHeaders, splitPath, type DispatchRequest, type DispatchResponse } from './dispatch.js'
import { METHODS, route, type EndpointDecl, type Method, type RouteDecl } from './route.js'
import { routeFinder, type RouteFinder } from './router.js'
import { decidedElsewhere } from './permission.js'

export interface RemoteOptions {
  /** namespace -> the service's base URL (`http://seo:8080`). */
  services: Record<string, string>
  /** Longest wait for the service's answer (headers, then between body chunks), in ms. Default 10 s. */
  timeoutMs?: number
  /** How often the service's route table is fetched again, in ms. Default 60 s. */
  refreshMs?: number
  /** Paths outside the REST prefix each service answers (its package's pages), namespace -> paths. */
  pages?: Record<string, readonly string[]>
}

/** The caller's headers a namespace service gets (the rest stay at the gateway: cookies, hop-by-hop...). */
const FORWARDED_HEADERS = [
  'authorization', 'if-match', 'if-none-match', 'if-unmodified-since', 'if-modified-since',
  'accept', 'accept-language', 'user-agent', 'content-type', 'content-length', 'transfer-encoding',
  'content-disposition', 'content-md5'
]

const PROXIED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/** Who asked, as the gateway verified it: enough to forward a sub-request on their behalf. */
export interface Caller {
  /** The caller's own Authorization header. */
  authorization: string | undefined
  headers: FastifyRequest['headers']
  /** The client address chain, client first (the gateway's `X-Forwarded-For` to send). */
  forwardedFor: string
  /** The public base URL the caller used (`https://cms.example.com`). */
  baseUrl: string
}

interface Service {
  namespace: string
  /** Base URL without a trailing slash. */
  base: string
  /** The namespace root's `routes`, as the service listed them; undefined until fetched. */
  routes?: Record<string, Record<string, unknown>>
  /** The service's OpenAPI paths of this namespace. */
  paths?: Record<string, unknown>
  /** Patterns compiled for matching, with a declaration standing for each route. */
  find?: RouteFinder
  /** When its tables were last asked for (a missing table is asked for again at most once a second). */
  askedAt?: number
}

export interface RemoteNamespaces {
  readonly namespaces: readonly string[]
  /** Changes whenever a route table was fetched anew (for caches of the index). */
  version (): number
  /** The service that serves this path (relative to the API root), if any. */
  serviceOf (path: string): string | undefined
  /** The namespace's routes for the index, with links under `baseUrl`; undefined until fetched. */
  index (namespace: string, baseUrl: string): Record<string, unknown> | undefined
  /** A stand-in declaration of the remote route serving this method and path (batch eligibility). */
  match (method: string, path: string): { route: RouteDecl, endpoint: EndpointDecl<any>, vars: Record<string, string> } | null
  /** OpenAPI paths of every remote namespace but those in `off` (switched off: a deactivated plugin's). */
  openApiPaths (off?: ReadonlySet<string>): Record<string, unknown>
  /** Sends a sub-request (batch, `_embed`) to the service, as the caller. */
  dispatch (caller: Caller, req: DispatchRequest): Promise<DispatchResponse>
  /**
   * Registers the proxy routes and the fetching of route tables on the app;
   * `refuseOff(namespace)`: the `onRequest` hook refusing a namespace while
   * it is switched off (activation.ts), undefined when it cannot be.
   */
  register (app: FastifyInstance, prefix: string, refuseOff?: (namespace: string) => onRequestHookHandler | undefined): Promise<void>
}

export function remoteNamespaces (opts: RemoteOptions): RemoteNamespaces {
  const timeoutMs = opts.timeoutMs ?? 10_000
  const refreshMs = opts.refreshMs ?? 60_000
  // Longest namespace first: `builder/v1/documents` before `builder/v1`.
  const services: Service[] = Object.entries(opts.services)
    .map(([namespace, base]) => ({ namespace, base: base.replace(/\/+$/, '') }))
    .sort((a, b) => b.namespace.length - a.namespace.length)
  // undici and reply-from (about 1 MB of modules) are loaded only when a namespace is served elsewhere.
  let loaded: Promise<{ agent: Agent, request: typeof import('undici').request }> | undefined
  const undici = async (): Promise<{ agent: Agent, request: typeof import('undici').request }> => await (loaded ??= import('undici').then(({ Agent, request }) => ({
    agent: new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connect: { timeout: timeoutMs } }),
    request
  })))
  let version = 0
  let log: FastifyInstance['log'] | undefined

  /** A service whose tables are not known yet is asked again (in the background) when they are needed. */
  const known = (service: Service | undefined): Service | undefined => {
    if (service !== undefined && service.routes === undefined && log !== undefined && Date.now() - (service.askedAt ?? 0) > 1000) {
      void fetchTables(service, log)
    }
    return service
  }

  const serviceFor = (path: string): Service | undefined => {
    const lower = path.toLowerCase()
    return services.find((s) => lower === `/${s.namespace}` || lower.startsWith(`/${s.namespace}/`) || lower.startsWith(`/${s.namespace}?`))
  }

  /** The service's namespace root and OpenAPI document; a failure keeps what was known. */
  async function fetchTables (service: Service, log: FastifyInstance['log']): Promise<void> {
    service.askedAt = Date.now()
    try {
      const { agent, request: undiciRequest } = await undici()
      const res = await undiciRequest(`${service.base}/cms-json/${service.namespace}`, { dispatcher: agent, headers: { accept: 'application/json' } })
      const body = await res.body.json() as { routes?: Record<string, Record<string, unknown>> }
      if (res.statusCode !== 200 || typeof body.routes !== 'object' || body.routes === null) throw new Error(`namespace root answered ${res.statusCode}`)
      let paths: Record<string, unknown> | undefined
      const doc = await undiciRequest(`${service.base}/openapi.json`, { dispatcher: agent })
      if (doc.statusCode === 200) {
        const all = ((await doc.body.json()) as { paths?: Record<string, Record<string, { tags?: string[] }>> }).paths ?? {}
        paths = Object.fromEntries(Object.entries(all).filter(([, ops]) =>
          Object.values(ops).some((op) => op?.tags?.includes(service.namespace) === true)))
      } else {
        await doc.body.dump()
      }
      service.routes = body.routes
      service.paths = paths
      service.find = routeFinder(standInsOf(service.namespace, body.routes), { lenient: true })
      version++
    } catch (err) {
      log.warn({ err, namespace: service.namespace, service: service.base }, 'could not read the route table of a namespace service')
    }
  }

  async function dispatch (caller: Caller, req: DispatchRequest): Promise<DispatchResponse> {
    const service = serviceFor(splitPath(req.path).pathname)
    if (service === undefined) throw new Error(`no service serves ${req.path}`)
    const { pathname, search } = splitPath(req.path)
    const params = new URLSearchParams(search)
    for (const [k, v] of Object.entries(req.query ?? {})) params.set(k, String(v))
    const qs = params.toString()
    const headers: Record<string, string> = {}
    for (const name of ['accept-language', 'user-agent']) {
      const value = caller.headers[name]
      if (typeof value === 'string') headers[name] = value
    }
    for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
    if (caller.authorization !== undefined) headers.authorization = caller.authorization
    Object.assign(headers, forwardingHeaders(caller.forwardedFor, caller.baseUrl))
    if (req.body !== undefined) headers['content-type'] = 'application/json'
    try {
      const { agent, request: undiciRequest } = await undici()
      const res = await undiciRequest(`${service.base}/cms-json${encodeURI(pathname)}${qs === '' ? '' : `?${qs}`}`, {
        dispatcher: agent,
        method: req.method.toUpperCase() as 'GET',
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body)
      })
      const text = await res.body.text()
      let body: unknown = null
      if (text !== '') {
        try { body = JSON.parse(text) } catch { body = text }
      }
      return { status: res.statusCode, headers: ownHeaders(res.headers as Record<string, unknown>), body }
    } catch (err) {
      const error = upstreamError(err, service.namespace)
      return { status: error.status, headers: {}, body: error.toBody() }
    }
  }

  async function register (app: FastifyInstance, prefix: string, refuseOff?: (namespace: string) => onRequestHookHandler | undefined): Promise<void> {
    if (services.length === 0) return
    log = app.log
    const [{ agent }, { default: replyFrom }] = await Promise.all([undici(), import('@fastify/reply-from')])
    // Its own scope: bodies are not parsed here but streamed to the service as they come.
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers()
      scope.addContentTypeParser('*', (_request, payload, done) => { done(null, payload) })
      await scope.register(replyFrom, { undici: agent as never, disableRequestLogging: true })
      for (const service of services) {
        const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
          // The query string is sent as it came (reply-from takes it from the request).
          const source = `${service.base}${splitPath(request.url).pathname}`
          // reply-from refuses (throws on) `..` segments: they would leave the namespace on the service.
          try {
            return proxy(reply, source)
          } catch {
            throw kernelErrors.rest_invalid_url()
          }
        }
        const proxy = (reply: FastifyReply, source: string): FastifyReply => {
          return reply.from(source, {
            timeout: timeoutMs,
            rewriteRequestHeaders: (req, headers) => {
              const out: Record<string, string | string[]> = { host: headers.host as string }
              for (const name of FORWARDED_HEADERS) {
                const value = req.headers[name]
                if (value !== undefined) out[name] = value
              }
              return { ...out, ...forwardingHeaders(forwardedForOf(req), req.baseUrl) }
            },
            // A 503 of the service (its database is down) is its answer, not a reason to ask again.
            retryDelay: () => null,
            onError: (reply, { error }) => {
              reply.request.log.warn({ err: error, namespace: service.namespace }, 'namespace service failed')
              // The kernel's error handler renders it (with `_envelope` and the rest).
              void reply.send(upstreamError(error, service.namespace))
            }
          })
        }
        // Switched off (its plugin deactivated): answered here as a route never declared, nothing sent on.
        const offHook = refuseOff?.(service.namespace)
        for (const url of [`${prefix}/${service.namespace}`, `${prefix}/${service.namespace}/*`, ...(opts.pages?.[service.namespace] ?? [])]) {
          scope.route({
            method: [...PROXIED_METHODS],
            url,
            exposeHeadRoute: false,
            ...(offHook === undefined || !url.startsWith(`${prefix}/`) ? {} : { onRequest: offHook }),
            config: { remoteNamespace: service.namespace } as Record<string, unknown>,
            schema: { hide: true } as Record<string, unknown>,
            handler
          })
        }
      }
    })

    let timer: NodeJS.Timeout | undefined
    const refreshAll = async (): Promise<void> => {
      await Promise.all(services.map(async (s) => { await fetchTables(s, app.log) }))
    }
    app.addHook('onReady', async () => {
      await refreshAll()
      timer = setInterval(() => { void refreshAll() }, refreshMs)
      timer.unref()
    })
    app.addHook('onClose', async () => {
      if (timer !== undefined) clearInterval(timer)
      await agent.close()
    })
  }

  return {
    namespaces: services.map((s) => s.namespace),
    version: () => version,
    serviceOf: (path) => serviceFor(path)?.namespace,
    index (namespace, baseUrl) {
      const routes = known(services.find((s) => s.namespace === namespace))?.routes
      if (routes === undefined) return undefined
      const out: Record<string, unknown> = {}
      for (const [pattern, entry] of Object.entries(routes)) {
        // Links point at this gateway, not at the service.
        out[pattern] = entry._links === undefined ? entry : { ...entry, _links: { self: [{ href: restUrl(baseUrl, pattern) }] } }
      }
      return out
    },
    match (method, path) {
      const service = known(serviceFor(path))
      // As the service's own router would find it.
      return service?.find?.(method, path) ?? null
    },
    openApiPaths (off) {
      return Object.assign({}, ...services.filter((s) => off?.has(s.namespace) !== true).map((s) => s.paths ?? {})) as Record<string, unknown>
    },
    dispatch,
    register
  }
}

/** Whether a request is for a namespace service (set on the proxy routes). */
export function isProxied (request: FastifyRequest): boolean {
  return (request.routeOptions.config as { remoteNamespace?: string } | undefined)?.remoteNamespace !== undefined
}

/** The client address chain the gateway vouches for, client first: `X-Forwarded-For` to send on. */
export function forwardedForOf (request: Pick<FastifyRequest, 'ips' | 'ip'>): string {
  return [...(request.ips ?? [request.ip])].reverse().join(', ')
}

function forwardingHeaders (forwardedFor: string, baseUrl: string): Record<string, string> {
  const url = new URL(baseUrl)
  return {
    'x-forwarded-for': forwardedFor,
    'x-forwarded-proto': url.protocol.slice(0, -1),
    'x-forwarded-host': url.host
  }
}

/**
 * A timeout (headers, connection) is 504; any other failure to get an answer,
 * 502. Both name the namespace (in the message and as `data.namespace`), so a
 * client or an operator knows which service to look at.
 */
function upstreamError (err: unknown, namespace: string): RestError {
  const e = err as { statusCode?: number, code?: string, cause?: { code?: string } } | null
  const code = e?.code ?? e?.cause?.code
  const timedOut = e?.statusCode === 504 || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT'
  return timedOut
    ? kernelErrors.rest_upstream_timeout({ namespace }, `The service of the ${namespace} namespace did not answer in time.`)
    : kernelErrors.rest_upstream_error({ namespace }, `The service of the ${namespace} namespace failed to answer.`)
}

/** Stand-in declarations of the service's routes: their methods and batch eligibility (the service validates). */
function standInsOf (namespace: string, routes: Record<string, Record<string, unknown>>): RouteDecl[] {
  const out: RouteDecl[] = []
  for (const [pattern, entry] of Object.entries(routes)) {
    const endpoints = Array.isArray(entry.endpoints) ? entry.endpoints as Array<{ methods?: string[], allow_batch?: { v1?: boolean } }> : []
    try {
      out.push(route({
        namespace,
        path: pattern,
        endpoints: endpoints.map((ep) => ({
          methods: (ep.methods ?? []).filter((m): m is Method => (METHODS as readonly string[]).includes(m)),
          allowBatch: ep.allow_batch?.v1 === true,
          permission: decidedElsewhere,
          handler: () => { throw kernelErrors.rest_no_route() }
        }))
      }))
    } catch {
      // A pattern this kernel cannot read is left out.
    }
  }
  return out
}
