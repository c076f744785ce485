/**
 * The stall harness (issue 27, item 1): every route that takes a string, an
 * array or a body, of profile A and B, is sent the input that makes it work
 * most within the service's limits (the default JSON body limit, nesting
 * and string counts), while a loop asks `/healthz` one request after
 * another and, beside it, a cached read (an anonymous read of a published
 * post, answered from the kept answers); for each route it prints the
 * answer's status and time and both latencies meanwhile (p50, p99, max).
 * First, a contributor's heavy text work alone, sent again and again
 * (`CMS_STALL_REPEAT` times, default 5): the largest post content, the
 * builder data of the most strings. At the end, the distributions over all
 * samples (p50, p90, p99, max, and the share within 50 ms), with the
 * conditions (cores, load average before and after, body size). A bench,
 * not a test: figures depend on the machine (docs/reliability.md records a
 * run; the suite checks the same property by ordering events,
 * test/text-work.test.ts).
 *
 *   bench/reliability/run.sh stall [ONLY_REGEX]
 *
 * The service runs in a child process (harness/serve.ts) with the default
 * JSON limits, so a blocked event loop cannot also block the loop that
 * measures it. A write's commit ends the kept answers' validity, so the
 * cached read right after a write is read again (one in a run of them). Inputs, within the
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
import { serve, stop, type Served } from './harness/stall-check.js'
import { validValue } from '@cms/core/testing'

const ONLY = process.argv[2] === undefined || process.argv[2] === '' ? undefined : new RegExp(process.argv[2])
/** What a body may carry: under the JSON limit with room for the other arguments. */
const BUDGET = Math.floor(DEFAULT_JSON_BODY_LIMIT * 0.9)
/** Strings a body may hold (keys included), with room for the rest. */
const STRINGS = Math.floor(DEFAULT_TEXT_LIMITS.maxStrings * 0.9)
const URL_BUDGET = 6000
const REPEAT = Number(process.env.CMS_STALL_REPEAT ?? 5)
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

/** Latencies of one kind of probe; a probe not answered 200 counts as failed (and its time is kept). */
class Samples {
  readonly ms: number[] = []
  failed = 0
  add (r: { status: number, ms: number }): void {
    this.ms.push(r.ms)
    if (r.status !== 200) this.failed++
  }

  addAll (other: Samples): void {
    this.ms.push(...other.ms)
    this.failed += other.failed
  }

  /** `p50/p99/max n` for a route's line. */
  short (): string {
    const s = [...this.ms].sort((a, b) => a - b)
    return `${percentile(s, 0.5).toFixed(0)}/${percentile(s, 0.99).toFixed(0)}/${(s.at(-1) ?? 0).toFixed(0)} ${s.length}`
  }

  /** The distribution, for the summary. */
  long (): string {
    const s = [...this.ms].sort((a, b) => a - b)
    const within = s.filter((ms) => ms <= 50).length
    const f = (p: number): string => percentile(s, p).toFixed(1)
    return `n=${s.length} p50=${f(0.5)} p90=${f(0.9)} p99=${f(0.99)} max=${(s.at(-1) ?? 0).toFixed(1)} ms; within 50 ms: ${s.length === 0 ? '-' : (100 * within / s.length).toFixed(1)}%; not 200: ${this.failed}`
  }
}

const HEALTHZ: HttpRequest = { method: 'GET', url: '/healthz', headers: {} }

/** Sends `req` while `/healthz` and the cached read are each asked one after another; the answer and both latencies. */
async function measure (base: string, req: HttpRequest, cached: HttpRequest): Promise<{ status: number, ms: number, health: Samples, reads: Samples }> {
  let inFlight = true
  const health = new Samples()
  const reads = new Samples()
  const loop = async (probe: HttpRequest, into: Samples): Promise<void> => {
    // eslint-disable-next-line no-unmodified-loop-condition -- cleared once the request settles
    while (inFlight) into.add(await timed(base, probe))
  }
  const loops = Promise.all([loop(HEALTHZ, health), loop(cached, reads)])
  const answer = await timed(base, req)
  inFlight = false
  await loops
  return { ...answer, health, reads }
}

