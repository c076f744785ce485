/**
 * The service started as a user starts it, on an embedded database (the
 * CLI beside it: beside-service.test.ts; the migrated template:
 * pglite-template*.test.ts), and what its database holds, read through its
 * socket.
 */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { migrationsTableOf, openStore, sharedDatabaseAnswers, sharedDatabaseUrl } from '@cms/store'
import { childArgs, freePort } from '@cms/store/testing'

const MAIN = fileURLToPath(new URL('../../gateway/src/main.ts', import.meta.url))

/** A running service: its address, the data directory of its embedded database, what it logged. */
export interface Running { base: string, dataDir: string, log: () => string, exitCode: () => number | null }

/**
 * The service on the embedded database in `dataDir`, with `env` added, run
 * as this test runs (tsx, or under the test command the compiled service:
 * `childArgs`), once it answers and shares its database (the socket is
 * opened once it listens); stopped after `t`.
 */
export async function startService (t: Test, dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const service = spawn(process.execPath, childArgs(MAIN), {
    env: { ...process.env, DATABASE_URL: '', CMS_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', CMS_BASE_URL: base, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let log = ''
  service.stdout.setEncoding('utf8').on('data', (d: string) => { log += d })
  service.stderr.setEncoding('utf8').on('data', (d: string) => { log += d })
  t.teardown(async () => {
    if (service.exitCode === null) {
      const exited = new Promise((resolve) => service.once('exit', resolve))
      service.kill('SIGTERM')
      await exited
    }
  })
  for (;;) {
    if (service.exitCode !== null) throw new Error(`the service stopped: ${log}`)
    const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false)
    if (ready && await sharedDatabaseAnswers(dataDir)) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return { base, dataDir, log: () => log, exitCode: () => service.exitCode }
}

export interface Started extends Running { appPassword: string }

/** The service on a fresh data directory with `templates`, its first administrator made from CMS_ADMIN_*; stopped after `t`. */
export async function start (t: Test, root: string, name: string, templates: string): Promise<Started> {
  writeFileSync(join(root, `${name}-password`), 'first admin password\n')
  const running = await startService(t, join(root, name), {
    CMS_PGLITE_TEMPLATES: templates,
    CMS_ADMIN_LOGIN: 'admin',
    CMS_ADMIN_EMAIL: 'admin@example.com',
    CMS_ADMIN_PASSWORD_FILE: join(root, `${name}-password`),
    CMS_ADMIN_APP_PASSWORD_FILE: join(root, `${name}-app-password`)
  })
  return { ...running, appPassword: readFileSync(join(root, `${name}-app-password`), 'utf8').trim() }
}

/** What the service's database holds: its site key, its users, each migration set's applied count (through its socket). */
export async function inside (dataDir: string, sets: readonly string[]): Promise<{ siteKeys: string[], users: number, applied: Record<string, number> }> {
  const store = await openStore({ databaseUrl: sharedDatabaseUrl(dataDir), poolSize: 1 })
  try {
    const siteKeys = (await store.execute<{ value: string }>('select value from site_keys')).map((r) => r.value)
    const users = (await store.execute<{ n: number }>('select count(*)::int as n from users'))[0]!.n
    const applied: Record<string, number> = {}
    for (const set of sets) applied[set] = (await store.execute<{ n: number }>(`select count(*)::int as n from drizzle."${migrationsTableOf(set)}"`))[0]!.n
    return { siteKeys, users, applied }
  } finally {
    await store.close()
  }
}

export const me = async (s: Started, password: string): Promise<number> =>
  (await fetch(`${s.base}/index.php?rest_route=/cms/v2/users/me`, { headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` } })).status
