/**
 * Load with a consistency check. N clients send a mix of reads, creates,
 * updates, removals and batches over real HTTP; each client owns the
 * objects it creates, so the last acknowledged write of every object is
 * known. Afterwards every acknowledged write must be there with the
 * acknowledged content, and nothing that was not acknowledged may appear.
 *
 * The resource is the first served of a short list (posts, then users):
 * both are plain collections with items, found in the route declarations.
 */
import { randomBytes } from 'node:crypto'
import { Agent, request } from 'undici'
import type { Target } from './routes.js'
import { encodeParams } from './requests.js'
import { checkResponse } from './check.js'

export interface Resource {
  name: string
  collection: string
  /** Whether its create endpoint may run inside a batch (from its declaration). */
  batchable?: boolean
  /** The create body of object `marker` at content version `version`. */
  create: (marker: string, version: string) => Record<string, unknown>
  update: (version: string) => Record<string, unknown>
  removeQuery: Record<string, unknown>
  /** What a removal leaves: an item in the trash, or nothing. */
  removal: 'trash' | 'gone'
  /** Content version and marker of an item read in edit context. */
  versionOf: (item: any) => string | undefined
  markerOf: (item: any) => string | undefined
  trashed: (item: any) => boolean
  /** List queries (edit context) that together show every item whose marker contains `run`. */
  listQueries: (run: string) => Array<Record<string, unknown>>
}

export const RESOURCES: Resource[] = [
  {
    name: 'posts',
    collection: '/cms/v2/posts',
    create: (marker, version) => ({ title: marker, content: version, status: Math.random() < 0.5 ? 'publish' : 'draft' }),
    update: (version) => ({ content: version }),
    removeQuery: {},
    removal: 'trash',
    versionOf: (item) => item?.content?.raw,
    markerOf: (item) => item?.title?.raw,
    trashed: (item) => item?.status === 'trash',
    listQueries: (run) => [{ search: run, status: 'any' }, { search: run, status: 'trash' }]
  },
  {
    name: 'users',
    collection: '/cms/v2/users',
    create: (marker, version) => ({ username: marker, email: `${marker}@example.com`, password: 'load-password', description: version }),
    update: (version) => ({ description: version }),
    removeQuery: { force: true, reassign: false },
    removal: 'gone',
    versionOf: (item) => item?.description,
    markerOf: (item) => item?.username ?? item?.slug,
    trashed: () => false,
    listQueries: (run) => [{ search: run }]
  }
]

/** The first resource whose collection and item routes the service declares (create, read, update, delete). */
export function pickResource (targets: Target[]): Resource {
  const has = (key: string): boolean => targets.some((t) => t.key === key)
  const found = RESOURCES.find((r) => has(`POST ${r.collection}`) && has(`GET ${r.collection}/{id}`) &&
    has(`POST ${r.collection}/{id}`) && has(`DELETE ${r.collection}/{id}`))
  if (found === undefined) throw new Error('no collection to load: none of posts, users is served')
  const create = targets.find((t) => t.key === `POST ${found.collection}`)!
  return { ...found, batchable: (create.endpoint.allowBatch ?? create.decl.allowBatch) === true }
}

export interface LoadOptions {
  base: string
  resource: Resource
  clients: number
  durationMs: number
  /**
   * Operations each client completes even past the deadline, so a slow
   * machine still exercises every kind of write (ends early on stopSignal).
   */
  minOpsPerClient?: number
  /** Headers of client i (each client signs in; needs rights to create, edit and remove). */
  headers: (i: number) => Record<string, string>
  /** Statuses tolerated as failures that leave the outcome unknown (503 during an outage). */
  tolerated?: number[]
  /** Per-request deadline; a request that takes longer counts as a hang. */
  timeoutMs?: number
  stopSignal?: { stop: boolean }
}

interface Owned {
  id: number
  marker: string
  /** Last acknowledged content. */
  version: string
  /** Content of writes whose outcome is unknown (failed without an answer we can trust). */
  maybe: Set<string>
  removed: boolean
  maybeRemoved: boolean
}

