/**
 * The benchmark: the gateway on a real PostgreSQL, each public read scenario
 * paired in the same run with a bare Fastify process serving the identical
 * bytes.
 *
 *   pnpm bench                      # full run: 1,000 and 1,000,000 posts
 *   pnpm bench --smoke              # a few seconds on tiny data (run by the test suite)
 *   pnpm bench --sizes 1000 --duration 5
 *   pnpm bench --database-url postgres://...   # use a running server instead of starting one
 *   pnpm bench --gateway-node-options=--max-semi-space-size=4   # node flags for the gateway
 *
 * Anonymous reads are answered from the service's response cache while
 * nothing is committed; the "signed in" rows beside them send credentials
 * and a parameter that never repeats, which no kept answer matches (a
 * signed-in caller's repeated GET is kept too), so they measure the queries themselves
 * (under the same load, and alone: one connection, the latency of one
 * request).
 *
 * PostgreSQL keeps its default durability (every commit flushed to disk),
 * so creates and batches cost what they cost a user's database.
 * `--fast-writes` adds create and batch rows on a second server with fsync
 * and synchronous_commit off, labelled as such: figures no durable database
 * gives. (`--database-url` runs on that server's own settings, shown in the
 * table.)
 *
 * Prints a table and the targets, and writes the same figures to
 * bench/results/<timestamp>.json.
 */
import { parseArgs } from 'node:util'
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { startDatabase, type Database } from './database.js'
import { seedPosts, createAdmin } from './seed.js'
import { startGateway, startTwin, type Captured, type Service } from './services.js'
import { measure } from './load.js'
import { observe } from './observe.js'
import { targetsOf, type Row } from './targets.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const { values: opts } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    sizes: { type: 'string', default: '1000,1000000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    'database-url': { type: 'string' },
    'gateway-node-options': { type: 'string', default: '' },
    'fast-writes': { type: 'boolean', default: false },
    out: { type: 'string' }
  }
})

const smoke = opts.smoke === true
const duration = smoke ? 1 : Number(opts.duration)
// A smoke run checks the command, not its figures: a fixed number of requests a run (well under the
// second), and no warm-up. Its share of the test command's CPU was about 40 s with a full second each.
const amount = smoke ? 60 : undefined
const connections = smoke ? 2 : Number(opts.connections)
const sizes = smoke ? [50] : opts.sizes!.split(',').map(Number)

const LIST = '/index.php?rest_route=/cms/v2/posts&per_page=10'
const SEARCH = '/index.php?rest_route=/cms/v2/posts&search=needle'

