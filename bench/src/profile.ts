/**
 * Where a request's CPU goes: one scenario under load on a durable
 * PostgreSQL with pg_stat_statements and auto_explain loaded, the gateway
 * under `--cpu-prof`. Prints, per request: the gateway's and PostgreSQL's
 * CPU, each statement's calls, execution and planning time and buffers
 * (pg_stat_statements), the WAL written and flushed and the commits
 * (pg_stat_wal, pg_stat_database), the plan of each statement of one
 * request (`EXPLAIN (ANALYZE, BUFFERS)` by auto_explain), and the gateway's
 * CPU profile summed by function (self and inclusive) and by package.
 *
 *   pnpm --filter @cms/bench bench:profile --scenario list-signed-in [--duration 10] [--connections 10]
 *   pnpm --filter @cms/bench bench:profile --scenario create
 *   pnpm --filter @cms/bench bench:profile --scenario batch          # 25 creates in one POST /batch/v1
 *   pnpm --filter @cms/bench bench:profile --scenario list           # the cached anonymous list
 *   pnpm --filter @cms/bench bench:profile --socket                  # the gateway over PostgreSQL's Unix-domain socket
 *
 * The profile is written to bench/results/profile-<scenario>-<time>.cpuprofile
 * (open it in Chrome's DevTools for the flame chart).
 */
import { parseArgs } from 'node:util'
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { startDatabase } from './database.js'
import { createAdmin, seedPosts } from './seed.js'
import { startGateway } from './services.js'
import { measure, type LoadOptions } from './load.js'
import { observe } from './observe.js'

const { values: opts } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'list-signed-in' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    posts: { type: 'string', default: '1000' },
    // The gateway reaches PostgreSQL through its Unix-domain socket instead of local TCP.
    socket: { type: 'boolean', default: false }
  }
})
const connections = Number(opts.connections)

