/**
 * One request through one endpoint, in the core's order: arguments validated
 * -> permission -> preconditions -> handler -> shaped body (context,
 * `_fields`, `_embed`) with the Allow header. The same pipeline serves HTTP
 * and in-process dispatch (batch, `_embed`).
 */
import type { FastifyRequest } from 'fastify'
import { decideOnly, denied, kernelErrors, RestError } from './errors.js'
import { argsOf } from './arg-marks.js'
import { requestMemo } from './memo.js'
import type { EndpointDecl, Method, Registry, RestRequest, RouteDecl } from './route.js'
import { mergeParams } from './params.js'
import { endpointValidator } from './request-args.js'
import { parsedOffThread } from './json-thread.js'
import { closeListedKeys } from './listed-keys.js'
import { restPathOf } from './addressing.js'
import type { Dispatch } from './dispatch.js'
import { asResponse, StreamBody, type HeaderValue } from './response.js'
import { checkPreconditions } from './conditional.js'
import { tooLargeByLength } from './body-stream.js'
import { shapeBody } from './shape.js'
import { errorHead, toRestError } from './error-handler.js'
import { KeptAnswers } from './kept-answers.js'
import { JSON_TYPE, type Rendered } from './render.js'
import { reusedBytes, reuseKey } from './reused-bodies.js'
import type { KernelOptions } from './options.js'
import { patternOf, routePathOf } from './route-path.js'
import { begunOf, reportWrite } from './writes.js'
import { epochToken, reuses, snapshotAsker, type KernelSnapshot } from './epochs.js'

/**
 * What the pipeline reads of a request: a Fastify request, or a request
 * dispatched in-process (batch, `_embed`) on behalf of one.
 */
export type Incoming = Pick<FastifyRequest, 'method' | 'url' | 'query' | 'body' | 'params' | 'headers' | 'principal' | 'baseUrl' | 'callerAuthorization' | 'ip' | 'ips' | 'log'> & {
  /** The unread body of an endpoint that streams it (`streamBody`). */
  bodyStream?: RestRequest['body']
  /**
   * The snapshot (horizon and epochs) taken while the caller was
   * authenticated, reused by the pipeline: its epochs by every request, its
   * horizon by reads (GET and HEAD; a write asks afresh, after what it wrote).
   */
  snapshotTaken?: KernelSnapshot
  /** Set on a request dispatched in-process (local-dispatch.ts), for the write observer. */
  dispatched?: true
  /**
   * Set once part of the answer came from outside this process (a remote
   * namespace's answer embedded, local-dispatch.ts): such an answer is
   * never kept (the horizon does not follow the other service's data).
   */
  outsideAnswer?: true
}

/** A route's answer before it is written: data to render, or bytes kept from an earlier answer. */
export type Outcome =
  | { rendered: Rendered, keep?: Keep }
  | { rendered?: undefined, status: number, headers: Record<string, HeaderValue>, body: unknown, keep?: Keep, reuse?: { body: object, key: string }, data?: unknown }

/** Where a read's answer is kept (kept-answers.ts), once rendered. */
interface Keep { into: KeptAnswers, key: string, horizon?: string }

/** Runs one method of one route for a request. */
export type Executor = (request: Incoming) => Promise<Outcome>

/** What every endpoint's pipeline shares. */
export interface PipelineContext {
  opts: KernelOptions
  registry: Registry
  /** Anonymous callers' answers. */
  kept: KeptAnswers
  /** Signed-in callers' answers, keyed by their rights too (`Principal.keptAs`). */
  keptSignedIn: KeptAnswers
  dispatchFor: (request: Incoming) => Dispatch
}

