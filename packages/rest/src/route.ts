/**
 * A route is declared once. The declaration carries its namespace, path
 * pattern, endpoints with their TypeBox arguments, batch support, permission
 * check and handler; the kernel derives the Fastify route, validation, the
 * discovery entry, batch eligibility and the OpenAPI operation from it.
 */
import type { Static, TObject, TProperties, TSchema } from '@sinclair/typebox'
import type { RestError } from './errors.js'
import type { JsonSchema } from './schema.js'
import type { Dispatch } from './dispatch.js'
import type { RequestMemo } from './memo.js'
import type { BodyStream, StreamBodyOptions } from './body-stream.js'
import type { RateClass } from './rate-class.js'
import type { PermissionCase, Probe } from './permission-cases.js'
import { pathVariableArg, variablesOf, withPathVariables } from './route-path.js'

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type Method = typeof METHODS[number]

/** Whoever makes the request. The kernel only asks it questions. */
export interface Principal {
  /** 0 for an anonymous caller. */
  readonly id: number
  can (capability: string, object?: unknown): boolean
  /**
   * The caller's rights as a token, for answers kept between requests
   * (kept-answers.ts): two signed-in callers with the same token are the same
   * user with the same capabilities, from the same stored credentials and
   * grants, and may be given each other's answers to `cache: 'public'`
   * endpoints. Never a credential or anything derived from one without a key
   * (it names a key of the kept answers). Undefined: this caller's answers are
   * never kept.
   */
  readonly keptAs?: string
}

export const anonymous: Principal = Object.freeze({ id: 0, can: () => false })

export interface RestRequest<P = Record<string, unknown>> {
  readonly method: Method
  /** The route pattern as it appears in the index, e.g. `/cms/v2/posts/(?P<id>[\d]+)`. */
  readonly route: string
  /** The request path relative to the API root, e.g. `/cms/v2/posts/12`. */
  readonly path: string
  /**
   * The matched route's own path: `route` with its variables filled from
   * `params` (`/cms/v2/posts/12/revisions`), as declared whatever spelling
   * matched. Paging links and `Location` headers are built from it
   * (`pageHeaders(req, info)`, `createdAt(req, body, id)`).
   */
  readonly routePath: string
  /** Validated, coerced and defaulted parameters (path variables included). */
  readonly params: P
  /** The query parameters as sent (before validation), in their order; used for links. */
  readonly query: Record<string, unknown>
  readonly headers: Record<string, string | string[] | undefined>
  readonly user: Principal
  /** `{scheme}://{host}` of the site, without a trailing slash. */
  readonly baseUrl: string
  /**
   * The site URL from configuration, for what is stored (never derived from a
   * request header); empty when none is configured.
   */
  readonly siteUrl: string
  /** The client's address: the socket's, or a trusted proxy's `X-Forwarded-For`. */
  readonly ip: string
  /** Sends a sub-request through the same pipeline, as the same caller. */
  readonly dispatch: Dispatch
  /** What this server serves: its namespaces and routes. */
  readonly registry: Registry
  /**
   * The request's memo, the one way to load something once per request: the
   * permission check, the handler and the Allow header's checks of the other
   * methods share it (`memo('post:12', load)`). A failed load is not kept;
   * after a write, `memo.forget(key)` makes later checks read afresh.
   */
  readonly memo: RequestMemo
  /**
   * The store's commit horizon for this request (see `KernelOptions.horizon`),
   * asked once and shared by everything the request reads: values read after
   * it was taken may be reused by later requests while it reads the same.
   * Undefined when there is none.
   */
  readonly horizon: () => Promise<string | undefined>
  /**
   * A token for values of one kind (`settings`, `webhooks`, `activation`,
   * `credentials`: the store's epochs, epochs.ts) that stays while that kind
   * of data does, whatever else is committed: a value read after it was
   * taken may be reused while it reads the same. A read takes it with the
   * caller's authentication or the horizon; a write too (as of its start: a
   * handler that changes one kind reads that kind back directly). The
   * horizon where there is no such epoch; undefined where there is none.
   */
  readonly epoch: (name: string) => Promise<string | undefined>
  /** The unread request body, for endpoints that declare `streamBody` (undefined elsewhere). */
  readonly body?: BodyStream
  /**
   * The request body as it was parsed (JSON or form), before its members
   * were merged into `params`: a route that must tell a body that is not an
   * object (an array, a string) from an empty one looks here. Undefined
   * when there is no body.
   */
  readonly sentBody?: unknown
}

