/**
 * Requests refused before their body is read (Fastify's `preParsing`): a
 * body costs reading and parsing, so none is read for a request that will
 * be refused whatever it holds.
 * - No route matches: `rest_no_route` (OPTIONS: the empty list), as the
 *   not-found handler answers it.
 * - An anonymous caller of an endpoint its permission refuses to anyone not
 *   signed in: the endpoint's own permission is asked on the path and
 *   query alone (as the Allow header asks it, on unvalidated arguments); a
 *   refusal with status 401 (the core's "sign in first") is the answer.
 *   A permission that lets anonymous callers through, or refuses for
 *   another reason (a missing post), is asked again after the body, as
 *   usual. Signed-in callers and body-less requests never pay for this.
 * The unread body of a refused request is discarded by Node while the
 * connection stays usable when it is announced within 4 times the body
 * limit; a larger or unannounced one closes the connection after the answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { denied, kernelErrors, RestError } from './errors.js'
import { send } from './render.js'
import { mergeParams } from './params.js'
import type { EndpointDecl, Method, RouteDecl } from './route.js'
import { requestScope, restRequestOf, type PipelineContext } from './pipeline.js'
import { snapshotAsker } from './epochs.js'
import { restPathOf } from './addressing.js'
import { reportWrite } from './writes.js'

/** Whether a request carries a body (announced, or chunked). */
export function hasBody (request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/**
 * Closes the connection after the answer unless the unread body is
 * announced within what a refused body may cost: as for a body over the
 * limit (body.ts), up to 4 times the route's body limit is read and
 * discarded, so a client still sending reads the answer instead of a reset
 * (Node's HTTP client loses it with EPIPE when the socket closes under it).
 */
export function dropBody (request: FastifyRequest, reply: FastifyReply, smallBytes: number): void {
  const length = Number(request.headers['content-length'])
  const drainable = Math.max(smallBytes, 4 * (request.routeOptions.bodyLimit ?? 0))
  if (!(length <= drainable)) reply.header('Connection', 'close')
}

/** The global hook: an unknown route is answered without reading its body. */
export function refuseUnknownRoute (smallBytes: number) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!request.is404 || !hasBody(request)) return
    dropBody(request, reply, smallBytes)
    if (request.method === 'OPTIONS') {
      await send(request, reply, 200, {}, [])
      return
    }
    throw kernelErrors.rest_no_route()
  }
}

/** A route's hook: an anonymous caller its permission refuses is answered before the body is read. */
export function refuseAnonymous (decl: RouteDecl, ep: EndpointDecl<any>, method: Method, pattern: string, ctx: PipelineContext, smallBytes: number) {
  const siteUrl = ctx.opts.siteUrl ?? ctx.opts.baseUrl ?? ''
  const askSnapshot = snapshotAsker(ctx.opts)
  // Declared open to everyone in every case: nothing to ask.
  const open = ep.permission.cases.length > 0 && ep.permission.cases.every((c) => c.expect.kind === 'everyone')
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (open || request.principal.id !== 0 || !hasBody(request)) return
    const query = (request.query ?? {}) as Record<string, unknown>
    const raw = mergeParams(query, undefined, request.params as Record<string, string>)
    const restReq = restRequestOf(request, method, pattern, raw, query, ctx.registry, ctx.dispatchFor(request), siteUrl, requestScope(askSnapshot))
    let allowed: boolean | RestError
    try {
      allowed = await ep.permission.check(restReq)
    } catch {
      // Whatever failed is met again, and answered, in the pipeline.
      return
    }
    if (allowed === true) return
    const error = allowed instanceof RestError ? allowed : denied(kernelErrors.rest_forbidden(), 0)
    if (error.status !== 401) return
    dropBody(request, reply, smallBytes)
    // Refused without its body: reported with what the query and path sent.
    reportWrite(ctx.opts.onWrite, decl, ep, pattern, method, request, restPathOf(request.url), error.status, error.toBody(), false)
    throw error
  }
}
