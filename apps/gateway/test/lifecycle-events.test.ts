/**
 * Lifecycle events through HTTP: a package written here listens to every
 * topic; changes made through cms/v2 are delivered once each after commit;
 * an event committed by a process that stopped before its listener ran is
 * delivered by the next one on the same database; two workers never both
 * deliver one event; a failing listener is retried when its lease ends;
 * delivered events are pruned after their retention; the poll interval,
 * lease and retention are settings.
 */
import t, { type Test } from 'tap'
import { definePackage, LIFECYCLE_TOPICS, type LifecycleEvent } from '@cms/core'
import { openTestStore } from '@cms/store/testing'
import type { Store } from '@cms/store'
import type { FastifyInstance } from 'fastify'
import { loadSettings } from '../src/settings.js'
import { BASE, gatewayApp } from './helpers.js'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'

type Seen = Array<{ topic: string, objectId: number, payload: Record<string, unknown>, by: string }>

function listeningPackage (seen: Seen, instance: string, fail?: { times: number }) {
  return definePackage({
    name: '@cms/listener',
    dependencies: ['@cms/core'],
    namespaces: ['listener/v1'],
    listeners: Object.fromEntries(LIFECYCLE_TOPICS.map((topic) => [`record-${topic}`, topic])),
    serve (api) {
      for (const topic of LIFECYCLE_TOPICS) {
        api.on(`record-${topic}`, async (event: LifecycleEvent) => {
          if (fail !== undefined && fail.times > 0) {
            fail.times--
            throw new Error('the listener failed')
          }
          seen.push({ topic: event.topic, objectId: event.objectId, payload: event.payload, by: instance })
        })
      }
    }
  })
}

/** Profile A with the listening package, on the test's store (so `app.close()` is all it takes). */
async function instance (store: Store, seen: Seen, name: string, fail?: { times: number }, env: Record<string, string> = {}, jobs = false): Promise<FastifyInstance> {
  // Background jobs off unless asked: the tests drive the worker (services.events.drain) themselves.
  return (await gatewayApp({ env, store, jobs, packages: [listeningPackage(seen, name, fail)] })).app
}

/** The deliveries a drain made to the test's listener (the core's own listeners, webhooks.*, run beside it). */
const drain = async (app: FastifyInstance): Promise<number> => {
  const store = app.platform.services.store
  const count = async (): Promise<number> => Number((await store.execute<{ n: number }>("select count(*)::int as n from cms_event_deliveries where listener like '@cms/listener:%'"))[0]!.n)
  const before = await count()
  await app.platform.services.events.drain()
  return await count() - before
}

/** A fresh database and one gateway whose package listens (as `one`), with an administrator; closed after `t`. */
async function oneListener (t: Test): Promise<{ store: Store, seen: Seen, app: FastifyInstance, admin: Awaited<ReturnType<typeof createCaller>> }> {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: Seen = []
  const app = await instance(store, seen, 'one')
  t.teardown(() => app.close())
  return { store, seen, app, admin: await createCaller(store, 'administrator') }
}

t.test('each change is delivered once, after commit', async (t) => {
  const { store, seen, app, admin } = await oneListener(t)

  const created = await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Draft', status: 'draft' } })
  t.equal(created.status, 201)
  const id = created.body.id as number
  t.same(seen, [], 'nothing before the worker runs')
  t.ok(await drain(app) >= 1)
  t.same(seen.map((e) => [e.topic, e.objectId]), [['post.created', id]])
  t.match(seen[0]!.payload, { id, type: 'post', status: 'draft', author: admin.id })

  seen.length = 0
  t.equal((await call(app, 'POST', `/cms/v2/posts/${id}`, { as: admin, body: { title: 'Renamed' } })).status, 200)
  t.equal((await call(app, 'POST', `/cms/v2/posts/${id}`, { as: admin, body: { status: 'publish' } })).status, 200)
  t.equal((await call(app, 'DELETE', `/cms/v2/posts/${id}`, { as: admin })).status, 200)
  t.equal((await call(app, 'DELETE', `/cms/v2/posts/${id}`, { as: admin, body: { force: true } })).status, 200)
  await drain(app)
  const byTopic = (topic: string): Seen => seen.filter((e) => e.topic === topic)
  t.equal(byTopic('post.updated').length, 3, 'the rename, the publication and the trashing')
  t.same(byTopic('post.status_changed').map((e) => [e.payload.from, e.payload.to]), [['draft', 'publish'], ['publish', 'trash']])
  t.same(byTopic('post.trashed').map((e) => e.objectId), [id])
  t.same(byTopic('post.deleted').map((e) => e.objectId), [id])
  t.same(byTopic('post.created'), [], 'no second creation')

  seen.length = 0
  const user = await createCaller(store, 'subscriber')
  t.equal((await call(app, 'DELETE', `/cms/v2/users/${user.id}`, { as: admin, body: { force: true, reassign: false } })).status, 200)
  await drain(app)
  t.same(seen.map((e) => [e.topic, e.objectId]), [['user.deleted', user.id]])

  seen.length = 0
  const bad = await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'x', status: 'nonsense' } })
  t.equal(bad.status, 400)
  t.equal(await drain(app), 0, 'a refused write makes no event; delivered events are not delivered again')
  t.same(seen, [])
})

