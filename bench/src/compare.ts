/**
 * Two versions of the gateway side by side: this checkout and another one
 * (say a worktree of the previous commit), on one database, with their runs
 * interleaved so both see the same machine. For each scenario it prints
 * req/s, latency and the gateway's CPU time per request, the figure that
 * stays steady when the machine is shared.
 *
 *   git worktree add /tmp/before HEAD~1 && (cd /tmp/before && pnpm install --offline)
 *   pnpm bench:compare --other /tmp/before [--scenarios single,index,list,list-signed-in,create,batch] [--rounds 2] [--duration 4]
 */
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { startDatabase } from './database.js'
import { createAdmin, seedPosts } from './seed.js'
import { startGateway, type Service } from './services.js'
import { measure, type LoadOptions } from './load.js'
import { observe } from './observe.js'

const { values: opts } = parseArgs({
  options: {
    other: { type: 'string' },
    scenarios: { type: 'string', default: 'single,index,list,create,batch' },
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '20' },
    posts: { type: 'string', default: '1000' }
  }
})
if (opts.other === undefined) {
  console.error('usage: pnpm bench:compare --other <checkout> [--scenarios ...] [--rounds N] [--duration s]')
  process.exit(2)
}
const connections = Number(opts.connections)

type Scenario = (base: string, auth: string) => Omit<LoadOptions, 'duration'>
const json = (auth: string): Record<string, string> => ({ authorization: auth, 'content-type': 'application/json' })
const SCENARIOS: Record<string, Scenario> = {
  single: (base) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts/${Math.max(1, Math.floor(Number(opts.posts) / 2))}`, connections }),
  index: (base) => ({ url: `${base}/index.php?rest_route=/`, connections }),
  list: (base) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10`, connections }),
  // Signed in: never answered from the anonymous cache, so validation, permission and handler run every time.
  'list-signed-in': (base, auth) => ({ url: `${base}/index.php?rest_route=/cms/v2/posts&per_page=10`, headers: { authorization: auth }, connections }),
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

const db = await startDatabase()
const gateways: Array<[string, Service]> = []
try {
  await db.reset()
  const admin = await createAdmin(db.url)
  const auth = `Basic ${Buffer.from(`${admin.login}:${admin.password}`).toString('base64')}`
  gateways.push(['this checkout', await startGateway(db.url)])
  gateways.push([resolve(opts.other), await startGateway(db.url, [], resolve(opts.other))])
  await seedPosts(db.url, Number(opts.posts), admin.id, gateways[0]![1].url)
  // Every gateway warms up on every scenario first (JIT, caches, pool), unmeasured, so round 1 is not a cold start.
  for (const name of opts.scenarios!.split(',')) {
    const scenario = SCENARIOS[name]
    if (scenario === undefined) throw new Error(`unknown scenario ${name} (${Object.keys(SCENARIOS).join(', ')})`)
    for (const [, gateway] of gateways) await measure({ ...scenario(gateway.url, auth), duration: 2 })
  }
  console.log('| scenario | round | gateway | req/s | p50 ms | p99 ms | errors | CPU µs/req | PostgreSQL CPU µs/req |')
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|')
  for (let round = 1; round <= Number(opts.rounds); round++) {
    for (const name of opts.scenarios!.split(',')) {
      const scenario = SCENARIOS[name]!
      // Each round changes who goes first: the run after another scenario's writes pays for them (vacuum, a new horizon).
      for (const [label, gateway] of round % 2 === 1 ? gateways : [...gateways].reverse()) {
        const m = await observe(gateway, db, async () => await measure({ ...scenario(gateway.url, auth), duration: Number(opts.duration) }))
        console.log(`| ${name} | ${round} | ${label} | ${m.requestsPerSec.toFixed(0)} | ${m.p50} | ${m.p99} | ${m.errors} | ${m.cpuUsPerRequest?.toFixed(0) ?? ''} | ${m.dbCpuUsPerRequest?.toFixed(0) ?? ''} |`)
      }
    }
  }
} finally {
  for (const [, gateway] of gateways) await gateway.stop()
  await db.stop()
}
