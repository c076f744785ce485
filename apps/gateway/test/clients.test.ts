/**
 * Two real clients against a real port: `wpapi` discovers the API from the
 * site (Link header, then the index, whose routes and path variables it
 * turns into methods) and `@wordpress/api-fetch` calls routes by path. Both
 * read types, settings and search, and write settings.
 *
 * test-all: alone (it adds middleware to `@wordpress/api-fetch`'s one chain for the whole process, as a page
 * does: in a batch, an earlier file's root URL, a closed port, stays first in the chain).
 */
import t from 'tap'
import { createRequire } from 'node:module'
import apiFetchModule, { type APIFetchOptions, type APIFetchMiddleware } from '@wordpress/api-fetch'
import { createCaller, type TestUser } from '@cms/core/testing'
import { gatewayApp, listenLoopback } from './helpers.js'

const require = createRequire(import.meta.url)
// The package's types describe it as CommonJS; loaded as ESM its default export is the function.
const apiFetch = apiFetchModule as unknown as typeof apiFetchModule.default

/** The part of wpapi this test uses (the package has no type declarations). */
interface WpRequest extends PromiseLike<any> {
  auth: (credentials: { username: string, password: string }) => WpRequest
  param: (name: string, value: unknown) => WpRequest
  search: (term: string) => WpRequest
  type: (slug: string) => WpRequest
  taxonomy: (slug: string) => WpRequest
  perPage: (n: number) => WpRequest
  embed: () => WpRequest
  get: () => Promise<any>
  update: (data: Record<string, unknown>) => Promise<any>
  [resource: string]: any
}
interface WpSite { namespace: (ns: string) => Record<string, () => WpRequest> }
interface WpApi { discover: (url: string) => Promise<WpSite> }

const WPAPI = require('wpapi') as WpApi
// The service names its discovery relation neutrally (CONVENTIONS §1:
// `https://api.cms.invalid/`); wpapi looks for the real product's. Its
// header lookup is pointed at ours; the rest of the discovery is wpapi's own.
const autodiscovery = require('wpapi/lib/autodiscovery') as { locateAPIRootHeader: (response: unknown) => string }
autodiscovery.locateAPIRootHeader = (response: any) => {
  const link = String(response.link ?? response.headers?.link ?? '')
  const found = /<([^>]+)>;\s*rel="https:\/\/api\.cms\.invalid\/"/.exec(link)?.[1]
  if (found === undefined) throw new Error('no Link header with rel="https://api.cms.invalid/"')
  return found
}