const SCENARIOS: Record<string, (base: string, auth: string) => Omit<LoadOptions, 'duration'>> = {
  // Signed in, the same page: the caller's kept answer while nothing is committed.
  'list-signed-in': (base, auth) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10`, headers: { authorization: auth }, connections }),
  // Signed in, a parameter that never repeats: the page made every time.
  'list-signed-in-fresh': (base, auth) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10&nocache=[<id>]`, headers: { authorization: auth }, idReplacement: true, connections }),
  // Anonymous, answered from the kept answers while nothing is committed: what a cached read costs.
  list: (base) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10`, connections }),
  'list-uncached': (base) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10&nocache=[<id>]`, idReplacement: true, connections }),
  // Anonymous, a query never asked before each time (it excludes a post id that does not exist): since 2026-11-29
  // `list-uncached` finds the page its query read (the page kept by its query, not its address); this one makes it.
  'list-unseen': (base) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10`, pathOf: (n) => `/index.php?rest_route=/cms/v2/posts&per_page=10&exclude=${1_000_000_000 + n}`, connections }),
  create: (base, auth) => ({
    url: `${base}/index.php?rest_route=/cms/v2/posts`,
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    idReplacement: true,
    connections,
    body: JSON.stringify({ title: 'Bench post [<id>]', content: 'Created by the benchmark.', status: 'publish' })
  }),
  // 25 creates in one `POST /batch/v1`: one transaction and one commit for all of them.
  batch: (base, auth) => ({
    url: `${base}/index.php?rest_route=/batch/v1`,
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    idReplacement: true,
    connections,
    body: JSON.stringify({
      requests: Array.from({ length: 25 }, (_, i) => ({ path: '/cms/v2/posts', body: { title: `Bench batch [<id>] ${i}`, content: 'Created by the benchmark.', status: 'publish' } }))
    })
  })
}
const scenario = SCENARIOS[opts.scenario!]
if (scenario === undefined) throw new Error(`unknown scenario ${opts.scenario!} (${Object.keys(SCENARIOS).join(', ')})`)

const num = (v: unknown): number => Number(v ?? 0)
const window = { start: 0, end: Infinity }
const profDir = mkdtempSync(join(tmpdir(), 'cms-prof-'))
const db = await startDatabase(undefined, {
  options: '-c shared_preload_libraries=pg_stat_statements,auto_explain -c pg_stat_statements.track=all -c pg_stat_statements.track_planning=on -c track_io_timing=on'
})
let stopGateway: (() => Promise<void>) | undefined
try {
  await db.reset()
  const admin = await createAdmin(db.url)
  await db.query('create extension if not exists pg_stat_statements')
  const gateway = await startGateway(opts.socket === true ? db.overSocket(db.url) : db.url, ['--cpu-prof', `--cpu-prof-dir=${profDir}`])
  stopGateway = gateway.stop
  await seedPosts(db.url, Number(opts.posts), admin.id, gateway.url)
  const auth = `Basic ${Buffer.from(`${admin.login}:${admin.password}`).toString('base64')}`
  await measure({ ...scenario(gateway.url, auth), duration: 3 })

  await db.query("select pg_stat_statements_reset(), pg_stat_reset_shared('wal'), pg_stat_reset()")
  // The profile is summed over this window only (not the start, seeding and warm-up): V8's
  // sample times and hrtime read the same monotonic clock.
  window.start = Number(process.hrtime.bigint() / 1000n)
  const m = await observe(gateway, db, async () => await measure({ ...scenario(gateway.url, auth), duration: Number(opts.duration) }))
  window.end = Number(process.hrtime.bigint() / 1000n)
  const n = m.requests
  console.log(`${opts.scenario!}: ${n} requests, ${m.requestsPerSec.toFixed(0)} req/s, ${connections} connections; ${await db.durability()}`)
  console.log(`CPU per request: gateway ${m.cpuUsPerRequest?.toFixed(0) ?? '?'} µs, PostgreSQL ${m.dbCpuUsPerRequest?.toFixed(0) ?? '?'} µs; idle ${m.idlePercent?.toFixed(0) ?? '?'} %`)

  const statements = await db.query(`
    select query, calls, total_exec_time, total_plan_time, plans, rows, shared_blks_hit, shared_blks_read, wal_records
    from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
    order by total_exec_time + total_plan_time desc limit 25`)
  console.log('\n| statement | calls/request | exec µs/call | plan µs/call | plans/call | rows/call | buffers hit/call | WAL records/call |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const s of statements) {
    const calls = num(s.calls)
    const text = String(s.query).replace(/\s+/g, ' ').slice(0, 160).replace(/\|/g, '\\|')
    console.log(`| \`${text}\` | ${(calls / n).toFixed(2)} | ${(1000 * num(s.total_exec_time) / calls).toFixed(0)} | ${num(s.plans) === 0 ? '' : (1000 * num(s.total_plan_time) / num(s.plans)).toFixed(0)} | ${(num(s.plans) / calls).toFixed(2)} | ${(num(s.rows) / calls).toFixed(1)} | ${(num(s.shared_blks_hit) / calls).toFixed(1)} | ${(num(s.wal_records) / calls).toFixed(1)} |`)
  }
  const [wal] = await db.query('select wal_records, wal_bytes, wal_write, wal_sync from pg_stat_wal')
  const [xact] = await db.query('select xact_commit, xact_rollback from pg_stat_database where datname = current_database()')
  console.log(`\nper request: ${(num(wal?.wal_records) / n).toFixed(1)} WAL records, ${(num(wal?.wal_bytes) / n).toFixed(0)} WAL bytes, ${(num(wal?.wal_write) / n).toFixed(2)} WAL writes, ${(num(wal?.wal_sync) / n).toFixed(2)} WAL flushes (fsync), ${(num(xact?.xact_commit) / n).toFixed(2)} commits (statements outside a transaction count as one each)`)

  // The plans of one request's statements, as PostgreSQL ran them.
  const logFile = db.logFile!
  const offset = statSync(logFile).size
  for (const setting of ['log_min_duration = 0', 'log_analyze = on', 'log_buffers = on', 'log_nested_statements = on']) await db.query(`alter system set auto_explain.${setting}`)
  await db.query('select pg_reload_conf()')
  await new Promise((resolve) => setTimeout(resolve, 300))
  await measure({ ...scenario(gateway.url, auth), connections: 1, duration: 1, amount: 2 })
  await db.query('alter system reset all')
  await db.query('select pg_reload_conf()')
  const plans = readFileSync(logFile, 'utf8').slice(offset).split(/\n(?=\d{4}-\d\d-\d\d )/).filter((l) => l.includes('Query Text'))
  const seen = new Set<string>()
  console.log('\nPlans (auto_explain, EXPLAIN (ANALYZE, BUFFERS)) of one request:\n')
  for (const p of plans) {
    const text = /Query Text: ([^\n]*)/.exec(p)?.[1] ?? ''
    if (seen.has(text) || /alter system|pg_reload_conf/.test(text)) continue
    seen.add(text)
    console.log(p.replace(/^.*?duration:/, 'duration:'), '\n')
  }
} finally {
  await stopGateway?.()
  await db.stop()
}