/** A published post's anonymous read, asked until it is answered from the kept answers. */
async function cachedRead (served: Served): Promise<HttpRequest> {
  const created = await request(`${served.base}/cms-json/cms/v2/posts`, {
    method: 'POST',
    headers: { ...served.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Cached', content: '<p>A published post, read anonymously.</p>', status: 'publish' })
  })
  const { id } = await created.body.json() as { id: number }
  const read: HttpRequest = { method: 'GET', url: `/cms-json/cms/v2/posts/${id}`, headers: {} }
  for (let i = 0; i < 3; i++) await timed(served.base, read)
  return read
}

/** A contributor's heaviest text work: the largest content, the builder data of the most strings. */
function contributorWork (served: Served): Array<{ name: string, req: HttpRequest }> {
  const headers = { ...served.contributor, 'content-type': 'application/json' }
  const post = (name: string, body: Record<string, unknown>): { name: string, req: HttpRequest } =>
    ({ name, req: { method: 'POST', url: '/cms-json/cms/v2/posts', headers, payload: JSON.stringify(body) } })
  return [
    post('content', { title: 'Heavy', content: MARKUP.repeat(Math.floor(BUDGET / MARKUP.length)) }),
    post('builder-data', { title: 'Heavy', content: 'x', meta: { _builder_data: JSON.stringify(Array.from({ length: Math.floor(STRINGS / 3) }, () => ({ t: SHORT }))) } })
  ]
}

const out = (line: string): void => { process.stdout.write(`${line}\n`) }
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ')
out(`# stall harness: ${availableParallelism()} cores, load average ${load()}, body budget ${BUDGET} bytes, ${STRINGS} strings, query strings ${URL_BUDGET} characters, contributor work ${REPEAT} times each`)
const totals = { contributor: { health: new Samples(), reads: new Samples() }, routes: { health: new Samples(), reads: new Samples() } }
const worst = { max: 0, where: '' }
for (const profile of ['A', 'B'] as const) {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: profile } })
  const targets = targetsOf(h.app).filter((x) => x.endpoint.methods[0] === x.method && (ONLY === undefined || ONLY.test(x.key)))
  await h.close()
  const served = await serve(profile, URL_BUDGET, { CMS_JSON_BODY_LIMIT: String(DEFAULT_JSON_BODY_LIMIT) })
  try {
    const cached = await cachedRead(served)
    out(`# profile ${profile}: a contributor's text work (status answer_ms; healthz and cached read p50/p99/max n)`)
    for (const { name, req } of contributorWork(served)) {
      for (let i = 0; i < REPEAT; i++) {
        const m = await measure(served.base, req, cached)
        totals.contributor.health.addAll(m.health)
        totals.contributor.reads.addAll(m.reads)
        out(`${profile} contributor ${name} ${m.status} ${m.ms.toFixed(0)} healthz ${m.health.short()} cached ${m.reads.short()} ${req.payload?.length ?? 0}`)
      }
    }
    out(`# profile ${profile}: every route as an administrator (route method status answer_ms; healthz and cached read p50/p99/max n; request bytes)`)
    for (const target of targets) {
      const req = heavyRequest(target, served.headers)
      if (req === null) continue
      const m = await measure(served.base, req, cached)
      totals.routes.health.addAll(m.health)
      totals.routes.reads.addAll(m.reads)
      const max = Math.max(...m.health.ms, ...m.reads.ms)
      if (max > worst.max) Object.assign(worst, { max, where: `${profile} ${target.method} ${target.key}` })
      out(`${profile} ${target.key} ${target.method} ${m.status} ${m.ms.toFixed(0)} healthz ${m.health.short()} cached ${m.reads.short()} ${req.url.length + (req.payload?.length ?? 0)}`)
    }
  } finally {
    await stop(served)
  }
}
out(`# contributor's text work, /healthz: ${totals.contributor.health.long()}`)
out(`# contributor's text work, cached read: ${totals.contributor.reads.long()}`)
out(`# every route, /healthz: ${totals.routes.health.long()}`)
out(`# every route, cached read: ${totals.routes.reads.long()}`)
out(`# slowest probe beside a route: ${worst.max.toFixed(0)} ms (${worst.where}); load average after ${load()}`)
process.exit(0)
