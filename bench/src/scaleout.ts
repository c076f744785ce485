/**
 * The split topology under load (issue 33), against `scripts/topology.sh up split-b`
 * (started first; this reads its state and starts and kills replicas with it):
 *
 *   pnpm --filter @cms/bench exec tsx src/scaleout.ts replicas [seconds] [connections]
 *     GET /seo/v1/get_head through the entry point (HAProxy, a gateway, seo-lb, an SEO
 *     replica) with two SEO replicas, then with one (the other killed): requests/s,
 *     latency, and CPU time per request of every process of the topology.
 *   pnpm --filter @cms/bench exec tsx src/scaleout.ts failover
 *     A steady load on seo/v1 and assistant/v1 while an SEO replica is killed and
 *     restarted, then both, then the assistant service: every answer that is not a
 *     2xx must be a 502 or 503 in the error shape naming the namespace, none may take
 *     longer than the gateway's timeout, and the time from a service's return (its
 *     /readyz answering) to being served through the gateway again is measured.
 *
 * Figures are printed as one JSON line per phase (and kept under bench/results/).
 * The load comes from one address: start the topology with the read limit off
 * (`CMS_RATE_LIMIT_READ=0` in the secrets file), or the limiter's 429s, not the
 * replicas, decide the throughput; `replicas` refuses to measure otherwise.
 */
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { cpus, loadavg } from 'node:os'
import { cpuOf, treeCpuOf } from './proc.js'
import { measure } from './load.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PROFILE = 'split-b'

interface Replica { pid: number, ports: Record<string, number>, env: Record<string, string> }
interface State { entry: string, services: Record<string, Replica[]> }

// Never synchronous while a load runs: a blocked event loop would count as slow answers.
const topology = async (...args: string[]): Promise<string> => (await promisify(execFile)('bash', ['scripts/topology.sh', ...args], { cwd: ROOT, encoding: 'utf8' })).stdout
const state = (): State => JSON.parse(execFileSync('bash', ['scripts/topology.sh', 'state', PROFILE], { cwd: ROOT, encoding: 'utf8' })) as State
const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/** HAProxy's view of a backend's servers: name -> status (UP, DOWN...) and sessions so far. */
async function haproxyServers (statsPort: number, backend: string): Promise<Record<string, { status: string, sessions: number }>> {
  const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text()
  const [header, ...rows] = csv.trim().split('\n')
  const cols = header!.replace(/^# /, '').split(',')
  const at = (row: string[], name: string): string => row[cols.indexOf(name)] ?? ''
  const out: Record<string, { status: string, sessions: number }> = {}
  for (const line of rows) {
    const row = line.split(',')
    if (at(row, 'pxname') === backend && !['FRONTEND', 'BACKEND'].includes(at(row, 'svname'))) {
      out[at(row, 'svname')] = { status: at(row, 'status'), sessions: Number(at(row, 'stot')) }
    }
  }
  return out
}

async function waitFor (what: string, check: () => Promise<boolean>, timeoutMs = 300_000): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < timeoutMs) {
    if (await check().catch(() => false)) return performance.now() - started
    await sleep(50)
  }
  throw new Error(`${what}: not within ${timeoutMs / 1000} s`)
}

async function ready (port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) })
  await res.arrayBuffer()
  return res.ok
}

/** A published post and the SEO read route of its URL (the head an SEO plugin renders for it). */
async function seoRoute (s: State): Promise<string> {
  // An administrator of the bench's own (the first one may have been changed by the suites run against the topology).
  const login = `bench-${Date.now().toString(36)}`
  const cli = (...args: string[]): string => execFileSync(process.execPath, ['--import', 'tsx', 'apps/cli/src/main.ts', ...args], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, DATABASE_URL: s.services.gateway![0]!.env.DATABASE_URL }
  })
  cli('user', 'create', login, '--email', `${login}@example.com`, '--role', 'administrator')
  const { password } = JSON.parse(cli('app-password', 'create', login, 'bench', '--json')) as { password: string }
  const auth = `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`
  const res = await fetch(`${s.entry}/cms-json/cms/v2/posts`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Scale-out bench', content: '<p>A post whose SEO head is read under load.</p>', status: 'publish' })
  })
  const post = await res.json() as { id?: number, link?: string }
  if (res.status !== 201 || post.link === undefined) throw new Error(`creating the bench post answered ${res.status}: ${JSON.stringify(post)}`)
  return `${s.entry}/cms-json/seo/v1/get_head?url=${encodeURIComponent(post.link)}`
}

