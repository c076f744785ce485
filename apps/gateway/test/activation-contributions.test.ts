/**
 * A deactivated package's capabilities and lifecycle-event listeners follow
 * its activation (issue 32 item 1), as its meta and fields do: two apps on
 * one database (two replicas), profile B: the page builder deactivated
 * through builder-one/v1 and the SEO plugin through the registry (as the
 * command line does), in one of them. While it is off, what it grants no
 * role holds (a caller's capabilities, the users' `capabilities` field and
 * filter, the page builder's current-user list) and its listeners do not
 * run: an event they take is recorded as handled without running them
 * (skipped, as a deactivated plugin's hooks simply do not run in the core
 * CMS; reactivating does not replay it). Reactivating restores both.
 *
 * A fixture package stands beside them, switched by the page builder's
 * plugin but with its namespace always served (`namespaces: []`), so the
 * effect of a capability (a route only its holders may call) and of a
 * listener (what it saw) can be read.
 */
import t from 'tap'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'
import { can, endpoint, route } from '@cms/rest'
import { definePackage } from '@cms/core'
import { packageRegistry } from '@cms/registry'
import { gatewayApp, twoStores, type GatewayApp } from './helpers.js'

const NS = 'probe-caps/v1'
/** Posts the probe's listener was handed, one entry per run. */
const seen: number[] = []

const probe = definePackage({
  name: '@cms/test-probe-caps',
  dependencies: ['@cms/core'],
  namespaces: [NS],
  // Its contributions (capability, listener) follow the page builder's plugin; its namespace stays served.
  activation: [{ type: 'plugin', slug: 'builder', namespaces: [], contributions: true }],
  listeners: { 'count-created': 'post.created' },
  contribute (api) {
    api.capability('probe_reports', ['editor'])
  },
  serve (api) {
    api.on('count-created', (event) => { seen.push(event.objectId) })
    api.namespace(NS, () => [route({
      namespace: NS,
      path: `/${NS}/reports`,
      endpoints: [endpoint({ methods: ['GET'], args: {}, permission: can('probe_reports'), handler: () => ({ ok: true }) })]
    })])
  }
})

t.test('profile B: plugins deactivated in one app: their capabilities and listeners stop in both; reactivated: back', async (t) => {
  const [s1, s2] = await twoStores(t)
  const one = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B' }, store: s1, packages: [probe] })
  t.teardown(one.close)
  const two = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B' }, store: s2, packages: [probe] })
  t.teardown(two.close)
  const admin = await createCaller(s1, 'administrator')
  const editor = await createCaller(s1, 'editor')

  const registryOf = (h: GatewayApp) => h.app.platform.service(packageRegistry)!
  /** What a client sees of the grants in one app. */
  const grants = async (h: GatewayApp): Promise<Record<string, unknown>> => {
    const me = await call(h.app, 'GET', '/cms/v2/users/me', { as: admin, query: { context: 'edit' } })
    const holders = await call(h.app, 'GET', '/cms/v2/users', { as: admin, query: { capabilities: 'manage_seo_options', context: 'edit' } })
    const reports = await call(h.app, 'GET', `/${NS}/reports`, { as: editor })
    return {
      me: me.body.capabilities.manage_seo_options === true,
      holders: holders.body.map((u: { id: number }) => u.id).includes(admin.id),
      // The capability's effect: the only grant of probe_reports is the fixture's, to editors.
      reports: [reports.status, reports.body.code ?? 'ok'],
      core: me.body.capabilities.manage_options === true
    }
  }
  const granted = { me: true, holders: true, reports: [200, 'ok'], core: true }
  const withdrawn = { me: false, holders: false, reports: [403, 'rest_forbidden'], core: true }
  /** A new post, then every app's worker drains (one replica at a time takes each event). */
  const post = async (h: GatewayApp, title: string): Promise<number> => {
    const made = await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title, status: 'publish' } })
    t.equal(made.status, 201)
    await one.app.platform.services.events.drain()
    await two.app.platform.services.events.drain()
    return made.body.id
  }
  const deliveries = async (listener: string, post: number): Promise<number> => {
    const rows = await s1.execute<{ n: number }>(`select count(*)::int as n from cms_event_deliveries d join cms_events e on e.id = d.event_id where d.listener = '${listener}' and e.object_id = ${post} and e.topic = 'post.created'`)
    return rows[0]!.n
  }

  for (const h of [one, two]) t.same(await grants(h), granted, 'granted before')
  const before = await post(one, 'Before')
  t.same(seen.filter((id) => id === before), [before], 'the listener ran once for a post made while active')

  // The page builder's current-user list names every capability of the caller: the SEO plugin's only while it is active.
  const builderList = async (h: GatewayApp): Promise<boolean> =>
    (await call(h.app, 'GET', '/builder/v1/user-data/current-user', { as: admin })).body.capabilities.includes('manage_seo_options')
  t.ok(await builderList(two), 'the builder lists the SEO capability')
  await registryOf(one).deactivate('plugin', 'seo', { actor: { userId: admin.id } })
  t.notOk(await builderList(two), 'not once the SEO plugin is off (in the other app)')
  const off = await call(one.app, 'POST', '/builder-one/v1/plugins/builder/deactivate', { as: admin })
  t.same([off.status, off.body.status], [200, 'inactive'])
  for (const [name, h] of [['the app that deactivated', one], ['the other app', two]] as const) {
    t.same(await grants(h), withdrawn, `${name}: the plugin's grants are gone (the core's stay)`)
  }
  const during = await post(two, 'While deactivated')
  t.same(seen.filter((id) => id === during), [], 'its listener did not run')
  t.equal(await deliveries('@cms/test-probe-caps:count-created', during), 1, 'the event is recorded as handled for it (skipped)')
  t.equal(await deliveries('@cms/seo:analyse-created', during), 1, 'the SEO package\'s own listener skipped it too')
  t.equal(await deliveries('@cms/core:webhooks.post.created', during), 1, 'the core\'s listener is never switched off')

  const on = await call(two.app, 'POST', '/builder-one/v1/plugins/builder/activate', { as: admin })
  t.same([on.status, on.body.status], [200, 'active'])
  await registryOf(two).activate('plugin', 'seo', { actor: { userId: admin.id } })
  t.ok(await builderList(one), 'the builder lists it again')
  for (const [name, h] of [['the app that deactivated', one], ['the other app', two]] as const) {
    t.same(await grants(h), granted, `${name}: granted again`)
  }
  await one.app.platform.services.events.drain()
  await two.app.platform.services.events.drain()
  t.same(seen.filter((id) => id === during), [], 'reactivating does not replay what was skipped')
  const after = await post(one, 'After')
  t.same(seen.filter((id) => id === after), [after], 'the listener runs again')
})
