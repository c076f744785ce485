/**
 * The benchmark's PostgreSQL: a throwaway server started with
 * scripts/pg-test-server.sh, or a database created on a given server.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

const SCRIPT = fileURLToPath(new URL('../../scripts/pg-test-server.sh', import.meta.url))

export interface Database {
  url: string
  /** Drops and recreates the database: a clean slate per data size. */
  reset (): Promise<void>
  stop (): Promise<void>
}

async function admin (serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try { await client.query(sql) } finally { await client.end() }
}

export async function startDatabase (serverUrl?: string): Promise<Database> {
  const env = { ...process.env, PG_TEST_DIR: `${process.env.TMPDIR ?? '/tmp'}/cms-bench-pg` }
  const started = serverUrl === undefined
  const server = serverUrl ?? execFileSync('bash', [SCRIPT, 'start'], { env, encoding: 'utf8' }).trim()
  const name = `cms_bench_${randomBytes(4).toString('hex')}`
  const url = new URL(server)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async reset () {
      await admin(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await admin(server, `CREATE DATABASE "${name}"`)
    },
    async stop () {
      await admin(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {})
      if (started) execFileSync('bash', [SCRIPT, 'stop'], { env })
    }
  }
}