t.test('wpapi and api-fetch read types, settings and search', async (t) => {
  // Links are built from each request (no fixed base URL): the clients follow them to this port.
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', CMS_BASE_URL: '' } })
  t.teardown(h.close)
  const base = await listenLoopback(h.app)
  const admin = await createCaller(h.store, 'administrator', { login: 'client-admin' })
  const other = await createCaller(h.store, 'author', { login: 'client-author' })

  const post = async (as: TestUser, route: string, body: Record<string, unknown>): Promise<any> => {
    const res = await fetch(`${base}/index.php?rest_route=${route}`, { method: 'POST', headers: { ...as.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    t.equal(res.status, 201, `created ${route}`)
    return await res.json()
  }
  const zebraPost = await post(admin, '/cms/v2/posts', { title: 'Zebra post', status: 'publish' })
  const zebraPage = await post(admin, '/cms/v2/pages', { title: 'Zebra page', status: 'publish' })
  const draft = await post(other, '/cms/v2/posts', { title: 'Zebra draft', status: 'draft' })

  t.test('the front page points at the API', async (t) => {
    for (const url of [`${base}/`, `${base}/index.php?p=1`]) {
      const res = await fetch(url)
      t.equal(res.status, 200)
      t.equal(res.headers.get('link'), `<${base}/index.php?rest_route=/>; rel="https://api.cms.invalid/"`)
      t.match(await res.text(), `<link rel="https://api.cms.invalid/" href="${base}/index.php?rest_route=/">`)
    }
    // A person opening the base URL finds the reference and the health routes from there.
    const page = await (await fetch(`${base}/`)).text()
    for (const path of ['/docs/', '/healthz', '/readyz']) {
      t.match(page, `<a href="${base}${path}">`, `the front page links ${path}`)
      t.equal((await fetch(`${base}${path}`)).status, 200, `${path} answers`)
    }
    const empty = await fetch(`${base}/?rest_route=`)
    t.equal(empty.status, 404, 'an empty rest_route stays a REST answer')
    t.equal(((await empty.json()) as { code: string }).code, 'rest_no_route')
  })

  t.test('wpapi: autodiscovery, then types, settings and search', async (t) => {
    const site = await WPAPI.discover(base)
    const cms = site.namespace('cms/v2')
    for (const resource of ['types', 'statuses', 'taxonomies', 'settings', 'search']) {
      t.equal(typeof cms[resource], 'function', `the index gave wpapi a ${resource}() method`)
    }
    const types = await cms.types!()
    t.same(Object.keys(types), ['post', 'page', 'attachment', 'builder_library'], 'the media routes register attachment, the builder its library type')
    const postType = await cms.types!().type('post')
    t.equal(postType.rest_base, 'posts', 'the path variable of /types/{type}')
    const taxonomy = await cms.taxonomies!().taxonomy('category')
    t.equal(taxonomy.slug, 'category')

    const settings = await cms.settings!().auth({ username: admin.login, password: admin.password })
    t.equal(settings.title, 'My CMS Site')
    const updated = await cms.settings!().auth({ username: admin.login, password: admin.password }).update({ title: 'Set by wpapi', posts_per_page: 7 })
    t.equal(updated.title, 'Set by wpapi')
    t.equal(updated.posts_per_page, 7)
    await t.rejects(cms.settings!().get(), { code: 'rest_forbidden' }, 'anonymous: refused')

    const found = await cms.search!().search('zebra').auth({ username: admin.login, password: admin.password })
    t.same(found.map((r: any) => r.id).sort(), [zebraPost.id, zebraPage.id].sort(), 'posts and pages found, no draft')
    t.notOk(found.some((r: any) => r.id === draft.id))
  })

  t.test('api-fetch: types, settings and search by path', async (t) => {
    apiFetch.use(apiFetch.createRootURLMiddleware(`${base}/index.php?rest_route=/`))
    apiFetch.use((options: APIFetchOptions, next: Parameters<APIFetchMiddleware>[1]) => next({ ...options, headers: { ...options.headers, ...admin.headers } }))

    const postType = await apiFetch<Record<string, any>>({ path: '/cms/v2/types/post?context=edit' })
    t.equal(postType.capabilities.edit_posts, 'edit_posts', 'edit context as an administrator')
    const statuses = await apiFetch<Record<string, any>>({ path: '/cms/v2/statuses' })
    t.ok(statuses.draft !== undefined && statuses.publish !== undefined)

    const settings = await apiFetch<Record<string, any>>({ path: '/cms/v2/settings' })
    t.equal(settings.title, 'Set by wpapi', 'what wpapi wrote')
    const saved = await apiFetch<Record<string, any>>({ path: '/cms/v2/settings', method: 'POST', data: { description: 'Set by api-fetch' } })
    t.equal(saved.description, 'Set by api-fetch')
    const refused = await apiFetch({ path: '/cms/v2/settings', method: 'POST', data: { posts_per_page: 'lots', description: 'Not written' } }).catch((e: unknown) => e)
    t.match(refused, { code: 'rest_invalid_param', data: { status: 400 } })
    t.equal((await apiFetch<Record<string, any>>({ path: '/cms/v2/settings' })).description, 'Set by api-fetch', 'nothing written')

    const res = await apiFetch<Response, false>({ path: '/cms/v2/search?search=zebra&subtype=page&_embed=1', parse: false })
    t.equal(res.headers.get('x-cms-total'), '1')
    const found = await res.json() as any[]
    t.same(found.map((r) => r.id), [zebraPage.id])
    t.equal(found[0]._embedded.self[0].title.rendered, 'Zebra page', 'the found page embedded')
  })
})
