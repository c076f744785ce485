/**
 * Test helpers (`@cms/rest/testing`), beside `@cms/store/testing`: who calls
 * (a `TestCaller`: the headers that sign in) and the one way tests call a
 * route of an app, whichever packages it serves. The apps and their users
 * are made by `@cms/testing` (the core's own tests: its test fixtures and
 * `@cms/core/testing`, which `@cms/testing` builds on).
 */
import type { FastifyInstance } from 'fastify'
import { jsonThread } from './json-thread.js'

export interface TestCaller<Role extends string = string> {
  /** The caller's role, or 'anonymous'. */
  role: Role
  id: number
  login: string
  /** Headers that sign in as this caller ({} for anonymous). */
  headers: Record<string, string>
}

export const anonymous: TestCaller<'anonymous'> = { role: 'anonymous', id: 0, login: '', headers: {} }

/** The HTTP Basic `Authorization` value. */
export function basic (login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`
}

export interface CallOptions {
  /** A caller, or a raw `Authorization` header value. */
  as?: TestCaller | string
  /** A query string (`a=1&b[]=2`) or an object. */
  query?: string | Record<string, string | number | boolean>
  /** Sent as JSON. */
  body?: unknown
  /** Sent as it is instead (an upload, a form: its content-type among `headers`). */
  payload?: string | Buffer
  /** Added last (they win over `as`). */
  headers?: Record<string, string>
}

export interface Answer {
  status: number
  headers: Record<string, any>
  /** The parsed JSON, the text when the body is not JSON, null when empty. */
  body: any
  text: string
}

/** Calls a REST route (`/ns/route`, under /cms-json) of `app` through `inject`. */
export async function call (app: FastifyInstance, method: string, path: string, opts: CallOptions = {}): Promise<Answer> {
  const qs = typeof opts.query === 'string'
    ? opts.query
    : new URLSearchParams(Object.entries(opts.query ?? {}).map(([k, v]) => [k, String(v)])).toString()
  const signIn = typeof opts.as === 'string' ? { authorization: opts.as } : opts.as?.headers
  const res = await app.inject({
    method: method as 'GET',
    url: `/cms-json${path}${qs === '' ? '' : `${path.includes('?') ? '&' : '?'}${qs}`}`,
    headers: { ...signIn, ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    payload: opts.payload ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body))
  })
  let body: any = null
  if (res.body !== '') {
    try { body = JSON.parse(res.body) } catch { body = res.body }
  }
  return { status: res.statusCode, headers: res.headers, body, text: res.body }
}

/** Answers serialized so far in this process, inline or in the JSON thread: for tests that count rendering (never for timing). */
export function serializedAnswers (): number {
  return jsonThread.counts.serializedInline + jsonThread.counts.serializedOff
}