export interface LoadReport {
  run: string
  resource: string
  requests: number
  byOp: Record<string, number>
  byStatus: Record<string, number>
  errors: number
  errorSamples: string[]
  hangs: number
  latency: Record<string, { p50: number, p95: number, p99: number, max: number, n: number }>
  acknowledged: { creates: number, updates: number, removals: number }
  uncertain: { creates: number, updates: number, removals: number }
  objects: Owned[]
  /** Markers of creates whose outcome is unknown (may exist or not). */
  uncertainMarkers: Set<string>
  /** Markers of creates refused with a definite answer (must not exist). */
  refusedMarkers: Set<string>
  ms: number
}

type Op = 'read' | 'list' | 'create' | 'update' | 'remove' | 'batch'

export async function runLoad (opts: LoadOptions): Promise<LoadReport> {
  const run = `ld${randomBytes(4).toString('hex')}`
  const agent = new Agent({ connections: opts.clients * 2, keepAliveTimeout: 10_000 })
  const timeout = opts.timeoutMs ?? 10_000
  const tolerated = new Set(opts.tolerated ?? [])
  const report: LoadReport = {
    run,
    resource: opts.resource.name,
    requests: 0,
    byOp: {},
    byStatus: {},
    errors: 0,
    errorSamples: [],
    hangs: 0,
    latency: {},
    acknowledged: { creates: 0, updates: 0, removals: 0 },
    uncertain: { creates: 0, updates: 0, removals: 0 },
    objects: [],
    uncertainMarkers: new Set(),
    refusedMarkers: new Set(),
    ms: 0
  }
  const samples: Record<string, number[]> = {}
  const r = opts.resource
  const started = Date.now()
  const deadline = started + opts.durationMs

  const call = async (i: number, op: Op, method: string, path: string, query: Record<string, unknown>, body?: unknown): Promise<{ status: number, body: any }> => {
    const qs = encodeParams(query)
    const t0 = performance.now()
    let status = 0
    let text = ''
    let headers: Record<string, string | string[] | undefined> = {}
    try {
      const res = await request(`${opts.base}/cms-json${path}${qs === '' ? '' : `?${qs}`}`, {
        method: method as 'GET',
        dispatcher: agent,
        headers: { ...opts.headers(i), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: timeout,
        bodyTimeout: timeout
      })
      status = res.statusCode
      headers = res.headers
      text = await res.body.text()
    } catch (err) {
      const code = (err as { code?: string }).code ?? ''
      if (code.includes('TIMEOUT')) report.hangs++
      text = `request failed: ${code} ${(err as Error).message}`
    }
    const ms = performance.now() - t0
    ;(samples[op] ??= []).push(ms)
    report.requests++
    report.byOp[op] = (report.byOp[op] ?? 0) + 1
    report.byStatus[status] = (report.byStatus[status] ?? 0) + 1
    if (status !== 0) {
      const verdict = checkResponse({ status, headers, body: text }, { allow: [...tolerated] })
      if (!verdict.ok) note(`${method} ${path}: ${verdict.problem!}`)
    }
    let parsed: unknown
    try { parsed = JSON.parse(text) } catch { parsed = undefined }
    return { status, body: parsed }
  }

  const note = (what: string): void => {
    report.errors++
    if (report.errorSamples.length < 20) report.errorSamples.push(what)
  }
  /** A failed write: with a definite refusal (4xx) nothing happened; otherwise the outcome is unknown. */
  const unknownOutcome = (status: number): boolean => status === 0 || status >= 500

  const client = async (i: number): Promise<void> => {
    const mine: Owned[] = []
    let seq = 0
    let ops = 0
    const live = (): Owned[] => mine.filter((o) => !o.removed && !o.maybeRemoved)
    while (opts.stopSignal?.stop !== true && (Date.now() < deadline || ops < (opts.minOpsPerClient ?? 0))) {
      ops++
      const pick = Math.random()
      const candidates = live()
      const target = candidates[Math.floor(Math.random() * candidates.length)]
      let op: Op = pick < 0.3 ? 'read' : pick < 0.4 ? 'list' : pick < 0.6 ? 'create' : pick < 0.8 ? 'update' : pick < 0.9 ? 'remove' : 'batch'
      if (target === undefined && (op === 'read' || op === 'update' || op === 'remove')) op = 'create'
      if (op === 'batch' && r.batchable !== true) op = 'create'
      switch (op) {
        case 'read': {
          const res = await call(i, op, 'GET', `${r.collection}/${target!.id}`, { context: 'edit' })
          if (res.status === 200) {
            const v = r.versionOf(res.body)
            if (v !== target!.version && !target!.maybe.has(v ?? '')) note(`read ${r.name} ${target!.id}: content ${v}, acknowledged ${target!.version}`)
          } else if (!tolerated.has(res.status)) note(`read ${r.name} ${target!.id}: ${res.status}`)
          break
        }
        case 'list': {
          const res = await call(i, op, 'GET', r.collection, { per_page: 10, context: 'edit' })
          if (res.status !== 200 && !tolerated.has(res.status)) note(`list ${r.name}: ${res.status}`)
          break
        }
        case 'create': {
          const marker = `${run}c${i}s${seq++}`
          const version = `v0-${marker}`
          const res = await call(i, op, 'POST', r.collection, {}, r.create(marker, version))
          if (res.status === 201 && typeof res.body?.id === 'number') {
            mine.push({ id: res.body.id, marker, version, maybe: new Set(), removed: false, maybeRemoved: false })
            report.acknowledged.creates++
          } else {
            if (unknownOutcome(res.status)) { report.uncertainMarkers.add(marker); report.uncertain.creates++ } else report.refusedMarkers.add(marker)
            if (!tolerated.has(res.status)) note(`create ${r.name}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`)
          }
          break
        }
        case 'update': {
          const o = target!
          const version = `v${seq++}-${o.marker}`
          const res = await call(i, op, 'POST', `${r.collection}/${o.id}`, {}, r.update(version))
          if (res.status === 200) {
            o.version = version
            o.maybe.clear()
            report.acknowledged.updates++
          } else {
            if (unknownOutcome(res.status)) { o.maybe.add(version); report.uncertain.updates++ }
            if (!tolerated.has(res.status)) note(`update ${r.name} ${o.id}: ${res.status}`)
          }
          break
        }
        case 'remove': {
          const o = target!
          const res = await call(i, op, 'DELETE', `${r.collection}/${o.id}`, r.removeQuery)
          if (res.status === 200) {
            o.removed = true
            report.acknowledged.removals++
          } else {
            if (unknownOutcome(res.status)) { o.maybeRemoved = true; report.uncertain.removals++ }
            if (!tolerated.has(res.status)) note(`remove ${r.name} ${o.id}: ${res.status}`)
          }
          break
        }
        case 'batch': {
          const markers = Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () => `${run}c${i}s${seq++}`)
          const res = await call(i, op, 'POST', '/batch/v1', {}, {
            requests: markers.map((m) => ({ method: 'POST', path: r.collection, body: r.create(m, `v0-${m}`) }))
          })
          const responses = res.status === 207 && Array.isArray(res.body?.responses) ? res.body.responses as Array<{ status: number, body: any }> : undefined
          markers.forEach((m, k) => {
            const sub = responses?.[k]
            if (sub?.status === 201 && typeof sub.body?.id === 'number') {
              mine.push({ id: sub.body.id, marker: m, version: `v0-${m}`, maybe: new Set(), removed: false, maybeRemoved: false })
              report.acknowledged.creates++
            } else if (sub === undefined || unknownOutcome(sub.status)) {
              report.uncertainMarkers.add(m)
              report.uncertain.creates++
              if (!tolerated.has(res.status) && !tolerated.has(sub?.status ?? 0)) note(`batch create: ${res.status} / ${sub?.status}`)
            } else {
              report.refusedMarkers.add(m)
              if (!tolerated.has(sub.status)) note(`batch create: sub-request ${sub.status} ${JSON.stringify(sub.body)?.slice(0, 200)}`)
            }
          })
          break
        }
      }
    }
    report.objects.push(...mine)
  }

  await Promise.all(Array.from({ length: opts.clients }, async (_, i) => { await client(i) }))
  report.ms = Date.now() - started
  for (const [op, list] of Object.entries(samples)) report.latency[op] = percentiles(list)
  report.latency.all = percentiles(Object.values(samples).flat())
  await agent.close()
  return report
}

