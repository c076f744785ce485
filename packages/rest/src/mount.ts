/**
 * A route declaration mounted on Fastify: one Fastify route per method (GET
 * also answers HEAD) running the endpoint's pipeline, and an OPTIONS route
 * answering the route's index entry. The arguments are given to Fastify as
 * schemas for the OpenAPI document only.
 */
import type { FastifyInstance, RouteOptions } from 'fastify'
import multipart from '@fastify/multipart'
import { bodyStreamOf } from './body-stream.js'
import { drainRest } from './body.js'
import { argsOf } from './arg-marks.js'
import { fastifyPathOf, patternOf, variablesOf } from './route-path.js'
import { rateClassOf } from './rate-class.js'
import type { Method, RouteDecl } from './route.js'
import { mergeParams } from './params.js'
import { routeEntry } from './discovery.js'
import { API_PREFIX } from './addressing.js'
import { renderAnswer, send, write } from './render.js'
import { keepBytes } from './reused-bodies.js'
import { StreamBody } from './response.js'
import { assertLinearPatterns } from './patterns.js'
import { allowHeader, endpointExecutor, requestScope, restRequestOf, type Executor, type PipelineContext } from './pipeline.js'
import { snapshotAsker } from './epochs.js'
import { refuseAnonymous } from './early-refusal.js'
import { reportUnreported } from './writes.js'
import { DEFAULT_JSON_BODY_LIMIT } from './body-parsers.js'
import { refuseSwitchedOff, switchedOff } from './activation.js'

/**
 * The declarations answering OPTIONS on each app, by path shape (variables'
 * classes left out): two routes may differ only in a variable's class
 * (builder/v1 `checklist/steps/{id}`: digits for GET, a step id for POST),
 * and find-my-way keeps one OPTIONS route per position.
 */
const optionsTargets = new WeakMap<FastifyInstance, Map<string, OptionsTarget[]>>()

interface OptionsTarget {
  decl: RouteDecl
  pattern: string
  /** Each path variable's class, anchored. */
  classes: Array<[string, RegExp]>
}