async function main (): Promise<void> {
  const rows: Row[] = []
  const seeding: Array<{ size: number, seconds: number }> = []
  const db: Database = await startDatabase(opts['database-url'])
  let gateway: Service | undefined
  let twin: Service | undefined
  try {
    for (const size of sizes) {
      await db.reset()
      const admin = await createAdmin(db.url)
      gateway = await startGateway(db.url, opts['gateway-node-options']!.split(' ').filter((o) => o !== ''))
      const base = gateway.url
      const started = Date.now()
      await seedPosts(db.url, size, admin.id, base)
      seeding.push({ size, seconds: (Date.now() - started) / 1000 })
      const auth = `Basic ${Buffer.from(`${admin.login}:${admin.password}`).toString('base64')}`
      const first = size === sizes[0]

      const database = await db.durability()
      const reads: Array<{ scenario: string, path: string, signedIn?: string }> = [
        { scenario: 'posts list (per_page=10)', path: LIST, signedIn: 'posts list, signed in' },
        { scenario: 'single post', path: `/index.php?rest_route=/cms/v2/posts/${Math.max(1, Math.floor(size / 2))}`, signedIn: 'single post, signed in' },
        { scenario: 'index GET /', path: '/index.php?rest_route=/' },
        { scenario: 'search', path: SEARCH, signedIn: 'search, signed in' }
      ]
      // Capture what the service answers, then serve the same bytes from a bare Fastify process.
      const captured: Record<string, Captured> = {}
      for (const r of reads) {
        const res = await fetch(base + r.path)
        const headers: Record<string, string> = {}
        res.headers.forEach((v, k) => { if (!['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(k)) headers[k] = v })
        captured[r.path] = { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('base64') }
        if (res.status !== 200) throw new Error(`${r.scenario}: the service answered ${res.status}`)
      }
      twin = await startTwin(captured)

      for (const r of reads) {
        if (!first && r.path !== LIST && r.path !== SEARCH) continue
        // Both processes warm up on the address first (JIT, caches, sockets), unmeasured.
        if (!smoke) {
          await measure({ url: base + r.path, duration: 2, connections })
          await measure({ url: twin.url + r.path, duration: 2, connections })
        }
        const service = await observe(gateway, db, async () => await measure({ url: base + r.path, duration, amount, connections }))
        const bare = await observe(twin, undefined, async () => await measure({ url: twin!.url + r.path, duration, amount, connections }))
        rows.push({ scenario: r.scenario, caller: 'anonymous (cached)', database, size, service, bare, ratio: service.requestsPerSec / bare.requestsPerSec })
        if (r.signedIn === undefined) continue
        // The same address signed in, beside it, with a parameter that never repeats: the query's own
        // cost (a signed-in caller's repeated GET is answered from its kept answers since issue 35).
        const fresh = { url: `${base}${r.path}&nocache=[<id>]`, headers: { authorization: auth }, idReplacement: true, duration, amount }
        const signedIn = await observe(gateway, db, async () => await measure({ ...fresh, connections }))
        rows.push({ scenario: r.signedIn, caller: 'signed in (uncached)', database, size, service: signedIn })
        const alone = await observe(gateway, db, async () => await measure({ ...fresh, connections: 1 }))
        rows.push({ scenario: `${r.signedIn}, 1 connection`, caller: 'signed in (uncached)', database, size, service: alone })
      }
      if (first) rows.push(...await writeRows(gateway, db, auth, size, ''))
      await twin.stop()
      twin = undefined
      await gateway.stop()
      gateway = undefined
    }
    if (opts['fast-writes'] === true) {
      // Extra rows, labelled: the same writes on a server that flushes nothing.
      const fast = await startDatabase(undefined, { durable: false })
      try {
        await fast.reset()
        const admin = await createAdmin(fast.url)
        gateway = await startGateway(fast.url, opts['gateway-node-options']!.split(' ').filter((o) => o !== ''))
        const auth = `Basic ${Buffer.from(`${admin.login}:${admin.password}`).toString('base64')}`
        rows.push(...await writeRows(gateway, fast, auth, sizes[0]!, ' (fsync=off, synchronous_commit=off)'))
      } finally {
        await gateway?.stop()
        gateway = undefined
        await fast.stop()
      }
    }
  } finally {
    await twin?.stop()
    await gateway?.stop()
    await db.stop()
  }

  const peakRssMb = Math.max(0, ...rows.map((r) => r.service.peakRssMb ?? 0))
  const targets = targetsOf(rows, peakRssMb)
  print(rows, peakRssMb, targets, seeding)
  const dir = join(ROOT, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const file = opts.out ?? join(dir, `${smoke ? 'smoke-' : ''}${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), smoke, duration, connections, sizes, gatewayNodeOptions: opts['gateway-node-options'], seeding, peakRssMb, rows, targets }, null, 2))
  console.log(`results: ${file}`)
}

/** Creates and batches of 25 creates, signed in; `label` marks rows on another database than the headline one. */
async function writeRows (gateway: Service, db: Database, auth: string, size: number, label: string): Promise<Row[]> {
  const base = gateway.url
  const database = await db.durability()
  // Each create has its own title (autocannon puts a fresh id in place of [<id>]), as real posts do.
  const create = await observe(gateway, db, async () => await measure({
    url: `${base}/index.php?rest_route=/cms/v2/posts`,
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Bench post [<id>]', content: 'Created by the benchmark.', status: 'publish' }),
    idReplacement: true,
    duration,
    amount,
    connections
  }))
  const requests = Array.from({ length: 25 }, (_, i) => ({ method: 'POST', path: '/cms/v2/posts', body: { title: `Batch [<id>] ${i}`, status: 'publish' } }))
  const batch = await observe(gateway, db, async () => await measure({
    url: `${base}/index.php?rest_route=/batch/v1`,
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ requests }),
    idReplacement: true,
    duration,
    amount: amount === undefined ? undefined : amount / 10,
    connections: Math.max(1, Math.floor(connections / 4))
  }))
  return [
    { scenario: `authenticated create${label}`, caller: 'signed in', database, size, service: create },
    { scenario: `batch of 25 creates${label}`, caller: 'signed in', database, size, service: batch, ratio: batch.p50 / Math.max(create.p50, 0.001) }
  ]
}

function print (rows: Row[], peakRssMb: number, targets: ReturnType<typeof targetsOf>, seeding: Array<{ size: number, seconds: number }>): void {
  const fmt = (n: number | undefined, digits = 1): string => n === undefined ? '' : n.toFixed(digits)
  const lines = [
    '| scenario | caller | posts | req/s | p50 ms | p99 ms | errors | bare req/s | service/bare | CPU µs/req | bare CPU µs/req | PostgreSQL CPU µs/req | idle % | RSS MB | PostgreSQL |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|'
  ]
  for (const r of rows) {
    const ratio = r.scenario.startsWith('batch of 25 creates') ? `${fmt(r.ratio, 2)}x one create (p50)` : fmt(r.ratio, 2)
    lines.push(`| ${r.scenario} | ${r.caller ?? ''} | ${r.size} | ${fmt(r.service.requestsPerSec, 0)} | ${fmt(r.service.p50)} | ${fmt(r.service.p99)} | ${r.service.errors} | ${fmt(r.bare?.requestsPerSec, 0)} | ${ratio} | ${fmt(r.service.cpuUsPerRequest, 0)} | ${fmt(r.bare?.cpuUsPerRequest, 0)} | ${fmt(r.service.dbCpuUsPerRequest, 0)} | ${fmt(r.service.idlePercent, 0)} | ${fmt(r.service.peakRssMb, 0)} | ${r.database ?? ''} |`)
  }
  const flags = opts['gateway-node-options'] === '' ? 'default node flags' : `node ${opts['gateway-node-options']!}`
  lines.push('', `gateway peak resident memory: ${peakRssMb.toFixed(0)} MB (${flags})`)
  lines.push(`seeding: ${seeding.map((s) => `${s.size} posts in ${s.seconds.toFixed(1)} s`).join(', ')}`)
  lines.push('', '| target | wanted | measured | met |', '|---|---|---|---|')
  for (const t of targets) lines.push(`| ${t.target} | ${t.wanted} | ${t.measured} | ${t.met === undefined ? 'n/a' : t.met ? 'yes' : 'no'} |`)
  console.log(lines.join('\n'))
}

await main()