function percentiles (list: number[]): { p50: number, p95: number, p99: number, max: number, n: number } {
  const s = [...list].sort((a, b) => a - b)
  const at = (p: number): number => s.length === 0 ? 0 : Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 10) / 10
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: Math.round((s[s.length - 1] ?? 0) * 10) / 10, n: s.length }
}

/**
 * Reads back every object and lists everything carrying the run's marker.
 * Returns the differences (empty when consistent).
 */
export async function verifyLoad (base: string, headers: Record<string, string>, report: LoadReport, resource: Resource): Promise<string[]> {
  const problems: string[] = []
  const agent = new Agent({ connections: 8 })
  const get = async (path: string, query: Record<string, unknown>): Promise<{ status: number, body: any }> => {
    const res = await request(`${base}/cms-json${path}?${encodeParams(query)}`, { headers, dispatcher: agent })
    const text = await res.body.text()
    let body: unknown
    try { body = JSON.parse(text) } catch { body = text }
    return { status: res.statusCode, body }
  }
  const queue = [...report.objects]
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let o = queue.shift(); o !== undefined; o = queue.shift()) {
      const res = await get(`${resource.collection}/${o.id}`, { context: 'edit' })
      if (o.removed || o.maybeRemoved) {
        const gone = res.status === 404 || res.status === 410
        const inTrash = res.status === 200 && resource.trashed(res.body)
        const ok = resource.removal === 'gone' ? gone : inTrash
        if (o.removed && !ok) problems.push(`${resource.name} ${o.id} (${o.marker}): removal acknowledged, but GET answers ${res.status} ${resource.trashed(res.body) ? 'trashed' : 'present'}`)
        if (!o.removed && !ok && res.status !== 200) problems.push(`${resource.name} ${o.id}: GET answers ${res.status}`)
        if (!o.removed) continue
        if (!(resource.removal === 'trash' && inTrash)) continue
      } else if (res.status !== 200) {
        problems.push(`${resource.name} ${o.id} (${o.marker}): acknowledged, but GET answers ${res.status}`)
        continue
      }
      const version = resource.versionOf(res.body)
      if (version !== o.version && !o.maybe.has(version ?? '')) problems.push(`${resource.name} ${o.id}: content ${JSON.stringify(version)}, acknowledged ${JSON.stringify(o.version)}`)
      if (resource.markerOf(res.body) !== o.marker) problems.push(`${resource.name} ${o.id}: marker ${JSON.stringify(resource.markerOf(res.body))}, created as ${o.marker}`)
    }
  }))

  // Nothing unacknowledged appeared: list everything carrying the run's marker.
  const expected = new Map(report.objects.map((o) => [o.id, o]))
  const seen = new Set<number>()
  for (const query of resource.listQueries(report.run)) {
    for (let page = 1; ; page++) {
      const res = await get(resource.collection, { ...query, context: 'edit', per_page: 100, page })
      if (res.status === 400 && page > 1) break
      if (res.status !== 200 || !Array.isArray(res.body)) { problems.push(`listing ${JSON.stringify(query)} page ${page}: ${res.status}`); break }
      for (const item of res.body as any[]) {
        const marker = resource.markerOf(item)
        if (typeof marker !== 'string' || !marker.startsWith(report.run)) continue
        seen.add(item.id)
        const own = expected.get(item.id)
        if (own === undefined && !report.uncertainMarkers.has(marker)) problems.push(`${resource.name} ${item.id} (${marker}) exists but its creation was never acknowledged`)
        if (own !== undefined && own.removed && resource.removal === 'gone') problems.push(`${resource.name} ${item.id} listed after an acknowledged removal`)
      }
      if ((res.body as unknown[]).length < 100) break
    }
  }
  for (const o of report.objects) {
    const shouldList = !(o.removed || o.maybeRemoved) || resource.removal === 'trash'
    if (shouldList && !o.maybeRemoved && !seen.has(o.id)) problems.push(`${resource.name} ${o.id} (${o.marker}) missing from the listings`)
  }
  await agent.close()
  return problems
}

export function formatReport (r: LoadReport): string {
  const lat = Object.entries(r.latency).map(([op, l]) => `${op} p50 ${l.p50} p95 ${l.p95} p99 ${l.p99} max ${l.max} ms (n=${l.n})`).join('; ')
  return `${r.requests} requests in ${(r.ms / 1000).toFixed(1)} s (${Math.round(r.requests / (r.ms / 1000))}/s) on ${r.resource}; ` +
    `acknowledged ${r.acknowledged.creates} creates, ${r.acknowledged.updates} updates, ${r.acknowledged.removals} removals; ` +
    `uncertain ${r.uncertain.creates}/${r.uncertain.updates}/${r.uncertain.removals}; errors ${r.errors}; hangs ${r.hangs}; ` +
    `statuses ${JSON.stringify(r.byStatus)}; latency ${lat}`
}
