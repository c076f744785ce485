/**
 * The kernel as a Fastify plugin: it turns route declarations into Fastify
 * routes and runs the request semantics around every handler (addressing,
 * authentication, parameters, permission, context, `_fields`, `_embed`,
 * `_envelope`, ETag, CORS, errors).
 */
import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import type { IncomingMessage } from 'node:http'
import fp from 'fastify-plugin'
import { Type } from '@sinclair/typebox'
import { denied, kernelErrors, RestError } from './errors.js'
import { anonymous, argsOf, fastifyPathOf, patternOf, requestMemo, variablesOf, METHODS, type Method, type NamespaceDecl, type Principal, type Registry, type RestRequest, type RouteDecl, type Serializer } from './route.js'
import { isPlainObject, mergeParams, parseQuery } from './params.js'
import { validateArgs } from './validate.js'
import { filterByContext } from './context.js'
import { filterFields, parseFields } from './fields.js'
import { compactLinks, restUrl, type Links } from './links.js'
import { embedLinks, parseEmbed } from './embed.js'
import { routeEntry, routesIndex } from './discovery.js'
import { ownHeaders, splitPath, type Dispatch, type DispatchRequest } from './dispatch.js'
import { forwardedForOf, isProxied, remoteNamespaces, type RemoteNamespaces } from './remote.js'
import { asResponse, cachedResponse, type HeaderValue } from './response.js'
import { checkPreconditions } from './conditional.js'
import { exposeOpenApi, registerOpenApi, type OpenApiOptions } from './openapi.js'
import { WeighedMap } from './weighed-map.js'
import { hostChecker } from './host.js'
import { keepsConnection, readBody } from './body.js'

export const API_PREFIX = '/cms-json'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
    baseUrl: string
    /** The caller's own Authorization header, kept to forward to remote namespaces. */
    callerAuthorization: string | undefined
    methodOverridden: boolean
  }
}

export interface KernelOptions {
  /** Namespaces served here, in registration order. */
  namespaces: NamespaceDecl[]
  /** Routes outside any namespace (`/`, `/batch/v1`), registered first. */
  routes?: RouteDecl[]
  /** Resolves the caller; throws a RestError for bad credentials. */
  authenticate?: (request: FastifyRequest) => Promise<Principal>
  /** A fixed public base URL; otherwise derived from each request. */
  baseUrl?: string
  /**
   * `Host` values accepted besides the base URL's host and loopback names. With
   * neither, any well-formed host is accepted (and links follow it).
   */
  allowedHosts?: string[]
  /**
   * The site URL for what is stored (a post's `guid`): configuration, never a
   * request header. Default: `baseUrl`.
   */
  siteUrl?: string
  /** Origins allowed for CORS; `*` echoes any origin. */
  corsOrigins?: string[] | '*'
  /**
   * Namespaces served by another service: namespace -> that service's base URL.
   * Every request under them is proxied there (see remote.ts).
   */
  remote?: Record<string, string>
  /** How long a namespace service may take to answer (ms) before `504 rest_upstream_timeout`. Default 10 s. */
  remoteTimeoutMs?: number
  /**
   * Maps errors the kernel does not know (the store's) to REST errors: an
   * outage to 503, a value the database refuses to 400. Undefined: 500.
   */
  classifyError?: (error: unknown) => RestError | undefined
  /** Serve an OpenAPI 3.1 document at `/openapi.json` and a reference page at `/docs`. */
  openapi?: OpenApiOptions
  /**
   * A token that changes whenever stored data may have changed (the core's
   * commit horizon), undefined when unknown. With it, an anonymous GET whose
   * last answer was tagged cacheable under the same token gets those bytes
   * before validation, the permission check and the handler run.
   */
  freshness?: () => Promise<string | undefined>
  /** Memory for answers kept for reuse, in bytes (default 32 MiB). */
  keptAnswerBytes?: number
}

