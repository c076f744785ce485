/**
 * Two versions of the gateway side by side: this checkout and another one
 * (say a worktree of an earlier commit), on one durable PostgreSQL server,
 * with their runs interleaved so both see the same machine. Each side has a
 * database of its own, migrated and given its administrator by its own CLI,
 * so any earlier checkout can be compared (on one shared database an older
 * checkout's migrations meet the newer one's tables: 42P07). For each
 * scenario it prints req/s, latency and the CPU time per request of the
 * gateway, of PostgreSQL and of both, the figures that stay steady when the
 * machine is shared, then the medians of the rounds and their ratio.
 *
 *   git worktree add /tmp/before HEAD~1 && (cd /tmp/before && pnpm install --frozen-lockfile --offline)
 *   pnpm bench:compare --other /tmp/before [--scenarios list-signed-in,list-uncached,create] [--rounds 3] [--duration 4]
 *   pnpm bench:compare --other .. --other-env CMS_RATE_LIMITS=off --scenarios list    # the rate limiter's cost on a cached read
 *   pnpm bench:compare --other /tmp/before --pg-options '-c commit_delay=200'         # both sides with group commit
 *   pnpm bench:compare --other . --socket this       # one checkout, its gateway over a Unix-domain socket against local TCP
 */
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { loadavg } from 'node:os'
import { startDatabase } from './database.js'
import { createAdmin, seedPosts } from './seed.js'
import { startGateway, type Service } from './services.js'
import { measure, type LoadOptions, type Measurement } from './load.js'
import { observe } from './observe.js'

const { values: opts } = parseArgs({
  options: {
    other: { type: 'string' },
    scenarios: { type: 'string', default: 'list-signed-in,list-signed-in-fresh,list-uncached,list-unseen,create,list,single,index,batch' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '20' },
    posts: { type: 'string', default: '1000' },
    // Settings for this checkout's gateway and the other's, NAME=VALUE,...: one checkout against itself
    // with a setting changed (`--other . --other-env CMS_RATE_LIMITS=off`: the limiter's cost).
    env: { type: 'string', default: '' },
    'other-env': { type: 'string', default: '' },
    // Server settings for the PostgreSQL both sides share: `-c commit_delay=200 -c commit_siblings=2` (group commit).
    'pg-options': { type: 'string', default: '' },
    // Which gateways reach PostgreSQL through its Unix-domain socket instead of local TCP: this, other or both.
    socket: { type: 'string', default: '' }
  }
})
const envOf = (list: string): Record<string, string> => Object.fromEntries(list.split(',').filter((p) => p.includes('=')).map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()]))
if (opts.other === undefined) {
  console.error('usage: pnpm bench:compare --other <checkout> [--scenarios ...] [--rounds N] [--duration s]')
  process.exit(2)
}
const connections = Number(opts.connections)
const fmt = (n: number | undefined): string => n === undefined ? '' : n.toFixed(0)
const both = (m: Measurement): number | undefined => m.cpuUsPerRequest === undefined || m.dbCpuUsPerRequest === undefined ? undefined : m.cpuUsPerRequest + m.dbCpuUsPerRequest
function median (xs: Array<number | undefined>): number | undefined {
  const s = xs.filter((x): x is number => x !== undefined).sort((a, b) => a - b)
  return s.length === 0 ? undefined : s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

type Scenario = (base: string, auth: string) => Omit<LoadOptions, 'duration'>
const json = (auth: string): Record<string, string> => ({ authorization: auth, 'content-type': 'application/json' })
const SCENARIOS: Record<string, Scenario> = {
  single: (base) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts/${Math.max(1, Math.floor(Number(opts.posts) / 2))}`, connections }),
  index: (base) => ({ url: `${base}/index.php?rest_route=/`, connections }),
  list: (base) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10`, connections }),
  // Signed in, the same page every time: from 2026-11-28 (issue 35) served from the caller's kept answers
  // while nothing is committed (before, validation, permission and handler ran every time).
  'list-signed-in': (base, auth) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10`, headers: { authorization: auth }, connections }),
  // Signed in with a parameter that never repeats: no kept answer matches, the page is made every time.
  'list-signed-in-fresh': (base, auth) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10&nocache=[<id>]`, headers: { authorization: auth }, idReplacement: true, connections }),
  // Anonymous with a parameter that never repeats (autocannon puts a fresh id in place of [<id>]): no kept answer ever matches.
  'list-uncached': (base) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10&nocache=[<id>]`, idReplacement: true, connections }),
  // Anonymous, a query never asked before each time (it excludes a post id that does not exist): since 2026-11-29
  // `list-uncached` finds the page its query read (the page kept by its query, not its address); this one makes it.
  'list-unseen': (base) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10`, pathOf: (n) => `/index.php?rest_route=/cms/v2/posts&per_page=10&exclude=${1_000_000_000 + n}`, connections }),
  create: (base, auth) => ({
    url: `${base}/index.php?rest_route=/cms/v2/posts`,
    method: 'POST',
    headers: json(auth),
    idReplacement: true,
    connections,
    body: JSON.stringify({ title: 'Bench post [<id>]', content: 'Created by the benchmark.', status: 'publish' })
  }),
  batch: (base, auth) => ({
    url: `${base}/index.php?rest_route=/batch/v1`,
    method: 'POST',
    headers: json(auth),
    idReplacement: true,
    connections: Math.max(1, Math.floor(connections / 4)),
    body: JSON.stringify({ requests: Array.from({ length: 25 }, (_, i) => ({ method: 'POST', path: '/cms/v2/posts', body: { title: `Batch [<id>] ${i}`, status: 'publish' } })) })
  })
}

/** Scenarios that write: their runs end once the database is quiet again (`settle`). */
const WRITES = new Set(['create', 'batch'])

