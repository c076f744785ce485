/**
 * Forwarded headers are believed only from the proxies named in
 * `CMS_TRUSTED_PROXIES`; the `Host` a request names is checked and never
 * reaches stored data; the sign-in throttle keys on the verified address.
 * (The peer address of an injected request is set with `remoteAddress`.)
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { Store } from '@cms/store'
import { createUser } from '@cms/core'
import { createCaller } from '@cms/core/testing'
import { loadSettings } from '../src/settings.js'
import { gatewayApp } from './helpers.js'

/**
 * The `last_ip` of a new account's application password after its first
 * call, from `from` (use is recorded once a day: a new account each time).
 */
async function lastIpAfterCall (app: FastifyInstance, store: Store, from: string, forwardedFor: string): Promise<string> {
  const admin = await createCaller(store, 'administrator')
  const me = await app.inject({ method: 'GET', url: '/cms-json/cms/v2/users/me', remoteAddress: from, headers: { ...admin.headers, 'x-forwarded-for': forwardedFor } })
  if (me.statusCode !== 200) throw new Error(`users/me answered ${me.statusCode}`)
  const list = await app.inject({ method: 'GET', url: '/cms-json/cms/v2/users/me/application-passwords', remoteAddress: '127.0.0.1', headers: { ...admin.headers } })
  return JSON.parse(list.body)[0].last_ip
}

t.test('X-Forwarded-For is ignored without a trusted proxy', async (t) => {
  const { app, store, close } = await gatewayApp()
  t.teardown(close)
  t.equal(await lastIpAfterCall(app, store, '198.51.100.7', '203.0.113.9'), '198.51.100.7', 'last_ip is the peer, not the header')
})