/** Server options the kernel needs at construction time (routing happens before plugins run). */
export function kernelServerOptions (opts: { bodyLimit?: number } = {}): FastifyServerOptions {
  return {
    bodyLimit: opts.bodyLimit ?? 8 * 1024 * 1024,
    // Errors raised before any route runs (an undecodable URL, an overlong
    // path variable) get the same error shape as every other answer.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      const e = error as { code?: string }
      const rest = e.code === 'FST_ERR_MAX_PARAM_LENGTH' ? kernelErrors.rest_uri_too_long() : kernelErrors.rest_invalid_url()
      void reply.code(rest.status).type('application/json; charset=UTF-8')
        .send(request.method === 'HEAD' ? undefined : JSON.stringify(rest.toBody()))
    },
    rewriteUrl: rewriteRestUrl,
    routerOptions: {
      caseSensitive: false,
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: false,
      maxParamLength: 500,
      querystringParser: parseQuery
    }
  } as FastifyServerOptions
}

const INVALID_ROUTE = `${API_PREFIX}/__rest_route_not_a_string`
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

function safeDecode (s: string): string {
  try { return decodeURIComponent(s.replace(/\+/g, ' ')) } catch { return s }
}

/**
 * What the pipeline reads of a request: a Fastify request, or a request
 * dispatched in-process (batch, `_embed`) on behalf of one.
 */
type Incoming = Pick<FastifyRequest, 'method' | 'url' | 'query' | 'body' | 'params' | 'headers' | 'principal' | 'baseUrl' | 'callerAuthorization' | 'ip' | 'ips' | 'log'>

/** A route's answer before it is written: data to render, or bytes kept from an earlier answer. */
type Outcome =
  | { rendered: Rendered }
  | { rendered?: undefined, status: number, headers: Record<string, HeaderValue>, body: unknown, cache?: { tag: object, token?: string } }

/** Runs one method of one route for a request. */
type Executor = (request: Incoming) => Promise<Outcome>

function isRestPath (url: string): boolean {
  const lower = url.toLowerCase()
  return lower === API_PREFIX || lower.startsWith(`${API_PREFIX}/`) || lower.startsWith(`${API_PREFIX}?`)
}

async function kernel (app: FastifyInstance, opts: KernelOptions): Promise<void> {
  const authenticate = opts.authenticate ?? (async () => anonymous)
  const cors = opts.corsOrigins ?? '*'
  const allRoutes: RouteDecl[] = [...(opts.routes ?? [])]
  const namespaceNames = opts.namespaces.map((ns) => ns.name)
  const routesByNamespace = new Map<string, RouteDecl[]>()
  const remote = remoteNamespaces({ services: opts.remote ?? {}, timeoutMs: opts.remoteTimeoutMs })

  for (const ns of opts.namespaces) {
    // Served by its service, whatever code this process has for it.
    if (remote.namespaces.includes(ns.name)) continue
    const root: RouteDecl = namespaceRoot(ns.name, () => routesByNamespace.get(ns.name) ?? [], routesByNamespace)
    const list = [root, ...ns.routes]
    routesByNamespace.set(ns.name, list)
    allRoutes.push(...list)
  }

  app.decorateRequest('principal', null as unknown as Principal)
  app.decorateRequest('baseUrl', '')
  app.decorateRequest('callerAuthorization', undefined)
  app.decorateRequest('methodOverridden', false)
  app.decorate('restRoutes', allRoutes)
  app.decorate('restNamespaces', namespaceNames)

  installBodyParsers(app)

  // Before any route: a route takes the handlers in force when it is declared.
  app.setNotFoundHandler(async (request, reply) => {
    if (request.method === 'OPTIONS') return await send(request, reply, 200, {}, [])
    const error = kernelErrors.rest_no_route()
    return await send(request, reply, error.status, {}, error.toBody())
  })

  app.setErrorHandler(async (err: unknown, request, reply) => {
    const error = toRestError(err, opts)
    if (error.status >= 500) request.log.error({ err }, 'request failed')
    return await send(request, reply, error.status, {}, error.toBody())
  })


  const checkHost = hostChecker({ baseUrl: opts.baseUrl, allowedHosts: opts.allowedHosts })
  app.addHook('onRequest', async (request) => {
    request.methodOverridden = (request.raw as IncomingMessage & { cmsOverridden?: boolean }).cmsOverridden === true
    request.principal = anonymous
    request.baseUrl = opts.baseUrl ?? ''
    // Health checks call by whatever address reaches the process.
    if ((request.routeOptions.config as { anyHost?: boolean } | undefined)?.anyHost !== true) checkHost(request.host, request.protocol)
    if (opts.baseUrl === undefined) request.baseUrl = `${request.protocol}://${request.host.toLowerCase()}`
    if (request.url === INVALID_ROUTE) throw kernelErrors.rest_path_invalid_type()
    if (!isRestPath(request.url) || isProxied(request)) return
    request.callerAuthorization = request.headers.authorization
    request.principal = await authenticate(request)
  })

  const registry = buildRegistry(allRoutes, namespaceNames, routesByNamespace, opts.routes ?? [], remote)
  app.decorate('restRegistry', registry)
  // Answers of handlers that tagged them cacheable, for every route (an address has one route).
  // Their weight is their bytes: one page of a hundred long posts can weigh megabytes.
  const kept = new WeighedMap<KeptAnswer>(opts.keptAnswerBytes ?? 32 * 1024 * 1024)
  const executors = new Map<RouteDecl, Map<string, Executor>>()
  const dispatchFor = (request: Incoming): Dispatch => localDispatcher(request, registry, executors, remote)

  if (opts.openapi !== undefined) await registerOpenApi(app, opts.openapi, API_PREFIX)
  for (const decl of allRoutes) executors.set(decl, registerRoute(app, decl, opts, registry, kept, dispatchFor))
  await remote.register(app, API_PREFIX)
  if (opts.openapi !== undefined) await exposeOpenApi(app, remote.openApiPaths)

  // A callback hook: no promise per response.
  app.addHook('onSend', (request, reply, payload, done) => {
    addCommonHeaders(request, reply, cors)
    done(null, payload)
  })
}

