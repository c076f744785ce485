/**
 * What the kernel is given: the plugin's options, and the Fastify server
 * options it needs at construction time (routing happens before plugins run).
 */
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import { kernelErrors, type RestError } from './errors.js'
import { rewriteRestUrl } from './addressing.js'
import { parseQuery } from './params.js'
import type { NamespaceDecl, Principal, RouteDecl } from './route.js'
import type { OpenApiOptions } from './openapi.js'

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
