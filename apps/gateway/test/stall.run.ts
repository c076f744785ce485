/**
 * The stall harness (issue 27, item 1): every route that takes a string, an
 * array or a body, of profile A and B, is sent the input that makes it work
 * most within the service's limits (the default JSON body limit, nesting
 * and string counts), while a loop asks `/healthz` one request after
 * another; for each route it prints the answer's status and time and the
 * `/healthz` latencies meanwhile (max and p99), with the conditions (cores,
 * load average, body size). A bench, not a test: figures depend on the
 * machine (docs/reliability.md records a run; the suite checks the same
 * property by ordering events, test/text-work.test.ts).
 *
 *   bench/reliability/run.sh stall [ONLY_REGEX]
 *
 * The service runs in a child process (harness/serve.ts) so a blocked event
 * loop cannot also block the loop that measures it. Inputs, within the
 * limits: free-text strings of markup (`<p><b>x</b> &amp; <a href>`: every
 * character filter work), arrays of as many short markup strings as the
 * body holds (or the declared `maxItems`), objects (meta) of up to the
 * string limit of short markup values, and builder data of the most strings.
 */
import { availableParallelism, loadavg } from 'node:os'
import { request } from 'undici'
import type { JsonSchema } from '@cms/rest'
import { DEFAULT_JSON_BODY_LIMIT, DEFAULT_TEXT_LIMITS } from '@cms/rest'
import { gatewayApp } from './helpers.js'
import { bodyArgs, fillPath, sampleVar, targetsOf, urlOf, type Target } from './harness/routes.js'
import { encodeParams, type HttpRequest } from './harness/requests.js'
import { serve, stop } from './harness/stall-check.js'
import { validValue } from '@cms/core/testing'

const ONLY = process.argv[2] === undefined || process.argv[2] === '' ? undefined : new RegExp(process.argv[2])
/** What a body may carry: under the JSON limit with room for the other arguments. */
const BUDGET = Math.floor(DEFAULT_JSON_BODY_LIMIT * 0.9)
/** Strings a body may hold (keys included), with room for the rest. */
const STRINGS = Math.floor(DEFAULT_TEXT_LIMITS.maxStrings * 0.9)
const URL_BUDGET = 6000
const MARKUP = '<p><b>x</b> &amp; <a href="https://example.com/">y</a></p>'
const SHORT = '<i>x</i>'

const kinds = (schema: JsonSchema): string[] => {
  const t = schema.type
  return Array.isArray(t) ? t as string[] : typeof t === 'string' ? [t] : []
}

/** The work-maximising value of one argument given its share of the budget. */
function heavyValue (schema: JsonSchema, share: number, strings: number): unknown {
  const types = kinds(schema)
  if (Array.isArray(schema.enum) || typeof schema.pattern === 'string' || typeof schema.format === 'string') return undefined
  if (types.includes('string') || types.length === 0) {
    const n = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, share) : share
    return MARKUP.repeat(Math.max(1, Math.floor(n / MARKUP.length)))
  }
  if (types.includes('array')) {
    const items = (schema.items ?? {}) as JsonSchema
    if (!kinds(items).includes('string') && kinds(items).length > 0) return undefined
    const max = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity
    return Array.from({ length: Math.max(1, Math.min(max, strings, Math.floor(share / (SHORT.length + 3)))) }, () => SHORT)
  }
  if (types.includes('object')) {
    const n = Math.max(1, Math.min(Math.floor(strings / 2), Math.floor(share / (SHORT.length + 12))))
    return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, SHORT]))
  }
  return undefined
}