/** The pipeline of one method of one endpoint; errors are answers that carry the route's Allow header. */
export function endpointExecutor (decl: RouteDecl, ep: EndpointDecl<any>, method: Method, ctx: PipelineContext): Executor {
  const { opts, registry, dispatchFor } = ctx
  // Compiled here, when the route is registered; batch pre-validation uses the same closure.
  const validateArgs = endpointValidator(ep)
  const declaresContext = argsOf(ep).some((a) => a.name === 'context')
  const pattern = patternOf(decl)
  const siteUrl = opts.siteUrl ?? opts.baseUrl ?? ''

  const askSnapshot = snapshotAsker(opts)
  const reusing = reuses(opts)
  const publicAnswers = ep.cache === 'public' && method === 'GET' && reusing

  const handle = async (request: Incoming, expose: (r: RestRequest) => void): Promise<Outcome> => {
    const isHead = request.method === 'HEAD'
    const query = (request.query ?? {}) as Record<string, unknown>
    // A body-less read of a public endpoint: kept bytes, or the horizon they will be kept under.
    const keeping = publicAnswers && (request.body === undefined || request.body === null) ? keptFor(request, ctx) : undefined
    let horizon: string | undefined
    let snapshot: KernelSnapshot | undefined
    if (keeping !== undefined) {
      const taken = request.snapshotTaken?.horizon
      if (taken !== undefined) {
        // Signed in: the horizon taken with the credentials, before anything was read.
        const hit = keeping.into.at(keeping.key, taken)
        if (hit !== undefined) return { rendered: hit }
        horizon = taken
      } else {
        const fresh = await keeping.into.fresh(keeping.key, async () => (snapshot = await askSnapshot())?.horizon)
        if (fresh.hit !== undefined) return { rendered: fresh.hit }
        horizon = fresh.horizon
      }
    }
    // Built after the kept-answer check: a hit allocates nothing more.
    // A request reuses the snapshot its authentication took (one statement fewer): a read its
    // horizon and epochs, a write its epochs. Without a horizon of the kernel's, nothing is reused.
    snapshot ??= reusing ? request.snapshotTaken : undefined
    const scope = requestScope(askSnapshot, snapshot, method === 'GET' ? horizon ?? snapshot?.horizon : undefined)
    const raw = mergeParams(query, request.body, request.params as Record<string, string>)
    const unvalidated = restRequestOf(request, method, pattern, raw, query, registry, dispatchFor(request), siteUrl, scope)
    // The Allow header of a validation error is computed on the request as sent.
    expose(unvalidated)
    // A large body's arguments are validated a walk a turn (issue 27); others at once.
    let params: Record<string, unknown>
    if (parsedOffThread(request.body)) {
      try {
        params = await validateArgs.sliced(raw)
      } finally {
        // The keys its pieces brought (listed-keys.ts) hold no longer: the handler may change its objects.
        closeListedKeys(request.body)
      }
    } else params = validateArgs(raw)
    const restReq: RestRequest = { ...unvalidated, params, routePath: routePathOf(pattern, params) }
    expose(restReq)
    const allowed = await ep.permission.check(restReq)
    if (allowed !== true) {
      throw allowed instanceof RestError
        ? allowed
        : denied(kernelErrors.rest_forbidden(), request.principal.id)
    }
    if (method !== 'GET' && decl.path.includes('{')) await checkPreconditions(request, restReq)
    // A streamed body announced too long is refused before any of it is read.
    if (ep.streamBody !== undefined) tooLargeByLength(request.headers, ep.streamBody)
    const result = asResponse(await ep.handler(restReq))
    // The answer's context: the endpoint's own, else the request's (an endpoint that does not
    // declare `context` is still shaped by the one sent, as the core reads `$request['context']`).
    const own = typeof ep.responseContext === 'function' ? ep.responseContext(restReq) : ep.responseContext
    const context = own ?? (declaresContext || typeof raw.context !== 'string' ? undefined : raw.context)
    const answered = context === undefined ? restReq : { ...restReq, params: { ...restReq.params, context } }
    expose(answered)
    const allow = await allowHeader(decl, answered)
    const headers: Record<string, HeaderValue> = { ...result.headers }
    if (allow !== '') headers.Allow = allow
    // An answer with a part from outside (a remote namespace's, embedded) is not kept.
    const keep = keeping !== undefined && result.status === 200 && request.outsideAnswer !== true ? { ...keeping, horizon } : undefined
    // A body the handler answered with before, shaped the same way: its bytes (reused-bodies.ts).
    const reuse = method === 'GET' && !isHead && result.status === 200 && ep.serialize === undefined && request.dispatched !== true
      ? reuseKey(result.body, query, answered.params.context, 'ETag' in headers || 'etag' in headers || 'Etag' in headers)
      : undefined
    if (reuse !== undefined) {
      const hit = reusedBytes(result.body as object, reuse)
      if (hit !== undefined) return { rendered: { status: 200, headers, contentType: JSON_TYPE, payload: undefined, bytes: hit.bytes, etag: hit.etag }, keep }
    }
    // A streamed body keeps its headers for HEAD too (it is simply not opened).
    let body = isHead && !(result.body instanceof StreamBody) ? null : result.body
    if (!isHead && body !== null && body !== undefined && !(body instanceof StreamBody)) {
      // As the core's `rest_filter_response_fields`: an answer of status 400 or more keeps every field.
      body = await shapeBody(body, decl, answered, result.status >= 400 ? { ...query, _fields: undefined } : query)
    }
    // The write observer sees the handler's data before `_fields` shaped it (its `id`).
    return { status: result.status, headers, body, keep, ...(reuse === undefined ? {} : { reuse: { body: result.body as object, key: reuse } }), ...(method === 'GET' ? {} : { data: result.body }) }
  }

  // Errors of a matched route carry its Allow header and its representation.
  const answer = async (request: Incoming): Promise<Outcome> => {
    let restReq: RestRequest | undefined
    try {
      return await handle(request, (r) => { restReq = r })
    } catch (err) {
      const error = toRestError(err, opts)
      const head = errorHead(error)
      if (head.log) request.log.error({ err }, 'request failed')
      const allow = restReq === undefined ? '' : await allowHeader(decl, restReq)
      return { status: error.status, headers: allow === '' ? head.headers : { ...head.headers, Allow: allow }, body: error.toBody() }
    }
  }
  // Writes are reported once answered (writes.ts); reads pay nothing.
  const observer = opts.onWrite
  if (observer === undefined || ep.audited === false || method === 'GET') return answer
  const reported = async (request: Incoming): Promise<Outcome> => {
    const outcome = await answer(request)
    // A write's outcome is always data (kept answers are reads').
    if (outcome.rendered === undefined) {
      reportWrite(observer, decl, ep, pattern, method, request, restPathOf(request.url), outcome.status, outcome.data ?? outcome.body, request.dispatched === true)
    }
    return outcome
  }
  const around = observer.around
  if (around === undefined) return reported
  // The observer's scope holds the write while it runs (what it commits may carry its record).
  return async (request) => await around(() => begunOf(decl, ep, pattern, method, request, restPathOf(request.url), request.dispatched === true), async () => await reported(request))
}

