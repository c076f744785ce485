/**
 * Schema-driven bad input: for a target (route + method) a fast-check
 * arbitrary of whole HTTP requests built from its declaration, and a runner
 * that sends batches of them, checks every answer, and checks the service
 * still serves after each batch.
 */
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import type { JsonSchema } from '@cms/rest'
import { bodyArgs, fillPath, sampleVar, urlOf, type Addressing, type Target } from './routes.js'
import { badSegments, someValue, unknownNames } from './values.js'
import { validValue } from '@cms/core/testing'
import { testTarget } from './target.js'
import { describe, encodeParams, inject, type HttpRequest, type HttpResponse } from './requests.js'
import { checkResponse, summary } from './check.js'
import { adversarialStrings, probeRequest, stringProbes } from './adversarial.js'

type Mode = 'json' | 'form' | 'query' | 'malformed-json' | 'wrong-type' | 'bracket' | 'repeat' | 'none'

const MALFORMED_JSON = [
  '{', '{"a":', '[1,2', '{"a":1}}', 'nul', '\u0000', '{"a":"\\ud800"}', '{\'a\':1}', '{"a":1,}', '\ufeff{"a":1}',
  'NaN', '{"a":01}', '{"a":1e999}', '{"a":"\u0000"}', '['.repeat(50_000), `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
  '"just a string"', '123', 'true', 'null', '[]', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}',
  '{"a":1}\n{"b":2}', '\r\n', ' ', '{"a":"' + 'x'.repeat(100_000) + '"}'
]

const CONTENT_TYPES = [
  'text/plain', 'application/xml', 'multipart/form-data; boundary=xyz', 'multipart/form-data', 'application/octet-stream',
  'application/json; charset=utf-16', 'application/json; charset=latin1', 'text/html', 'application/x-www-form-urlencoded',
  'foo', ';', 'application/json, text/plain', 'application/vnd.api+json', 'application/json;;;', 'APPLICATION/JSON',
  'application/x-www-form-urlencoded; charset=utf-7', 'image/png'
]

const BAD_AUTH = [
  'Basic !!!', 'Basic', 'Basic ', `Basic ${Buffer.from('nobody:AAAAAAAAAAAAAAAAAAAAAAAA').toString('base64')}`,
  `Basic ${Buffer.from(':').toString('base64')}`, `Basic ${Buffer.from('admin').toString('base64')}`,
  'Bearer abc.def.ghi', 'Digest username="x"', `Basic ${'A'.repeat(10_000)}`, `Basic ${Buffer.from("' OR 1=1 --:x").toString('base64')}`
]

const OVERRIDES = ['_method=DELETE', '_method=PUT', '_method=patch', '_method=HEAD', '_method=OPTIONS', '_method=TRACE', 'header:DELETE', 'header:POST', 'header:BOGUS']

/** `arb` one time in `odds`, else null (fast-check's `option` has it the other way round). */
function rarely<T> (arb: fc.Arbitrary<T>, odds: number): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: odds - 1 }, { arbitrary: arb, weight: 1 })
}

export interface RequestContext {
  /** Real paths of the service (for arguments that name a path, and batch sub-requests). */
  paths: string[]
}

/**
 * Lists of objects that carry a `path` (sub-requests of a batch, say) get
 * the service's real paths, so the nested requests reach real routes.
 */
function withRealPaths (schema: JsonSchema, ctx: RequestContext): fc.Arbitrary<unknown> | undefined {
  const items = schema.items as JsonSchema | undefined
  const props = items?.properties as Record<string, JsonSchema> | undefined
  if (schema.type !== 'array' || props?.path === undefined) return undefined
  const methods = Array.isArray(props.method?.enum) ? props.method.enum as string[] : ['POST']
  const item = fc.record({
    method: fc.oneof(fc.constantFrom(...methods), fc.constantFrom('GET', 'post', '', 'BOGUS')),
    path: fc.oneof(fc.constantFrom(...ctx.paths), fc.constantFrom(...ctx.paths).chain((p) => fc.constantFrom(`${p}?force=true`, `${p}/..`, `${p}%00`, `${p}?_method=GET`)), fc.string({ maxLength: 20 })),
    body: fc.dictionary(unknownNames, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    headers: fc.dictionary(fc.constantFrom('authorization', 'content-type', 'x-http-method-override', 'x-cms-internal', 'x'), fc.oneof(fc.string({ maxLength: 10 }), fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 })), { maxKeys: 2 })
  }, { requiredKeys: ['path'] })
  return fc.array(item, { minLength: 1, maxLength: 30 })
}

export function requestArb (target: Target, ctx: RequestContext): fc.Arbitrary<HttpRequest> {
  const args = bodyArgs(target)
  const argArbs: Record<string, fc.Arbitrary<unknown>> = {}
  for (const a of args) {
    const real = withRealPaths(a.schema, ctx)
    argArbs[a.name] = real === undefined ? someValue(a.schema, a.name) : fc.oneof(real, someValue(a.schema, a.name))
  }
  const varArbs: Record<string, fc.Arbitrary<string>> = {}
  for (const v of target.vars) {
    varArbs[v] = fc.oneof({ arbitrary: fc.constant(sampleVar(target.decl.vars![v]!)), weight: 2 }, { arbitrary: badSegments, weight: 3 })
  }
  const names = args.map((a) => a.name)
  return fc.record({
    addressing: fc.constantFrom<Addressing>('pretty', 'rest_route'),
    vars: fc.record(varArbs),
    params: fc.record(argArbs, { requiredKeys: [] }),
    unknown: fc.dictionary(unknownNames, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
    mode: fc.constantFrom<Mode>('json', 'json', 'form', 'query', 'malformed-json', 'wrong-type', 'bracket', 'repeat', 'none'),
    malformed: fc.constantFrom(...MALFORMED_JSON),
    contentType: fc.constantFrom(...CONTENT_TYPES),
    abused: fc.constantFrom('', ...names),
    override: rarely(fc.constantFrom(...OVERRIDES), 8),
    badAuth: rarely(fc.constantFrom(...BAD_AUTH), 10),
    globals: rarely(fc.record({
      _fields: fc.constantFrom('id', 'id,title.rendered', '_links', '_embedded.author', '', ',,,', 'a'.repeat(2000), '__proto__', 'x[y]'),
      _embed: fc.constantFrom('1', 'true', 'author', 'cms:term,up', '', '[]'),
      _envelope: fc.constantFrom('1', ''),
      _pretty: fc.constantFrom('1'),
      context: fc.constantFrom('view', 'edit', 'embed', 'help', 'EDIT', '', 'x'.repeat(500))
    }, { requiredKeys: [] }), 4),
    conditional: rarely(fc.constantFrom<Record<string, string>>(
      { 'if-none-match': '*' }, { 'if-match': '"nope"' }, { 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
      { 'if-unmodified-since': 'garbage' }, { origin: 'http://evil.example' }, { accept: 'application/xml' }
    ), 6)
  }).map((r): HttpRequest => {
    const path = fillPath(target.decl.path, r.vars)
    const params: Record<string, unknown> = { ...r.unknown, ...r.params, ...(r.globals ?? {}) }
    const headers: Record<string, string> = { ...(r.conditional ?? {}) }
    if (r.badAuth !== null) headers.authorization = r.badAuth
    let method = target.method
    const extra: string[] = []
    if (r.override !== null) {
      if (r.override.startsWith('header:')) headers['x-http-method-override'] = r.override.slice(7)
      else extra.push(r.override)
      method = 'POST'
    }
    const readMethod = method === 'GET' || method === 'DELETE'
    let query = ''
    let payload: string | undefined
    switch (r.mode) {
      case 'json':
        if (readMethod) query = encodeParams(params)
        else { payload = JSON.stringify(params); headers['content-type'] = 'application/json' }
        break
      case 'form':
        payload = encodeParams(params)
        headers['content-type'] = 'application/x-www-form-urlencoded'
        break
      case 'query':
        query = encodeParams(params)
        break
      case 'malformed-json':
        payload = r.malformed
        headers['content-type'] = 'application/json'
        break
      case 'wrong-type':
        payload = JSON.stringify(params)
        headers['content-type'] = r.contentType
        break
      case 'bracket': {
        const n = r.abused === '' ? 'a' : r.abused
        extra.push(
          `${n}${'[b]'.repeat(40)}=1`, `${n}[][][]=1`, `${n}[99999999]=1`, `${n}[__proto__][x]=1`, `${n}[constructor][prototype][y]=1`,
          `${n}]=1`, `${n}[=1`, `${n}[a]b[c]=1`, `${n}%5B0%5D%5B1%5D=1`, '__proto__[admin]=1'
        )
        break
      }
      case 'repeat': {
        const n = r.abused === '' ? 'context' : r.abused
        query = encodeParams(params)
        extra.push(`${n}=1`, `${n}=2`, `${n}[]=3`, `${n}[x]=4`, `${n}=`, `${n}`)
        break
      }
      case 'none':
        break
    }
    const q = [query, ...extra].filter((s) => s !== '').join('&')
    return { method, url: urlOf(path, q, r.addressing), headers, ...(payload === undefined ? {} : { payload }) }
  })
}

export interface Failure {
  target: string
  caller: string
  request: string
  status: number
  problem: string
}

/** Failures grouped by what went wrong (numbers blurred), with one example each. */
export interface Problem {
  problem: string
  count: number
  targets: Set<string>
  example: Failure
}

export interface FuzzStats {
  requests: number
  byStatus: Record<string, number>
  failures: number
  problems: Map<string, Problem>
  healthChecks: number
  ms: number
}

export interface FuzzOptions {
  app: FastifyInstance
  targets: Target[]
  runs: number
  seed: number
  /** Headers of the callers to use; a fresh set is asked for before each batch. */
  callers: () => Promise<Array<{ name: string, headers: Record<string, string> }>>
  batchSize?: number
  concurrency?: number
  /** Called after each batch with the running totals (progress for long runs). */
  progress?: (stats: FuzzStats) => void
}

/** Sends `runs` generated requests in batches; a health check follows every batch. */
export async function runFuzz (opts: FuzzOptions): Promise<FuzzStats> {
  const started = Date.now()
  const ctx: RequestContext = { paths: opts.targets.map((t) => fillPath(t.decl.path, Object.fromEntries(t.vars.map((v) => [v, sampleVar(t.decl.vars![v]!)])))) }
  const arb = fc.nat({ max: opts.targets.length - 1 }).chain((i) => requestArb(opts.targets[i]!, ctx).map((req) => ({ i, req })))
  const stats: FuzzStats = { requests: 0, byStatus: {}, failures: 0, problems: new Map(), healthChecks: 0, ms: 0 }
  const batchSize = opts.batchSize ?? 250
  const concurrency = opts.concurrency ?? 4
  for (let batch = 0; stats.requests < opts.runs; batch++) {
    const n = Math.min(batchSize, opts.runs - stats.requests)
    const callers = await opts.callers()
    const samples = fc.sample(fc.tuple(arb, fc.nat({ max: callers.length - 1 })), { numRuns: n, seed: opts.seed + batch })
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < samples.length) {
        const [{ i, req }, c] = samples[next++]!
        const caller = callers[c]!
        const sent: HttpRequest = req.headers.authorization !== undefined ? req : { ...req, headers: { ...req.headers, ...caller.headers } }
        const target = opts.targets[i]!
        let res: HttpResponse
        try {
          res = await inject(opts.app, sent)
        } catch (err) {
          res = { status: 0, headers: {}, body: `inject threw: ${String(err)}` }
        }
        stats.requests++
        stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1
        const verdict = await judgeHead(opts.app, res, sent, judge(res, sent))
        if (!verdict.ok) {
          stats.failures++
          const key = verdict.problem!.replace(/\d+/g, 'N').slice(0, 100)
          const known = stats.problems.get(key)
          if (known !== undefined) {
            known.count++
            known.targets.add(target.key)
          } else {
            const example = { target: target.key, caller: caller.name, request: describe(sent), status: res.status, problem: verdict.problem! }
            stats.problems.set(key, { problem: key, count: 1, targets: new Set([target.key]), example })
          }
        }
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
    await healthCheck(opts.app)
    stats.healthChecks++
    stats.ms = Date.now() - started
    opts.progress?.(stats)
  }
  stats.ms = Date.now() - started
  return stats
}

/** A HEAD, sent as such or through an override (answered without a body). */
// Over a socket (CMS_TEST_TARGET), a request line longer than a service reads (its
// CMS_MAX_URL_LENGTH plus Node's 16 KiB of headers, options.ts in @cms/rest) is refused
// before its `_method` or anything else is read: by the service (431 in the error shape) or,
// past the 64 KiB HAProxy reads (deploy/haproxy/*.cfg), by HAProxy, whose 2.6 answers a
// request head it cannot parse with its built-in HTML 400 whatever `errorfile` says
// (haproxy/haproxy#3032, fixed in 3.2). Of such a refusal only its status can be required,
// and a hop that answers and closes while the client still writes the line (hundreds of
// KiB) may leave it only the broken connection (EPIPE, ECONNRESET) before the answer is read.
const READ_LIMIT = testTarget() === undefined ? Infinity : 8192 + 16 * 1024

function judge (res: HttpResponse, req: HttpRequest): ReturnType<typeof checkResponse> {
  if (req.url.length > READ_LIMIT) {
    if (res.status === 0 && /\b(EPIPE|ECONNRESET)\b/.test(res.body)) return { ok: true }
    return [400, 414, 431].includes(res.status) ? { ok: true } : { ok: false, problem: `status ${res.status} for a request line of ${req.url.length} characters (400, 414 or 431 expected)` }
  }
  return res.status === 0 ? { ok: false, problem: res.body } : checkResponse(res, { head: isHead(req) })
}

/**
 * A HEAD answered with a 5xx has no body to name its code, so whether the
 * status is one the conventions document cannot be read from it: the same
 * request as a GET must answer that status with a documented code.
 */
async function judgeHead (app: FastifyInstance, res: HttpResponse, req: HttpRequest, verdict: ReturnType<typeof checkResponse>): Promise<ReturnType<typeof checkResponse>> {
  if (verdict.ok || res.status < 500 || !isHead(req)) return verdict
  const asGet: HttpRequest = {
    ...req,
    method: req.method.toUpperCase() === 'HEAD' ? 'GET' : req.method,
    url: req.url.replace(/([?&])_method=[^&]*/g, '$1_method=GET'),
    headers: req.headers['x-http-method-override'] === undefined ? req.headers : { ...req.headers, 'x-http-method-override': 'GET' }
  }
  let again: HttpResponse
  try {
    again = await inject(app, asGet)
  } catch {
    return verdict
  }
  return again.status === res.status && checkResponse(again).ok ? { ok: true } : { ok: false, problem: `${verdict.problem!}; as a GET: ${again.status} ${summary(again.body)}` }
}

function isHead (req: HttpRequest): boolean {
  // The last `_method` given wins, as in PHP.
  const override = [...req.url.slice(req.url.indexOf('?')).matchAll(/(?:^|[?&])_method=([^&]*)/g)].at(-1)
  const method = override?.[1] ?? req.headers['x-http-method-override'] ?? req.method
  return method.toUpperCase() === 'HEAD'
}

/** The process still serves: liveness, readiness and the index. */
export async function healthCheck (app: FastifyInstance): Promise<void> {
  for (const url of ['/healthz', '/readyz', '/index.php?rest_route=/']) {
    const res = await app.inject({ method: 'GET', url })
    if (res.statusCode !== 200) throw new Error(`health check ${url} answered ${res.statusCode}: ${res.body.slice(0, 200)}`)
  }
}

export interface SweepOptions {
  app: FastifyInstance
  targets: Target[]
  /** The caller's headers (an administrator reaches the handlers). */
  headers: Record<string, string>
  /** Length of the strings a body carries. */
  bodySize: number
  /** Room for the strings of a query string, all arguments together (the default URL limit is 8192). */
  queryRoom: number
  /**
   * An answer that cost the process more CPU than this is a failure: CPU time is the work done (a quadratic
   * scan burns it), while the wall time of an answer also counts the waits a loaded machine adds.
   */
  cpuBoundMs: number
}

/**
 * The adversarial-string class for every route: each string probe of every
 * target (its free-text arguments together, each argument with a pattern or
 * format alone; harness/adversarial.ts) sent once in process, with the
 * strings of the data file taken in turn. Writes carry the string in a JSON
 * body at `bodySize`; reads in the query string, cut to fit the default URL
 * limit so the handlers see them rather than a 414. Every answer is checked
 * as the fuzz checks it, and timed.
 */
export async function runAdversarialSweep (opts: SweepOptions): Promise<{ requests: number, slowest: number, costliest: number, problems: string[] }> {
  const big = adversarialStrings(opts.bodySize)
  let turn = 0
  const problems: string[] = []
  let requests = 0
  let slowest = 0
  let costliest = 0
  for (const probe of opts.targets.flatMap(stringProbes)) {
    const read = probe.target.method === 'GET' || probe.target.method === 'DELETE'
    const s = big[turn++ % big.length]!
    // Percent-encoding may triple a character: a third of the room, shared by the arguments.
    const value = read ? s.value.slice(0, Math.floor(opts.queryRoom / 3 / probe.names.length)) : s.value
    const req = probeRequest(probe, value, opts.headers)
    const started = performance.now()
    const cpu = process.cpuUsage()
    let res: HttpResponse
    try {
      res = await inject(opts.app, req)
    } catch (err) {
      res = { status: 0, headers: {}, body: `inject threw: ${String(err)}` }
    }
    const ms = performance.now() - started
    const used = process.cpuUsage(cpu)
    const cpuMs = (used.user + used.system) / 1000
    requests++
    slowest = Math.max(slowest, ms)
    costliest = Math.max(costliest, cpuMs)
    const where = `${probe.target.key} [${probe.names.join(', ')}] ${s.label} (${value.length} characters)`
    const verdict = res.status === 0 ? { ok: false, problem: res.body } : judge(res, req)
    if (!verdict.ok) problems.push(`${where}: ${verdict.problem!}`)
    if (cpuMs > opts.cpuBoundMs) problems.push(`${where}: answered ${res.status} using ${cpuMs.toFixed(0)} ms of CPU (${ms.toFixed(0)} ms)`)
  }
  await healthCheck(opts.app)
  return { requests, slowest, costliest, problems }
}

/**
 * Names an `Object.prototype` lookup answers (issue 27): a request value
 * used as a key of a plain object finds a function there instead of nothing.
 */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'] as const

function isStringSchema (schema: JsonSchema): boolean {
  if (Array.isArray(schema.enum)) return false
  const type = schema.type
  return type === 'string' || type === undefined || (Array.isArray(type) && type.includes('string'))
}

/**
 * A request with a prototype name placed: `vars` and `params` merged into a
 * valid request; `query` added to the query string as it is (bracket keys:
 * `filter[constructor]`); `body` the body's JSON text as it is (so
 * `__proto__` is an own key, as a client's body would carry it); `form` a
 * form-encoded body instead of JSON.
 */
interface Placed { vars?: Record<string, string>, params?: Record<string, unknown>, query?: string, body?: (params: Record<string, unknown>) => string, form?: string }

/** A JSON object text with `name` as a key before the other members. */
const withKey = (name: string, value: string, rest: Record<string, unknown> = {}): string => {
  const others = JSON.stringify(rest).slice(1, -1)
  return `{${JSON.stringify(name)}:${value}${others === '' ? '' : `,${others}`}}`
}

/**
 * Where a prototype name can go in a target's request: path variables,
 * string arguments, string items, keys (and nested keys) of object
 * arguments, the body's own top-level keys (undeclared: a settings name, a
 * meta key at the top), query keys (plain, and bracketed as `qs` parses them:
 * `name[x]`, `filter[name]`), the global `_fields` and `_embed` lists, and
 * form-encoded bracket keys (these last, read by the kernel for every route
 * alike, when `generic`). `slot` is what the place writes (an argument, the
 * top-level key the name itself makes, a global list): places of different
 * slots can share a request. `alone` places never share one: a path
 * variable (a name there is another address), a form body (another
 * encoding).
 */
interface Place { where: string, slot: string, alone: boolean, place: (name: string) => Placed }

function prototypePlaces (target: Target, generic: boolean): Place[] {
  const out: Place[] = []
  const read = target.method === 'GET' || target.method === 'DELETE'
  for (const v of target.vars) out.push({ where: `{${v}}`, slot: `{${v}}`, alone: true, place: (name) => ({ vars: { [v]: name } }) })
  for (const a of bodyArgs(target)) {
    const items = (a.schema.items ?? {}) as JsonSchema
    if (isStringSchema(a.schema)) out.push({ where: a.name, slot: a.name, alone: false, place: (name) => ({ params: { [a.name]: name } }) })
    else if (a.schema.type === 'array' && isStringSchema(items)) out.push({ where: `${a.name}[]`, slot: a.name, alone: false, place: (name) => ({ params: { [a.name]: [name] } }) })
    else if (a.schema.type === 'object') {
      // As a key (JSON.parse makes `__proto__` an own key), and as a key inside that key's value.
      out.push({ where: `${a.name}{key}`, slot: a.name, alone: false, place: (name) => ({ params: { [a.name]: JSON.parse(withKey(name, '"x"')) as unknown } }) })
      out.push({ where: `${a.name}{key:{key}}`, slot: a.name, alone: false, place: (name) => ({ params: { [a.name]: JSON.parse(withKey(name, withKey(name, '"x"'))) as unknown } }) })
      if (read) out.push({ where: `${a.name}[key]`, slot: a.name, alone: false, place: (name) => ({ query: `${encodeURIComponent(a.name)}[${encodeURIComponent(name)}]=x` }) })
    }
  }
  // The kernel reads these for every route alike: sent to one read and one write of each route family.
  if (!generic) return out
  out.push({ where: '?key', slot: 'key', alone: false, place: (name) => ({ query: `${encodeURIComponent(name)}=x` }) })
  out.push({ where: '?key[x]', slot: 'key', alone: false, place: (name) => ({ query: `${encodeURIComponent(name)}[polluted]=x` }) })
  out.push({ where: '?filter[key]', slot: 'filter', alone: false, place: (name) => ({ query: `filter[${encodeURIComponent(name)}]=x` }) })
  out.push({ where: '_fields', slot: '_fields', alone: false, place: (name) => ({ query: `_fields=${encodeURIComponent(`id,${name},${name}.x`)}` }) })
  out.push({ where: '_embed', slot: '_embed', alone: false, place: (name) => ({ query: `_embed=${encodeURIComponent(name)}` }) })
  if (!read) {
    out.push({ where: 'body{key}', slot: 'key', alone: false, place: (name) => ({ body: (params) => withKey(name, '{"polluted":"x"}', params) }) })
    out.push({ where: 'form key[x]', slot: 'form', alone: true, place: (name) => ({ form: `${encodeURIComponent(name)}[polluted]=x&${encodeURIComponent(name)}=x` }) })
  }
  return out
}

/** The arguments a `rest_invalid_param` answer names as invalid (none for any other answer). */
function invalidArguments (res: HttpResponse): string[] {
  try {
    const body = JSON.parse(res.body) as { code?: unknown, data?: { params?: unknown } }
    const params = body.data?.params
    return body.code === 'rest_invalid_param' && typeof params === 'object' && params !== null ? Object.keys(params) : []
  } catch {
    return []
  }
}

/** The places in as few groups as share a request: no two of one slot, an `alone` place by itself (first fit, in order). */
function sharedRequests (places: Place[]): Place[][] {
  const groups: Place[][] = []
  for (const p of places) {
    const group = p.alone ? undefined : groups.find((g) => !g[0]!.alone && g.every((q) => q.slot !== p.slot))
    if (group === undefined) groups.push([p])
    else group.push(p)
  }
  return groups
}

/** Names that a polluted prototype would show: none may appear on a fresh object. */
function pollution (): string[] {
  const fresh = {} as Record<string, unknown>
  const found = [...Object.keys(Object.prototype), ...Object.keys(Array.prototype)]
  if (fresh.polluted !== undefined || fresh.x !== undefined) found.push('polluted')
  return found
}

/**
 * Every prototype name in every place of every target (the other arguments
 * valid): each answered as the fuzz checks answers (no 500: a name is a key
 * like any other, unknown or refused), and afterwards no prototype of this
 * process (which the injected requests ran in) was changed. A name goes to
 * every place of a group in one request (`sharedRequests`); when that
 * request is refused as invalid (400) or fails the check, each place of the
 * group is sent the name alone, so a refusal of one place hides nothing the
 * others would reach, and a failure names its place.
 */
export async function runPrototypeSweep (opts: { app: FastifyInstance, targets: Target[], headers: Record<string, string> }): Promise<{ requests: number, problems: string[] }> {
  const problems: string[] = []
  let requests = 0
  const send = async (target: Target, placed: Placed[]): Promise<{ req: HttpRequest, res: HttpResponse, problem?: string }> => {
    const vars = Object.fromEntries(target.vars.map((v) => [v, sampleVar(target.decl.vars![v]!)]))
    const params: Record<string, unknown> = {}
    for (const a of bodyArgs(target)) if (a.required) params[a.name] = validValue(a.schema, a.name)
    for (const p of placed) { Object.assign(vars, p.vars); Object.assign(params, p.params) }
    const body = placed.find((p) => p.body !== undefined)?.body
    const form = placed.find((p) => p.form !== undefined)?.form
    const path = fillPath(target.decl.path, vars)
    const read = target.method === 'GET' || target.method === 'DELETE'
    const query = [read ? encodeParams(params) : '', ...placed.map((p) => p.query ?? '')].filter((q) => q !== '').join('&')
    const req: HttpRequest = read
      ? { method: target.method, url: urlOf(path, query), headers: opts.headers }
      : form !== undefined
        ? { method: target.method, url: urlOf(path, query), headers: { ...opts.headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: [encodeParams(params), form].filter((q) => q !== '').join('&') }
        : { method: target.method, url: urlOf(path, query), headers: { ...opts.headers, 'content-type': 'application/json' }, payload: body === undefined ? JSON.stringify(params) : body(params) }
    let res: HttpResponse
    try {
      res = await inject(opts.app, req)
    } catch (err) {
      res = { status: 0, headers: {}, body: `inject threw: ${String(err)}` }
    }
    requests++
    const verdict = res.status === 0 ? { ok: false, problem: res.body } : checkResponse(res, { head: isHead(req) })
    return { req, res, problem: verdict.ok ? undefined : verdict.problem }
  }
  /**
   * One name in a group of places. Refused as invalid arguments, the places
   * the answer names are done (the validation of one argument does not
   * depend on the others: alone, each is refused the same way) and the
   * others go on together; any other refusal or a failed check sends each
   * place alone, so nothing the others would reach is hidden and a failure
   * names its place.
   */
  const sweep = async (target: Target, places: Place[], name: string): Promise<void> => {
    const shared = await send(target, places.map((p) => p.place(name)))
    const report = (where: string, sent: { req: HttpRequest, problem?: string }): void => {
      problems.push(`${target.key} ${where}=${name}: ${sent.problem!}\n    ${describe(sent.req)}`)
    }
    if (places.length === 1 || (shared.problem === undefined && shared.res.status !== 400)) {
      if (shared.problem !== undefined) report(places.map((p) => p.where).join(' '), shared)
      return
    }
    const named = shared.problem === undefined ? invalidArguments(shared.res) : []
    const left = places.filter((p) => !named.includes(p.slot))
    if (left.length < places.length) {
      if (left.length > 0) await sweep(target, left, name)
      return
    }
    let found = false
    for (const p of places) {
      const alone = await send(target, [p.place(name)])
      if (alone.problem !== undefined) { report(p.where, alone); found = true }
    }
    // A failure only the places together make is reported as that request.
    if (shared.problem !== undefined && !found) report(places.map((p) => p.where).join(' '), shared)
  }
  // A route family: a namespace and its first path segment (`/cms/v2/posts`); its first read and first write take the generic places.
  const families = new Set<string>()
  for (const target of opts.targets) {
    const family = `${target.decl.path.split('/').slice(0, 4).join('/')} ${target.method === 'GET' || target.method === 'DELETE' ? 'read' : 'write'}`
    const generic = !families.has(family)
    families.add(family)
    for (const group of sharedRequests(prototypePlaces(target, generic))) {
      for (const name of PROTOTYPE_NAMES) await sweep(target, group, name)
    }
  }
  const polluted = pollution()
  if (polluted.length > 0) problems.push(`a prototype was changed: ${polluted.join(', ')}`)
  await healthCheck(opts.app)
  return { requests, problems }
}
