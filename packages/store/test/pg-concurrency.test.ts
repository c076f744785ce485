// PostgreSQL only: processes that start at once migrate once (advisory lock).
// Without CMS_TEST_DATABASE_URL (the PGlite pass) the test starts its own
// throwaway server, so it runs, and can fail, in every pass.
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { migrate, openStore } from '../src/index.js'
import { createTestDatabase, testDatabaseUrl } from '../src/testing.js'

const script = fileURLToPath(new URL('../../../scripts/pg-test-server.sh', import.meta.url))

t.test('concurrent migrate on PostgreSQL', async (t) => {
  if (!testDatabaseUrl()) {
    // A directory of this run's own: two runs at once never share a server. As
    // root the server runs as another user, who must reach its directory.
    const ownDir = mkdtempSync(join(tmpdir(), 'cms-pg-concurrency-'))
    chmodSync(ownDir, 0o755)
    const ownServerEnv = { ...process.env, PG_TEST_DIR: join(ownDir, 'server') }
    process.env.CMS_TEST_DATABASE_URL = execFileSync('bash', [script, 'start'], { env: ownServerEnv, encoding: 'utf8' }).trim()
    t.teardown(() => {
      delete process.env.CMS_TEST_DATABASE_URL
      execFileSync('bash', [script, 'stop'], { env: ownServerEnv })
      rmSync(ownDir, { recursive: true, force: true })
    })
  }
  const database = await createTestDatabase()
  const url = new URL(database.url)

  // Several stores (pools) in this process...
  const stores = await Promise.all([1, 2, 3, 4].map(() => openStore({ databaseUrl: url.toString(), poolSize: 1 })))
  t.teardown(async () => {
    await Promise.all(stores.map((s) => s.close()))
    await database.drop()
  })
  // ...and two separate processes, all at once.
  const fixture = fileURLToPath(new URL('./fixtures/migrate-once.ts', import.meta.url))
  const child = () =>
    new Promise<number>((resolve, reject) => {
      const p = spawn(process.execPath, [...process.execArgv, fixture, url.toString()], { stdio: 'inherit' })
      p.on('error', reject)
      p.on('exit', (code) => resolve(code ?? 1))
    })
  const [codes] = await Promise.all([Promise.all([child(), child()]), ...stores.map((s) => migrate(s))])
  t.same(codes, [0, 0], 'child processes migrated')

  const rows = await stores[0]!.execute<{ hash: string; n: number }>(
    sql`select hash, count(*)::int as n from drizzle.__migrations_cms_store group by hash`
  )
  t.ok(rows.length >= 1)
  t.ok(rows.every((r) => r.n === 1), 'each migration recorded once')
  t.equal(await stores[0]!.ping(), true)
})
