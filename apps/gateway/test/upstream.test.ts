/**
 * Upstream settings through the gateway: `CMS_UPSTREAM_<NAME>_*` are read
 * and checked at start, and a package route that needs its upstream reaches
 * the server this test starts on loopback (the builder's nps-survey rating).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'
import { loadSettings } from '../src/settings.js'
import { gatewayApp } from './helpers.js'

t.test('upstream settings are checked at start', async (t) => {
  // The one-line form of every setting error (SettingError): the setting, the value, what is allowed.
  t.throws(() => loadSettings({ CMS_UPSTREAM_NPS_SURVEY_TOKEN: 'x' }), { name: 'SettingError', message: "CMS_UPSTREAM_NPS_SURVEY_URL must be set when CMS_UPSTREAM_NPS_SURVEY_TOKEN is (the outside service's base URL)" })
  t.throws(() => loadSettings({ CMS_UPSTREAM_NPS_SURVEY_URL: 'file:///etc/passwd' }), { name: 'SettingError', message: 'CMS_UPSTREAM_NPS_SURVEY_URL must be an absolute http(s) base URL such as https://service.example/api/, got "file:///etc/passwd"' })
  t.throws(() => loadSettings({ CMS_UPSTREAM_NPS_SURVEY_URL: 'https://metrics.example/', CMS_UPSTREAM_NPS_SURVEY_TIMEOUT_MS: 'soon' }), { name: 'SettingError', message: 'CMS_UPSTREAM_NPS_SURVEY_TIMEOUT_MS must be an integer from 100 to 600000 (milliseconds), got "soon"' })
  t.throws(() => loadSettings({ CMS_UPSTREAM_NPS_SURVEY_HOST: 'x' }), { name: 'SettingError', message: /^CMS_UPSTREAM_NPS_SURVEY_HOST must be an upstream setting/ })
  t.same(loadSettings({ CMS_UPSTREAM_NPS_SURVEY_URL: 'https://metrics.example/nps' }).upstreams, { NPS_SURVEY: { url: 'https://metrics.example/nps/', timeoutMs: 10000 } })
})

t.test('a package route reaches its configured upstream through the gateway', async (t) => {
  const received: unknown[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString('utf8') })
    req.on('end', () => {
      received.push({ path: req.url, auth: req.headers.authorization, body: JSON.parse(body) })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.close() })
  const port = (server.address() as AddressInfo).port
  const { app, close } = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', CMS_UPSTREAM_NPS_SURVEY_URL: `http://127.0.0.1:${port}/nps`, CMS_UPSTREAM_NPS_SURVEY_TOKEN: 'tk' } })
  t.teardown(close)
  const store = app.platform.services.store
  const admin = await createCaller(store, 'administrator', { login: 'upstream-admin' })
  const res = await call(app, 'POST', '/nps-survey/v1/rating', { as: admin, body: { plugin_slug: 'hdrftr', rating: 8 } })
  t.equal(res.status, 200, res.text)
  t.same(received, [{ path: '/nps/', auth: 'Bearer tk', body: { rating: 8, comment: '', email: 'upstream-admin@example.com', first_name: '', last_name: '', source: 'hdrftr', plugin_slug: 'hdrftr' } }])
})
