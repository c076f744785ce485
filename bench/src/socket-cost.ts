/**
 * What the connection to PostgreSQL costs per statement: local TCP against
 * the server's Unix-domain socket, in one process, rounds interleaved. Ten
 * connections (the service's pool) run, at once, the statements of a
 * signed-in page as the service sends them: the horizon's small named
 * statement, then a named statement with three parameters answering 10 rows
 * of about 2 KB (the page's size, 19 KB). Prints the CPU per page of this
 * process (the driver: writes, reads, parsing) and of the ten backends
 * (read from /proc), per transport, and their ratio. Rows and statements are
 * synthetic (a table of 1,000 rows made here): the transport is what differs.
 *
 *   npx tsx bench/src/socket-cost.ts [--pages 4000] [--rounds 5] [--small] [--database-url <url> --socket-dir <dir>]
 *
 * Without --database-url it starts a throwaway server (scripts/pg-test-server.sh).
 */
import { parseArgs } from 'node:util'
import { loadavg } from 'node:os'
import pg from 'pg'
import { startDatabase } from './database.js'
import { cpuOf } from './proc.js'
import { median } from './median.js'

const { values: opts } = parseArgs({
  options: {
    pages: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    'database-url': { type: 'string' },
    'socket-dir': { type: 'string' },
    // Only the small statement (what a transport costs alone, without the page's rows).
    small: { type: 'boolean', default: false }
  }
})
const pages = Number(opts.pages)
const connections = Number(opts.connections)

const db = opts['database-url'] === undefined ? await startDatabase() : undefined
const tcpUrl = db?.url ?? opts['database-url']!
const socketUrl = db?.overSocket(tcpUrl) ?? (() => {
  const u = new URL(tcpUrl)
  if (opts['socket-dir'] === undefined) throw new Error('--socket-dir: the server\'s socket directory (unix_socket_directories)')
  u.searchParams.set('host', opts['socket-dir'])
  return u.toString()
})()

interface Side { name: string, clients: pg.Client[], backends: number[], cpu: number[], sys: number[], dbCpu: number[] }

async function side (name: string, url: string): Promise<Side> {
  const clients = await Promise.all(Array.from({ length: connections }, async () => {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    return c
  }))
  const backends = await Promise.all(clients.map(async (c) => Number((await c.query('select pg_backend_pid() as p')).rows[0].p)))
  return { name, clients, backends, cpu: [], sys: [], dbCpu: [] }
}

const PAGE = { name: 'socket_cost_page', text: 'select id, title, content, status, modified from socket_cost where status = $1 and id > $2 order by id desc limit $3' }
const HORIZON = { name: 'socket_cost_horizon', text: 'select pg_current_snapshot()::text as h' }

async function run (s: Side): Promise<void> {
  const cpu0 = process.cpuUsage()
  const db0 = s.backends.reduce((sum, p) => sum + cpuOf(p), 0)
  let left = pages
  await Promise.all(s.clients.map(async (c) => {
    while (left-- > 0) {
      await c.query({ ...HORIZON, values: [] })
      if (opts.small !== true) await c.query({ ...PAGE, values: ['publish', 0, 10] })
    }
  }))
  const cpu = process.cpuUsage(cpu0)
  s.cpu.push((cpu.user + cpu.system) / pages)
  s.sys.push(cpu.system / pages)
  s.dbCpu.push(1e6 * (s.backends.reduce((sum, p) => sum + cpuOf(p), 0) - db0) / pages)
}

try {
  await db?.reset()
  const setup = new pg.Client({ connectionString: tcpUrl })
  await setup.connect()
  await setup.query(`drop table if exists socket_cost;
    create table socket_cost as select g as id, 'Post ' || g as title, repeat('<p>Some words of content. </p>', 70) as content, 'publish' as status, now() as modified
    from generate_series(1, 1000) g;
    alter table socket_cost add primary key (id); analyze socket_cost`)
  await setup.end()
  const sides = [await side('local TCP', tcpUrl), await side('Unix socket', socketUrl)]
  for (const s of sides) await run(s) // warm-up: JIT, plans
  for (const s of sides) { s.cpu.length = 0; s.sys.length = 0; s.dbCpu.length = 0 }
  const load = loadavg()[0]!
  for (let round = 0; round < Number(opts.rounds); round++) for (const s of round % 2 === 0 ? sides : [...sides].reverse()) await run(s)
  console.log(`${pages} pages (${opts.small === true ? 'the small statement alone' : '2 statements each, 10 rows of ~2 KB'}) on ${connections} connections, ${opts.rounds} interleaved rounds, medians; load average ${load.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}`)
  console.log('| transport | client CPU µs/page | of which system | backends CPU µs/page | both µs/page |\n|---|---:|---:|---:|---:|')
  for (const s of sides) console.log(`| ${s.name} | ${median(s.cpu).toFixed(0)} | ${median(s.sys).toFixed(0)} | ${median(s.dbCpu).toFixed(0)} | ${(median(s.cpu) + median(s.dbCpu)).toFixed(0)} |`)
  const [a, b] = sides as [Side, Side]
  const ratio = (x: number, y: number): string => `${(x / y).toFixed(2)}x`
  console.log(`| Unix / TCP | ${ratio(median(b.cpu), median(a.cpu))} | ${ratio(median(b.sys), median(a.sys))} | ${ratio(median(b.dbCpu), median(a.dbCpu))} | ${ratio(median(b.cpu) + median(b.dbCpu), median(a.cpu) + median(a.dbCpu))} |`)
  for (const s of sides) await Promise.all(s.clients.map(async (c) => await c.end()))
} finally {
  await db?.stop()
}
