/**
 * builder-one/v1 through HTTP (profile B; builder-family.md §6): the
 * connection against a local stand-in of the connect service (and without
 * it), the top bar, plugins and themes through the package registry with a
 * package source directory, the migration ladder, the settings, the
 * dashboard widget state and the operations log.
 */
import t, { type Test } from 'tap'
import { definePackage } from '@cms/core'
import { packageRegistry, registryPackage, type PackageRegistry } from '@cms/registry'
import { scratchDir, standIn, testApp, type StandIn, type TestApp, type TestCaller } from '@cms/testing'
import { builderOnePackage } from '../src/index.js'
import { CALLBACK_PATH } from '../src/connect.js'
import { sourceDir } from './zips.js'

const O = '/builder-one/v1'
const ROUTES = [
  'connect/authorize', 'connect/disconnect', 'connect/switch-domain', 'connect/deactivate', 'top-bar/notifications', 'top-bar/feedback',
  'themes', 'themes/(?P<slug>[\\w-]+)/activate', 'plugins', 'plugins/(?P<slug>[\\w-]+)/activate', 'plugins/(?P<slug>[\\w-]+)/deactivate',
  'plugins/(?P<slug>[\\w-]+)/upgrade', 'plugins/(?P<slug>[\\w-]+)/migration/run', 'plugins/(?P<slug>[\\w-]+)/migration/rollback',
  'settings', 'manage-dashboard-widget/state', 'logs'
]

let registry: PackageRegistry | undefined
// A package that depends on the registry, to install a given version as the command line would.
const probe = definePackage({ name: 'builder-one-probe', dependencies: ['@cms/registry'], namespaces: ['probe/v1'], contribute (api) { registry = api.require(packageRegistry) } })

async function app (env: Record<string, string> = {}): Promise<TestApp> {
  const content = await scratchDir('one-content')
  return await testApp({ packages: [registryPackage, builderOnePackage, probe], namespaces: ['cms/v2', 'builder-one/v1', 'assistant/v1', 'probe/v1'], contentDir: content, env })
}

async function option (h: TestApp, name: string): Promise<any> {
  const rows = await h.store.execute<{ value: unknown }>(`select value from options where name = '${name}'`)
  return rows[0]?.value
}

/** Authorizes and has the stand-in's code exchanged through the browser's return: the site is connected. */
async function connectSite (t: Test, h: TestApp, admin: TestCaller, service: StandIn, clear = false): Promise<void> {
  const res = await h.call('POST', `${O}/connect/authorize`, { as: admin, body: clear ? { clearSession: true } : {} })
  t.equal(res.status, 200, 'authorized')
  const state = new URL(res.body.data).searchParams.get('state')!
  const back = await h.app.inject({ method: 'GET', url: `${CALLBACK_PATH}?code=code-1&state=${state}` })
  t.equal(back.statusCode, 200, 'the browser\'s return connects the site')
}

t.test('the index lists the 18 routes', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const routes = Object.keys((await h.call('GET', O)).body.routes).sort()
  t.same(routes, [O, ...ROUTES.map((r) => `${O}/${r}`)].sort(), 'the root and the 17 paths (the reference\'s 18 rows: plugins has two)')
})

t.test('without the connect service and package source', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  for (const path of ['connect/authorize', 'connect/disconnect', 'connect/switch-domain', 'connect/deactivate']) {
    const res = await h.call('POST', `${O}/${path}`, { as: admin })
    t.same([res.status, res.body.code, res.body.data.setting], [503, 'rest_upstream_unconfigured', 'CMS_UPSTREAM_BUILDER_ONE_URL'], `${path}: 503`)
  }
  const feedback = await h.call('POST', `${O}/top-bar/feedback`, { as: admin, body: { product: 'builder', subject: 's', title: 't', description: 'd' } })
  t.same([feedback.status, feedback.body.code], [503, 'rest_upstream_unconfigured'])
  const notes = await h.call('GET', `${O}/top-bar/notifications`, { as: admin, query: { app_name: 'builder', app_version: '1.0' } })
  t.same([notes.status, notes.body], [200, []], 'no feed configured: an empty list')
  const install = await h.call('POST', `${O}/plugins`, { as: admin, body: { slug: 'mailer' } })
  t.same([install.status, install.body.code, install.body.data.setting], [503, 'rest_upstream_unconfigured', 'CMS_PACKAGE_SOURCE'])
  const theme = await h.call('POST', `${O}/themes`, { as: admin, body: { slug: 'starter' } })
  t.same([theme.status, theme.body.code], [503, 'rest_upstream_unconfigured'])
  t.equal(await option(h, 'builder_one_connection'), undefined, 'nothing stored')
})

