/**
 * assistant/v1 dev mode through HTTP (seo-rollback-assistant-addons.md
 * §3.4): the HttpOnly cookie bound to the user and the client's address
 * by an HMAC under a stored key, its year, Secure under https, status
 * true only for its user from its address, renewed when checked.
 */
import t from 'tap'
import { builderPackage } from '@cms/builder'
import { testApp } from '@cms/testing'
import { assistantPackage } from '../src/index.js'

const S = '/assistant/v1'

t.test('dev mode', async (t) => {
  const h = await testApp({ packages: [builderPackage, assistantPackage], namespaces: ['cms/v2', 'assistant/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const admin2 = await h.caller('administrator')
  const editor = await h.caller('editor')

  const on = await h.call('POST', `${S}/dev-mode`, { as: admin, body: { enabled: true } })
  t.match(on.body, { success: true, message: 'Test mode enabled.', enabled: true })
  t.ok(on.body.expiry - Date.now() / 1000 > 364 * 86400, 'a year')
  const setCookie = String(on.headers['set-cookie'])
  t.match(setCookie, /^assistant_snippet_dev_mode=[^;]+; Path=\/; Max-Age=31536000; Expires=[^;]+; HttpOnly; SameSite=Lax$/)
  t.notMatch(setCookie, /Secure/, 'not Secure over plain http')
  t.notMatch(setCookie, /127\.0\.0\.1/, 'the address is hashed')
  const cookie = setCookie.split(';')[0]!

  t.same((await h.call('GET', `${S}/dev-mode/status`, { as: admin })).body, { enabled: false }, 'no cookie: off')
  const status = await h.call('GET', `${S}/dev-mode/status`, { as: admin, headers: { cookie } })
  t.same(status.body, { enabled: true })
  t.match(String(status.headers['set-cookie']), /^assistant_snippet_dev_mode=.*Max-Age=31536000/, 'a valid check renews the cookie')
  t.same((await h.call('GET', `${S}/dev-mode/status`, { as: admin2, headers: { cookie } })).body, { enabled: false }, 'another user: off')
  t.same((await h.call('GET', `${S}/dev-mode/status`, { as: admin, headers: { cookie, 'x-forwarded-for': '203.0.113.9' } })).body.enabled, true, 'an untrusted X-Forwarded-For does not change the address')
  const [name, value] = cookie.split('=') as [string, string]
  const parts = value.split('.')
  const tampered = `${name}=${[parts[0], parts[1], String(Number(parts[2]) + 1), parts[3]].join('.')}`
  t.same((await h.call('GET', `${S}/dev-mode/status`, { as: admin, headers: { cookie: tampered } })).body, { enabled: false }, 'a changed expiry breaks the HMAC')
  const otherIp = `${name}=${[parts[0], 'a'.repeat(64), parts[2], parts[3]].join('.')}`
  t.same((await h.call('GET', `${S}/dev-mode/status`, { as: admin, headers: { cookie: otherIp } })).body, { enabled: false }, 'another address: off')

  const off = await h.call('POST', `${S}/dev-mode`, { as: admin, body: { enabled: false }, headers: { cookie } })
  t.same(off.body, { success: true, message: 'Test mode disabled.', enabled: false })
  t.match(String(off.headers['set-cookie']), /^assistant_snippet_dev_mode=; Path=\/; Max-Age=0/)

  const secure = await h.call('POST', `${S}/dev-mode`, { as: admin, body: { enabled: true }, headers: { 'x-forwarded-proto': 'https' } })
  t.equal(secure.status, 200)
  const key = await h.store.execute<{ value: unknown }>("select value from options where name = 'assistant_dev_mode_key'")
  t.match(String(key[0]?.value), /v1\./, 'the key is sealed at rest')
  const missing = await h.call('POST', `${S}/dev-mode`, { as: admin, body: {} })
  t.same([missing.status, missing.body.code], [400, 'rest_missing_callback_param'])
  t.same([(await h.call('POST', `${S}/dev-mode`, { as: editor, body: { enabled: true } })).status, (await h.call('GET', `${S}/dev-mode/status`)).status], [403, 401])
})
