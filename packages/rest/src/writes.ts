/**
 * The kernel's seam for whoever records writes (the core's audit log): after
 * every POST, PUT, PATCH or DELETE a route answers, over HTTP or dispatched
 * in-process (each request of a batch, `_embed`), after an anonymous
 * write refused before its body was read, and after a write a Fastify hook
 * answered before the endpoint ran (`reportUnreported`), the observer is
 * called once with what the route declared, who called, what was sent and
 * what was answered.
 * The kernel knows nothing of what the observer keeps: it is called after
 * the answer is made, synchronously, and whatever it throws is logged and
 * dropped, so it can neither delay nor fail the write it sees.
 *
 * An observer may also wrap the endpoint's run (`around`): the kernel runs
 * the pipeline and the report inside it, so the observer can keep the write
 * in progress in an AsyncLocalStorage of its own and let what the endpoint
 * commits carry it (the core's audit outbox). `begun` tells what is known
 * before the answer, worked out only when asked.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { anonymous, type EndpointDecl, type Method, type Principal, type RouteDecl } from './route.js'
import { mergeParams } from './params.js'
import { restPathOf } from './addressing.js'

export interface WriteRecord {
  /** The route's declaration: its namespace, path, item schema (`schema.title`). */
  readonly route: RouteDecl
  /** The endpoint that answered (its arguments say which are `secret`: `argsOf`). */
  readonly endpoint: EndpointDecl<any>
  /** The route's pattern as the index shows it: `/cms/v2/posts/(?P<id>[\d]+)`. */
  readonly pattern: string
  /** The method as run (after `_method` or `X-HTTP-Method-Override`). */
  readonly method: Method
  /** The path relative to the API root: `/cms/v2/posts/12`. */
  readonly path: string
  /** The path variables as matched. */
  readonly vars: Readonly<Record<string, string>>
  readonly caller: Principal
  /** The client's address (the socket's, or a trusted proxy's `X-Forwarded-For`). */
  readonly ip: string
  /** The arguments as sent: query, body members and path variables merged (not validated, no defaults). */
  readonly sent: Readonly<Record<string, unknown>>
  /** The answer's status and body (the data, or the `{code, message, data}` error). */
  readonly status: number
  readonly body: unknown
  /** Whether this request was dispatched in-process (a batch's request) rather than received over HTTP. */
  readonly dispatched: boolean
}

/** A write as known before it is answered (its record without the outcome). */
export type WriteBegun = Omit<WriteRecord, 'status' | 'body'>

export interface WriteObserver {
  (record: WriteRecord): void
  /** Runs one write endpoint's pipeline (and its report) inside the observer's scope. */
  around?: <T>(begun: () => WriteBegun, run: () => Promise<T>) => Promise<T>
}

export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

interface Seen {
  params?: unknown
  query?: unknown
  body?: unknown
  url: string
  ip: string
  principal: Principal
  log: FastifyBaseLogger
}

/** Requests already reported: the route's `onSend` check (`reportUnreported`) leaves them be. */
const reported = new WeakSet<object>()

/** Reports one answered write to the observer, if any; never throws. */
export function reportWrite (observer: WriteObserver | undefined, decl: RouteDecl, ep: EndpointDecl<any>, pattern: string, method: Method, request: Seen, path: string, status: number, body: unknown, dispatched: boolean): void {
  if (observer === undefined || ep.audited === false || !WRITE_METHODS.has(method)) return
  reported.add(request)
  try {
    observer({ ...begunOf(decl, ep, pattern, method, request, path, dispatched), status, body })
  } catch (err) {
    request.log.error({ err }, 'the write observer failed')
  }
}

/** What the observer is told of a write before its answer. */
export function begunOf (decl: RouteDecl, ep: EndpointDecl<any>, pattern: string, method: Method, request: Seen, path: string, dispatched: boolean): WriteBegun {
  const vars = (request.params ?? {}) as Record<string, string>
  const sent = mergeParams((request.query ?? {}) as Record<string, unknown>, request.body, vars)
  // A hook may answer before the caller is known (a refused credential check): anonymous.
  return { route: decl, endpoint: ep, pattern, method, path, vars, caller: request.principal ?? anonymous, ip: request.ip, sent, dispatched }
}

/** The most of an unreported answer read back for its error code (an error body is far smaller). */
const ERROR_BODY_READ = 16 * 1024

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => void

/**
 * A write route's `onSend` hook: a write answered before the kernel ran its
 * endpoint, by a Fastify hook (a package's hook refusing it, the rate
 * limiter's 429, a switched-off namespace, a body that could not be read),
 * is reported too, with the status sent and the error's code read back from
 * the (small) error body. The kernel's own answers were reported already: a
 * set lookup. Undefined when there is no observer, or the endpoint is not
 * recorded.
 */
export function reportUnreported (observer: WriteObserver | undefined, decl: RouteDecl, ep: EndpointDecl<any>, pattern: string, method: Method): OnSend | undefined {
  if (observer === undefined || ep.audited === false || !WRITE_METHODS.has(method)) return undefined
  return (request, reply, payload, done) => {
    if (!reported.has(request)) {
      const status = reply.statusCode
      reportWrite(observer, decl, ep, pattern, method, request, restPathOf(request.url), status, status >= 400 ? errorBodyOf(payload) : null, false)
    }
    done(null, payload)
  }
}

function errorBodyOf (payload: unknown): unknown {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8', 0, ERROR_BODY_READ) : undefined
  if (text === undefined || text.length > ERROR_BODY_READ) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}