t.test('a process that stops after the commit and before its listener ran: the next one delivers', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: Seen = []
  const first = await instance(store, seen, 'first')
  const admin = await createCaller(store, 'administrator')
  const created = await call(first, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Committed', status: 'publish' } })
  t.equal(created.status, 201)
  await first.close() // stopped before its worker ran
  t.same(seen, [])

  const second = await instance(store, seen, 'second')
  t.teardown(() => second.close())
  await drain(second)
  t.same(seen.map((e) => [e.topic, e.objectId, e.by]), [['post.created', created.body.id, 'second']])
  t.equal(await drain(second), 0)
})

t.test('two workers on one database deliver each event once; a failing listener is retried after its lease', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: Seen = []
  const a = await instance(store, seen, 'a')
  const b = await instance(store, seen, 'b')
  t.teardown(async () => { await a.close(); await b.close() })
  const admin = await createCaller(store, 'administrator')
  const ids: number[] = []
  for (let i = 0; i < 12; i++) ids.push((await call(a, 'POST', '/cms/v2/posts', { as: admin, body: { title: `P${i}`, status: 'draft' } })).body.id)
  await Promise.all([drain(a), drain(b), drain(a), drain(b)])
  const created = seen.filter((e) => e.topic === 'post.created').map((e) => e.objectId).sort((x, y) => x - y)
  t.same(created, ids, 'every event once, between both workers')

  // A listener that fails keeps its event: not delivered while the lease runs, delivered after.
  seen.length = 0
  const fail = { times: 1 }
  const flaky = await instance(store, seen, 'flaky', fail)
  t.teardown(() => flaky.close())
  await a.close()
  await b.close()
  const post = (await call(flaky, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Flaky', status: 'draft' } })).body.id as number
  t.equal(await drain(flaky), 0, 'the listener threw')
  t.equal(fail.times, 0)
  t.equal(await drain(flaky), 0, 'held by its lease')
  await store.execute(`update cms_events set lease_until = now() - interval '1 second' where object_id = ${post}`)
  t.equal(await drain(flaky), 1)
  t.same(seen.map((e) => [e.topic, e.objectId]), [['post.created', post]])
})

/** Rows of cms_events read (sequential and by index) so far, as the server's statistics count them. */
const eventRowsRead = async (store: Store): Promise<number> => {
  await store.execute('select pg_stat_force_next_flush()')
  await store.execute('select 1')
  return Number((await store.execute<{ n: string | number }>("select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as n from pg_stat_user_tables where relname = 'cms_events'"))[0]!.n)
}

t.test('a drain reads the events from the oldest pending one on, not every event kept (issue 35)', async (t) => {
  const { store, seen, app, admin } = await oneListener(t)
  // 300 events delivered and kept (the retention is 7 days).
  await store.execute("insert into cms_events (topic, object_id, payload) select 'post.updated', 1000000 + g, jsonb_build_object('id', 1000000 + g) from generate_series(1, 300) g")
  t.equal(await drain(app), 300)
  await drain(app)
  // The statistics autovacuum keeps: with them the range from the floor on is read by the index.
  await store.execute('analyze cms_events')
  await store.execute('analyze cms_event_deliveries')

  const created = await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'New', status: 'draft' } })
  t.equal(created.status, 201)
  seen.length = 0
  const before = await eventRowsRead(store)
  t.equal(await drain(app), 1)
  const read = await eventRowsRead(store) - before
  t.same(seen.map((e) => [e.topic, e.objectId]), [['post.created', created.body.id]])
  // Before: every event kept, at every claim (305 rows here).
  t.ok(read <= 10, `rows of cms_events read by the drain: ${read}`)

  if (store.kind === 'pg') {
    // An event of a transaction that began before others committed theirs and commits after
    // they were delivered is still delivered: the floor never passes a transaction in progress.
    let release!: () => void
    const held = new Promise<void>((resolve) => { release = resolve })
    let begun!: () => void
    const started = new Promise<void>((resolve) => { begun = resolve })
    const late = store.transaction(async (tx) => {
      await tx.execute("insert into cms_events (topic, object_id, payload) values ('post.updated', 2000001, '{\"id\": 2000001}'::jsonb)")
      begun()
      await held
    })
    await started
    seen.length = 0
    const other = await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Other', status: 'draft' } })
    t.equal(await drain(app), 1)
    t.same(seen.map((e) => e.objectId), [other.body.id])
    release()
    await late
    seen.length = 0
    t.equal(await drain(app), 1)
    t.same(seen.map((e) => [e.topic, e.objectId]), [['post.updated', 2000001]])
  }
})

