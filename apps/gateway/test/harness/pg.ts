/**
 * A PostgreSQL server of the test's own, on its own temporary directory and
 * port (never the shared server at CMS_TEST_DATABASE_URL), that the test can
 * stop and start again. Made with scripts/pg-test-server.sh; stopped and
 * restarted with pg_ctl, as the user the script runs the server as.
 */
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const SCRIPT = fileURLToPath(new URL('../../../../scripts/pg-test-server.sh', import.meta.url))

/** The directory of `name` (initdb, pg_ctl): on PATH or under /usr/lib/postgresql; undefined when missing. */
export function findPgBinary (name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, name))) return join(dir, name)
  }
  try {
    for (const version of readdirSync('/usr/lib/postgresql').sort().reverse()) {
      const candidate = join('/usr/lib/postgresql', version, 'bin', name)
      if (existsSync(candidate)) return candidate
    }
  } catch {}
  return undefined
}

export interface PgServer {
  url: string
  port: number
  stop: () => Promise<void>
  start: () => Promise<void>
  /** Stops the server and deletes its files. */
  destroy: () => Promise<void>
}

export async function startPgServer (): Promise<PgServer> {
  const pgCtl = findPgBinary('pg_ctl')
  if (pgCtl === undefined || findPgBinary('initdb') === undefined) {
    throw new Error('PostgreSQL server binaries (initdb, pg_ctl) are not installed: the fault test needs them (as in CI)')
  }
  const dir = mkdtempSync(join(tmpdir(), 'cms-fault-pg-'))
  // The server may run as another user (as root: an unprivileged one), who must reach its directory.
  chmodSync(dir, 0o755)
  const env = { ...process.env, PG_TEST_DIR: join(dir, 'server') }
  const { stdout } = await run('bash', [SCRIPT, 'start'], { env, timeout: 120_000 })
  const url = stdout.trim().split('\n').pop()!
  const port = Number(readFileSync(join(dir, 'server', 'port'), 'utf8').trim())
  const data = join(dir, 'server', 'data')
  // As root the script runs the server as an unprivileged user: the data directory's owner.
  const owner = process.getuid?.() === 0 ? (await run('stat', ['-c', '%U', data])).stdout.trim() : undefined
  const asServerUser = (args: string[]): [string, string[]] =>
    owner !== undefined ? ['runuser', ['-u', owner, '--', pgCtl, ...args]] : [pgCtl, args]
  const ctl = async (args: string[]): Promise<void> => {
    const [cmd, argv] = asServerUser(args)
    await run(cmd, argv, { timeout: 60_000 })
  }
  const options = `-p ${port} -k ${join(dir, 'server')} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`
  return {
    url,
    port,
    stop: async () => { await ctl(['-D', data, '-m', 'fast', '-w', 'stop']) },
    start: async () => { await ctl(['-D', data, '-l', join(dir, 'server', 'server.log'), '-w', '-t', '60', '-o', options, 'start']) },
    destroy: async () => {
      await run('bash', [SCRIPT, 'stop'], { env, timeout: 60_000 }).catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
