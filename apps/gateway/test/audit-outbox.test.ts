/**
 * The audit log's durability (core audit/outbox.ts): a write's entry
 * commits with the write. A gateway killed with SIGKILL right after
 * answering a create (its flush an hour away) leaves the entry, recorded by
 * the next process as `unanswered`; the rows of committed writes are in the
 * outbox before any flush, and none for a refused write; a locked audit_log
 * neither blocks nor fails a write (PostgreSQL: another session holds the
 * lock); two gateways on one database record each row once; the outbox is
 * append-only; no entry or row holds a password.
 */
import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'
import { dbOf, openStore, sharedDatabaseUrl, type Store } from '@cms/store'
import { childArgs, createTestDatabase, freePort, testDatabaseUrl } from '@cms/store/testing'
import { gatewayApp, type GatewayApp } from './helpers.js'

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url))

/**
 * The gateway's own start (src/main.ts) in a child process, ready once /readyz answers: run as this test
 * runs (tsx, or under the test command the compiled gateway: `childArgs`).
 */
async function startGateway (env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, childArgs(MAIN), { env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (d) => { stderr += String(d) })
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`the gateway exited: ${stderr}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return child
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  child.kill('SIGKILL')
  throw new Error(`the gateway did not become ready: ${stderr}`)
}

async function killed (child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

t.test('a gateway killed right after answering a create leaves its entry', async (t) => {
  const pgServer = testDatabaseUrl()
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-audit-outbox-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const database = pgServer === undefined ? undefined : await createTestDatabase()
  t.teardown(async () => { await database?.drop() })
  const port = await freePort()
  // The flush an hour away: only what the write committed can keep its entry.
  const env = { CMS_DATA_DIR: dataDir, CMS_BASE_URL: `http://127.0.0.1:${port}`, CMS_AUDIT_FLUSH_MS: '3600000', CMS_AUDIT_ORPHAN_MS: '1000', CMS_RATE_LIMITS: 'off', ...(database === undefined ? {} : { DATABASE_URL: database.url }) }
  let child = await startGateway(env, port)
  t.teardown(() => { child.kill('SIGKILL') })
  // The embedded database is reached through the gateway's socket while it runs.
  const store = await openStore({ databaseUrl: database?.url ?? sharedDatabaseUrl(dataDir), poolSize: 1 })
  const admin = await createCaller(store, 'administrator')
  await store.close()

  const res = await fetch(`http://127.0.0.1:${port}/cms-json/cms/v2/posts`, { method: 'POST', headers: { ...admin.headers, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Answered, then killed', status: 'publish' }) })
  t.equal(res.status, 201)
  const id = String((await res.json() as { id: number }).id)
  await killed(child)

  child = await startGateway(env, port)
  let entries: Array<Record<string, unknown>> = []
  for (let i = 0; i < 240 && entries.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    const log = await fetch(`http://127.0.0.1:${port}/cms-json/cms/v2/audit-log?object_type=post&object_id=${id}`, { headers: admin.headers })
    entries = await log.json() as typeof entries
  }
  t.equal(entries.length, 1, 'the create is in the log once, moved in by the new process')
  t.match(entries[0], { method: 'POST', route: '/cms/v2/posts', object_id: id, status: 200, error_code: 'unanswered', user: admin.id, credential: 'app-password', values: { status: 'publish' } })
  t.same([...(entries[0]!.fields as string[])].sort(), ['status', 'title'])
  await killed(child)
})

/** Rows waiting in the outbox, with their entries. */
async function outbox (store: Store): Promise<Array<{ key: string, entry: Record<string, unknown> }>> {
  return await store.execute('select key::text, entry from audit_outbox order by at, key')
}

t.test('committed writes have their row before any flush; the flush replaces it', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', CMS_AUDIT_FLUSH_MS: '3600000' } })
  t.teardown(h.close)
  const audit = (h.app as unknown as { platform: { services: { audit: { flush: () => Promise<void>, moveOrphans: (ms?: number) => Promise<number> } } } }).platform.services.audit
  const admin = await createCaller(h.store, 'administrator')
  const author = await createCaller(h.store, 'author')
  const created = await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Kept', status: 'publish' } })
  t.equal(created.status, 201)
  const patched = await call(h.app, 'PATCH', `/cms/v2/posts/${created.body.id}`, { as: admin, body: { status: 'draft' } })
  t.equal(patched.status, 200)
  const user = await call(h.app, 'POST', '/cms/v2/users', { as: admin, body: { username: 'outboxed', email: 'o@example.com', password: 'Sup3r-secret-pw!' } })
  t.equal(user.status, 201)
  const favorite = await call(h.app, 'POST', '/builder/v1/favorites/widgets', { as: admin, body: { favorite: 'heading' } })
  t.equal(favorite.status, 200)
  const refused = await call(h.app, 'DELETE', `/cms/v2/users/${admin.id}`, { as: author, query: { force: true, reassign: 1 } })
  t.equal(refused.status, 403)

  const rows = await outbox(h.store)
  t.same(rows.map((r) => [r.entry.method, r.entry.route, r.entry.object_id, r.entry.status, r.entry.error_code]), [
    ['POST', '/cms/v2/posts', String(created.body.id), 200, 'unanswered'],
    ['PATCH', '/cms/v2/posts/(?P<id>[\\d]+)', String(created.body.id), 200, 'unanswered'],
    ['POST', '/cms/v2/users', null, 200, 'unanswered'],
    ['POST', '/builder/v1/favorites/(?P<id>[\\w]+)', 'widgets', 200, 'unanswered']
  ], 'a row per committed write (a core create, an update, a user, a package route), none for the refused one')
  t.notMatch(JSON.stringify(rows), /Sup3r-secret-pw/, 'no password in a row')
  const empty = await h.store.execute<{ n: number }>('select count(*)::int as n from audit_log')
  t.equal(empty[0]!.n, 0, 'nothing in the log before the flush')

  await audit.flush()
  t.same(await outbox(h.store), [], 'the flush replaced every row')
  const log = await h.store.execute<{ route: string, status: number, error_code: string | null, fields: string[], values: unknown }>('select route, status, error_code, fields, "values" from audit_log order by id')
  t.same(log.map((e) => [e.route, e.status, e.error_code]), [
    ['/cms/v2/posts', 201, null],
    ['/cms/v2/posts/(?P<id>[\\d]+)', 200, null],
    ['/cms/v2/users', 201, null],
    ['/builder/v1/favorites/(?P<id>[\\w]+)', 200, null],
    ['/cms/v2/users/(?P<id>[\\d]+)', 403, 'rest_user_cannot_delete']
  ], 'each write once, with its answer')
  t.notMatch(JSON.stringify(log), /Sup3r-secret-pw/, 'no password in an entry')
  t.equal(await audit.moveOrphans(0), 0, 'nothing left to move')

  // Append-only: a row never changes, and leaves only by a move.
  await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Another' } })
  for (const statement of ['update audit_outbox set entry = \'{}\'', 'delete from audit_outbox', 'truncate audit_outbox']) {
    // drizzle wraps the driver's error: the trigger's message is its cause's.
    const refused = await h.store.execute(statement).then(() => undefined, (err: { cause?: { message?: string } }) => err.cause?.message)
    t.match(refused, /audit_outbox is append-only/, `${statement.split(' ')[0]} refused`)
  }
  t.equal((await outbox(h.store)).length, 1)
})

/** Two gateways on one database: on PostgreSQL two stores (two pools), on PGlite the one store it allows. */
async function twoGateways (t: Test): Promise<[GatewayApp, GatewayApp]> {
  const env = { CMS_DEPLOYMENT: 'A', CMS_AUDIT_FLUSH_MS: '3600000' }
  if (testDatabaseUrl() === undefined) {
    const a = await gatewayApp({ env })
    t.teardown(a.close)
    const b = await gatewayApp({ env, store: a.store })
    t.teardown(b.close)
    return [a, b]
  }
  const database = await createTestDatabase()
  t.teardown(async () => { await database.drop() })
  const stores = [await openStore({ databaseUrl: database.url }), await openStore({ databaseUrl: database.url })]
  const a = await gatewayApp({ env, store: stores[0] })
  const b = await gatewayApp({ env, store: stores[1] })
  t.teardown(async () => {
    await a.close()
    await b.close()
    for (const s of stores) await s.close()
  })
  return [a, b]
}

t.test('two gateways on one database record each row once', async (t) => {
  const [a, b] = await twoGateways(t)
  type Audit = { flush: () => Promise<void>, moveOrphans: (ms?: number) => Promise<number> }
  const auditOf = (h: GatewayApp): Audit => (h.app as unknown as { platform: { services: { audit: Audit } } }).platform.services.audit
  const admin = await createCaller(a.store, 'administrator')
  const ids: string[] = []
  for (let i = 0; i < 30; i++) {
    const h = i % 2 === 0 ? a : b
    const res = await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: `Twice ${i}` } })
    ids.push(String(res.body.id))
  }
  t.equal((await outbox(a.store)).length, 30)
  // Both answer their own writes while each also moves every row as orphaned, all at once.
  await Promise.all([auditOf(a).flush(), auditOf(b).flush(), auditOf(a).moveOrphans(0), auditOf(b).moveOrphans(0)])
  const counted = await a.store.execute<{ object_id: string, n: number }>('select object_id, count(*)::int as n from audit_log group by object_id order by object_id')
  t.same(counted.map((r) => r.object_id).sort(), [...ids].sort(), 'every write recorded')
  t.ok(counted.every((r) => r.n === 1), 'each once')
  t.same(await outbox(a.store), [])
})

