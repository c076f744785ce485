/**
 * The extension API as a package author uses it, through HTTP: a package
 * written in this test (`demo-api`) declares an option with a schema and a
 * user meta key, and the gateway composes it with the core.
 */
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { definePackage, type PackageApi } from '@cms/core'
import { denied, endpoint, kernelErrors, route, type RestRequest } from '@cms/rest'
import { openTestStore } from '@cms/store/testing'
import type { Store } from '@cms/store'
import { buildApp } from '../src/app.js'
import { loadSettings } from '../src/settings.js'
import { profiles } from '../src/profiles.js'
import { BASE } from './helpers.js'
import { createCaller, type TestCaller } from './harness/app.js'

const NS = 'demo-api/v1'

/** The package under test: what a package author writes. */
function demoPackage (seen: { api?: PackageApi }) {
  return definePackage({
    name: '@cms/demo-api',
    dependencies: ['@cms/core'],
    namespaces: [NS],
    register (api) {
      seen.api = api
      const limits = api.option('demo_limits', Type.Object({ max: Type.Integer({ minimum: 1, maximum: 100 }), label: Type.String({ maxLength: 20 }) }, { additionalProperties: false }), {
        default: { max: 10, label: 'ten' },
        description: 'Limits of the demo package.'
      })
      const manage = (req: RestRequest) => req.user.can('manage_options') ? true : denied(kernelErrors.rest_forbidden(), req.user.id)
      api.namespace(NS, () => [route({
        namespace: NS,
        path: `/${NS}/limits`,
        endpoints: [
          endpoint({ methods: ['GET'], args: {}, summary: 'Read the limits', permission: manage, handler: async () => await limits.get() }),
          endpoint({ methods: ['POST'], args: {}, summary: 'Change the limits', permission: manage, handler: async (req) => await limits.set(req.params.limits) })
        ]
      })])
      const ADMINS = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: 'allowed' } as const
      api.permissionCases({
        'GET /demo-api/v1/limits': { why: 'manage_options', ...ADMINS },
        'POST /demo-api/v1/limits': { why: 'manage_options', ...ADMINS, probe: { body: { limits: { max: 5, label: 'five' } } } }
      })
    }
  })
}

async function composed (store: Store, seen: { api?: PackageApi } = {}) {
  const settings = loadSettings({ CMS_BASE_URL: BASE, LOG_LEVEL: 'silent', CMS_DATA_DIR: '/nonexistent-not-used' })
  const profile = { name: 'A', namespaces: [...profiles.A!.namespaces, NS] }
  const app = await buildApp(settings, { store, logger: false, jobs: false, packages: [demoPackage(seen)], profile })
  await app.ready()
  const call = async (method: string, path: string, as?: TestCaller, body?: unknown) => {
    const res = await app.inject({
      method: method as 'GET',
      url: `/cms-json${path}`,
      headers: { ...as?.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) })
    })
    return { status: res.statusCode, body: res.body === '' ? null : JSON.parse(res.body) }
  }
  return { app, call }
}