export const restKernel = fp(kernel, { name: 'cms-rest-kernel', fastify: '5.x' })

declare module 'fastify' {
  interface FastifyInstance {
    restRoutes: RouteDecl[]
    restNamespaces: string[]
    restRegistry: Registry
  }
}

function buildRegistry (
  routes: RouteDecl[],
  namespaces: string[],
  byNamespace: Map<string, RouteDecl[]>,
  siteRoutes: RouteDecl[],
  remote: RemoteNamespaces
): Registry {
  // The index depends only on the base URL of the request: built once per base URL.
  const cache = new Map<string, Record<string, unknown>>()
  const compiled = routes.map((decl) => ({
    decl,
    regex: new RegExp(`^${patternOf(decl).replace(/\(\?P</g, '(?<')}$`, 'i')
  }))
  return {
    namespaces,
    index (baseUrl, namespace) {
      const key = `${baseUrl}\0${namespace ?? ''}\0${remote.version()}`
      let cached = cache.get(key)
      if (cached === undefined) {
        // A remote namespace lists the routes its service listed (only its root until they are known).
        const of = (ns: string): Record<string, unknown> => remote.namespaces.includes(ns)
          ? remote.index(ns, baseUrl) ?? routesIndex([namespaceRoot(ns, () => [], byNamespace)], { baseUrl })
          : routesIndex(byNamespace.get(ns) ?? [], { baseUrl })
        cached = namespace !== undefined
          ? of(namespace)
          : Object.assign(routesIndex(siteRoutes, { baseUrl }), ...namespaces.map(of)) as Record<string, unknown>
        if (cache.size > 64) cache.clear()
        cache.set(key, cached)
      }
      return cached
    },
    match (method, path) {
      const wanted = method.toUpperCase()
      const normal = path === '/' ? '/' : path.replace(/\/+$/, '')
      for (const { decl, regex } of compiled) {
        const m = regex.exec(normal)
        if (m === null) continue
        const endpoint = decl.endpoints.find((ep) => ep.methods.includes(wanted as Method))
        if (endpoint !== undefined) return { route: decl, endpoint, vars: { ...m.groups } }
      }
      return remote.match(method, normal)
    }
  }
}

function namespaceRoot (name: string, routesOf: () => RouteDecl[], all: Map<string, RouteDecl[]>): RouteDecl {
  return {
    namespace: name,
    path: `/${name}`,
    endpoints: [{
      methods: ['GET'],
      args: {
        namespace: Type.Unsafe<string>({ default: name }),
        context: Type.Unsafe<string>({ default: 'view' })
      },
      permission: () => true,
      handler: (req: RestRequest) => {
        const wanted = String(req.params.namespace)
        if (!all.has(wanted)) throw kernelErrors.rest_invalid_namespace()
        const routes = wanted === name ? routesOf() : all.get(wanted)!
        return cachedResponse({
          namespace: wanted,
          routes: req.params.context === 'help'
            ? routesIndex(routes, { baseUrl: req.baseUrl, help: true })
            : req.registry.index(req.baseUrl, wanted),
          _links: { up: [{ href: restUrl(req.baseUrl, '/') }] }
        }, routes)
      }
    }]
  }
}

