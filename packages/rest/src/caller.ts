/**
 * Who is calling (Fastify's `onRequest`): the site's base URL, the
 * principal (anonymous outside the REST prefix), the caller's own
 * Authorization (forwarded to remote namespaces) and whether the method was
 * overridden by a header.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { kernelErrors } from './errors.js'
import { anonymous, type Principal } from './route.js'
import { INVALID_ROUTE, isRestPath, overriddenByHeader } from './addressing.js'
import type { KernelOptions } from './options.js'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
    baseUrl: string
    /** The caller's own Authorization header, kept to forward to remote namespaces. */
    callerAuthorization: string | undefined
    methodOverridden: boolean
  }
}

export function installCaller (app: FastifyInstance, opts: Pick<KernelOptions, 'authenticate' | 'baseUrl'>): void {
  const authenticate = opts.authenticate ?? (async (_request: FastifyRequest) => anonymous)
  app.decorateRequest('principal', null as unknown as Principal)
  app.decorateRequest('baseUrl', '')
  app.decorateRequest('callerAuthorization', undefined)
  app.decorateRequest('methodOverridden', false)

  app.addHook('onRequest', async (request) => {
    request.methodOverridden = overriddenByHeader(request.raw)
    request.baseUrl = opts.baseUrl ?? `${request.protocol}://${request.host}`
    request.principal = anonymous
    if (request.url === INVALID_ROUTE) throw kernelErrors.rest_path_invalid_type()
    if (!isRestPath(request.url)) return
    request.callerAuthorization = request.headers.authorization
    request.principal = await authenticate(request)
  })
}