// Another session holding audit_log's strongest lock: PostgreSQL only (PGlite has one session).
const pgServer = testDatabaseUrl()
if (pgServer !== undefined) {
  t.test('a locked audit log neither blocks nor fails a write', async (t) => {
    const database = await createTestDatabase()
    t.teardown(async () => { await database.drop() })
    const store = await openStore({ databaseUrl: database.url })
    const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', CMS_AUDIT_FLUSH_MS: '10' }, store })
    t.teardown(async () => { await h.close(); await store.close() })
    const admin = await createCaller(h.store, 'administrator')
    // Another session (a store of its own) holds the lock in a transaction while the writes run.
    const locker = await openStore({ databaseUrl: database.url, poolSize: 1 })
    t.teardown(async () => { await locker.close() })
    await locker.transaction(async (tx) => {
      await dbOf(tx).execute('lock table audit_log in access exclusive mode')
      // While the lock is held: written and answered (were they waiting on it, this would never end).
      const res = await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Under a lock' } })
      t.equal(res.status, 201)
      const again = await call(h.app, 'PATCH', `/cms/v2/posts/${res.body.id}`, { as: admin, body: { title: 'Still under it' } })
      t.equal(again.status, 200)
      const rows = await outbox(h.store)
      t.equal(rows.length, 2, 'both entries committed with their writes')
      // Rolled back: the lock goes.
      tx.rollback()
    }).catch((err: Error) => { if (!/rollback/i.test(err.message)) throw err })
    const audit = (h.app as unknown as { platform: { services: { audit: { flush: () => Promise<void> } } } }).platform.services.audit
    await audit.flush()
    const log = await h.store.execute<{ status: number }>('select status from audit_log order by id')
    t.same(log.map((e) => e.status), [201, 200], 'recorded with their answers once the lock is gone')
  })
}