/** CPU seconds of every process of the topology, by service. */
function cpuByService (s: State): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [name, replicas] of Object.entries(s.services)) {
    for (const [i, r] of replicas.entries()) out[replicas.length > 1 ? `${name}.${i + 1}` : name] = name === 'postgres' ? treeCpuOf(r.pid) : cpuOf(r.pid)
  }
  return out
}

function save (name: string, data: unknown): void {
  mkdirSync(`${ROOT}/bench/results`, { recursive: true })
  writeFileSync(`${ROOT}/bench/results/scaleout-${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, `${JSON.stringify(data, null, 2)}\n`)
}

async function replicas (seconds: number, connections: number): Promise<void> {
  let s = state()
  const url = await seoRoute(s)
  const limited = (await fetch(url)).headers.get('ratelimit-limit')
  if (limited !== null) throw new Error(`reads are rate limited (${limited} a minute per address): start the topology with CMS_RATE_LIMIT_READ=0 in its secrets file`)
  const statsPort = s.services['seo-lb']![0]!.ports['8404']!
  const rows = []
  for (const seoReplicas of [2, 1]) {
    if (seoReplicas === 1) {
      await topology('kill', PROFILE, 'seo', '2')
      await waitFor('HAProxy to take seo2 out', async () => (await haproxyServers(statsPort, 'seo')).seo2?.status.startsWith('DOWN') === true)
    }
    // A short warm-up (JIT, caches, connections), then the measured run.
    await measure({ url, duration: 3, connections })
    const before = cpuByService(s)
    const m = await measure({ url, duration: seconds, connections })
    const after = cpuByService(s)
    const cpuUsPerRequest = Object.fromEntries(Object.entries(after).map(([k, v]) => [k, Math.round((v - (before[k] ?? 0)) * 1e6 / Math.max(1, m.requests))]).filter(([, v]) => Number(v) > 0))
    const row = { seoReplicas, route: 'GET /seo/v1/get_head', seconds, connections, cores: cpus().length, requestsPerSec: Math.round(m.requestsPerSec), p50: m.p50, p99: m.p99, errors: m.errors, statuses: m.statuses, requests: m.requests, cpuUsPerRequest, loadAverage: loadavg().map((l) => l.toFixed(1)).join(' ') }
    console.log(JSON.stringify(row))
    // A rate with failed answers in it measures the failures, not the replicas.
    if (m.errors > 0) throw new Error(`${m.errors} of ${m.requests} answers were not 2xx (${JSON.stringify(m.statuses)}): no throughput figure`)
    rows.push(row)
  }
  await topology('start', PROFILE, 'seo', '2')
  s = state()
  await waitFor('HAProxy to put seo2 back', async () => (await haproxyServers(statsPort, 'seo')).seo2?.status === 'UP')
  save('replicas', rows)
}

interface Answer { at: number, ms: number, status: number, body: string, namespace: string }

/** Requests in a loop on `workers` connections each, until stopped; every answer kept. */
function load (urls: Array<{ url: string, namespace: string }>, workers: number): { answers: Answer[], stop: () => Promise<void> } {
  const answers: Answer[] = []
  const control = { running: true }
  const t0 = performance.now()
  const loops = urls.flatMap(({ url, namespace }) => Array.from({ length: workers }, async () => {
    while (control.running) {
      const started = performance.now()
      let status = 0
      let body = ''
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(60_000) })
        status = res.status
        body = await res.text()
      } catch (err) {
        body = String(err)
      }
      answers.push({ at: started - t0, ms: performance.now() - started, status, body: status >= 200 && status < 300 ? '' : body, namespace })
    }
  }))
  return { answers, stop: async () => { control.running = false; await Promise.all(loops) } }
}

/** Whether a failed answer is a 502/503 in the error shape naming its namespace. */
function wellFailed (a: Answer): boolean {
  if (a.status !== 502 && a.status !== 503) return false
  try {
    const body = JSON.parse(a.body) as { code?: unknown, message?: unknown, data?: { status?: unknown, namespace?: unknown } }
    return typeof body.code === 'string' && typeof body.message === 'string' && body.data?.status === a.status && body.data?.namespace === a.namespace
  } catch {
    return false
  }
}

async function failover (): Promise<void> {
  const s = state()
  const seoUrl = await seoRoute(s)
  const statsPort = s.services['seo-lb']![0]!.ports['8404']!
  const timeoutMs = Number(s.services.gateway![0]!.env.CMS_REMOTE_TIMEOUT_MS ?? 10_000)
  const run = load([{ url: seoUrl, namespace: 'seo/v1' }, { url: `${s.entry}/cms-json/assistant/v1`, namespace: 'assistant/v1' }], 4)
  const t0 = performance.now()
  const now = (): number => Math.round(performance.now() - t0)
  const events: Array<Record<string, unknown>> = []
  const firstSuccessAfter = async (namespace: string, since: number): Promise<number> => {
    await waitFor(`a ${namespace} answer after its return`, async () => run.answers.some((a) => a.namespace === namespace && a.status === 200 && a.at >= since), 30_000)
    return run.answers.find((a) => a.namespace === namespace && a.status === 200 && a.at >= since)!.at - since
  }
  await sleep(3000)

  // 1. One SEO replica of two killed, then back: the other serves meanwhile.
  await topology('kill', PROFILE, 'seo', '1')
  events.push({ at: now(), event: 'seo.1 killed' })
  await waitFor('HAProxy to take seo1 out', async () => (await haproxyServers(statsPort, 'seo')).seo1?.status.startsWith('DOWN') === true)
  events.push({ at: now(), event: 'seo1 DOWN in HAProxy' })
  await topology('start', PROFILE, 'seo', '1')
  const back = now()
  const sessions = (await haproxyServers(statsPort, 'seo')).seo1!.sessions
  const upMs = await waitFor('seo1 served again', async () => (await haproxyServers(statsPort, 'seo')).seo1!.sessions > sessions, 30_000)
  events.push({ at: back, event: 'seo.1 ready again', servedAgainAfterMs: Math.round(upMs) })

  // 2. Both SEO replicas killed (HAProxy has none healthy: 503), then back.
  await sleep(2000)
  await topology('kill', PROFILE, 'seo', '1')
  await topology('kill', PROFILE, 'seo', '2')
  events.push({ at: now(), event: 'seo.1 and seo.2 killed' })
  await sleep(4000)
  // One after the other: each start rewrites the topology's state file.
  const starting = (async () => { await topology('start', PROFILE, 'seo', '1'); await topology('start', PROFILE, 'seo', '2') })()
  const p = s.services.seo!
  // The return: the moment the first replica answers its /readyz (same ports as before).
  let seoBack = -1
  await waitFor('an SEO replica ready', async () => { if (await ready(p[0]!.ports['8080']!) || await ready(p[1]!.ports['8080']!)) { seoBack = now(); return true } return false })
  await starting
  events.push({ at: seoBack, event: 'seo replicas back: the first ready again', servedAgainAfterMs: Math.round(await firstSuccessAfter('seo/v1', seoBack)) })

  // 3. The assistant service (one replica, no balancer: the gateway's own 502).
  await sleep(2000)
  await topology('kill', PROFILE, 'assistant', '1')
  events.push({ at: now(), event: 'assistant killed' })
  await sleep(3000)
  await topology('start', PROFILE, 'assistant', '1')
  const assistantBack = now()
  events.push({ at: assistantBack, event: 'assistant ready again', servedAgainAfterMs: Math.round(await firstSuccessAfter('assistant/v1', assistantBack)) })
  await sleep(2000)
  await run.stop()

  const failures = run.answers.filter((a) => a.status < 200 || a.status >= 300)
  const bad = failures.filter((a) => !wellFailed(a))
  const byStatus: Record<string, number> = {}
  for (const a of run.answers) byStatus[`${a.namespace} ${a.status}`] = (byStatus[`${a.namespace} ${a.status}`] ?? 0) + 1
  const slowest = Math.round(Math.max(...run.answers.map((a) => a.ms)))
  const result = {
    requests: run.answers.length,
    byStatus,
    failures: failures.length,
    notInTheErrorShape: bad.length,
    examples: [...new Map(failures.map((a) => [`${a.status} ${a.body.slice(0, 200)}`, a])).keys()].slice(0, 6),
    slowestMs: slowest,
    // When the slowest were asked (ms from the start, as the events), for which namespace, with what answer.
    slowestAnswers: [...run.answers].sort((x, y) => y.ms - x.ms).slice(0, 5).map((a) => ({ at: Math.round(a.at), ms: Math.round(a.ms), namespace: a.namespace, status: a.status })),
    over: run.answers.filter((a) => a.ms > timeoutMs).length,
    gatewayTimeoutMs: timeoutMs,
    events
  }
  console.log(JSON.stringify(result, null, 2))
  save('failover', result)
  if (bad.length > 0 || slowest > timeoutMs) process.exitCode = 1
}

const [mode, a, b] = process.argv.slice(2)
if (mode === 'replicas') await replicas(Number(a ?? 20), Number(b ?? 16))
else if (mode === 'failover') await failover()
else {
  console.error('usage: tsx src/scaleout.ts replicas [seconds] [connections] | failover   (with scripts/topology.sh up split-b running)')
  process.exitCode = 2
}
