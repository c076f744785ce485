/**
 * What the kernel is given: the plugin's options, and the Fastify server
 * options it needs at construction time (routing happens before plugins run).
 */
import type { KernelSnapshot } from './epochs.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import { kernelErrors, type RestError } from './errors.js'
import { rewriteRestUrl, URI_TOO_LONG } from './addressing.js'
import { parseQuery } from './params.js'
import type { NamespaceDecl, Principal, RouteDecl } from './route.js'
import type { OpenApiOptions } from './openapi.js'
import type { TextLimits } from './json-scan.js'
import type { WriteObserver } from './writes.js'

export interface KernelOptions {
  /** Namespaces served here, in registration order. */
  namespaces: NamespaceDecl[]
  /** Routes outside any namespace (`/`, `/batch/v1`), registered first. */
  routes?: RouteDecl[]
  /** Resolves the caller; throws a RestError for bad credentials. */
  authenticate?: (request: FastifyRequest) => Promise<Principal>
  /** A fixed public base URL; otherwise derived from each request. */
  baseUrl?: string
  /** Origins allowed for CORS; `*` echoes any origin. */
  corsOrigins?: string[] | '*'
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
  /**
   * Namespaces served by another service: namespace -> that service's base URL.
   * Every request under them is proxied there (see remote.ts).
   */
  remote?: Record<string, string>
  /** How long a namespace service may take to answer (ms) before `504 rest_upstream_timeout`. Default 10 s. */
  remoteTimeoutMs?: number
  /**
   * Paths outside the REST prefix that a remote namespace's service answers
   * (namespace -> paths; its package's pages): forwarded there as its routes are.
   */
  remotePages?: Record<string, readonly string[]>
  /**
   * Maps errors the kernel does not know (the store's) to REST errors: an
   * outage to 503, a value the database refuses to 400. Undefined: 500.
   */
  classifyError?: (error: unknown) => RestError | undefined
  /** Serve an OpenAPI 3.1 document at `/openapi.json` and a reference page at `/docs`. */
  openapi?: OpenApiOptions
  /**
   * The store's commit horizon (`store.horizon()`): a token that changes
   * whenever stored data may have changed, undefined when unknown. Asked at
   * most once per request (`req.horizon()`). Without it nothing is reused.
   */
  horizon?: () => Promise<string | undefined>
  /**
   * The commit horizon with the epochs read by the same statement
   * (`store.snapshot()`, epochs.ts): when given, the horizon is its own
   * (`horizon` need not be), and `req.epoch(name)` answers a token that
   * stays while that kind of data does. Without it, epochs are the horizon.
   */
  snapshot?: () => Promise<KernelSnapshot | undefined>
  /**
   * Namespaces that are switched on and off while the server runs (a
   * plugin's, served only while it is active): `namespaces` names every one
   * that can be off (the others are never asked about, at no cost), `off`
   * answers those off now, asked with the request's horizon (a cached set
   * that follows commits). An off namespace answers as one never declared:
   * `404 rest_no_route`, gone from the index, namespace roots and OpenAPI.
   * The set also names the packages whose contributions are off: schema
   * properties marked with their name (`CONTRIBUTED_BY`, discovery.ts)
   * leave the index, OPTIONS and OpenAPI with them.
   */
  activation?: Activation
  /** Memory for anonymous answers kept for reuse, in bytes (default 32 MiB). */
  keptAnswerBytes?: number
  /**
   * Memory for signed-in callers' answers kept for reuse (kept-answers.ts),
   * in bytes (default 16 MiB); 0 keeps none.
   */
  keptSignedInBytes?: number
  /**
   * The largest JSON or form body in bytes (default 2 MiB; at most the
   * server's body limit): `413 rest_request_too_large` past it.
   */
  jsonBodyLimit?: number
  /** What a JSON body may hold: nesting, strings, characters (json-scan.ts); `413 rest_too_much_text` past it. */
  textLimits?: TextLimits
  /**
   * Called after every write a route answers (POST, PUT, PATCH, DELETE, over
   * HTTP or dispatched in-process, refused or not): see writes.ts. Never
   * awaited; what it throws is logged.
   */
  onWrite?: WriteObserver
}