t.test('a package\'s options: schema, default, validated writes through its handle', async (t) => {
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  const seen: { api?: PackageApi } = {}
  const { app, call } = await composed(store, seen)
  t.teardown(() => app.close())
  const admin = await createCaller(store, 'administrator', 'opt')

  t.same((await call('GET', `/${NS}/limits`, admin)).body, { max: 10, label: 'ten' }, 'the default')
  const set = await call('POST', `/${NS}/limits`, admin, { limits: { max: 42, label: 'answer' } })
  t.same([set.status, set.body], [200, { max: 42, label: 'answer' }])
  t.same((await call('GET', `/${NS}/limits`, admin)).body, { max: 42, label: 'answer' }, 'stored')
  for (const bad of [{ max: 0, label: 'x' }, { max: 5 }, { max: 5, label: 'x', extra: 1 }, 'text', null, { max: 5, label: 'x'.repeat(21) }]) {
    const res = await call('POST', `/${NS}/limits`, admin, { limits: bad })
    t.same([res.status, res.body.code], [400, 'rest_invalid_param'], JSON.stringify(bad))
    t.match(res.body.data.params.demo_limits, /^Invalid value for option demo_limits/)
  }
  t.same((await call('GET', `/${NS}/limits`, admin)).body, { max: 42, label: 'answer' }, 'a refused value writes nothing')

  // A value stored by an older version that the schema no longer accepts reads as the default.
  await store.execute("update options set value = '{\"max\": 500, \"label\": \"old\"}'::jsonb where name = 'demo_limits'")
  t.same((await call('GET', `/${NS}/limits`, admin)).body, { max: 10, label: 'ten' })

  const api = seen.api!
  t.throws(() => api.option('demo_limits', Type.String(), { default: '' }), /declared by @cms\/demo-api and @cms\/demo-api/, 'an option is declared once')
  t.throws(() => api.option('posts_per_page', Type.Integer(), { default: 10 }), /the core's/, "the core's options are not a package's")
  t.throws(() => api.option('demo_bad', Type.Integer({ minimum: 1 }), { default: 0 }), /default of option demo_bad does not fit/)
  t.throws(() => api.option('Demo-Name', Type.Integer(), { default: 1 }), /lowercase/)
})

t.test('without user meta registered, cms/v2 users answer as before (no meta field)', async (t) => {
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  const settings = loadSettings({ CMS_BASE_URL: BASE, LOG_LEVEL: 'silent', CMS_DATA_DIR: '/nonexistent-not-used' })
  const app = await buildApp(settings, { store, logger: false, jobs: false })
  t.teardown(() => app.close())
  const author = await createCaller(store, 'author', 'nm')
  const res = await app.inject({ method: 'GET', url: '/cms-json/cms/v2/users/me?context=edit', headers: author.headers })
  t.equal('meta' in JSON.parse(res.body), false)
})

t.test('content read functions: the list route\'s filters, a post with meta and terms, user meta', async (t) => {
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  const seen: { api?: PackageApi } = {}
  const { app, call } = await composed(store, seen)
  t.teardown(() => app.close())
  const admin = await createCaller(store, 'administrator', 'cr')
  const author = await createCaller(store, 'author', 'cr')
  const cat = (await call('POST', '/cms/v2/categories', admin, { name: 'News' })).body.id as number
  const news = (await call('POST', '/cms/v2/posts', author, { title: 'Apples in the news', status: 'publish', categories: [cat], meta: { footnotes: '' } })).body.id as number
  const other = (await call('POST', '/cms/v2/posts', admin, { title: 'Pears', status: 'publish' })).body.id as number
  const draft = (await call('POST', '/cms/v2/posts', author, { title: 'Apples draft', status: 'draft' })).body.id as number
  await call('POST', '/cms/v2/users/me', author, { first_name: 'Ada' })
  const content = seen.api!.content

  const ids = async (q: Parameters<typeof content.posts>[0]): Promise<number[]> => (await content.posts(q)).posts.map((p) => p.id)
  t.same(await ids({}), [other, news], 'published posts, newest first (as GET /posts)')
  t.same(await ids({ categories: [cat] }), [news])
  t.same(await ids({ search: 'apples' }), [news])
  t.same(await ids({ search: 'apples', status: ['publish', 'draft'], orderby: 'id', order: 'asc' }), [news, draft])
  t.same(await ids({ author: [author.id], status: ['draft'] }), [draft])
  t.same(await ids({ perPage: 1, page: 2 }), [news])
  t.equal((await content.posts({ perPage: 1 })).total, 2)
  const listed = await call('GET', '/cms/v2/posts', undefined)
  t.same(listed.body.map((p: { id: number }) => p.id), await ids({}), 'the same answer as the list route')

  const one = await content.post(news)
  t.equal(one?.post.title, 'Apples in the news')
  t.same(one?.terms.category.map((c) => c.id), [cat])
  t.same(await content.post(999999), undefined)
  t.same(await content.userMeta(author.id, ['first_name']), { first_name: 'Ada' })
})
