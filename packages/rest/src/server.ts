/**
 * The kernel as a Fastify plugin: the assembly of its stages. Each stage
 * lives in its own file, in the order a request meets them:
 * addressing (`rewriteUrl`) -> caller (`onRequest`) -> body parsers ->
 * mount (the Fastify route) -> pipeline (validate, permission,
 * preconditions, handler, shape) -> kept answers -> render -> headers
 * (`onSend`); errors and unknown routes in error-handler, batch and `_embed`
 * through local-dispatch.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Registry, RouteDecl } from './route.js'
import type { Dispatch } from './dispatch.js'
import { exposeOpenApi, registerOpenApi } from './openapi.js'
import { API_PREFIX } from './addressing.js'
import { installCaller } from './caller.js'
import { DEFAULT_JSON_BODY_LIMIT, installBodyParsers } from './body-parsers.js'
import { refuseUnknownRoute } from './early-refusal.js'
import { installErrorHandlers } from './error-handler.js'
import { buildRegistry, namespaceRoot } from './registry.js'
import { KeptAnswers } from './kept-answers.js'
import { mountRoute } from './mount.js'
import { localDispatcher } from './local-dispatch.js'
import { addCommonHeaders } from './headers.js'
import type { Executor, Incoming } from './pipeline.js'
import { DEFAULT_KEPT_ANSWER_BYTES, DEFAULT_KEPT_SIGNED_IN_BYTES, type KernelOptions } from './options.js'
import { remoteNamespaces } from './remote.js'
import { assertNamespaced } from './declare.js'
import { offNow, refuseSwitchedOff, switchedOff } from './activation.js'

export { API_PREFIX } from './addressing.js'
export { kernelServerOptions, type KernelOptions } from './options.js'

async function kernel (app: FastifyInstance, opts: KernelOptions): Promise<void> {
  const cors = opts.corsOrigins ?? '*'
  const allRoutes: RouteDecl[] = [...(opts.routes ?? [])]
  const namespaceNames = opts.namespaces.map((ns) => ns.name)
  const routesByNamespace = new Map<string, RouteDecl[]>()
  const remote = remoteNamespaces({ services: opts.remote ?? {}, timeoutMs: opts.remoteTimeoutMs, pages: opts.remotePages })

  for (const ns of opts.namespaces) {
    // A route declared for another namespace stops the start (declare.ts).
    assertNamespaced(ns)
    // Served by its service (remote.ts), whatever code this process has for it.
    if (remote.namespaces.includes(ns.name)) continue
    const root: RouteDecl = namespaceRoot(ns.name, routesByNamespace)
    const list = [root, ...ns.routes]
    routesByNamespace.set(ns.name, list)
    allRoutes.push(...list)
  }

  installCaller(app, opts)
  app.decorate('restRoutes', allRoutes)
  app.decorate('restNamespaces', namespaceNames)

  installBodyParsers(app, { jsonBodyLimit: opts.jsonBodyLimit, textLimits: opts.textLimits })
  // No body is read for a request that no route answers (early-refusal.ts).
  app.addHook('preParsing', refuseUnknownRoute(opts.jsonBodyLimit ?? DEFAULT_JSON_BODY_LIMIT))
  // Before any route: a route takes the handlers in force when it is declared.
  installErrorHandlers(app, opts)

  const registry = buildRegistry(allRoutes, namespaceNames, routesByNamespace, opts.routes ?? [], remote, opts.activation)
  app.decorate('restRegistry', registry)
  const kept = new KeptAnswers(opts.keptAnswerBytes ?? DEFAULT_KEPT_ANSWER_BYTES)
  const keptSignedIn = new KeptAnswers(opts.keptSignedInBytes ?? DEFAULT_KEPT_SIGNED_IN_BYTES)
  const executors = new Map<RouteDecl, Map<string, Executor>>()
  const dispatchFor = (request: Incoming): Dispatch => localDispatcher(request, registry, executors, remote, switchedOff(opts))
  const ctx = { opts, registry, kept, keptSignedIn, dispatchFor }

  if (opts.openapi !== undefined) await registerOpenApi(app, opts.openapi, API_PREFIX)
  for (const decl of allRoutes) executors.set(decl, mountRoute(app, decl, ctx))
  await remote.register(app, API_PREFIX, (ns) => refuseSwitchedOff(ns, opts, opts.jsonBodyLimit ?? DEFAULT_JSON_BODY_LIMIT))
  if (opts.openapi !== undefined) await exposeOpenApi(app, remote.openApiPaths, offNow(opts))

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