export const DEFAULT_KEPT_ANSWER_BYTES = 32 * 1024 * 1024
export const DEFAULT_KEPT_SIGNED_IN_BYTES = 16 * 1024 * 1024

/** Longest request target (path and query string) by default, in characters: as Apache's `LimitRequestLine`. */
export const DEFAULT_MAX_URL_LENGTH = 8192
/** What Node allows the other headers besides the request line (its default `maxHeaderSize`). */
const HEADER_ALLOWANCE = 16 * 1024

export interface ServerLimits {
  /** Largest request body in bytes (413 past it). Default 8 MiB. */
  bodyLimit?: number
  /**
   * Longest request target in characters (default {@link DEFAULT_MAX_URL_LENGTH}):
   * a longer one is answered `414 rest_uri_too_long` before routing or query
   * parsing. Node's `maxHeaderSize` is set to this plus 16 KiB (its default)
   * for the other headers: a request whose head is larger still is answered
   * `431 rest_headers_too_large` by the HTTP server, without being read further.
   */
  maxUrlLength?: number
}

/** Server options the kernel needs at construction time (routing happens before plugins run). */
export function kernelServerOptions (opts: ServerLimits = {}): FastifyServerOptions {
  const maxUrlLength = opts.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH
  return {
    bodyLimit: opts.bodyLimit ?? 8 * 1024 * 1024,
    http: { maxHeaderSize: maxUrlLength + HEADER_ALLOWANCE },
    // Fastify's 10 s for one plugin to register is a wall-clock limit: on a loaded machine the
    // kernel (every namespace's routes) and the packages took longer and the start failed
    // (AVV_ERR_PLUGIN_EXEC_TIMEOUT). A plugin that truly hangs is still stopped, after two minutes.
    pluginTimeout: 120_000,
    // Errors raised before any route runs (an undecodable URL, an overlong
    // path variable) get the same error shape as every other answer.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      const e = error as { code?: string }
      const rest = e.code === 'FST_ERR_MAX_PARAM_LENGTH' ? kernelErrors.rest_uri_too_long() : kernelErrors.rest_invalid_url()
      void reply.code(rest.status).type('application/json; charset=UTF-8')
        .send(request.method === 'HEAD' ? undefined : JSON.stringify(rest.toBody()))
    },
    clientErrorHandler,
    // An overlong URL is sent to a path the caller hook answers 414: its query is never parsed
    // (the method override still applies: a HEAD is answered without a body).
    rewriteUrl (this: unknown, req: IncomingMessage): string {
      const url = rewriteRestUrl.call(this, req)
      return (req.url ?? '').length > maxUrlLength ? URI_TOO_LONG : url
    },
    routerOptions: { ...ROUTER_OPTIONS, querystringParser: parseQuery }
  } as FastifyServerOptions
}

/**
 * How a path finds its route, over HTTP (Fastify's router) and in-process
 * (router.ts) alike: case-insensitive, one trailing slash ignored, a
 * variable at most 500 characters.
 */
export const ROUTER_OPTIONS = {
  caseSensitive: false,
  ignoreTrailingSlash: true,
  ignoreDuplicateSlashes: false,
  maxParamLength: 500,
  // Fastify's default: a `;` is part of the path.
  useSemicolonDelimiter: false
} as const

/**
 * What the HTTP server answers by itself, before any request object exists
 * (a head too large, a request not received within the request time limit,
 * bytes that are not HTTP), in the error shape of every other answer.
 */
function clientErrorHandler (error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const rest: RestError = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? kernelErrors.rest_request_timeout()
    : error.code === 'HPE_HEADER_OVERFLOW' ? kernelErrors.rest_headers_too_large() : kernelErrors.rest_bad_request()
  // Not when an answer has begun on this connection: a second status line would corrupt it.
  const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  if (socket.writable && (pending == null || !pending.headersSent)) {
    const body = JSON.stringify(rest.toBody())
    socket.write(`HTTP/1.1 ${rest.status} ${STATUS_TEXT[rest.status] ?? ''}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(error)
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }

/** See {@link KernelOptions.activation}. */
export interface Activation {
  readonly namespaces: readonly string[]
  /** `validity`: a token that changes when activation may have (the `activation` epoch, else the horizon). */
  off: (validity: () => Promise<string | undefined>) => Promise<ReadonlySet<string>>
}