export interface Registry {
  readonly namespaces: readonly string[]
  /**
   * The discovery `routes` object for every route (or one namespace), cached
   * per base URL; the namespaces in `off` (see `off`) left out.
   */
  index (baseUrl: string, namespace?: string, off?: ReadonlySet<string>, help?: boolean): Record<string, unknown>
  /**
   * The namespaces switched off for this request (a deactivated plugin's,
   * `KernelOptions.activation`) and the packages whose contributions are
   * off (their meta and fields leave the core's answers): empty unless the
   * deployment switches any. Asked once per request.
   */
  off (req: Pick<RestRequest, 'memo' | 'epoch'>): Promise<ReadonlySet<string>>
  /**
   * The declaration and endpoint serving a method and a path relative to the
   * API root, as HTTP routing would find them (router.ts): for batch, `_embed`
   * and in-process dispatch.
   */
  match (method: string, path: string): { route: RouteDecl, endpoint: EndpointDecl<any>, vars: Record<string, string> } | null
}

export type Params<A extends TProperties> = Static<TObject<A>> & Record<string, unknown>

export interface EndpointDecl<A extends TProperties = TProperties> {
  methods: readonly Method[]
  /**
   * Arguments as TypeBox schemas. An argument wrapped in `Type.Optional` may be
   * absent; one with a `default` is always present after validation; any other
   * argument is required.
   */
  args?: A
  /** Overrides the route's `allowBatch` for this endpoint. */
  allowBatch?: boolean
  /**
   * In a batch, run in-process, this endpoint's write joins the batch's one
   * transaction behind a savepoint (the core's batch route). Only for
   * writes whose effects are database rows alone: one with effects
   * elsewhere (files) leaves it unset and commits on its own.
   */
  batchTransaction?: boolean
  /**
   * `false`: a write of this endpoint is not reported to the kernel's
   * `onWrite` observer (the batch envelope, whose requests are each
   * reported as they are dispatched). Default: every POST, PUT, PATCH and
   * DELETE is reported.
   */
  audited?: false
  /**
   * `'public'`: the answer to an anonymous caller depends only on the URL and
   * the stored data. The kernel then keeps the bytes of such answers (200
   * only) and answers the same address again with them, before validation,
   * the permission check and the handler, for as long as the store's commit
   * horizon reads the same. A signed-in caller's answers are kept too, apart
   * for each caller's rights (`Principal.keptAs`; a caller without one is
   * always answered afresh), so the answer must depend only on the URL, the
   * stored data and the caller's user and capabilities: never on which
   * credential was sent, other request headers, the clock or an outside
   * service. An answer that sets a cookie or a nonce, or says `no-store`, is
   * not kept.
   */
  cache?: 'public'
  /**
   * The endpoint's rate-limit class (the core's rate limits,
   * docs/guides/rate-limits.md): by default a GET is a `read` and any other
   * method a `write`, and an endpoint that streams its body (an upload) is
   * `expensive`: work far costlier than a request (search, uploads,
   * analysis, imports, outbound fetches), limited sooner.
   * Each package marks its own expensive endpoints here.
   */
  rateClass?: RateClass
  /**
   * The context the answer is shaped in, whatever the request's `context`
   * argument said: the core answers its writes (create, update) in `edit`
   * context. As the core sets it on the request, the answer's Allow header
   * is computed with it too. Errors are not shaped. A function chooses it
   * by the caller (a comment's creator sees it in `edit` context only when
   * a moderator).
   */
  responseContext?: 'edit' | ((req: RestRequest<any>) => 'edit' | 'view' | undefined)
  /**
   * The endpoint reads its request body itself, as a stream (file uploads):
   * the kernel neither parses nor buffers it, and the usual body limit does
   * not apply; `maxBytes` does. Its arguments are validated from the query
   * string and path as usual, the permission check runs before any of the
   * body is read, and the handler gets the body as `req.body` (a raw body or
   * multipart parts, whose fields it validates itself). Such an endpoint is
   * not callable through batch or in-process dispatch (no body to stream).
   */
  streamBody?: StreamBodyOptions
  /**
   * Who may call it (permission.ts): `everyone`, `signedIn`,
   * `can('manage_options')`, or `check(fn, ...cases)` for an object check.
   * The one declaration is both what the kernel enforces (after validation,
   * before the handler; also for the Allow header of the other endpoints)
   * and the endpoint's rows of the permission matrix.
   */
  permission: Permission<Params<A>>
  /**
   * The answer: data, or a `RestResponse` for a status or headers; a thrown
   * `RestError` is answered as an error. The kernel then filters the data by
   * the request's `context` (against the route's schema), `_fields`, `_links`
   * and `_embed`.
   */
  handler (req: RestRequest<Params<A>>): unknown
  summary?: string
  /**
   * What the endpoint does, beyond its summary, for the OpenAPI document's
   * description; the document adds who may call it, paging, caching and
   * the rate-limit class from the rest of the declaration.
   */
  description?: string
  /**
   * The body a success answers, when the route's item schema (`schema`)
   * does not describe it: the OpenAPI document shows it, and the gateway's
   * completeness test checks real answers against it. Documentation only:
   * answers are written as the handler made them, never serialized through
   * it, so an object schema left open (TypeBox's default) drops nothing.
   */
  response?: TSchema | JsonSchema
  /** The media type of a success that is not JSON (a file: `application/zip`); its body is documented as bytes. */
  produces?: string
  /**
   * Bodies of error statuses that carry more than `{code, message, data}`
   * (get_head's 404 carries the 404 page's head too), for the OpenAPI document.
   */
  errorResponses?: Record<number, { description: string, schema: TSchema | JsonSchema }>
  /**
   * The status a success answers, for the OpenAPI document, when it is not
   * the usual one (201 for a POST on a list route, else 200).
   */
  status?: number
  /**
   * A typical call, for the OpenAPI document: `request`, the arguments as a
   * client sends them (path variables, then the query of a GET or DELETE,
   * the JSON body of a write, or an upload's form fields), and `response`,
   * the body of its success. Documentation only: the gateway's completeness
   * test checks the request with the kernel's own validation and the
   * response against the documented schema, so neither can drift.
   */
  example?: EndpointExample
  /**
   * Another representation than JSON for some requests (oEmbed's `format=xml`):
   * given the query, status and body (data or error), the bytes to send, or
   * undefined for JSON.
   */
  serialize?: Serializer
}