function registerRoute (
  app: FastifyInstance,
  decl: RouteDecl,
  opts: KernelOptions,
  registry: Registry,
  rendered: WeighedMap<KeptAnswer>,
  dispatchFor: (request: Incoming) => Dispatch
): Map<string, Executor> {
  const executors = new Map<string, Executor>()
  const siteUrl = opts.siteUrl ?? opts.baseUrl ?? ''
  const url = fastifyPathOf(decl, API_PREFIX)
  const pattern = patternOf(decl)

  for (const ep of decl.endpoints) {
    const args = argsOf(ep)
    // For OpenAPI: required means what the core's index says, not TypeBox's default;
    // path variables are documented once, as path parameters.
    const vars = variablesOf(decl.path)
    const bodyArgs = args.filter((a) => !vars.includes(a.name))
    const argSchema = {
      type: 'object',
      properties: Object.fromEntries(bodyArgs.map((a) => [a.name, a.schema])),
      required: bodyArgs.filter((a) => a.required).map((a) => a.name)
    }
    const paramsSchema = {
      type: 'object',
      properties: Object.fromEntries(vars.map((v) => [v, args.find((a) => a.name === v)?.schema ?? { type: 'string', pattern: `^${decl.vars![v]}$` }])),
      required: vars
    }
    for (const method of ep.methods) {
      // Parameters of body-less requests are a function of the URL alone: merged and
      // validated once per URL (each request gets its own copies).
      const validatedByUrl = new Map<string, { raw: Record<string, unknown>, params: Record<string, unknown> }>()
      const parameters = (request: Incoming, query: Record<string, unknown>): { raw: Record<string, unknown>, validate: () => Record<string, unknown> } => {
        const cacheable = request.body === undefined || request.body === null
        const known = cacheable ? validatedByUrl.get(request.url) : undefined
        if (known !== undefined) {
          return { raw: Object.assign(Object.create(null) as Record<string, unknown>, known.raw), validate: () => ({ ...known.params }) }
        }
        const raw = mergeParams(query, request.body, request.params as Record<string, string>)
        return {
          raw,
          validate: () => {
            const params = validateArgs(args, raw)
            if (cacheable) {
              if (validatedByUrl.size >= 512) validatedByUrl.clear()
              validatedByUrl.set(request.url, { raw: Object.assign(Object.create(null) as Record<string, unknown>, raw), params: { ...params } })
            }
            return params
          }
        }
      }
      const handle = async (request: Incoming, expose: (r: RestRequest) => void): Promise<Outcome> => {
        const isHead = request.method === 'HEAD'
        const query = (request.query ?? {}) as Record<string, unknown>
        // An anonymous body-less GET answered before under the same freshness token
        // gets the same bytes: nothing it depends on can have changed since. The
        // token is asked only for addresses with kept bytes (other routes do not wait for it).
        const cacheKey = `${request.method} ${request.url} ${request.baseUrl}`
        let token: string | undefined
        if (opts.freshness !== undefined && method === 'GET' && request.principal.id === 0 &&
          (request.body === undefined || request.body === null) && rendered.has(cacheKey)) {
          token = await opts.freshness()
          const hit = rendered.get(cacheKey)
          if (token !== undefined && hit?.token === token) return { rendered: hit.response }
        }
        const { raw, validate } = parameters(request, query)
        const unvalidated = restRequestOf(request, method as Method, pattern, raw, query, registry, dispatchFor(request), siteUrl)
        // The Allow header of a validation error is computed on the request as sent.
        expose(unvalidated)
        const restReq: RestRequest = { ...unvalidated, params: validate() }
        expose(restReq)
        const allowed = await ep.permission(restReq)
        if (allowed !== true) {
          throw allowed instanceof RestError
            ? allowed
            : denied(kernelErrors.rest_forbidden(), request.principal.id)
        }
        if (method !== 'GET' && decl.path.includes('{')) await checkPreconditions(request, restReq)
        const result = asResponse(await ep.handler(restReq))
        // A handler that tags its body as unchanged gets the bytes it was last sent as.
        if (result.cacheTag !== undefined) {
          const hit = rendered.get(cacheKey)
          if (hit !== undefined && hit.tag === result.cacheTag) {
            // The token was taken before the handler read anything: a safe lower bound.
            if (token !== undefined) hit.token = token
            return { rendered: hit.response }
          }
        }
        const allow = await allowHeader(decl, restReq)
        const headers: Record<string, HeaderValue> = { ...result.headers }
        if (allow !== '') headers.Allow = allow
        let body = isHead ? null : result.body
        if (!isHead && body !== null && body !== undefined) {
          body = await shapeBody(body, decl, restReq, query)
        }
        return { status: result.status, headers, body, cache: result.cacheTag === undefined ? undefined : { tag: result.cacheTag, token } }
      }
      // Errors of a matched route carry its Allow header and its representation.
      const execute: Executor = async (request) => {
        let restReq: RestRequest | undefined
        try {
          return await handle(request, (r) => { restReq = r })
        } catch (err) {
          const error = toRestError(err, opts)
          if (error.status >= 500) request.log.error({ err }, 'request failed')
          const allow = restReq === undefined ? '' : await allowHeader(decl, restReq)
          return { status: error.status, headers: allow === '' ? {} : { Allow: allow }, body: error.toBody() }
        }
      }
      if (!executors.has(method)) executors.set(method, execute)
      app.route({
        method,
        url,
        // Validation is the kernel's own (the core's rules and messages), not Ajv's;
        // the schema is still given to Fastify so the OpenAPI document shows it.
        schema: {
          tags: [decl.namespace === '' ? 'site' : decl.namespace],
          summary: ep.summary,
          ...(vars.length > 0 ? { params: paramsSchema } : {}),
          ...(method === 'GET' || method === 'DELETE' ? { querystring: argSchema } : { body: argSchema })
        },
        validatorCompiler: () => () => true,
        exposeHeadRoute: method === 'GET',
        handler: async (request, reply) => {
          const outcome = await execute(request)
          if (outcome.rendered !== undefined) return write(request, reply, outcome.rendered)
          const response = render(request, outcome.status, outcome.headers, outcome.body, ep.serialize)
          if (outcome.cache !== undefined) {
            // Encoded once: every later answer writes the same bytes (the text stays for in-process dispatch).
            if (typeof response.payload === 'string') response.bytes = Buffer.from(response.payload)
            const size = (response.bytes?.length ?? 0) + (response.payload?.length ?? 0)
            rendered.set(`${request.method} ${request.url} ${request.baseUrl}`, { ...outcome.cache, response }, size)
          }
          return write(request, reply, response)
        }
      })
    }
  }
  app.route({
    method: 'OPTIONS',
    url,
    schema: { hide: true } as Record<string, unknown>,
    handler: async (request, reply) => {
      const raw = mergeParams((request.query ?? {}) as Record<string, unknown>, request.body, request.params as Record<string, string>)
      const restReq = restRequestOf(request, 'GET', pattern, raw, raw, registry, dispatchFor(request), siteUrl)
      const entry = routeEntry(decl, { baseUrl: request.baseUrl, help: true })
      const allow = await allowHeader(decl, restReq)
      return await send(request, reply, 200, allow === '' ? {} : { Allow: allow }, entry)
    }
  })
  return executors
}

