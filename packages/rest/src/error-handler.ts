/**
 * Errors as answers: any thrown value becomes a RestError (the kernel's own,
 * Fastify's body errors, the store's through `classifyError`, else 500), and
 * unknown routes are answered `rest_no_route` (OPTIONS: an empty 200).
 */
import type { FastifyInstance } from 'fastify'
import { kernelErrors, RestError } from './errors.js'
import { send } from './render.js'
import type { KernelOptions } from './options.js'

export function toRestError (err: unknown, opts: Pick<KernelOptions, 'classifyError'>): RestError {
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
 * What an error adds to its answer's head, and whether it is logged: a
 * refusal that names when to come back (`data.retry_after`: a full work
 * queue) says so in `Retry-After` and is no failure of the service to log.
 */
export function errorHead (error: RestError): { headers: Record<string, string>, log: boolean } {
  const retry = error.data.retry_after
  if (typeof retry === 'number') return { headers: { 'Retry-After': String(retry) }, log: false }
  return { headers: {}, log: error.status >= 500 }
}

/** Installed before any route: a route takes the handlers in force when it is declared. */
export function installErrorHandlers (app: FastifyInstance, opts: Pick<KernelOptions, 'classifyError'>): void {
  app.setNotFoundHandler(async (request, reply) => {
    if (request.method === 'OPTIONS') return await send(request, reply, 200, {}, [])
    const error = kernelErrors.rest_no_route()
    return await send(request, reply, error.status, {}, error.toBody())
  })

  app.setErrorHandler(async (err: unknown, request, reply) => {
    const error = toRestError(err, opts)
    const head = errorHead(error)
    if (head.log) request.log.error({ err }, 'request failed')
    return await send(request, reply, error.status, head.headers, error.toBody())
  })
}
