/**
 * PostgreSQL stops and comes back while clients write. During the outage
 * the service answers 503 in the error shape (no hang, no crash) and
 * /readyz says 503; it recovers by itself once the database is back
 * (within 5 s on an idle machine: the time is printed, not asserted, as a
 * loaded machine can stretch it), and no acknowledged write is lost. The test runs its own server
 * (initdb + pg_ctl on a temporary directory and port); without the
 * PostgreSQL binaries it fails, it never skips.
 */
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { migrate, openStore, type Store } from '@cms/store'
import { coreMigrations } from '@cms/core'
import { gatewayApp, listenLoopback } from './helpers.js'
import { createCaller } from '@cms/core/testing'
import { targetsOf } from './harness/routes.js'
import { formatReport, pickResource, runLoad, verifyLoad } from './harness/load.js'
import { startPgServer, type PgServer } from './harness/pg.js'
import { send } from './harness/requests.js'
import { checkResponse, codeOf } from './harness/check.js'

const OUTAGE_MS = 3000
// Only a true hang exceeds these (the file's tap timeout is 8 minutes): a loaded machine is slow, not stuck.
const HANG_MS = 60_000
const RECOVERY_WAIT_MS = 120_000

t.test('database outage under load', async (t) => {
  let pg: PgServer
  try {
    pg = await startPgServer()
  } catch (err) {
    t.fail(`could not start a PostgreSQL server of the test's own: ${(err as Error).message}`)
    return
  }
  // One teardown, in dependency order: the app, then its store, then the server.
  const closers: Array<() => Promise<void>> = [pg.destroy]
  t.teardown(async () => {
    for (const close of closers.reverse()) {
      try { await close() } catch (err) { t.comment(`teardown: ${(err as Error).message}`) }
    }
  })
  const store: Store = await openStore({ databaseUrl: pg.url, poolSize: 10, connectionTimeoutMillis: 2000, onPoolError: () => {} })
  closers.push(async () => { await store.close() })
  await migrate(store, [coreMigrations])
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' }, store })
  closers.push(h.close)
  const base = await listenLoopback(h.app)
  const resource = pickResource(targetsOf(h.app))
  const callers = await Promise.all(Array.from({ length: 8 }, async () => await createCaller(store, 'administrator')))
  const admin = callers[0]!.headers

  const stop = { stop: false }
  const load = runLoad({ base, resource, clients: callers.length, durationMs: 30_000, headers: (i) => callers[i]!.headers, tolerated: [503], timeoutMs: HANG_MS, stopSignal: stop })
  await sleep(1500)

  await pg.stop()
  const down = Date.now()
  await sleep(300)
  for (const req of [
    { method: 'GET', url: `/cms-json${resource.collection}?context=edit`, headers: admin },
    { method: 'POST', url: `/cms-json${resource.collection}`, headers: { ...admin, 'content-type': 'application/json' }, payload: JSON.stringify(resource.create(`outage${Date.now()}`, 'v-outage')) },
    { method: 'GET', url: '/index.php?rest_route=/', headers: admin }
  ]) {
    const res = await send(base, req, HANG_MS)
    t.equal(res.status, 503, `${req.method} ${req.url} during the outage: 503`)
    t.equal(codeOf(res), 'rest_service_unavailable', 'with rest_service_unavailable')
    t.ok(checkResponse(res, { allow: [503] }).ok, 'in the error shape')
  }
  const notReady = await send(base, { method: 'GET', url: '/readyz', headers: {} }, HANG_MS)
  t.equal(notReady.status, 503, '/readyz is 503 during the outage')
  const alive = await send(base, { method: 'GET', url: '/healthz', headers: {} }, HANG_MS)
  t.equal(alive.status, 200, '/healthz still answers (the process is up)')
  await sleep(Math.max(0, OUTAGE_MS - (Date.now() - down)))

  await pg.start()
  const back = Date.now()
  let recovered = -1
  while (Date.now() - back < RECOVERY_WAIT_MS) {
    const ready = await send(base, { method: 'GET', url: '/readyz', headers: {} }, HANG_MS).catch(() => undefined)
    const rest = await send(base, { method: 'GET', url: `/cms-json${resource.collection}?context=edit`, headers: admin }, HANG_MS).catch(() => undefined)
    if (ready?.status === 200 && rest?.status === 200) { recovered = Date.now() - back; break }
    await sleep(100)
  }
  t.ok(recovered >= 0, `recovered by itself, ${recovered} ms after the database came back (about 5 s is usual on an idle machine)`)

  await sleep(1500)
  stop.stop = true
  const report = await load
  t.comment(formatReport(report))
  for (const e of report.errorSamples) t.comment(`error: ${e}`)
  t.ok((report.byStatus['503'] ?? 0) > 0, 'the clients saw 503s during the outage')
  t.equal(report.errors, 0, 'no answer other than success or 503, and every one well formed')
  t.equal(report.hangs, 0, 'no request hung')
  t.ok(report.acknowledged.creates > 0, 'writes were acknowledged')
  const problems = await verifyLoad(base, admin, report, resource)
  for (const p of problems.slice(0, 20)) t.comment(p)
  t.same(problems, [], 'no acknowledged write was lost, nothing unacknowledged appeared')
  // A connection the outage broke mid-checkout must have gone back to the pool.
  await h.close()
  const closed = await Promise.race([store.close().then(() => 'closed'), sleep(HANG_MS, 'hung', { ref: false })])
  t.equal(closed, 'closed', 'the store closes after the outage: no connection was left checked out')
})
