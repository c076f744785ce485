/**
 * Who is calling (Fastify's `onRequest`): the site's base URL, the
 * principal (anonymous outside the REST prefix), the caller's own
 * Authorization (forwarded to remote namespaces) and whether the method was
 * overridden by a header.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { kernelErrors } from './errors.js'
import { anonymous, type Principal } from './route.js'
import { INVALID_ROUTE, isRestPath, overriddenByHeader, URI_TOO_LONG } from './addressing.js'
import type { KernelOptions } from './options.js'
import { hostChecker } from './host.js'
import { isProxied } from './remote.js'
import type { KernelSnapshot } from './epochs.js'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
    baseUrl: string
    /** The caller's own Authorization header, kept to forward to remote namespaces. */
    callerAuthorization: string | undefined
    methodOverridden: boolean
    /**
     * The snapshot (`store.snapshot()`: horizon and epochs) the
     * authenticator took: the request's reads are then kept under it (see
     * pipeline.ts), not under a second one asked later.
     */
    snapshotTaken: KernelSnapshot | undefined
  }
}

export function installCaller (app: FastifyInstance, opts: Pick<KernelOptions, 'authenticate' | 'baseUrl' | 'allowedHosts'>): void {
  const authenticate = opts.authenticate ?? (async (_request: FastifyRequest) => anonymous)
  app.decorateRequest('principal', null as unknown as Principal)
  app.decorateRequest('baseUrl', '')
  app.decorateRequest('callerAuthorization', undefined)
  app.decorateRequest('methodOverridden', false)
  app.decorateRequest('snapshotTaken', undefined)

  const checkHost = hostChecker({ baseUrl: opts.baseUrl, allowedHosts: opts.allowedHosts })
  app.addHook('onRequest', async (request) => {
    request.methodOverridden = overriddenByHeader(request.raw)
    request.principal = anonymous
    request.baseUrl = opts.baseUrl ?? ''
    // The (possibly forwarded) host and scheme are checked before they shape any link.
    // Health checks call by whatever address reaches the process.
    if ((request.routeOptions.config as { anyHost?: boolean } | undefined)?.anyHost !== true) checkHost(request.host, request.protocol)
    if (opts.baseUrl === undefined) request.baseUrl = `${request.protocol}://${request.host.toLowerCase()}`
    if (request.url === INVALID_ROUTE) throw kernelErrors.rest_path_invalid_type()
    if (request.url === URI_TOO_LONG) throw kernelErrors.rest_uri_too_long()
    // A namespace service authenticates its own callers.
    if (!isRestPath(request.url) || isProxied(request)) return
    request.callerAuthorization = request.headers.authorization
    request.principal = await authenticate(request)
  })
}