function restRequestOf (
  request: Incoming,
  method: Method,
  pattern: string,
  params: Record<string, unknown>,
  query: Record<string, unknown>,
  registry: Registry,
  dispatch: Dispatch,
  siteUrl: string
): RestRequest {
  return {
    method,
    route: pattern,
    path: request.url.slice(API_PREFIX.length).split('?')[0] || '/',
    params,
    query,
    headers: request.headers,
    user: request.principal,
    baseUrl: request.baseUrl,
    siteUrl,
    ip: request.ip,
    dispatch,
    registry,
    memo: requestMemo()
  }
}

/** The methods of the route this caller may use, as the core's Allow header lists them. */
async function allowHeader (decl: RouteDecl, req: RestRequest): Promise<string> {
  const allowed: string[] = []
  for (const ep of decl.endpoints) {
    let ok = false
    try {
      ok = (await ep.permission({ ...req, method: ep.methods[0]! })) === true
    } catch {
      ok = false
    }
    if (ok) allowed.push(...ep.methods)
  }
  return allowed.join(', ')
}

/** context, links, `_fields` and `_embed`, in the core's order. */
async function shapeBody (body: unknown, decl: RouteDecl, req: RestRequest, query: Record<string, unknown>): Promise<unknown> {
  const context = typeof req.params.context === 'string' ? req.params.context : undefined
  if (decl.schema !== undefined && context !== undefined) body = filterByContext(body, decl.schema, context)
  const fields = query._fields === undefined ? undefined : parseFields(query._fields)
  const embed = parseEmbed(query._embed)
  const mentions = (key: string): boolean => fields?.some((f) => f === key || f.startsWith(`${key}.`)) ?? true
  // `_fields=_embedded.author.name` filters inside the embedded responses.
  const embeddedFields = fields?.filter((f) => f.startsWith('_embedded.')).map((f) => f.slice('_embedded.'.length))
  const shapeOne = async (item: unknown): Promise<unknown> => {
    if (!isPlainObject(item)) return item
    const links = item._links as Links | undefined
    // A copy: handlers may hand out cached objects.
    const out = (fields === undefined ? { ...item } : filterFields(item, fields)) as Record<string, unknown>
    delete out._links
    if (links === undefined) return out
    // As the core does: asking for `_embedded` brings the links along.
    if (mentions('_links') || mentions('_embedded')) out._links = compactLinks(links)
    if (embed !== undefined && mentions('_embedded')) {
      const embedded = await embedLinks(links, embed, req)
      if (embedded !== undefined) {
        out._embedded = embeddedFields === undefined || embeddedFields.length === 0
          ? embedded
          : filterFields(embedded, embeddedFields)
      }
    }
    return out
  }
  return Array.isArray(body) ? await Promise.all(body.map(shapeOne)) : await shapeOne(body)
}