/** An endpoint's example call (`EndpointDecl.example`). */
export interface EndpointExample {
  request?: Record<string, unknown>
  response?: unknown
}

export type Serializer = (query: Record<string, unknown>, status: number, body: unknown) => { contentType: string, payload: string } | undefined

export interface RouteDecl {
  namespace: string
  /** The path with `{name}` variables, e.g. `/cms/v2/posts/{id}`. */
  path: string
  /** The character class of each path variable, e.g. `{ id: '[\\d]+' }`. */
  vars?: Record<string, string>
  /**
   * Arguments every endpoint takes, listed first in each (the core's
   * route-level args): the path variables with their description and type.
   * A path variable named neither here nor by an endpoint is listed with the
   * type its character class implies, as the core's index lists them all.
   */
  args?: TProperties
  endpoints: Array<EndpointDecl<any>>
  /** Shown as `allow_batch: {v1: true}` on every endpoint (unless one overrides it). */
  allowBatch?: boolean
  /** The item schema: its `context` lists filter responses; OPTIONS shows it. */
  schema?: JsonSchema
}

/** A route of a namespace, its path relative to the namespace (`defineNamespace` places it). */
export interface RelativeRouteDecl extends Omit<RouteDecl, 'namespace'> {
  namespace?: undefined
}

/** What a namespace lists: relative routes, or absolute ones naming the namespace. */
export type RouteInput = RouteDecl | RelativeRouteDecl

/** Identity helpers that keep the argument types attached to the handler. */
export function endpoint<A extends TProperties> (decl: EndpointDecl<A>): EndpointDecl<A> {
  return decl
}

/**
 * A route: its path with `{name}` variables and their classes in `vars`,
 * or in the index's form (`/posts/(?P<id>[\d]+)`). Without `namespace` the
 * path is relative to the namespace the route is listed in.
 */
export function route (decl: RouteDecl): RouteDecl
export function route (decl: RelativeRouteDecl): RelativeRouteDecl
export function route (input: RouteInput): RouteInput {
  const decl = withPathVariables(input)
  const common: TProperties = {}
  for (const name of variablesOf(decl.path)) {
    const cls = decl.vars?.[name]
    if (cls === undefined) throw new Error(`route ${decl.path}: variable {${name}} has no character class`)
    common[name] = decl.args?.[name] ?? pathVariableArg(cls)
  }
  Object.assign(common, decl.args)
  // As the core merges route-level args: first in each endpoint, the endpoint's own schema winning.
  const endpoints = decl.endpoints.map((ep) => {
    const own = (ep.args ?? {}) as TProperties
    const args: TProperties = {}
    for (const [name, schema] of Object.entries(common)) args[name] = own[name] ?? schema
    return { ...ep, args: Object.assign(args, own) }
  })
  return { ...decl, endpoints }
}

export interface NamespaceDecl {
  name: string
  routes: RouteDecl[]
}

// The permission check (permission.ts builds it): here, beside RestRequest, which it names.

/** `true`, or the error to answer (`false`: the kernel's `rest_forbidden`). */
export type CheckResult = boolean | RestError | Promise<boolean | RestError>

export interface Permission<P = any> {
  /**
   * May this caller use this endpoint? Runs after validation, before the
   * handler. It must have no side effects: the kernel also calls it, with
   * the same request and memo, for every other endpoint of the route to
   * compute the `Allow` header. Load records through `req.memo`.
   */
  // Method syntax keeps permissions of different argument types assignable to one list.
  check (req: RestRequest<P>): CheckResult
  /** The matrix rows this check is expected to produce (none: decided elsewhere, a remote service's stand-in). */
  readonly cases: readonly PermissionCase[]
  /** The same check with `probe` merged into every case (values the prober must send). */
  probing (probe: Probe): Permission<P>
  /** The same check, its cases explained by `why`. */
  because (why: string): Permission<P>
}
