/**
 * The benchmark's PostgreSQL: a throwaway server started with
 * scripts/pg-test-server.sh, or a database created on a given server.
 * A started server keeps PostgreSQL's default durability (every commit
 * flushed, as a user's database does) unless `durable: false` asks for the
 * test settings (fsync, synchronous_commit and full-page writes off), whose
 * write figures no durable database gives.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { treeCpuOf } from './proc.js'

const SCRIPT = fileURLToPath(new URL('../../scripts/pg-test-server.sh', import.meta.url))

export interface Database {
  url: string
  /** Drops and recreates the database: a clean slate per data size. */
  reset (): Promise<void>
  /**
   * A further empty database on the same server (dropped by `stop`), its URL:
   * two checkouts compared side by side each migrate their own, so an older
   * checkout's migrations never meet a newer one's tables.
   */
  another (): Promise<string>
  /** CPU time of the server's processes so far, in seconds; undefined for a server the benchmark did not start. */
  cpu (): number | undefined
  /**
   * The URL of a database of this server reached through its Unix-domain
   * socket instead of local TCP (`?host=<socket directory>`): a started
   * server only, whose socket is in its own directory.
   */
  overSocket (url: string): string
  /** The server's log file (a started server only). */
  logFile?: string
  /** Runs SQL as the server's superuser, on this database. */
  query (sql: string): Promise<Array<Record<string, unknown>>>
  /** The server's durability settings as it reports them, e.g. `fsync=on, synchronous_commit=on`. */
  durability (): Promise<string>
  stop (): Promise<void>
}

async function admin (serverUrl: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try { return (await client.query(sql)).rows } finally { await client.end() }
}

/** `options`: further server options for a started server (`-c name=value ...`, e.g. to load pg_stat_statements). */
export async function startDatabase (serverUrl?: string, opts: { durable?: boolean, options?: string } = {}): Promise<Database> {
  const started = serverUrl === undefined
  // A directory of this run's own (two benchmarks at once never share a
  // server); as root the server's user must be able to reach it.
  const parent = started ? mkdtempSync(join(tmpdir(), 'cms-bench-pg-')) : ''
  if (started) chmodSync(parent, 0o755)
  const dir = join(parent, 'server')
  const env = { ...process.env, PG_TEST_DIR: dir, PG_TEST_OPTIONS: opts.options ?? '' }
  const server = serverUrl ?? execFileSync('bash', [SCRIPT, 'start', ...(opts.durable === false ? [] : ['--durable'])], { env, encoding: 'utf8' }).trim()
  const name = `cms_bench_${randomBytes(4).toString('hex')}`
  const url = new URL(server)
  url.pathname = `/${name}`
  // The postmaster's pid is the first line of its pid file.
  const postmaster = started ? Number(readFileSync(`${dir}/data/postmaster.pid`, 'utf8').split('\n')[0]) : undefined
  const others: string[] = []
  return {
    url: url.toString(),
    async reset () {
      await admin(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await admin(server, `CREATE DATABASE "${name}"`)
    },
    async another () {
      const other = `${name}_${others.length + 1}`
      await admin(server, `DROP DATABASE IF EXISTS "${other}" WITH (FORCE)`)
      await admin(server, `CREATE DATABASE "${other}"`)
      others.push(other)
      const u = new URL(server)
      u.pathname = `/${other}`
      return u.toString()
    },
    overSocket (u: string) {
      if (!started) throw new Error('a Unix-domain socket is known only for a server the benchmark started (give a ?host=/socket/dir URL with --database-url instead)')
      const socketUrl = new URL(u)
      socketUrl.hostname = 'localhost'
      socketUrl.searchParams.set('host', dir)
      return socketUrl.toString()
    },
    logFile: started ? join(dir, 'server.log') : undefined,
    query: async (sql) => await admin(url.toString(), sql),
    cpu: () => postmaster === undefined ? undefined : treeCpuOf(postmaster),
    async durability () {
      const rows = await admin(server, "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit') ORDER BY name")
      return rows.map((r) => `${String(r.name)}=${String(r.setting)}`).join(', ')
    },
    async stop () {
      for (const n of [name, ...others]) await admin(server, `DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`).catch(() => {})
      if (started) {
        execFileSync('bash', [SCRIPT, 'stop'], { env })
        rmSync(parent, { recursive: true, force: true })
      }
    }
  }
}
