/**
 * builder-one/v1 through HTTP (profile B; builder-family.md §6): the
 * connection against a local stand-in of the connect service (and without
 * it), the top bar and the settings. (The plugin and theme routes come
 * with the package registry.)
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { testApp, type TestApp, type TestCaller } from '@cms/testing'
import { builderOnePackage } from '../src/index.js'
import { CALLBACK_PATH } from '../src/connect.js'
import { standIn, type StandIn } from './standin.js'

const O = '/builder-one/v1'
const ROUTES = ['connect/authorize', 'connect/disconnect', 'connect/switch-domain', 'connect/deactivate', 'top-bar/notifications', 'top-bar/feedback', 'settings']

async function app (env: Record<string, string> = {}): Promise<TestApp> {
  const content = await mkdtemp(join(tmpdir(), 'cms-one-content-'))
  return await testApp({ packages: [builderOnePackage], namespaces: ['cms/v2', 'builder-one/v1'], contentDir: content, env })
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

t.test('the index lists the routes served without the package registry', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const routes = Object.keys((await h.call('GET', O)).body.routes).sort()
  t.same(routes, [O, ...ROUTES.map((r) => `${O}/${r}`)].sort())
})

t.test('without the connect service', async (t) => {
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
  t.equal(await option(h, 'builder_one_connection'), undefined, 'nothing stored')
})

t.test('with the connect service and the feed', async (t) => {
  const service = await standIn()
  const feed = await standIn()
  t.teardown(service.close)
  t.teardown(feed.close)
  const h = await app({
    CMS_UPSTREAM_BUILDER_ONE_URL: service.url,
    CMS_UPSTREAM_BUILDER_ONE_TOKEN: 'svc-token',
    CMS_UPSTREAM_BUILDER_ONE_NOTIFICATIONS_URL: feed.url
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

  t.test('disconnect: the migrated plugins rolled back, the session forgotten', async (t) => {
    await h.store.execute('insert into options (name, value) values (\'builder_one_migrated_plugins\', \'["mailer"]\') on conflict (name) do update set value = excluded.value')
    service.answers['/api/disconnect'] = { status: 200, body: {} }
    const out = await h.call('POST', `${O}/connect/disconnect`, { as: admin })
    t.same([out.status, out.body], [200, { success: true, data: [] }])
    t.same(service.received.at(-1), { method: 'POST', path: '/api/disconnect', auth: 'Bearer svc-token', body: { client_id: 'client-2', access_token: 'access-t0ken' } })
    t.same(await option(h, 'builder_one_migrated_plugins'), [], 'disconnecting rolls the migrated plugins back')
    t.equal(await option(h, 'builder_one_connection'), undefined, 'the session forgotten')
    const noClient = await h.call('POST', `${O}/connect/switch-domain`, { as: admin })
    t.same([noClient.status, noClient.body.code, noClient.body.message], [400, 'bad_request', 'Client ID not found'])
    const deact = await h.call('POST', `${O}/connect/deactivate`, { as: admin })
    t.same([deact.status, deact.body.code], [400, 'bad_request'])
    t.equal((await h.call('POST', `${O}/connect/disconnect`, { as: admin })).status, 200, 'not connected: nothing to tell the service')
  })

  t.test('settings: camelCase in, snake_case stored, unknown keys ignored', async (t) => {
    t.same((await h.call('GET', `${O}/settings`, { as: admin })).body, { onboardingCompleted: false, shareUsageData: false, migratedPlugins: [] })
    const res = await h.call('PATCH', `${O}/settings`, { as: admin, body: { onboardingCompleted: true, somethingElse: 1, migratedPlugins: ['mailer'] } })
    t.same([res.status, res.body], [200, { onboardingCompleted: true, shareUsageData: false, migratedPlugins: [] }])
    t.equal(await option(h, 'builder_one_onboarding_completed'), true)
    t.equal(await option(h, 'builder_one_something_else'), undefined)
    const bad = await h.call('POST', `${O}/settings`, { as: admin, body: { shareUsageData: true, onboardingCompleted: 'yes' } })
    t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'])
    t.equal(await option(h, 'builder_one_share_usage_data'), undefined, 'one bad value writes nothing')
    t.same((await h.call('PUT', `${O}/settings`, { as: admin, body: { shareUsageData: true } })).body.shareUsageData, true)
    t.equal((await h.call('GET', `${O}/settings`, { as: editor })).status, 403)
    t.equal((await h.call('GET', `${O}/settings`)).status, 401)
  })
})
