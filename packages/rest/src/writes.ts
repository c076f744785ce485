/**
 * The kernel's seam for whoever records writes (the core's audit log): after
 * every POST, PUT, PATCH or DELETE a route answers, over HTTP or dispatched
 * in-process (each request of a batch, `_embed`), and after an anonymous
 * write refused before its body was read, the observer is called once with
 * what the route declared, who called, what was sent and what was answered.
 * The kernel knows nothing of what the observer keeps: it is called after
 * the answer is made, synchronously, and whatever it throws is logged and
 * dropped, so it can neither delay nor fail the write it sees.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { EndpointDecl, Method, Principal, RouteDecl } from './route.js'
import { mergeParams } from './params.js'

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

export type WriteObserver = (record: WriteRecord) => void

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

/** Reports one answered write to the observer, if any; never throws. */
export function reportWrite (observer: WriteObserver | undefined, decl: RouteDecl, ep: EndpointDecl<any>, pattern: string, method: Method, request: Seen, path: string, status: number, body: unknown, dispatched: boolean): void {
  if (observer === undefined || ep.audited === false || !WRITE_METHODS.has(method)) return
  try {
    const vars = (request.params ?? {}) as Record<string, string>
    const sent = mergeParams((request.query ?? {}) as Record<string, unknown>, request.body, vars)
    observer({ route: decl, endpoint: ep, pattern, method, path, vars, caller: request.principal, ip: request.ip, sent, status, body, dispatched })
  } catch (err) {
    request.log.error({ err }, 'the write observer failed')
  }
}