const eventCount = async (store: Store, where = 'true'): Promise<number> =>
  Number((await store.execute<{ n: string | number }>(`select count(*) as n from cms_events where ${where}`))[0]!.n)

t.test('the worker settings: defaults, one-line errors, and the values the worker uses', async (t) => {
  const base = { CMS_BASE_URL: BASE, CMS_DATA_DIR: '/nonexistent-not-used' }
  t.same(loadSettings(base).events, { pollMs: 1000, leaseMs: 60_000, retentionMs: 7 * 24 * 3600_000 })
  t.same(loadSettings({ ...base, CMS_EVENTS_POLL_MS: '250', CMS_EVENTS_LEASE_MS: '5000', CMS_EVENTS_RETENTION_MS: '0' }).events, { pollMs: 250, leaseMs: 5000, retentionMs: 0 })
  const cases: Array<[Record<string, string>, string]> = [
    [{ CMS_EVENTS_POLL_MS: 'often' }, 'CMS_EVENTS_POLL_MS must be an integer from 10 to 3600000, got "often"'],
    [{ CMS_EVENTS_POLL_MS: '5' }, 'CMS_EVENTS_POLL_MS must be an integer from 10 to 3600000, got "5"'],
    [{ CMS_EVENTS_LEASE_MS: '999' }, 'CMS_EVENTS_LEASE_MS must be an integer from 1000 to 86400000, got "999"'],
    [{ CMS_EVENTS_RETENTION_MS: '-1' }, 'CMS_EVENTS_RETENTION_MS must be an integer from 0 to 31622400000, got "-1"'],
    [{ CMS_EVENTS_RETENTION_MS: '1.5' }, 'CMS_EVENTS_RETENTION_MS must be an integer from 0 to 31622400000, got "1.5"'],
    [{ PORT: '80.7' }, 'PORT must be an integer from 0 to 65535, got "80.7"']
  ]
  for (const [env, message] of cases) t.throws(() => loadSettings({ ...base, ...env }), { name: 'SettingError', message }, message)

  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const app = await instance(store, [], 'settings', undefined, { CMS_EVENTS_POLL_MS: '250', CMS_EVENTS_LEASE_MS: '5000', CMS_EVENTS_RETENTION_MS: '0' })
  t.teardown(() => app.close())
  const { pollMs, leaseMs, retentionMs } = app.platform.services.events
  t.same({ pollMs, leaseMs, retentionMs }, { pollMs: 250, leaseMs: 5000, retentionMs: 0 })
})

t.test('the lease setting: a failed event is held for CMS_EVENTS_LEASE_MS, then delivered', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: Seen = []
  const fail = { times: 1 }
  // A lease no stall of a loaded machine outlasts (a second's lease ended between two drains there), a third of
  // the default (60 s) so the setting shows; it is ended below by moving its end into the past, not by waiting.
  const app = await instance(store, seen, 'leased', fail, { CMS_EVENTS_LEASE_MS: '20000' })
  t.teardown(() => app.close())
  const admin = await createCaller(store, 'administrator')
  const post = (await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Leased', status: 'draft' } })).body.id as number
  t.equal(await drain(app), 0, 'the listener threw')
  const lease = await store.execute<{ ms: string | number }>(`select extract(epoch from lease_until - created) * 1000 as ms from cms_events where object_id = ${post}`)
  // From the event's creation: the setting plus the time until the drain took it (under the default's 60 s).
  t.ok(Number(lease[0]!.ms) >= 19_900 && Number(lease[0]!.ms) < 45_000, `leased for the setting's 20 s (${Number(lease[0]!.ms)} ms)`)
  t.equal(await drain(app), 0, 'held while the lease runs')
  await store.execute(`update cms_events set lease_until = now() - interval '1 millisecond' where object_id = ${post}`)
  t.equal(await drain(app), 1, 'delivered once the lease ended')
  t.same(seen.map((e) => [e.topic, e.objectId]), [['post.created', post]])
})

