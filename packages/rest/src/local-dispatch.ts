/**
 * In-process dispatch through the route's whole pipeline (validation,
 * permission, handler, shaping), as the same caller, without HTTP: the
 * request and the answer stay objects. Batch and `_embed` use it.
 */
import { kernelErrors } from './errors.js'
import type { Registry, RouteDecl } from './route.js'
import { parseQuery } from './params.js'
import { API_PREFIX } from './addressing.js'
import { ownHeaders, splitPath, type Dispatch, type DispatchRequest } from './dispatch.js'
import type { Executor, Incoming } from './pipeline.js'
import { forwardedForOf, type RemoteNamespaces } from './remote.js'
import type { SwitchedOff } from './activation.js'

export function localDispatcher (from: Incoming, registry: Registry, executors: Map<RouteDecl, Map<string, Executor>>, remote: RemoteNamespaces, isOff: SwitchedOff): Dispatch {
  return async (req: DispatchRequest) => {
    const { pathname, search } = splitPath(req.path)
    // A remote namespace's sub-request goes to its service, as the caller (unless it is switched off).
    const remoteNs = remote.serviceOf(pathname)
    if (remoteNs !== undefined) {
      if (await isOff(remoteNs)) {
        const error = kernelErrors.rest_no_route()
        return { status: error.status, headers: {}, body: error.toBody() }
      }
      // The other service's data is not under this store's horizon: the answer embedding it is not kept.
      from.outsideAnswer = true
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
    if (match === null || execute === undefined || await isOff(match.route.namespace)) {
      const error = kernelErrors.rest_no_route()
      return { status: error.status, headers: {}, body: error.toBody() }
    }
    const params = new URLSearchParams(search)
    for (const [k, v] of Object.entries(req.query ?? {})) params.set(k, String(v))
    const qs = params.toString()
    const encodedPath = pathname.replace(/[?#%\s]/g, (c) => encodeURIComponent(c))
    const sub: Incoming = {
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
      log: from.log,
      dispatched: true
    }
    const outcome = await execute(sub)
    if (sub.outsideAnswer === true) from.outsideAnswer = true
    if (outcome.rendered === undefined) {
      return { status: outcome.status, headers: ownHeaders(outcome.headers), body: outcome.body ?? null }
    }
    const r = outcome.rendered
    let body: unknown = null
    // A large kept answer has only its bytes (render.ts renderAnswer).
    const payload = r.payload ?? r.bytes?.toString('utf8')
    if (payload !== undefined && payload !== '') {
      try { body = JSON.parse(payload) } catch { body = payload }
    }
    return { status: r.status, headers: ownHeaders({ ...r.headers, ...(r.etag === undefined ? {} : { ETag: r.etag }) }), body }
  }
}