/** The request of a target: required arguments valid, the others at their heaviest (null when none can be). */
function heavyRequest (target: Target, headers: Record<string, string>): HttpRequest | null {
  const read = target.method === 'GET' || target.method === 'DELETE'
  const args = bodyArgs(target)
  const params: Record<string, unknown> = {}
  for (const a of args) if (a.required) params[a.name] = validValue(a.schema, a.name)
  const open = args.filter((a) => heavyValue(a.schema, 1, 1) !== undefined)
  if (open.length === 0) return null
  const budget = read ? URL_BUDGET : BUDGET
  for (const a of open) params[a.name] = heavyValue(a.schema, Math.floor(budget / open.length), Math.floor(STRINGS / open.length))
  // Posts and pages: the builder data of the most strings (a JSON text in a meta value).
  if (!read && /^cms\/v2\/(posts|pages)/.test(target.key) && args.some((a) => a.name === 'meta')) {
    params.meta = { _builder_data: JSON.stringify(Array.from({ length: Math.floor(STRINGS / 3) }, () => ({ t: SHORT }))) }
    params.content = MARKUP.repeat(Math.floor(BUDGET / 2 / MARKUP.length))
  }
  const vars = Object.fromEntries(target.vars.map((v) => [v, sampleVar(target.decl.vars![v]!)]))
  const path = fillPath(target.decl.path, vars)
  if (read) return { method: target.method, url: urlOf(path, encodeParams(params)), headers }
  return { method: target.method, url: urlOf(path, ''), headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(params) }
}

async function timed (base: string, req: HttpRequest): Promise<{ status: number, ms: number }> {
  const started = performance.now()
  try {
    const res = await request(base + req.url, { method: req.method as 'GET', headers: req.headers, body: req.payload, headersTimeout: 120_000, bodyTimeout: 120_000 })
    await res.body.text()
    return { status: res.statusCode, ms: performance.now() - started }
  } catch {
    return { status: 0, ms: performance.now() - started }
  }
}

const percentile = (sorted: number[], p: number): number => sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!

/** Sends `req` while `/healthz` is asked one after another; the answer and the health latencies. */
async function measure (base: string, req: HttpRequest): Promise<{ status: number, ms: number, health: number[] }> {
  let inFlight = true
  const health: number[] = []
  const loop = (async () => {
    // eslint-disable-next-line no-unmodified-loop-condition -- cleared once the request settles
    while (inFlight) health.push((await timed(base, { method: 'GET', url: '/healthz', headers: {} })).ms)
  })()
  const answer = await timed(base, req)
  inFlight = false
  await loop
  return { ...answer, health }
}

const out = (line: string): void => { process.stdout.write(`${line}\n`) }
out(`# stall harness: ${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}, body budget ${BUDGET} bytes, ${STRINGS} strings, query strings ${URL_BUDGET} characters`)
out('# profile route method status answer_ms healthz_max_ms healthz_p99_ms healthz_n request_bytes')
const worst = { max: 0, p99: 0, where: '' }
for (const profile of ['A', 'B'] as const) {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: profile } })
  const targets = targetsOf(h.app).filter((x) => x.endpoint.methods[0] === x.method && (ONLY === undefined || ONLY.test(x.key)))
  await h.close()
  const served = await serve(profile, URL_BUDGET)
  try {
    for (const target of targets) {
      const req = heavyRequest(target, served.headers)
      if (req === null) continue
      const m = await measure(served.base, req)
      const sorted = [...m.health].sort((a, b) => a - b)
      const max = sorted.at(-1) ?? 0
      const p99 = percentile(sorted, 0.99)
      if (max > worst.max) Object.assign(worst, { max, where: `${profile} ${target.method} ${target.key}` })
      worst.p99 = Math.max(worst.p99, p99)
      out(`${profile} ${target.key} ${target.method} ${m.status} ${m.ms.toFixed(0)} ${max.toFixed(0)} ${p99.toFixed(0)} ${m.health.length} ${req.url.length + (req.payload?.length ?? 0)}`)
    }
  } finally {
    await stop(served)
  }
}
out(`# worst /healthz: ${worst.max.toFixed(0)} ms (${worst.where}); worst p99 ${worst.p99.toFixed(0)} ms; load average after ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
process.exit(0)