/**
 * Where a read's answer may be kept, and under which key: an anonymous
 * caller's by its address; a signed-in caller's by its address and rights
 * token, for a request it sent itself (not one dispatched in-process: a
 * batch's or an embedded one); none for a signed-in caller without a token.
 */
function keptFor (request: Incoming, ctx: PipelineContext): { into: KeptAnswers, key: string } | undefined {
  const caller = request.principal
  if (caller.id === 0) return { into: ctx.kept, key: KeptAnswers.keyOf(request) }
  const token = caller.keptAs
  if (token === undefined || request.dispatched === true) return undefined
  return { into: ctx.keptSignedIn, key: KeptAnswers.keyOf(request, token) }
}

export function restRequestOf (
  request: Incoming,
  method: Method,
  pattern: string,
  params: Record<string, unknown>,
  query: Record<string, unknown>,
  registry: Registry,
  dispatch: Dispatch,
  siteUrl: string,
  scope: RequestScope
): RestRequest {
  return {
    method,
    route: pattern,
    path: restPathOf(request.url),
    routePath: routePathOf(pattern, params),
    params,
    query,
    headers: request.headers,
    user: request.principal,
    baseUrl: request.baseUrl,
    siteUrl,
    ip: request.ip,
    dispatch,
    registry,
    memo: scope.memo,
    horizon: scope.horizon,
    epoch: scope.epoch,
    body: request.bodyStream,
    sentBody: request.body ?? undefined
  }
}

/** What one request shares between its stages: the memo, and the horizon and epochs asked through it. */
export interface RequestScope { memo: RestRequest['memo'], horizon: RestRequest['horizon'], epoch: RestRequest['epoch'] }

/**
 * `taken`: a snapshot taken for this request already (its epochs are
 * reused); `horizon`: the horizon the request's reads are kept under, when
 * known. What is missing is asked at first use, once (one statement for
 * both).
 */
export function requestScope (askSnapshot: () => Promise<KernelSnapshot | undefined>, taken?: KernelSnapshot, horizon?: string): RequestScope {
  const memo = requestMemo()
  const fresh = async (): Promise<KernelSnapshot | undefined> => await memo('kernel:snapshot', askSnapshot)
  return {
    memo,
    horizon: horizon === undefined ? async () => (await fresh())?.horizon : async () => horizon,
    epoch: taken === undefined ? async (name) => epochToken(await fresh(), name) : async (name) => epochToken(taken, name)
  }
}

/** The methods of the route this caller may use, as the core's Allow header lists them. */
export async function allowHeader (decl: RouteDecl, req: RestRequest): Promise<string> {
  const allowed: string[] = []
  for (const ep of decl.endpoints) {
    let ok = false
    try {
      ok = (await checkQuietly(ep, { ...req, method: ep.methods[0]! })) === true
    } catch {
      ok = false
    }
    if (ok) allowed.push(...ep.methods)
  }
  return allowed.join(', ')
}

/**
 * A permission check whose refusal only decides a header: the error it
 * returns is dropped, so the part of the check that runs before its first
 * `await` (all of it, for most checks) makes no error object (`decideOnly`:
 * declared errors are one shared error meanwhile) and no stack trace (an
 * anonymous list built two errors with stacks for its create endpoint on
 * every uncached answer). Nothing else runs meanwhile: both are restored
 * before any other code can create an error.
 */
function checkQuietly (ep: RouteDecl['endpoints'][number], req: RestRequest): ReturnType<typeof ep.permission.check> {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return decideOnly(() => ep.permission.check(req))
  } finally {
    Error.stackTraceLimit = limit
  }
}