const JSONP_NAME = /^[\w.]+$/

/** A kept answer: its handler's tag, and `token` for anonymous ones (the fast path). */
interface KeptAnswer { tag: object, response: Rendered, token?: string }

/** A response ready for the wire; cacheable as it is. */
interface Rendered {
  status: number
  headers: Record<string, HeaderValue>
  contentType: string
  payload: string | undefined
  /** The payload encoded, when kept for reuse. */
  bytes?: Buffer
  etag?: string
}

/** Envelope, JSONP and pretty printing, and the ETag of a GET. */
function render (
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
function write (request: FastifyRequest, reply: FastifyReply, r: Rendered): FastifyReply {
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

async function send (
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  headers: Record<string, HeaderValue>,
  body: unknown
): Promise<FastifyReply> {
  return write(request, reply, render(request, status, headers, body))
}

function addCommonHeaders (request: FastifyRequest, reply: FastifyReply, cors: string[] | '*'): void {
  const keep = keepsConnection(request)
  if (keep === false) reply.header('Connection', 'close')
  else if (keep === true) reply.removeHeader('connection')
  if (!isRestPath(request.url) && request.url !== INVALID_ROUTE) return
  reply.header('X-Robots-Tag', 'noindex')
  reply.header('X-Content-Type-Options', 'nosniff')
  if (!reply.hasHeader('link')) reply.header('Link', `<${restUrl(request.baseUrl, '/')}>; rel="https://api.cms.invalid/"`)
  reply.header('Access-Control-Expose-Headers', 'X-CMS-Total, X-CMS-TotalPages, Link')
  reply.header('Access-Control-Allow-Headers', 'Authorization, X-CMS-Nonce, Content-Disposition, Content-MD5, Content-Type')
  const origin = request.headers.origin
  if (typeof origin === 'string' && origin !== '' && (cors === '*' || cors.includes(origin))) {
    reply.header('Access-Control-Allow-Origin', origin)
    reply.header('Access-Control-Allow-Methods', 'OPTIONS, GET, POST, PUT, PATCH, DELETE')
    reply.header('Access-Control-Allow-Credentials', 'true')
    reply.header('Vary', 'Origin')
  } else if ((request.principal?.id ?? 0) === 0 && request.method === 'GET') {
    reply.header('Vary', 'Origin')
  }
  const signedIn = (request.principal?.id ?? 0) !== 0
  if (signedIn || (request.methodOverridden && reply.statusCode >= 400)) {
    reply.header('Expires', 'Wed, 11 Jan 1984 05:00:00 GMT')
    reply.header('Cache-Control', 'no-cache, must-revalidate, max-age=0, no-store, private')
  }
}

function installBodyParsers (app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  // Parsers read the body themselves (body.ts): past the limit it is drained before the 413.
  const parseJson = async (request: FastifyRequest, payload: IncomingMessage): Promise<unknown> => {
    const body = (await readBody(request, payload)).toString('utf8')
    if (body.trim() === '') return undefined
    try {
      return JSON.parse(body)
    } catch {
      throw kernelErrors.rest_invalid_json({ json_error_code: 4, json_error_message: 'Syntax error' })
    }
  }
  app.addContentTypeParser('application/json', parseJson)
  app.addContentTypeParser(/^application\/[\w.+-]*\+json/, parseJson)
  app.addContentTypeParser('application/x-www-form-urlencoded', async (request: FastifyRequest, payload: IncomingMessage) => {
    return parseQuery((await readBody(request, payload)).toString('utf8'))
  })
  // Other bodies are read (so the connection stays usable) and ignored, as the core does.
  app.addContentTypeParser('*', async (request: FastifyRequest, payload: IncomingMessage) => {
    await readBody(request, payload)
    return undefined
  })
}

function toRestError (err: unknown, opts: KernelOptions): RestError {
  if (err instanceof RestError) return err
  const e = err as { code?: string, statusCode?: number, message?: string }
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e.statusCode === 413) return kernelErrors.rest_request_too_large()
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || e.statusCode === 415) return kernelErrors.rest_unsupported_media_type()
  const classified = opts.classifyError?.(err)
  if (classified !== undefined) return classified
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return kernelErrors.rest_invalid_body(undefined).withStatus(e.statusCode)
  }
  return kernelErrors.rest_internal_error()
}

