/**
 * What every response must look like, whatever was sent: a 2xx or 4xx
 * status (3xx only for conditional requests), a JSON body, errors in the
 * `{code, message, data:{status}}` shape with the HTTP status equal to
 * `data.status`, and nothing of the implementation leaking out (stack
 * traces, SQL, driver messages, file paths).
 */
import type { HttpResponse } from './requests.js'

const STACK = [
  /\bat (?:async )?[\w$.<>[\] ]+ \((?:file:\/\/|\/|node:)[^)]*:\d+:\d+\)/,
  /\bat (?:file:\/\/|\/)[^\s]+:\d+:\d+/,
  /node_modules\//,
  /\/work\/main\//,
  /\.(?:ts|js|mjs):\d+:\d+/,
  /\b(?:TypeError|ReferenceError|RangeError|SyntaxError): /,
  /Cannot read propert(?:y|ies) of (?:undefined|null)/,
  /is not a function\b/
]

/** What database drivers and drizzle say; never in a message the service writes. */
const SQL = [
  /Failed query:/i,
  /syntax error at or near/i,
  /duplicate key value violates/i,
  /violates (?:foreign key|not-null|check|unique) constraint/i,
  /(?:relation|column) "[^"]+" does not exist/i,
  /invalid input syntax for (?:type|integer)/i,
  /value too long for type/i,
  /out of range for type/i,
  /\b(?:select|insert into|update|delete from) [\s\S]{0,80}\b(?:from|values|set|where)\b[\s\S]{0,40}\$\d/i,
  /invalid byte sequence for encoding/i,
  /unterminated quoted string/i,
  /\bpglite\b|\bdrizzle\b|\bnode-postgres\b/i,
  /ECONNREFUSED|ECONNRESET|57P01/
]

export interface Verdict {
  ok: boolean
  problem?: string
}

export interface CheckOptions {
  /** Statuses accepted besides 2xx/4xx (e.g. 503 during an outage). */
  allow?: number[]
  /** The request was a HEAD (no body expected). */
  head?: boolean
}

/**
 * The 5xx answers the conventions document for client requests: trashing
 * what cannot be trashed (501, as the core answers), an outside service
 * that is not configured (503) or failed (502), and an anonymous content
 * read while maintenance mode is on (503: an administrator's request may
 * turn it on, as a rollback's first step does, and a fuzz run sends such
 * requests). Anything else is a fault.
 */
export const DOCUMENTED_5XX: Record<number, string[]> = {
  501: ['rest_trash_not_supported'],
  502: ['rest_upstream_error'],
  503: ['rest_upstream_unconfigured', 'rest_maintenance']
}

export function checkResponse (res: HttpResponse, opts: CheckOptions = {}): Verdict {
  const s = res.status
  const documented = DOCUMENTED_5XX[s]?.includes(codeOf(res) ?? '') === true
  const statusOk = (s >= 200 && s < 300) || (s >= 400 && s < 500) || s === 304 || documented || (opts.allow ?? []).includes(s)
  if (!statusOk) return { ok: false, problem: `status ${s}${s >= 500 ? ` (${summary(res.body)})` : ''}` }
  if (s === 204 || s === 304 || opts.head === true) {
    return res.body === '' ? { ok: true } : { ok: false, problem: `status ${s} with a body` }
  }
  const type = String(res.headers['content-type'] ?? '')
  let text = res.body
  if (type.startsWith('application/javascript')) {
    const m = /^\/\*\*\/[\w.]+\(([\s\S]*)\)$/.exec(text)
    if (m === null) return { ok: false, problem: `JSONP body not wrapped: ${summary(text)}` }
    text = m[1]!
  } else if (type.startsWith('text/xml')) {
    // oEmbed's `format=xml`: an XML document, errors included.
    if (!text.startsWith('<?xml')) return { ok: false, problem: `XML content type without XML: ${summary(text)}` }
    if (s >= 400 && !/<code>[^<]+<\/code>[\s\S]*<status>\d+<\/status>/.test(text)) return { ok: false, problem: 'XML error without code/status' }
    return leak(text, s >= 400)
  } else if (!type.startsWith('application/json')) {
    return { ok: false, problem: `content type ${type === '' ? '(none)' : type}` }
  }
  let body: unknown
  try { body = JSON.parse(text) } catch { return { ok: false, problem: `body is not JSON: ${summary(text)}` } }
  const leaked = leak(text, s >= 400)
  if (!leaked.ok) return leaked
  if (s >= 400) {
    const e = body as { code?: unknown, message?: unknown, data?: { status?: unknown } | null }
    if (typeof e !== 'object' || e === null) return { ok: false, problem: `error body is not an object: ${summary(text)}` }
    if (typeof e.code !== 'string' || e.code === '') return { ok: false, problem: `error without a code: ${summary(text)}` }
    if (typeof e.message !== 'string') return { ok: false, problem: `error without a message: ${summary(text)}` }
    if (typeof e.data !== 'object' || e.data === null || e.data.status !== s) {
      return { ok: false, problem: `data.status ${JSON.stringify(e.data?.status)} differs from HTTP ${s} (${e.code})` }
    }
  }
  return { ok: true }
}

/** Stack traces anywhere; SQL and driver text in error bodies (success bodies may quote what users wrote). */
function leak (text: string, isError: boolean): Verdict {
  for (const re of STACK) if (re.test(text)) return { ok: false, problem: `stack trace or source path in the body: ${summary(text)}` }
  if (isError) for (const re of SQL) if (re.test(text)) return { ok: false, problem: `database text in an error: ${summary(text)}` }
  return { ok: true }
}

export function summary (body: string): string {
  return body.length <= 240 ? body : `${body.slice(0, 240)}…`
}

/** The error code of a JSON error body, if any. */
export function codeOf (res: HttpResponse): string | undefined {
  try {
    const body = JSON.parse(res.body) as { code?: unknown }
    return typeof body.code === 'string' ? body.code : undefined
  } catch {
    return undefined
  }
}
