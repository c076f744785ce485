import t from 'tap'
import { BASE, getJson, manifest, testApp } from './helpers.js'

for (const deployment of ['A', 'B'] as const) {
  t.test(`GET / describes the site for deployment ${deployment}`, async (t) => {
    const app = await testApp({ CMS_DEPLOYMENT: deployment })
    t.teardown(() => app.close())
    const res = await getJson(app, '/index.php?rest_route=/')
    t.equal(res.status, 200)
    const body = res.body
    t.same(Object.keys(body), [
      'name', 'description', 'url', 'home', 'gmt_offset', 'timezone_string', 'page_for_posts',
      'page_on_front', 'show_on_front', 'namespaces', 'authentication', 'routes', 'site_logo',
      'site_icon', 'site_icon_url', '_links'
    ], 'fields in the core order')
    t.equal(typeof body.name, 'string')
    t.equal(typeof body.description, 'string')
    t.equal(body.url, BASE)
    t.equal(body.home, BASE)
    t.equal(body.gmt_offset, '0')
    t.equal(body.timezone_string, 'UTC')
    t.equal(body.page_for_posts, 0)
    t.equal(body.page_on_front, 0)
    t.equal(body.show_on_front, 'posts')
    t.same(body.namespaces, manifest.deployments[deployment]!.namespaces, 'namespaces of the profile')
    t.same(body.authentication, {
      'application-passwords': { endpoints: { authorization: `${BASE}/cms-admin/authorize-application.php` } }
    })
    t.same(body.routes['/'], {
      namespace: '',
      methods: ['GET'],
      endpoints: [{ methods: ['GET'], args: { context: { default: 'view', required: false } } }],
      _links: { self: [{ href: `${BASE}/index.php?rest_route=/` }] }
    }, 'the index route itself, as the core shows it')
    for (const ns of body.namespaces) {
      t.ok(body.routes[`/${ns}`], `root route of ${ns}`)
      const root = await getJson(app, `/index.php?rest_route=/${ns}`)
      t.equal(root.status, 200, `GET /${ns}`)
      t.equal(root.body.namespace, ns)
      t.same(root.body._links, { up: [{ href: `${BASE}/index.php?rest_route=/` }] })
    }
    t.match(res.headers.link, `<${BASE}/index.php?rest_route=/>; rel="https://api.cms.invalid/"`)
  })
}

t.test('a namespace root answers for another namespace, and 404 for an unknown one', async (t) => {
  const app = await testApp()
  t.teardown(() => app.close())
  const other = await getJson(app, '/index.php?rest_route=/cms/v2&namespace=oembed/1.0')
  t.equal(other.body.namespace, 'oembed/1.0')
  const unknown = await getJson(app, '/index.php?rest_route=/cms/v2&namespace=nope/v1')
  t.equal(unknown.status, 404)
  t.same(unknown.body, { code: 'rest_invalid_namespace', message: 'The specified namespace could not be found.', data: { status: 404 } })
})

t.test('CMS_NAMESPACES serves a subset of the profile', async (t) => {
  const app = await testApp({ CMS_DEPLOYMENT: 'B', CMS_NAMESPACES: 'seo/v1,cms/v2' })
  t.teardown(() => app.close())
  const res = await getJson(app, '/index.php?rest_route=/')
  t.same(res.body.namespaces, ['cms/v2', 'seo/v1'])
  t.equal((await getJson(app, '/index.php?rest_route=/hdrftr/v1')).status, 404)
})