t.test('X-Forwarded-For is honoured from a trusted proxy only', async (t) => {
  const { app, store, close } = await gatewayApp({ env: { CMS_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1' } })
  t.teardown(close)
  t.equal(await lastIpAfterCall(app, store, '10.1.2.3', '203.0.113.9'), '203.0.113.9', 'from a proxy in a trusted range')
  t.equal(await lastIpAfterCall(app, store, '192.0.2.1', '203.0.113.10'), '203.0.113.10', 'from a trusted address')
  t.equal(await lastIpAfterCall(app, store, '198.51.100.7', '203.0.113.11'), '198.51.100.7', 'from anyone else: the peer')
  // A client behind the proxy cannot add addresses of its own choosing in front of the proxy's.
  t.equal(await lastIpAfterCall(app, store, '10.1.2.3', '6.6.6.6, 203.0.113.12'), '203.0.113.12', 'the address the proxy saw')
})

t.test('CMS_TRUSTED_PROXIES and CMS_ALLOWED_HOSTS are validated at start', async (t) => {
  t.throws(() => loadSettings({ CMS_TRUSTED_PROXIES: 'proxy.example' }), /CMS_TRUSTED_PROXIES/)
  t.throws(() => loadSettings({ CMS_TRUSTED_PROXIES: '10.0.0.0/33' }), /CMS_TRUSTED_PROXIES/)
  t.throws(() => loadSettings({ CMS_TRUSTED_PROXIES: '10.0.0.1/x' }), /CMS_TRUSTED_PROXIES/)
  t.throws(() => loadSettings({ CMS_ALLOWED_HOSTS: 'cms.example.com/path' }), /CMS_ALLOWED_HOSTS/)
  const ok = loadSettings({ CMS_TRUSTED_PROXIES: '10.0.0.0/8,fd00::/8, 192.0.2.1,::1', CMS_ALLOWED_HOSTS: 'CMS.example.com,cms.example.com:8443' })
  t.same(ok.trustedProxies, ['10.0.0.0/8', 'fd00::/8', '192.0.2.1', '::1'])
  t.same(ok.allowedHosts, ['cms.example.com', 'cms.example.com:8443'])
  t.same(loadSettings({}).trustedProxies, [], 'none by default')
})

t.test('a forged Host is refused and never echoed', async (t) => {
  const { app, close } = await gatewayApp({ env: { CMS_ALLOWED_HOSTS: 'alias.test' } })
  t.teardown(close)
  for (const host of ['evil.example', 'cms.test.evil.example', 'cms.test:81']) {
    const res = await app.inject({ method: 'GET', url: '/cms-json/', headers: { host } })
    t.equal(res.statusCode, 400, host)
    t.equal(JSON.parse(res.body).code, 'rest_invalid_host')
    t.notMatch(JSON.stringify(res.headers) + res.body, host, 'not echoed')
  }
  for (const host of ['cms.test', 'CMS.test:80', 'alias.test', 'localhost:8080', '127.0.0.1']) {
    const res = await app.inject({ method: 'GET', url: '/cms-json/cms/v2', headers: { host } })
    t.equal(res.statusCode, 200, `${host} is accepted`)
    t.equal(res.headers.link, '<http://cms.test/index.php?rest_route=/>; rel="https://api.cms.invalid/"', 'links use the base URL')
  }
  // Probes call by whatever address reaches the process.
  t.equal((await app.inject({ method: 'GET', url: '/healthz', headers: { host: '10.0.0.5:8080' } })).statusCode, 200)
  // The admin pages are behind the same check.
  t.equal((await app.inject({ method: 'GET', url: '/cms-admin/login', headers: { host: 'evil.example' } })).statusCode, 400)
})

t.test('without a base URL: a malformed Host is refused, a well-formed one shapes links but nothing stored', async (t) => {
  const { app, store, close } = await gatewayApp({ env: { CMS_BASE_URL: '', PORT: '8099' } })
  t.teardown(close)
  const admin = await createCaller(store, 'administrator')
  for (const host of ['evil.example>; rel="x"', 'a b', 'javascript:alert(1)', '"x"']) {
    const res = await app.inject({ method: 'GET', url: '/cms-json/', headers: { host } })
    t.equal(res.statusCode, 400, `refused: ${host}`)
    t.notMatch(JSON.stringify(res.headers) + res.body, host)
  }
  const res = await app.inject({
    method: 'POST',
    url: '/cms-json/cms/v2/posts',
    headers: { host: 'evil.example', ...admin.headers, 'content-type': 'application/json' },
    payload: JSON.stringify({ title: 'Hello', status: 'publish' })
  })
  t.equal(res.statusCode, 201)
  const post = JSON.parse(res.body)
  t.equal(post.guid.raw, `http://127.0.0.1:8099/?p=${post.id}`, 'the guid comes from the settings, not the Host')
  t.match(post.link, /^http:\/\/evil\.example\//, 'links of this answer follow the (well-formed) host it was asked by')
  const again = await app.inject({ method: 'GET', url: `/cms-json/cms/v2/posts/${post.id}?context=edit`, headers: { ...admin.headers } })
  t.equal(JSON.parse(again.body).guid.raw, `http://127.0.0.1:8099/?p=${post.id}`)
  const update = await app.inject({
    method: 'POST',
    url: `/cms-json/cms/v2/posts/${post.id}`,
    headers: { host: 'other.example', ...admin.headers, 'content-type': 'application/json' },
    payload: JSON.stringify({ content: 'changed' })
  })
  t.equal(update.statusCode, 200)
  const revisions = await app.inject({ method: 'GET', url: `/cms-json/cms/v2/posts/${post.id}/revisions?context=edit`, headers: { ...admin.headers } })
  for (const r of JSON.parse(revisions.body)) t.match(r.guid.raw, /^http:\/\/127\.0\.0\.1:8099\//, 'revision guids too')
})

t.test('forwarded host and scheme: ignored from others, checked from a trusted proxy', async (t) => {
  const { app, store, close } = await gatewayApp({ env: { CMS_BASE_URL: '', CMS_TRUSTED_PROXIES: '10.0.0.1' } })
  t.teardown(close)
  const admin = await createCaller(store, 'administrator')
  const untrusted = await app.inject({
    method: 'GET',
    url: '/cms-json/',
    remoteAddress: '198.51.100.7',
    headers: { host: 'cms.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' }
  })
  t.equal(untrusted.statusCode, 200)
  t.equal(untrusted.headers.link, '<http://cms.example/index.php?rest_route=/>; rel="https://api.cms.invalid/"', 'the forwarded headers were ignored')
  const proxied = await app.inject({
    method: 'GET',
    url: '/cms-json/',
    remoteAddress: '10.0.0.1',
    headers: { host: 'backend:8080', 'x-forwarded-host': 'cms.example', 'x-forwarded-proto': 'https' }
  })
  t.equal(proxied.headers.link, '<https://cms.example/index.php?rest_route=/>; rel="https://api.cms.invalid/"', 'the proxy names the public origin')
  const badProto = await app.inject({
    method: 'POST',
    url: '/cms-json/cms/v2/posts',
    remoteAddress: '10.0.0.1',
    headers: { host: 'backend', 'x-forwarded-host': 'cms.example', 'x-forwarded-proto': 'javascript', ...admin.headers, 'content-type': 'application/json' },
    payload: JSON.stringify({ title: 'x', status: 'publish' })
  })
  t.equal(badProto.statusCode, 400, 'a scheme other than http(s) is refused, even from a trusted proxy')
  t.equal(JSON.parse(badProto.body).code, 'rest_invalid_host')
  const count = await app.inject({ method: 'GET', url: '/cms-json/cms/v2/posts?status=any', headers: { ...admin.headers } })
  t.equal(count.headers['x-cms-total'], '0', 'nothing was written')
})

// Failed sign-ins are slowed down on purpose: this test waits about 8 s.
t.test('the sign-in throttle is not bypassed by rotating X-Forwarded-For', async (t) => {
  const { app, store, close } = await gatewayApp()
  t.teardown(close)
  await createUser(store, { login: 'carol', email: 'carol@example.com', roles: ['subscriber'], password: 'carol-secret-pw' })
  const signIn = async (password: string, forwardedFor: string): Promise<number> => {
    const form = await app.inject({ method: 'GET', url: '/cms-admin/login' })
    const nonce = /^cms_signin_nonce=([^;]*)/.exec([form.headers['set-cookie'] ?? []].flat()[0]!)![1]
    const csrf = /name="csrf" value="([^"]*)"/.exec(form.body)![1]!
    const res = await app.inject({
      method: 'POST',
      url: '/cms-admin/login',
      remoteAddress: '198.51.100.7',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `cms_signin_nonce=${nonce}`, 'x-forwarded-for': forwardedFor },
      payload: new URLSearchParams({ csrf, log: 'carol', pwd: password }).toString()
    })
    return res.statusCode
  }
  for (let i = 0; i < 5; i++) t.equal(await signIn(`guess-${i}`, `203.0.113.${i + 1}`), 401)
  t.equal(await signIn('carol-secret-pw', '203.0.113.200'), 429, 'a new forwarded address does not reset the count')
})