/**
 * In-process dispatch through the route's whole pipeline (validation,
 * permission, handler, shaping), as the same caller, without HTTP: the
 * request and the answer stay objects.
 */
function localDispatcher (from: Incoming, registry: Registry, executors: Map<RouteDecl, Map<string, Executor>>, remote: RemoteNamespaces): Dispatch {
  return async (req: DispatchRequest) => {
    const { pathname, search } = splitPath(req.path)
    if (remote.serviceOf(pathname) !== undefined) {
      return await remote.dispatch({
        authorization: from.callerAuthorization,
        headers: from.headers,
        forwardedFor: forwardedForOf(from),
        baseUrl: from.baseUrl
      }, req)
    }
    const method = req.method.toUpperCase()
    const match = registry.match(method, pathname)
    const execute = match === null ? undefined : executors.get(match.route)?.get(method)
    if (match === null || execute === undefined) {
      const error = kernelErrors.rest_no_route()
      return { status: error.status, headers: {}, body: error.toBody() }
    }
    const params = new URLSearchParams(search)
    for (const [k, v] of Object.entries(req.query ?? {})) params.set(k, String(v))
    const qs = params.toString()
    const encodedPath = pathname.replace(/[?#%\s]/g, (c) => encodeURIComponent(c))
    const outcome = await execute({
      method,
      url: `${API_PREFIX}${encodedPath}${qs === '' ? '' : `?${qs}`}`,
      query: parseQuery(qs),
      body: req.body === null ? undefined : req.body,
      params: match.vars,
      headers: { ...req.headers },
      principal: from.principal,
      baseUrl: from.baseUrl,
      callerAuthorization: from.callerAuthorization,
      ip: from.ip,
      ips: from.ips,
      log: from.log
    })
    if (outcome.rendered === undefined) {
      return { status: outcome.status, headers: ownHeaders(outcome.headers), body: outcome.body ?? null }
    }
    const r = outcome.rendered
    let body: unknown = null
    if (r.payload !== undefined && r.payload !== '') {
      try { body = JSON.parse(r.payload) } catch { body = r.payload }
    }
    return { status: r.status, headers: ownHeaders({ ...r.headers, ...(r.etag === undefined ? {} : { ETag: r.etag }) }), body }
  }
}

export { METHODS }