/**
 * Waits until nothing has been committed for a second (the server's commit
 * horizon, `pg_current_snapshot()`, reads the same twice a second apart), at
 * most a minute: the gateways' background work on what was written is done.
 */
async function settle (): Promise<void> {
  const horizon = async (): Promise<string> => String((await db.query('select pg_current_snapshot()::text as h'))[0]?.h)
  const until = Date.now() + 60_000
  let last = await horizon()
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const now = await horizon()
    if (now === last) return
    last = now
  }
}

if (!['', 'this', 'other', 'both'].includes(opts.socket!)) throw new Error(`--socket takes this, other or both, not ${opts.socket!}`)
const overSocket = (side: 'this' | 'other'): boolean => opts.socket === side || opts.socket === 'both'
const names = opts.scenarios!.split(',')
for (const name of names) if (SCENARIOS[name] === undefined) throw new Error(`unknown scenario ${name} (${Object.keys(SCENARIOS).join(', ')})`)

interface Side { label: string, gateway: Service, auth: string }
const db = await startDatabase(undefined, { options: opts['pg-options'] })
const sides: Side[] = []
const results = new Map<string, Measurement[]>()
try {
  await db.reset()
  // Each side on its own database, migrated by its own CLI; the same posts seeded into both.
  const mine = envOf(opts.env!)
  const theirs = envOf(opts['other-env']!)
  const labelled = (label: string, env: Record<string, string>, socket: boolean): string => {
    const settings = [...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...(socket ? ['Unix socket'] : [])]
    return settings.length === 0 ? label : `${label} (${settings.join(' ')})`
  }
  for (const [label, root, url, env, socket] of [
    [labelled('this checkout', mine, overSocket('this')), undefined, db.url, mine, overSocket('this')],
    [labelled(resolve(opts.other), theirs, overSocket('other')), resolve(opts.other), await db.another(), theirs, overSocket('other')]
  ] as const) {
    const admin = await createAdmin(url, root)
    const gateway = await startGateway(socket ? db.overSocket(url) : url, [], root, env)
    sides.push({ label, gateway, auth: `Basic ${Buffer.from(`${admin.login}:${admin.password}`).toString('base64')}` })
    await seedPosts(url, Number(opts.posts), admin.id, gateway.url)
  }
  console.log(`PostgreSQL: ${await db.durability()}; ${opts.posts} posts, ${connections} connections, ${opts.duration} s a run, ${opts.rounds} rounds; load average at the start: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  // Every gateway warms up on every scenario first (JIT, caches, pool), unmeasured, so round 1 is not a cold start.
  for (const name of names) {
    for (const side of sides) await measure({ ...SCENARIOS[name]!(side.gateway.url, side.auth), duration: 2 })
  }
  await settle()
  console.log('| scenario | round | gateway | req/s | p50 ms | p99 ms | errors | CPU µs/req | PostgreSQL CPU µs/req | both µs/req | idle % |')
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (let round = 1; round <= Number(opts.rounds); round++) {
    for (const name of names) {
      const scenario = SCENARIOS[name]!
      // Each round changes who goes first: the run after another scenario's writes pays for them (vacuum, a new horizon).
      for (const side of round % 2 === 1 ? sides : [...sides].reverse()) {
        // A write's run lasts until the work it left behind is done (the lifecycle events' deliveries, the
        // audit log): that CPU is the writes', and left running it would be counted in the next run, of
        // either side (one PostgreSQL server), and renew the horizon under its kept answers.
        const m = await observe(side.gateway, db, async () => {
          const run = await measure({ ...scenario(side.gateway.url, side.auth), duration: Number(opts.duration) })
          if (WRITES.has(name)) await settle()
          return run
        })
        const key = `${name}\u0000${side.label}`
        results.set(key, [...(results.get(key) ?? []), m])
        console.log(`| ${name} | ${round} | ${side.label} | ${m.requestsPerSec.toFixed(0)} | ${m.p50} | ${m.p99} | ${m.errors} | ${fmt(m.cpuUsPerRequest)} | ${fmt(m.dbCpuUsPerRequest)} | ${fmt(both(m))} | ${fmt(m.idlePercent)} |`)
      }
    }
  }
  // Medians of the rounds, and this checkout's against the other's (a ratio below 1 in the CPU columns: this one is cheaper).
  console.log('\n| scenario | gateway | req/s | CPU µs/req | PostgreSQL CPU µs/req | both µs/req |')
  console.log('|---|---|---:|---:|---:|---:|')
  for (const name of names) {
    const medians = sides.map((side) => {
      const runs = results.get(`${name}\u0000${side.label}`) ?? []
      return {
        rate: median(runs.map((m) => m.requestsPerSec)),
        cpu: median(runs.map((m) => m.cpuUsPerRequest)),
        db: median(runs.map((m) => m.dbCpuUsPerRequest)),
        both: median(runs.map(both))
      }
    })
    sides.forEach((side, i) => {
      const m = medians[i]!
      console.log(`| ${name} | ${side.label} (median) | ${fmt(m.rate)} | ${fmt(m.cpu)} | ${fmt(m.db)} | ${fmt(m.both)} |`)
    })
    const [a, b] = medians as [typeof medians[0], typeof medians[0]]
    const ratio = (x: number | undefined, y: number | undefined): string => x === undefined || y === undefined || y === 0 ? '' : `${(x / y).toFixed(2)}x`
    console.log(`| ${name} | this / other | ${ratio(a.rate, b.rate)} | ${ratio(a.cpu, b.cpu)} | ${ratio(a.db, b.db)} | ${ratio(a.both, b.both)} |`)
  }
} finally {
  for (const side of sides) await side.gateway.stop()
  await db.stop()
}