/** Mounts a declaration; returns its executors by method (for in-process dispatch). */
export function mountRoute (app: FastifyInstance, decl: RouteDecl, ctx: PipelineContext): Map<string, Executor> {
  const executors = new Map<string, Executor>()
  const url = fastifyPathOf(decl, API_PREFIX)
  const pattern = patternOf(decl)
  // A namespace that can be switched off (a plugin's) is asked about first, before anything is read.
  const offHook = refuseSwitchedOff(decl.namespace, ctx.opts, ctx.opts.jsonBodyLimit ?? DEFAULT_JSON_BODY_LIMIT)

  for (const ep of decl.endpoints) {
    const args = argsOf(ep)
    for (const a of args) assertLinearPatterns(a.schema, `route ${decl.path} (${ep.methods.join(', ')}): argument ${a.name}`)
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
      const execute = endpointExecutor(decl, ep, method, ctx)
      if (!executors.has(method)) executors.set(method, execute)
      const stream = ep.streamBody
      addRoute(app, stream !== undefined, {
        method,
        url,
        // Validation is the kernel's own (the core's rules and messages), not Ajv's;
        // the schema is still given to Fastify so the OpenAPI document shows it.
        schema: {
          tags: [decl.namespace === '' ? 'site' : decl.namespace],
          summary: ep.summary,
          ...(vars.length > 0 ? { params: paramsSchema } : {}),
          ...(method === 'GET' || method === 'DELETE' ? { querystring: argSchema } : stream !== undefined ? streamedBodySchema(argSchema) : { body: argSchema })
        },
        validatorCompiler: () => () => true,
        // Read by whoever limits requests (the core's rate limits) as routes are added.
        config: { rateClass: rateClassOf(ep, method) },
        ...(offHook === undefined ? {} : { onRequest: offHook }),
        // A write answered by a hook before the endpoint ran is recorded too (writes.ts).
        ...withOnSend(reportUnreported(ctx.opts.onWrite, decl, ep, pattern, method)),
        // An anonymous caller the permission refuses anyway: answered before the body is read.
        ...(stream === undefined ? { preParsing: refuseAnonymous(decl, ep, method, pattern, ctx, ctx.opts.jsonBodyLimit ?? DEFAULT_JSON_BODY_LIMIT) } : {}),
        exposeHeadRoute: method === 'GET',
        handler: async (request, reply) => {
          const outcome = await execute(stream === undefined ? request : Object.assign(request, { bodyStream: bodyStreamOf(request, stream) }))
          // A streamed body left partly unread (refused early) is drained within bounds, or the connection closed.
          if (stream !== undefined && !(await drainRest(request, stream.maxBytes()))) reply.header('Connection', 'close')
          if (outcome.rendered !== undefined) {
            if (outcome.keep !== undefined) outcome.keep.into.keep(outcome.keep.key, outcome.rendered, outcome.keep.horizon)
            return write(request, reply, outcome.rendered)
          }
          if (outcome.body instanceof StreamBody) {
            for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value)
            reply.code(outcome.status).type(outcome.body.contentType)
            return reply.send(request.method === 'HEAD' ? undefined : outcome.body.open())
          }
          // A large answer is serialized in the kernel's JSON thread (json-thread.ts).
          const response = await renderAnswer(request, outcome.status, outcome.headers, outcome.body, ep.serialize)
          if (outcome.reuse !== undefined) keepBytes(outcome.reuse.body, outcome.reuse.key, response)
          if (outcome.keep !== undefined && response.status === 200) outcome.keep.into.keep(outcome.keep.key, response, outcome.keep.horizon)
          return write(request, reply, response)
        }
      })
    }
  }
  const shape = url.replace(/\(\^.*?\$\)/g, '')
  const target: OptionsTarget = {
    decl,
    pattern,
    classes: variablesOf(decl.path).map((v) => [v, new RegExp(`^(?:${decl.vars![v]})$`)])
  }
  const shapes = optionsTargets.get(app) ?? new Map<string, OptionsTarget[]>()
  optionsTargets.set(app, shapes)
  const targets = shapes.get(shape)
  if (targets !== undefined) {
    targets.push(target)
    return executors
  }
  const mounted = [target]
  const isOff = switchedOff(ctx.opts)
  shapes.set(shape, mounted)
  app.route({
    method: 'OPTIONS',
    url: shape,
    schema: { hide: true } as Record<string, unknown>,
    handler: async (request, reply) => {
      const params = request.params as Record<string, string>
      // The first declaration whose classes match, as the core's router picks it.
      const found = mounted.find((t) => t.classes.every(([name, re]) => re.test(params[name] ?? '')))
      if (found === undefined || await isOff(found.decl.namespace)) return reply.callNotFound()
      const raw = mergeParams((request.query ?? {}) as Record<string, unknown>, request.body, params)
      const restReq = restRequestOf(request, 'GET' as Method, found.pattern, raw, raw, ctx.registry, ctx.dispatchFor(request), ctx.opts.siteUrl ?? ctx.opts.baseUrl ?? '', requestScope(snapshotAsker(ctx.opts)))
      const entry = routeEntry(found.decl, { baseUrl: request.baseUrl, help: true, off: await ctx.registry.off(restReq) })
      const allow = await allowHeader(found.decl, restReq)
      return await send(request, reply, 200, allow === '' ? {} : { Allow: allow }, entry)
    }
  })
  return executors
}

/** How OpenAPI shows a streamed body: the file as raw bytes, or a multipart form with a `file` part and the arguments as fields. */
function streamedBodySchema (args: { properties: Record<string, unknown> }): Record<string, unknown> {
  const binary = { type: 'string', format: 'binary' }
  return {
    querystring: args,
    body: {
      content: {
        'multipart/form-data': { schema: { type: 'object', properties: { file: binary, ...args.properties }, required: ['file'] } },
        'application/octet-stream': { schema: binary }
      }
    }
  }
}

/**
 * Adds a Fastify route; one whose endpoint streams its body gets a context
 * of its own where no body parser reads anything (multipart bodies are
 * marked for @fastify/multipart, which reads them when the handler asks).
 */
function withOnSend (hook: ReturnType<typeof reportUnreported>): Pick<RouteOptions, 'onSend'> {
  return hook === undefined ? {} : { onSend: hook }
}

function addRoute (app: FastifyInstance, streamed: boolean, options: RouteOptions): void {
  if (!streamed) {
    app.route(options)
    return
  }
  void app.register(async (child) => {
    child.removeAllContentTypeParsers()
    await child.register(multipart)
    child.addContentTypeParser('*', (_request, _payload, done) => { done(null, undefined) })
    child.route(options)
  })
}