t.test('with the connect service, the feed and a package source', async (t) => {
  const service = await standIn()
  const feed = await standIn()
  t.teardown(service.close)
  t.teardown(feed.close)
  const source = await sourceDir([
    ['plugin', 'mailer', '1.0.0'], ['plugin', 'mailer', '1.1.0'], ['plugin', 'manage', '0.1.0'],
    ['plugin', 'image-optimizer', '0.0.9'], ['plugin', 'accessibility', '2.0.0'], ['plugin', 'accessibility', '2.1.0'], ['theme', 'starter', '1.0.0']
  ])
  const h = await app({
    CMS_UPSTREAM_BUILDER_ONE_URL: service.url,
    CMS_UPSTREAM_BUILDER_ONE_TOKEN: 'svc-token',
    CMS_UPSTREAM_BUILDER_ONE_NOTIFICATIONS_URL: feed.url,
    CMS_PACKAGE_SOURCE: source
  })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  service.answers['/api/clients'] = { status: 201, body: { client_id: 'client-1', client_secret: 'client-s3cret' } }
  service.answers['/api/token'] = { status: 200, body: { access_token: 'access-t0ken', refresh_token: 'refresh-t0ken', token_type: 'bearer' } }

  t.test('connect: authorize, the return, already connected, clear session', async (t) => {
    const res = await h.call('POST', `${O}/connect/authorize`, { as: admin })
    t.equal(res.status, 200)
    t.equal(res.body.success, true)
    const url = new URL(res.body.data)
    t.equal(`${url.origin}${url.pathname}`, `${service.url}/authorize`, 'the authorize URL is on the connect service')
    t.same(Object.fromEntries([...url.searchParams].filter(([k]) => k !== 'state')), {
      response_type: 'code', client_id: 'client-1', redirect_uri: `http://cms.test${CALLBACK_PATH}`, scope: 'openid offline_access share_usage_data'
    })
    t.match(url.searchParams.get('state'), /^[0-9a-f]{48}$/)
    t.same(service.received.at(-1), { method: 'POST', path: '/api/clients', auth: 'Bearer svc-token', body: { app: 'builder-one', site_url: 'http://cms.test', redirect_uri: `http://cms.test${CALLBACK_PATH}`, scopes: 'openid offline_access share_usage_data' } })

    const wrong = await h.app.inject({ method: 'GET', url: `${CALLBACK_PATH}?code=c&state=${'0'.repeat(48)}` })
    t.equal(wrong.statusCode, 400, 'a state that is not the pending one connects nothing')
    const back = await h.app.inject({ method: 'GET', url: `${CALLBACK_PATH}?code=code-1&state=${url.searchParams.get('state')}` })
    t.equal(back.statusCode, 200)
    t.same(service.received.at(-1)!.body, { grant_type: 'authorization_code', code: 'code-1', client_id: 'client-1', client_secret: 'client-s3cret', redirect_uri: `http://cms.test${CALLBACK_PATH}` })
    const stored = await option(h, 'builder_one_connection')
    t.notMatch(JSON.stringify(stored), /client-s3cret|access-t0ken|refresh-t0ken/, 'secrets sealed at rest')
    t.match(stored, { client_id: 'client-1', state: '', connected_at: Number, license_active: true })
    const replay = await h.app.inject({ method: 'GET', url: `${CALLBACK_PATH}?code=code-1&state=${url.searchParams.get('state')}` })
    t.equal(replay.statusCode, 400, 'the state is single use')

    const again = await h.call('POST', `${O}/connect/authorize`, { as: admin })
    t.same([again.status, again.body.code, again.body.message], [403, 'forbidden', 'You are already connected'])
    t.equal((await h.call('POST', `${O}/connect/authorize`, { as: admin, body: { clearSession: 'nope' } })).status, 400)
    const calls = service.received.length
    service.answers['/api/clients'] = { status: 201, body: { client_id: 'client-2', client_secret: 's2' } }
    const cleared = await h.call('POST', `${O}/connect/authorize`, { as: admin, body: { clearSession: true } })
    t.equal(cleared.status, 200)
    t.equal(new URL(cleared.body.data).searchParams.get('client_id'), 'client-2', 'a cleared session registers a new client')
    t.equal(service.received.length, calls + 1)
    t.equal((await option(h, 'builder_one_connection')).tokens, '', 'no longer connected')
    await connectSite(t, h, admin, service, true)

    t.equal((await h.call('POST', `${O}/connect/authorize`, { as: editor })).status, 403)
    t.equal((await h.call('POST', `${O}/connect/authorize`)).status, 401)
  })

  t.test('switch-domain and deactivate', async (t) => {
    service.answers['/api/domain'] = { status: 200, body: { ok: true } }
    const res = await h.call('POST', `${O}/connect/switch-domain`, { as: admin })
    t.same([res.status, res.body], [200, { success: true, data: { message: 'Domain updated!' } }])
    t.same(service.received.at(-1), { method: 'POST', path: '/api/domain', auth: 'Bearer svc-token', body: { client_id: 'client-2', site_url: 'http://cms.test' } })
    service.answers['/api/domain'] = { status: 500, body: { message: 'down' } }
    const failed = await h.call('POST', `${O}/connect/switch-domain`, { as: admin })
    t.same([failed.status, failed.body.code], [502, 'rest_upstream_error'])

    service.answers['/api/license/deactivate'] = { status: 200, body: {} }
    const off = await h.call('POST', `${O}/connect/deactivate`, { as: admin })
    t.same([off.status, off.body], [200, { success: true, data: [] }])
    t.same(service.received.at(-1)!.body, { client_id: 'client-2', access_token: 'access-t0ken' })
    t.equal((await option(h, 'builder_one_connection')).license_active, false)
  })

  t.test('top bar: notifications from the feed, feedback forwarded', async (t) => {
    feed.answer.body = [{ id: 'n1', title: 'New', description: 'Something new', topic: 'builder' }]
    const notes = await h.call('GET', `${O}/top-bar/notifications`, { as: admin, query: { app_name: 'builder', app_version: '1.2.3' } })
    t.same([notes.status, notes.body], [200, [{ id: 'n1', title: 'New', description: 'Something new', topic: 'builder' }]])
    t.equal(feed.received.at(-1)!.path, '/api/notifications?app_name=builder&app_version=1.2.3')
    feed.answer.body = { not: 'a list' }
    t.same((await h.call('GET', `${O}/top-bar/notifications`, { as: admin, query: { app_name: 'builder', app_version: '1' } })).status, 502)
    const missing = await h.call('GET', `${O}/top-bar/notifications`, { as: admin, query: { app_name: 'builder' } })
    t.same([missing.status, missing.body.code], [400, 'rest_missing_callback_param'])

    service.answers['/api/feedback'] = { status: 204, body: null }
    const sent = await h.call('POST', `${O}/top-bar/feedback`, { as: admin, body: { product: 'builder', subject: 'bug', title: 'T', description: 'D', countryCode: 'FR' } })
    t.same([sent.status, sent.body], [204, null])
    t.same(service.received.at(-1)!.body, { product: 'builder', subject: 'bug', title: 'T', description: 'D', countryCode: 'FR', site_url: 'http://cms.test', access_token: 'access-t0ken' })
    service.answers['/api/feedback'] = { status: 401, body: { message: 'no' } }
    const refused = await h.call('POST', `${O}/top-bar/feedback`, { as: admin, body: { product: 'builder', subject: 'bug', title: 'T', description: 'D' } })
    t.same([refused.status, refused.body.code, refused.body.data.upstream_status], [502, 'rest_upstream_error', 401])
    const bad = await h.call('POST', `${O}/top-bar/feedback`, { as: admin, body: { product: 'builder', subject: 'bug', title: 'T' } })
    t.same([bad.status, bad.body.code], [400, 'rest_missing_callback_param'])
  })

  t.test('plugins: list, install, activate, deactivate, upgrade', async (t) => {
    const list = await h.call('GET', `${O}/plugins`, { as: admin })
    t.equal(list.status, 200)
    t.same(list.body.map((p: any) => p.slug).sort(), ['assistant', 'builder'], 'the installed supported plugins of a fresh site')
    t.match(list.body.find((p: any) => p.slug === 'builder'), { status: 'active', version: '0.1.0', isMigrated: false, isConnected: false, hasOnePackage: true })
    t.same((await h.call('GET', `${O}/plugins`, { as: admin, query: { status: 'inactive' } })).body, [])
    t.same((await h.call('GET', `${O}/plugins`, { as: admin, query: { search: 'assist' } })).body.map((p: any) => p.slug), ['assistant'])
    t.equal((await h.call('GET', `${O}/plugins`, { as: editor })).body.code, 'rest_cannot_view_plugins')

    const installed = await h.call('POST', `${O}/plugins`, { as: admin, body: { slug: 'mailer' } })
    t.same([installed.status, installed.body], [200, { slug: 'mailer', status: 'inactive', version: '1.1.0', newVersion: null, isMigrated: false, isConnected: false, hasOnePackage: true }])
    const twice = await h.call('POST', `${O}/plugins`, { as: admin, body: { slug: 'mailer' } })
    t.same([twice.status, twice.body.code], [400, 'bad_request'])
    const unknown = await h.call('POST', `${O}/plugins`, { as: admin, body: { slug: 'nope' } })
    t.same([unknown.status, unknown.body.code], [400, 'rest_invalid_param'])
    const notOffered = await h.call('POST', `${O}/plugins`, { as: admin, body: { slug: 'cookie-consent' } })
    t.equal(notOffered.status, 404, 'a plugin the source does not offer')
    t.equal((await h.call('POST', `${O}/plugins`, { as: editor, body: { slug: 'accessibility' } })).body.code, 'rest_cannot_install_plugin')

    const on = await h.call('POST', `${O}/plugins/mailer/activate`, { as: admin })
    t.same([on.status, on.body.status], [200, 'active'])
    const off = await h.call('POST', `${O}/plugins/mailer/deactivate`, { as: admin })
    t.same([off.status, off.body.status], [200, 'inactive'])
    const absent = await h.call('POST', `${O}/plugins/cookie-consent/activate`, { as: admin })
    t.same([absent.status, absent.body.code, absent.body.message], [404, 'not_found', 'Plugin not found.'])
    t.same((await h.call('POST', `${O}/plugins/mailer/activate`)).body.code, 'unauthorized')
    t.same((await h.call('POST', `${O}/plugins/mailer/activate`, { as: editor })).body.code, 'forbidden')

    await registry!.install('plugin', 'accessibility', { version: '2.0.0', actor: { userId: admin.id } })
    t.match((await h.call('GET', `${O}/plugins`, { as: admin })).body.find((p: any) => p.slug === 'accessibility'), { version: '2.0.0', newVersion: '2.1.0', status: 'inactive' }, 'the newer version offered')
    const up = await h.call('POST', `${O}/plugins/accessibility/upgrade`, { as: admin, body: { status: 'active' } })
    t.same([up.status, up.body.version, up.body.status, up.body.newVersion], [200, '2.1.0', 'active', null])
    t.equal((await h.call('POST', `${O}/plugins/cookie-consent/upgrade`, { as: admin })).status, 404)
    t.equal((await h.call('POST', `${O}/plugins/mailer/upgrade`, { as: admin, body: { status: 'inactive' } })).status, 400)
  })

  t.test('the migration ladder', async (t) => {
    const run = async (slug: string, body?: unknown): Promise<{ status: number, body: any }> => await h.call('POST', `${O}/plugins/${slug}/migration/run`, { as: admin, body })
    await h.call('POST', `${O}/plugins/mailer/deactivate`, { as: admin })
    const inactive = await run('mailer')
    t.same([inactive.status, inactive.body.code, inactive.body.message], [400, 'bad_request', 'Plugin is not active.'], 'inactive: 400')
    await h.call('POST', `${O}/plugins/mailer/activate`, { as: admin })
    t.equal((await run('cookie-consent')).status, 404, 'not installed: 404')
    const assistant = await run('assistant')
    t.same([assistant.status, assistant.body.code], [400, 'rest_invalid_param'], 'the assistant does not migrate')

    service.answers['/api/disconnect'] = { status: 200, body: {} }
    t.equal((await h.call('POST', `${O}/connect/disconnect`, { as: admin })).status, 200)
    const notConnected = await run('mailer')
    t.same([notConnected.status, notConnected.body.code], [403, 'rest_forbidden'], 'the site not connected: 403')
    await connectSite(t, h, admin, service)

    await h.store.execute('insert into options (name, value) values (\'builder_one_plugin_connections\', \'{"mailer": 1700000000}\')')
    const own = await run('mailer', { force: false })
    t.same([own.status, own.body.code, own.body.message], [422, 'migration_exception', 'Plugin is already connected.'], 'connected on its own, no force: 422')
    t.same(await option(h, 'builder_one_migrated_plugins'), [], 'nothing migrated')
    const forced = await run('mailer')
    t.same([forced.status, forced.body.isMigrated, forced.body.isConnected], [200, true, true], 'force (the default) migrates')
    t.same(await option(h, 'builder_one_plugin_connections'), {}, 'its own connection released')
    t.same((await run('mailer')).body.isMigrated, true, 'again: no change')
    t.same(await option(h, 'builder_one_migrated_plugins'), ['mailer'])

    await h.call('POST', `${O}/plugins`, { as: admin, body: { slug: 'image-optimizer', status: 'active' } })
    const old = await run('image-optimizer')
    t.same([old.status, old.body.code, old.body.message], [409, 'migration_exception', 'Plugin version not supported.'], 'too old: 409')

    const back = await h.call('POST', `${O}/plugins/mailer/migration/rollback`, { as: admin })
    t.same([back.status, back.body.isMigrated], [200, false])
    t.same(await option(h, 'builder_one_migrated_plugins'), [])
    t.equal((await h.call('POST', `${O}/plugins/mailer/migration/rollback`, { as: editor })).status, 403)

    await run('mailer')
    const out = await h.call('POST', `${O}/connect/disconnect`, { as: admin })
    t.same([out.status, out.body], [200, { success: true, data: [] }])
    t.same(service.received.at(-1)!.body, { client_id: 'client-2', access_token: 'access-t0ken' })
    t.same(await option(h, 'builder_one_migrated_plugins'), [], 'disconnecting rolls the migrated plugins back')
    const noClient = await h.call('POST', `${O}/connect/switch-domain`, { as: admin })
    t.same([noClient.status, noClient.body.code, noClient.body.message], [400, 'bad_request', 'Client ID not found'])
    const deact = await h.call('POST', `${O}/connect/deactivate`, { as: admin })
    t.same([deact.status, deact.body.code], [400, 'bad_request'])
  })

  t.test('the dashboard widget state follows the site-management plugin', async (t) => {
    const state = async (): Promise<any> => (await h.call('GET', `${O}/manage-dashboard-widget/state`, { as: admin })).body
    t.same(await state(), { state: 'not_installed', isWidgetDelegated: false })
    await h.call('POST', `${O}/plugins`, { as: admin, body: { slug: 'manage' } })
    t.same(await state(), { state: 'not_activated', isWidgetDelegated: true })
    await h.call('POST', `${O}/plugins/manage/activate`, { as: admin })
    t.same(await state(), { state: 'not_connected', isWidgetDelegated: true })
    await connectSite(t, h, admin, service)
    t.same(await state(), { state: 'active', isWidgetDelegated: true })
  })

  t.test('themes', async (t) => {
    const res = await h.call('POST', `${O}/themes`, { as: admin, body: { slug: 'starter' } })
    t.same([res.status, res.body], [200, { status: 'success', message: 'Theme installed successfully.' }])
    const again = await h.call('POST', `${O}/themes`, { as: admin, body: { slug: 'starter' } })
    t.same([again.status, again.body.code, again.body.message], [409, 'conflict', 'Theme already installed.'])
    t.equal((await h.call('POST', `${O}/themes`, { as: admin, body: { slug: 'elsewhere' } })).status, 404)
    t.equal((await h.call('POST', `${O}/themes`, { as: admin, body: { slug: '../x' } })).status, 400)
    const on = await h.call('POST', `${O}/themes/starter/activate`, { as: admin })
    t.same([on.status, on.body], [200, { status: 'success', message: 'Theme activated successfully.' }])
    const active = await h.call('POST', `${O}/themes/starter/activate`, { as: admin })
    t.same([active.status, active.body.message], [400, 'Theme is already active.'])
    const none = await h.call('POST', `${O}/themes/nothere/activate`, { as: admin })
    t.same([none.status, none.body.code, none.body.message], [404, 'not_found', 'Theme not found.'])
    t.same((await h.call('POST', `${O}/themes/theme-a/activate`, { as: editor })).body.code, 'forbidden')
    t.equal((await h.call('POST', `${O}/themes/theme-a/activate`, { as: admin })).status, 200, 'back to the default theme')
  })

  t.test('the operations log: newest first, cleared', async (t) => {
    const log = await h.call('GET', `${O}/logs`, { as: admin })
    t.equal(log.status, 200)
    const entries = log.body.entries
    t.ok(entries.length >= 8)
    t.match(entries[0], { source: 'theme:theme-a', operation: 'activate', level: 'info', userId: admin.id })
    t.ok(entries.some((e: any) => e.source === 'plugin:accessibility' && e.operation === 'upgrade' && e.fromVersion === '2.0.0' && e.toVersion === '2.1.0'))
    const times = entries.map((e: any) => e.id)
    t.same(times, [...times].sort((a: number, b: number) => b - a), 'newest first')
    t.same((await h.call('DELETE', `${O}/logs`, { as: admin })).body, { success: true })
    t.same((await h.call('GET', `${O}/logs`, { as: admin })).body, { entries: [] })
    t.equal((await h.call('DELETE', `${O}/logs`, { as: editor })).status, 403)
  })

  t.test('settings: camelCase in, snake_case stored, unknown keys ignored', async (t) => {
    t.same((await h.call('GET', `${O}/settings`, { as: admin })).body, { onboardingCompleted: false, shareUsageData: false, migratedPlugins: [] })
    const res = await h.call('PATCH', `${O}/settings`, { as: admin, body: { onboardingCompleted: true, somethingElse: 1, migratedPlugins: ['mailer'] } })
    t.same([res.status, res.body], [200, { onboardingCompleted: true, shareUsageData: false, migratedPlugins: [] }])
    t.equal(await option(h, 'builder_one_onboarding_completed'), true)
    t.equal(await option(h, 'builder_one_something_else'), undefined)
    const bad = await h.call('POST', `${O}/settings`, { as: admin, body: { shareUsageData: true, onboardingCompleted: 'yes' } })
    t.same([bad.status, bad.body.code, Object.keys(bad.body.data.params)], [400, 'rest_invalid_param', ['onboardingCompleted']], 'named as sent')
    t.equal(await option(h, 'builder_one_share_usage_data'), undefined, 'one bad value writes nothing')
    t.same((await h.call('PUT', `${O}/settings`, { as: admin, body: { shareUsageData: true } })).body.shareUsageData, true)
    t.equal((await h.call('GET', `${O}/settings`, { as: editor })).status, 403)
    t.equal((await h.call('GET', `${O}/settings`)).status, 401)
  })
})
