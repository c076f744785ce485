import t from 'tap'
import { BASE, gatewayApp, getJson, manifest } from './helpers.js'

for (const deployment of ['A', 'B'] as const) {
  t.test(`GET / describes the site for deployment ${deployment}`, async (t) => {
    const { app, close } = await gatewayApp({ env: { CMS_DEPLOYMENT: deployment } })
    t.teardown(close)
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
    // The reference's namespaces in its order; a profile's file may add namespaces of its own.
    const reference = manifest.deployments[deployment]!.namespaces
    t.same(body.namespaces.filter((ns: string) => reference.includes(ns)), reference, 'namespaces of the profile')
    t.same(body.authentication, {
      'application-passwords': { endpoints: { authorization: `${BASE}/cms-admin/authorize-application.php` } }
    })
    t.same(body.routes['/'], {
      namespace: '',
      methods: ['GET'],
      endpoints: [{ methods: ['GET'], args: { context: { default: 'view', required: false } } }],
      _links: { self: [{ href: `${BASE}/index.php?rest_route=/` }] }
    }, 'the index route itself, as the core shows it')

    // Path variables are listed in each endpoint's args, first, as the core's route-level args are.
    const item = body.routes['/cms/v2/posts/(?P<id>[\\d]+)']
    t.same(item.endpoints.map((e: any) => e.methods), [['GET'], ['POST', 'PUT', 'PATCH'], ['DELETE']])
    for (const ep of item.endpoints) {
      t.same(ep.args.id, { description: 'Unique identifier for the post.', type: 'integer', required: false }, `post item ${ep.methods[0]}: id`)
      t.equal(Object.keys(ep.args)[0], 'id', `post item ${ep.methods[0]}: id first`)
    }
    t.same(Object.keys(item.endpoints[0].args), ['id', 'context', 'excerpt_length', 'password'])
    // An attachment is a post: its id is described the same way (it had no description).
    for (const ep of body.routes['/cms/v2/media/(?P<id>[\\d]+)'].endpoints) {
      t.same(ep.args.id, { description: 'Unique identifier for the post.', type: 'integer', required: false }, `media item ${ep.methods[0]}: id`)
    }
    t.same(Object.keys(item.endpoints[2].args), ['id', 'force'])
    const parent = { description: 'The ID for the parent of the revision.', type: 'integer', required: false }
    t.same(body.routes['/cms/v2/posts/(?P<parent>[\\d]+)/revisions'].endpoints[0].args.parent, parent, 'revisions: parent')
    const revision = body.routes['/cms/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)']
    for (const ep of revision.endpoints) {
      t.same(Object.keys(ep.args).slice(0, 2), ['parent', 'id'], `revision ${ep.methods[0]}: parent and id first`)
      t.same(ep.args.id, { description: 'Unique identifier for the revision.', type: 'integer', required: false })
    }
    t.same(body.routes['/cms/v2/posts/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)'].endpoints[0].args.parent,
      { description: 'The ID for the parent of the autosave.', type: 'integer', required: false }, 'autosave: parent')
    let withVariables = 0
    for (const [pattern, entry] of Object.entries<any>(body.routes)) {
      const vars = [...pattern.matchAll(/\(\?P<(\w+)>/g)].map((m) => m[1]!)
      if (vars.length === 0) continue
      withVariables++
      for (const ep of entry.endpoints) {
        for (const v of vars) {
          t.ok(!Array.isArray(ep.args) && ep.args[v] !== undefined, `${pattern} ${ep.methods.join(',')}: ${v} listed`)
          t.ok(typeof ep.args[v]?.type === 'string', `${pattern} ${ep.methods.join(',')}: ${v} has a type`)
        }
      }
    }
    t.ok(withVariables >= 10, `${withVariables} routes with path variables`)
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
  const { app, close } = await gatewayApp()
  t.teardown(close)
  const other = await getJson(app, '/index.php?rest_route=/cms/v2&namespace=oembed/1.0')
  t.equal(other.body.namespace, 'oembed/1.0')
  const unknown = await getJson(app, '/index.php?rest_route=/cms/v2&namespace=nope/v1')
  t.equal(unknown.status, 404)
  t.same(unknown.body, { code: 'rest_invalid_namespace', message: 'The specified namespace could not be found.', data: { status: 404 } })
})

t.test('CMS_NAMESPACES serves a subset of the profile', async (t) => {
  const { app, close } = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B', CMS_NAMESPACES: 'seo/v1,cms/v2' } })
  t.teardown(close)
  const res = await getJson(app, '/index.php?rest_route=/')
  t.same(res.body.namespaces, ['cms/v2', 'seo/v1'])
  t.equal((await getJson(app, '/index.php?rest_route=/hdrftr/v1')).status, 404)
})
