/**
 * Concurrent clients over a real loopback port (and real PostgreSQL when
 * CMS_TEST_DATABASE_URL is set): mixed reads, creates, updates, removals
 * and batches, then every acknowledged write is read back and nothing
 * unacknowledged may exist. The long profile (100 clients, 60 s) is
 * bench/reliability/load.ts.
 */
import t from 'tap'
import { openTestStore } from '@cms/store/testing'
import { coreMigrations } from '@cms/core'
import { gatewayApp, listenLoopback } from './helpers.js'
import { createCaller } from '@cms/core/testing'
import { targetsOf } from './harness/routes.js'
import { formatReport, pickResource, runLoad, verifyLoad } from './harness/load.js'

const CLIENTS = Number(process.env.CMS_LOAD_CLIENTS ?? 10)
const DURATION = Number(process.env.CMS_LOAD_SECONDS ?? 3) * 1000
/** Each client goes on past the duration until it has done this many operations. */
const MIN_OPS = Number(process.env.CMS_LOAD_MIN_OPS ?? 15)
/** A request slower than this counts as hung. */
const TIMEOUT = Number(process.env.CMS_LOAD_TIMEOUT_MS ?? 10_000)

t.test(`${CLIENTS} clients for ${DURATION / 1000} s`, async (t) => {
  const store = await openTestStore({ poolSize: Math.min(20, CLIENTS), migrations: [coreMigrations] })
  t.teardown(async () => { await store.close() })
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B' }, store })
  t.teardown(h.close)
  const base = await listenLoopback(h.app)
  const resource = pickResource(targetsOf(h.app))
  const callers = await Promise.all(Array.from({ length: CLIENTS }, async () => await createCaller(store, 'administrator')))

  const report = await runLoad({ base, resource, clients: CLIENTS, durationMs: DURATION, minOpsPerClient: MIN_OPS, timeoutMs: TIMEOUT, headers: (i) => callers[i]!.headers })
  t.comment(`${store.kind}: ${formatReport(report)}`)
  for (const e of report.errorSamples) t.comment(`error: ${e}`)
  // A count, not a rate: a rate would measure the machine, not the service.
  t.ok(report.requests >= CLIENTS * MIN_OPS, `every client did its share (${report.requests} requests)`)
  t.ok(report.acknowledged.creates > 0 && report.acknowledged.updates > 0 && report.acknowledged.removals > 0, 'creates, updates and removals were acknowledged')
  t.equal(report.errors, 0, 'no failed or malformed answer under load')
  t.equal(report.hangs, 0, 'no request hung')

  const problems = await verifyLoad(base, callers[0]!.headers, report, resource)
  for (const p of problems.slice(0, 20)) t.comment(p)
  t.same(problems, [], 'every acknowledged write is there as acknowledged, and nothing else')
})
