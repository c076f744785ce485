/**
 * What the gateway adds around the kernel: health, OpenAPI, settings, and
 * namespaces served by another service.
 */
import t from 'tap'
import { migrationsApplied } from '@cms/store/testing'
import { gatewayApp, getJson, listenLoopback } from './helpers.js'
import { loadSettings } from '../src/settings.js'

t.test('health and readiness', async (t) => {
  const { app, store, close } = await gatewayApp()
  t.teardown(close)
  // The test app's database is a copy of the migrated template of its sets (@cms/store/testing).
  t.equal(migrationsApplied(store), 0, 'a test app starts from a migrated template: its migrator applied nothing')
  t.equal((await store.execute<{ n: number }>('select count(*)::int as n from terms where id = 1'))[0]!.n, 1, 'yet its tables, and the rows the migrations write (the default category), are there')
  t.same((await getJson(app, '/healthz')).body, { status: 'ok' })
  const ready = await getJson(app, '/readyz')
  t.equal(ready.status, 200)
  t.equal(ready.body.status, 'ready')
})

for (const deployment of ['A', 'B']) {
  t.test(`OpenAPI document and reference page of profile ${deployment}`, async (t) => {
    const { app, close } = await gatewayApp({ env: { CMS_DEPLOYMENT: deployment } })
    t.teardown(close)
    const doc = await getJson(app, '/openapi.json')
    t.equal(doc.status, 200)
    t.equal(doc.body.openapi, '3.1.0')
    t.match(doc.body.info.title, `deployment ${deployment}`)
    for (const decl of app.restRoutes) {
      const path = `/cms-json${decl.path === '/' ? '/' : decl.path}`
      const op = doc.body.paths[path]
      t.ok(op, `OpenAPI has ${path}`)
      for (const method of decl.endpoints.flatMap((e) => e.methods)) t.ok(op?.[method.toLowerCase()], `${method} ${path}`)
    }
    t.same(Object.keys(doc.body.paths).filter((p) => !p.startsWith('/cms-json')), [], 'only REST routes are documented')
    t.notOk(doc.body.paths['/healthz'], 'operational routes are not documented')
    const page = await app.inject({ method: 'GET', url: '/docs/' })
    t.equal(page.statusCode, 200)
    t.match(page.headers['content-type'], 'text/html')
  })
}

t.test('a namespace served by another service is proxied with the caller credentials', async (t) => {
  const { app: service, close: closeService } = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B', CMS_NAMESPACES: 'seo/v1' } })
  t.teardown(closeService)
  const serviceUrl = await listenLoopback(service)

  const { app: gateway, close: closeGateway } = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B', CMS_REMOTE_NAMESPACES: `seo/v1=${serviceUrl}` } })
  t.teardown(closeGateway)
  const direct = await getJson(service, '/index.php?rest_route=/seo/v1')
  const proxied = await getJson(gateway, '/index.php?rest_route=/seo/v1')
  t.equal(proxied.status, 200)
  t.equal(proxied.body.namespace, 'seo/v1')
  t.same(Object.keys(proxied.body.routes), Object.keys(direct.body.routes), 'the remote service answered')
  const index = await getJson(gateway, '/index.php?rest_route=/')
  t.ok(index.body.namespaces.includes('seo/v1'), 'the gateway index still lists the remote namespace')
  const missing = await getJson(gateway, '/index.php?rest_route=/seo/v1/nothing-here')
  t.equal(missing.status, 404)
})

t.test('settings are validated at start', async (t) => {
  t.throws(() => loadSettings({ CMS_DEPLOYMENT: 'C' }), 'unknown profile')
  t.throws(() => loadSettings({ PORT: 'eighty' }), 'port must be a number')
  t.throws(() => loadSettings({ CMS_REMOTE_NAMESPACES: 'seo/v1=ftp://x' }), 'remote must be http(s)')
  t.throws(() => loadSettings({ CMS_BASE_URL: 'not a url' }), 'base URL must be absolute')
  const ok = loadSettings({ CMS_DEPLOYMENT: 'B', CMS_NAMESPACES: 'seo/v1, cms/v2', PORT: '9000', CMS_CORS_ORIGINS: 'https://a.example,https://b.example' })
  t.equal(ok.deployment, 'B')
  t.same(ok.namespaces, ['seo/v1', 'cms/v2'])
  t.equal(ok.port, 9000)
  t.same(ok.corsOrigins, ['https://a.example', 'https://b.example'])
  await t.rejects(gatewayApp({ env: { CMS_DEPLOYMENT: 'A', CMS_NAMESPACES: 'seo/v1' } }), /does not expose/)
})