// The gateway's profile, summed.
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))
if (file === undefined) throw new Error('no profile written')
interface Node { id: number, callFrame: { functionName: string, url: string, lineNumber: number }, children?: number[] }
const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as { nodes: Node[], samples: number[], timeDeltas: number[], startTime: number }
const out = join(fileURLToPath(new URL('../results', import.meta.url)), `profile-${opts.scenario!}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`)
mkdirSync(join(out, '..'), { recursive: true })
renameSync(join(profDir, file), out)
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id)
const where = (n: Node): string => {
  const url = n.callFrame.url.replace(/^file:\/\//, '')
  const short = url.includes('node_modules') ? url.replace(/.*node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '') : url.replace(/.*\/(packages|apps)\//, '$1/')
  return `${n.callFrame.functionName === '' ? '(anonymous)' : n.callFrame.functionName} ${short}:${n.callFrame.lineNumber + 1}`
}
const pkg = (n: Node): string => {
  const url = n.callFrame.url
  const m = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (m !== null) return m[1]!
  const w = /\/(packages|apps)\/([^/]+)\/src\/(.*)$/.exec(url)
  if (w !== null) return `${w[1]!}/${w[2]!}/${w[3]!}`
  return url === '' ? n.callFrame.functionName : url.startsWith('node:') ? 'node internals' : url
}
const self = new Map<string, number>()
const inclusive = new Map<string, number>()
const packages = new Map<string, number>()
let total = 0
let idle = 0
let at = profile.startTime
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0
  at += dt
  if (at < window.start || at > window.end) return
  const leaf = byId.get(id)!
  // Shares are of the time the gateway was busy: idle samples are the waits for the database and the clients.
  if (leaf.callFrame.functionName === '(idle)') { idle += dt; return }
  total += dt
  self.set(where(leaf), (self.get(where(leaf)) ?? 0) + dt)
  packages.set(pkg(leaf), (packages.get(pkg(leaf)) ?? 0) + dt)
  const onStack = new Set<string>()
  for (let n: Node | undefined = leaf; n !== undefined; n = byId.get(parent.get(n.id) ?? -1)) onStack.add(where(n))
  for (const w of onStack) inclusive.set(w, (inclusive.get(w) ?? 0) + dt)
})
// By stage of a read: each sample charged to the innermost project frame on its stack that names
// a stage (library time to the stage that called it); socket writes and the collector by their leaf.
const STAGES: Array<[string, RegExp]> = [
  ['authentication', /users\/(authenticate|passwords)|rest\/(dist|src)\/auth/],
  ['permission (capabilities, readability rule)', /users\/capabilities|content\/post-query\.[jt]s:(readRule|may)$|post-format\.[jt]s:(canRead|canEdit|allowedMethods)$/],
  ['validation of the query arguments', /rest\/(dist|src)\/(validate|params)/],
  ['the statements (build, send, parse, map rows)', /content\/post-query|content\/collection\.[jt]s:list$|store\/(dist|src)|drizzle-orm|node_modules\/.*\/pg(-pool|-protocol)?\//],
  ['extras (meta, terms, revisions)', /post-store|platform\/meta/],
  ['formatting (formatPost, links, class list, dates)', /content\/(post-format|posts)\.|base\/dates|text\/(slugs|render|text-pool)|render-cache|rest\/(dist|src)\/links/],
  ['_fields and context (shaping)', /rest\/(dist|src)\/(shape|context|fields)/],
  ['serialization (weigh, JSON, ETag)', /rest\/(dist|src)\/(render|json-thread)/],
  ['kept answers and totals', /kept-answers|read-cache|lru-cache/],
  ['pagination headers', /rest\/(dist|src)\/pagination/],
  ['rate limit', /rate-limit/]
]
const stages = new Map<string, number>()
const stageOf = (leaf: Node): string => {
  const f = leaf.callFrame.functionName
  if (f === 'writev' || f === 'writeUtf8String') return 'socket writes'
  if (f === '(garbage collector)') return 'garbage collector'
  for (let n: Node | undefined = leaf; n !== undefined; n = byId.get(parent.get(n.id) ?? -1)) {
    const k = `${n.callFrame.url}:${n.callFrame.functionName}`
    for (const [name, re] of STAGES) if (re.test(k)) return name
  }
  return 'HTTP and kernel (Node http, Fastify, routing, hooks, pipeline)'
}
at = profile.startTime
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0
  at += dt
  if (at < window.start || at > window.end) return
  const leaf = byId.get(id)!
  if (leaf.callFrame.functionName === '(idle)') return
  stages.set(stageOf(leaf), (stages.get(stageOf(leaf)) ?? 0) + dt)
})
const top = (m: Map<string, number>, k: number): string => [...m].sort((a, b) => b[1] - a[1]).slice(0, k)
  .map(([name, t]) => `| ${name.replace(/\|/g, '\\|')} | ${(100 * t / total).toFixed(1)} |`).join('\n')
console.log(`\ngateway profile: ${out} (the measured window: ${(total / 1000).toFixed(0)} ms busy, ${(idle / 1000).toFixed(0)} ms idle; shares of the busy time)\n\n| package or file (self) | % |\n|---|---:|\n${top(packages, 40)}`)
console.log(`\n| stage | % |\n|---|---:|\n${top(stages, 20)}`)
console.log(`\n| function (self) | % |\n|---|---:|\n${top(self, 40)}`)
console.log(`\n| function (inclusive) | % |\n|---|---:|\n${top(inclusive, 120)}`)