t.test('delivered events are pruned after the retention; undelivered and recent ones are kept', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: Seen = []
  const fail = { times: 1 }
  const app = await instance(store, seen, 'pruning', fail, { CMS_EVENTS_RETENTION_MS: '0' })
  t.teardown(() => app.close())
  const events = app.platform.services.events
  const admin = await createCaller(store, 'administrator')
  const failed = (await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Fails once', status: 'draft' } })).body.id as number
  t.equal(await drain(app), 0, 'the first listener call throws: not delivered')
  const delivered = (await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Delivered', status: 'publish' } })).body.id as number
  t.equal(await drain(app), 1)
  t.equal(await events.prune(), 1, 'the delivered event is pruned')
  t.equal(await eventCount(store, `object_id = ${delivered}`), 0)
  t.equal(Number((await store.execute<{ n: number }>("select count(*) as n from cms_event_deliveries where listener like '@cms/listener:%'"))[0]!.n), 0, 'with its deliveries (the kept one\'s is the core\'s webhooks listener\'s only)')
  t.equal(await eventCount(store, `object_id = ${failed}`), 1, 'the undelivered one (and under its lease) is kept')
  await store.execute(`update cms_events set lease_until = now() - interval '1 second' where object_id = ${failed}`)
  t.equal(await events.prune(), 0, 'still undelivered: kept after its lease too')
  t.equal(await drain(app), 1)
  t.equal(await events.prune(), 1)
  t.equal(await eventCount(store), 0)

  // With the default retention (7 days) a delivered event stays until it is that old.
  const kept = await instance(store, seen, 'keeping')
  t.teardown(() => kept.close())
  await call(kept, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Recent', status: 'draft' } })
  t.equal(await drain(kept), 1)
  t.equal(await kept.platform.services.events.prune(), 0, 'a recent delivered event is kept')
  await store.execute("update cms_events set created = now() - interval '8 days'")
  t.equal(await kept.platform.services.events.prune(), 1, 'pruned once older than the retention')
})

t.test('a process whose only listeners are the core\'s prunes too (the triggers write events regardless)', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const env = { CMS_EVENTS_POLL_MS: '20', CMS_EVENTS_RETENTION_MS: '0' }
  // The change is made by a process without its worker, so the event is counted before any prune.
  const { app: writer } = await gatewayApp({ env, store })
  const admin = await createCaller(store, 'administrator')
  await call(writer, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Nobody listens', status: 'draft' } })
  await writer.close()
  t.equal(await eventCount(store), 1, 'written by the trigger')
  const { app, close } = await gatewayApp({ env, store, jobs: true })
  t.teardown(close)
  t.ok(app.platform.services.events.names.running.every((n) => n.startsWith('@cms/core:webhooks.')), 'no listener in this process but the core\'s (webhooks)')
  // The worker (jobs on) prunes at its first poll, then at most every poll while the retention is 0. The wait
  // only ends a true hang (a loaded machine is slow): the outcome is asserted, not the time it took.
  const until = Date.now() + 120_000
  while (await eventCount(store) > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(await eventCount(store), 0, 'pruned by the background worker')
})

t.test('the background worker polls at CMS_EVENTS_POLL_MS, delivers, then prunes what it delivered', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: Seen = []
  const app = await instance(store, seen, 'worker', undefined, { CMS_EVENTS_POLL_MS: '20', CMS_EVENTS_RETENTION_MS: '0' }, true)
  t.teardown(() => app.close())
  const admin = await createCaller(store, 'administrator')
  t.equal(app.platform.services.events.pollMs, 20, 'the worker polls at the setting (the time is not asserted: load stretches it)')
  const post = (await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Polled', status: 'publish' } })).body.id as number
  const until = Date.now() + 120_000
  while ((seen.length === 0 || await eventCount(store) > 0) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(seen.map((e) => [e.topic, e.objectId]), [['post.created', post]], 'delivered without a drain call')
  t.equal(await eventCount(store), 0, 'and pruned')
})
