/**
 * What a create reads is kept by epochs (core migrations 0013-0014, the
 * registry's 0001), not by the commit horizon: the settings, the topics
 * webhooks subscribe to and the packages' activation are read again only
 * after a change of their own kind, and such a change made through one app
 * is seen by the other app's next request (two apps on one database: on
 * PostgreSQL each with its own pool, as two processes). That nothing is read
 * while an epoch stays is shown by a change made behind its back (triggers
 * off, as no route can): the kept value goes on being used across commits
 * of anything else.
 */
import t from 'tap'
import type { Store } from '@cms/store'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'
import { packageRegistry } from '@cms/registry'
import { gatewayApp, twoStores, type GatewayApp } from './helpers.js'

/** Two apps of profile A on one database; subscriptions may name this machine's loopback (read when the core is composed). */
async function replicas (t: Parameters<typeof twoStores>[0]): Promise<[GatewayApp, GatewayApp]> {
  const [s1, s2] = await twoStores(t)
  const saved = process.env.CMS_OUTBOUND_ALLOW
  process.env.CMS_OUTBOUND_ALLOW = '127.0.0.1'
  try {
    const one = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' }, store: s1 })
    t.teardown(one.close)
    const two = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' }, store: s2 })
    t.teardown(two.close)
    return [one, two]
  } finally {
    if (saved === undefined) delete process.env.CMS_OUTBOUND_ALLOW
    else process.env.CMS_OUTBOUND_ALLOW = saved
  }
}

/** A write no route could make: with the triggers off, no epoch is renewed. */
async function behindTheEpochs (store: Store, statement: string): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.execute('set local session_replication_role = replica')
    await tx.execute(statement)
  })
}

t.test('settings: kept across creates, a change through one app seen by the other at once', async (t) => {
  const [one, two] = await replicas(t)
  const admin = await createCaller(one.store, 'administrator')
  const category = async (name: string): Promise<number> => (await call(one.app, 'POST', '/cms/v2/categories', { as: admin, body: { name } })).body.id
  const second = await category('Second')
  const third = await category('Third')
  const create = async (): Promise<number[]> => {
    const res = await call(two.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'A post', status: 'publish' } })
    t.equal(res.status, 201)
    return res.body.categories
  }
  const first = await create()
  t.equal(first.length, 1, 'filed in the default category')
  t.not(first[0], second)

  await behindTheEpochs(two.store, `insert into options (name, value) values ('default_category', '${second}'::jsonb)
    on conflict (name) do update set value = excluded.value`)
  t.same(await create(), first, 'the settings kept: not read again, though posts were committed since')
  t.same(await create(), first, 'still kept')

  const set = await call(one.app, 'POST', '/cms/v2/settings', { as: admin, body: { default_category: third } })
  t.equal(set.status, 200)
  t.same(await create(), [third], 'a change through the other app is seen by the next create')
  t.same(await create(), [third])
})

t.test('webhooks: the subscribed topics kept across events, a subscription through one app seen by the other', async (t) => {
  const [one, two] = await replicas(t)
  const admin = await createCaller(one.store, 'administrator')
  const deliveries = async (): Promise<number> => Number((await one.store.execute<{ n: number | string }>('select count(*) as n from webhook_deliveries'))[0]!.n)
  // A create on the second app, and its lifecycle event through that app's worker (the background job's work).
  const createAndDeliver = async (): Promise<number> => {
    const res = await call(two.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'An event', status: 'publish' } })
    t.equal(res.status, 201)
    await two.app.platform.services.events.drain()
    return res.body.id
  }
  await createAndDeliver()
  t.equal(await deliveries(), 0, 'nobody subscribes: no delivery')

  await behindTheEpochs(two.store, "insert into webhooks (url, events, secret_sealed) values ('http://127.0.0.1:9/unseen', array['post.created'], 'sealed')")
  await createAndDeliver()
  t.equal(await deliveries(), 0, 'the topics kept: the subscriptions were not read again')

  const made = await call(one.app, 'POST', '/cms/v2/webhooks', { as: admin, body: { url: 'http://127.0.0.1:9/hook', events: ['post.created'] } })
  t.equal(made.status, 201)
  const id = await createAndDeliver()
  const rows = await one.store.execute<{ event_object: number | string }>("select (body::jsonb #>> '{data,object_id}')::int as event_object from webhook_deliveries")
  t.same(rows.map((r) => Number(r.event_object)), [id, id], 'a subscription made through the other app: the next event reaches both subscriptions')

  const paused = await call(one.app, 'POST', `/cms/v2/webhooks/${made.body.id as number}`, { as: admin, body: { active: false } })
  t.equal(paused.status, 200)
  await behindTheEpochs(two.store, "update webhooks set active = false where url = 'http://127.0.0.1:9/unseen'")
  await createAndDeliver()
  t.equal(await deliveries(), 2, 'both switched off: no more deliveries')
})

t.test('activation: kept across commits, a deactivation through one app seen by the other', async (t) => {
  const [one, two] = await replicas(t)
  const admin = await createCaller(one.store, 'administrator')
  const served = async (): Promise<number> => (await call(two.app, 'GET', '/rollback/v1', { as: admin })).status
  t.equal(await served(), 200)
  await behindTheEpochs(two.store, "insert into registry_packages (type, slug, status) values ('plugin', 'rollback', 'inactive')")
  t.equal((await call(two.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'A commit' } })).status, 201)
  t.equal(await served(), 200, 'the statuses kept: not read again, though a post was committed since')

  // The registry's operation is recorded (and the status written) in the first app: the epoch moves.
  await one.app.platform.service(packageRegistry)!.deactivate('plugin', 'rollback', { actor: { userId: admin.user.id } })
  t.equal(await served(), 404, 'deactivated through the other app: gone at the next request')
  await one.app.platform.service(packageRegistry)!.activate('plugin', 'rollback', { actor: { userId: admin.user.id } })
  t.equal(await served(), 200, 'activated again: back')
})
