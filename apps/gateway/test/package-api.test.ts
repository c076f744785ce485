/**
 * The extension API as a package author uses it, through HTTP: a package
 * written in this test (`demo-api`) declares an option with a schema and a
 * user meta key, and the gateway composes it with the core.
 */
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { definePackage, type ContributionApi } from '@cms/core'
import { can, endpoint, handlerChecked, route } from '@cms/rest'
import { openTestStore } from '@cms/store/testing'
import type { Store } from '@cms/store'
import { gatewayApp, type GatewayApp } from './helpers.js'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'

const NS = 'demo-api/v1'

/** The package under test: what a package author writes. */
function demoPackage (seen: { api?: ContributionApi }) {
  return definePackage({
    name: '@cms/demo-api',
    dependencies: ['@cms/core'],
    namespaces: [NS],
    contribute (api) {
      seen.api = api
      const limits = api.option('demo_limits', Type.Object({ max: Type.Integer({ minimum: 1, maximum: 100 }), label: Type.String({ maxLength: 20 }) }, { additionalProperties: false }), {
        default: { max: 10, label: 'ten' },
        description: 'Limits of the demo package.'
      })
      // User meta: a public key (enum: no markup), an edit-only key (the default filter), one with its own
      // sanitizer, and one only administrators may write.
      api.registerMeta('user', 'demo_score', { type: 'string', default: '', enum: ['', 'low', 'high'], description: 'A score of the user.' })
      api.registerMeta('user', 'demo_private', { type: 'string', default: '', description: 'Shown in the edit context only.' }, { context: ['edit'] })
      api.registerMeta('user', 'demo_tags', { type: 'object', default: {}, description: 'Tags of the user.', additionalProperties: true }, {
        sanitize: (value) => ({ value: Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, String(v).toLowerCase()])) })
      })
      api.registerMeta('user', 'demo_level', { type: 'string', default: 'basic', enum: ['basic', 'gold'], description: 'Set by administrators.' }, {
        authorize: (caller) => caller.can('promote_users')
      })
      return limits
    },
    serve (api, _options, _app, limits) {
      const manage = can('manage_options')
      api.namespace(NS, () => [route({
        namespace: NS,
        path: `/${NS}/limits`,
        endpoints: [
          endpoint({ methods: ['GET'], args: {}, summary: 'Read the limits', permission: manage, handler: async () => await limits.get() }),
          endpoint({ methods: ['POST'], args: { limits: handlerChecked('The new limits, checked by the option.') }, summary: 'Change the limits', permission: manage.probing({ body: { limits: { max: 5, label: 'five' } } }), handler: async (req) => await limits.set(req.params.limits) })
        ]
      })])
    }
  })
}

/** Profile A with the demo package beside it, on the test's store (migrated by the app, as at start). */
async function composed (store: Store, seen: { api?: ContributionApi } = {}): Promise<GatewayApp> {
  return await gatewayApp({ store, packages: [demoPackage(seen)] })
}

t.test('a package\'s options: schema, default, validated writes through its handle', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: { api?: ContributionApi } = {}
  const { app, close } = await composed(store, seen)
  t.teardown(close)
  const admin = await createCaller(store, 'administrator')

  t.same((await call(app, 'GET', `/${NS}/limits`, { as: admin })).body, { max: 10, label: 'ten' }, 'the default')
  const set = await call(app, 'POST', `/${NS}/limits`, { as: admin, body: { limits: { max: 42, label: 'answer' } } })
  t.same([set.status, set.body], [200, { max: 42, label: 'answer' }])
  t.same((await call(app, 'GET', `/${NS}/limits`, { as: admin })).body, { max: 42, label: 'answer' }, 'stored')
  for (const bad of [{ max: 0, label: 'x' }, { max: 5 }, { max: 5, label: 'x', extra: 1 }, 'text', null, { max: 5, label: 'x'.repeat(21) }]) {
    const res = await call(app, 'POST', `/${NS}/limits`, { as: admin, body: { limits: bad } })
    t.same([res.status, res.body.code], [400, 'rest_invalid_param'], JSON.stringify(bad))
    t.match(res.body.data.params.demo_limits, /^Invalid value for option demo_limits/)
  }
  t.same((await call(app, 'GET', `/${NS}/limits`, { as: admin })).body, { max: 42, label: 'answer' }, 'a refused value writes nothing')

  // A value stored by an older version that the schema no longer accepts reads as the default.
  await store.execute("update options set value = '{\"max\": 500, \"label\": \"old\"}'::jsonb where name = 'demo_limits'")
  t.same((await call(app, 'GET', `/${NS}/limits`, { as: admin })).body, { max: 10, label: 'ten' })

  const api = seen.api!
  t.throws(() => api.option('demo_limits', Type.String(), { default: '' }), /declared by @cms\/demo-api and @cms\/demo-api/, 'an option is declared once')
  t.throws(() => api.option('posts_per_page', Type.Integer(), { default: 10 }), /the core's/, "the core's options are not a package's")
  t.throws(() => api.option('demo_bad', Type.Integer({ minimum: 1 }), { default: 0 }), /default of option demo_bad does not fit/)
  t.throws(() => api.option('Demo-Name', Type.Integer(), { default: 1 }), /lowercase/)
})

t.test('user meta registered by a package: under meta in cms/v2 users, written as post meta are', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: { api?: ContributionApi } = {}
  const { app, close } = await composed(store, seen)
  t.teardown(close)
  const admin = await createCaller(store, 'administrator')
  const author = await createCaller(store, 'author')
  const subscriber = await createCaller(store, 'subscriber')
  const defaults = { demo_score: '', demo_private: '', demo_tags: {}, demo_level: 'basic' }
  const stored = async (id: number) => await seen.api!.content.userMeta(id, Object.keys(defaults))

  // Reads: every key in edit, the edit-only key left out of view, no meta in embed.
  t.same((await call(app, 'GET', '/cms/v2/users/me?context=edit', { as: author })).body.meta, defaults, 'defaults, in the edit context')
  t.same((await call(app, 'GET', `/cms/v2/users/${author.id}?context=edit`, { as: admin })).body.meta, defaults)
  t.same((await call(app, 'GET', `/cms/v2/users/${author.id}`, { as: admin })).body.meta, { demo_score: '', demo_tags: {}, demo_level: 'basic' }, 'view: no edit-only key')
  t.equal('meta' in (await call(app, 'GET', `/cms/v2/users/${author.id}?context=embed`, { as: admin })).body, false, 'embed: no meta')
  const listed = (await call(app, 'GET', '/cms/v2/users?context=edit', { as: admin })).body as Array<{ id: number, meta: unknown }>
  t.same(listed.find((u) => u.id === author.id)?.meta, defaults, 'the list shows meta too')

  // Self: written, and filtered for a writer without unfiltered_html (the default filter, or the key's own sanitizer).
  const mine = await call(app, 'POST', '/cms/v2/users/me', { as: author, body: { meta: { demo_score: 'high', demo_private: 'hi <script>alert(1)</script><b>there</b>', demo_tags: { a: 'MIXED' } } } })
  t.equal(mine.status, 200, JSON.stringify(mine.body))
  t.same(mine.body.meta, { demo_score: 'high', demo_private: 'hi <b>there</b>', demo_tags: { a: 'mixed' }, demo_level: 'basic' })
  t.same(await stored(author.id), { demo_score: 'high', demo_private: 'hi <b>there</b>', demo_tags: { a: 'mixed' } }, 'stored as answered, read back by api.content.userMeta')
  await call(app, 'POST', '/cms/v2/posts', { as: author, body: { title: 'Published', status: 'publish' } })
  t.same((await call(app, 'GET', `/cms/v2/users/${author.id}`)).body.meta, { demo_score: 'high', demo_tags: { a: 'mixed' }, demo_level: 'basic' }, 'anyone reads a published author\'s view keys')
  const own = await call(app, 'PATCH', `/cms/v2/users/${subscriber.id}`, { as: subscriber, body: { meta: { demo_score: 'low' } } })
  t.same([own.status, own.body.meta?.demo_score], [200, 'low'], 'a subscriber writes their own meta')

  // Another user's meta needs edit_user; a key's authorize is checked besides; refused writes write nothing.
  const foreign = await call(app, 'POST', `/cms/v2/users/${author.id}`, { as: subscriber, body: { meta: { demo_score: 'low' } } })
  t.same([foreign.status, foreign.body.code], [403, 'rest_cannot_edit'], "another subscriber cannot write a user's meta")
  const level = await call(app, 'PUT', '/cms/v2/users/me', { as: author, body: { name: 'Leveled', meta: { demo_level: 'gold' } } })
  t.same([level.status, level.body.code], [403, 'rest_cannot_update'], "the key's authorize refuses the author")
  t.equal((await stored(author.id)).demo_score, 'high', 'nothing written by refused writes')
  t.not((await call(app, 'GET', '/cms/v2/users/me', { as: author })).body.name, 'Leveled', 'nor the user fields sent with them')

  // An administrator (unfiltered_html): written as sent; null removes a key.
  const byAdmin = await call(app, 'POST', `/cms/v2/users/${author.id}`, { as: admin, body: { meta: { demo_level: 'gold', demo_private: '<script>x</script>', demo_score: null } } })
  t.equal(byAdmin.status, 200, JSON.stringify(byAdmin.body))
  t.same(byAdmin.body.meta, { demo_score: '', demo_private: '<script>x</script>', demo_tags: { a: 'mixed' }, demo_level: 'gold' })
  t.same(await stored(author.id), { demo_private: '<script>x</script>', demo_tags: { a: 'mixed' }, demo_level: 'gold' })

  // Invalid values: every failure reported, nothing written (user fields included).
  const before = (await call(app, 'GET', '/cms/v2/users/me?context=edit', { as: author })).body
  const bad = await call(app, 'POST', '/cms/v2/users/me', { as: author, body: { name: 'Changed', first_name: 'Changed', meta: { demo_score: 'medium', demo_tags: 'text', demo_private: 'fine' } } })
  t.same([bad.status, bad.body.code, bad.body.additional_data, bad.body.additional_errors?.map((e: { code: string }) => e.code)],
    [400, 'rest_not_in_enum', [{ param: 'meta.demo_score' }], ['rest_invalid_type']])
  t.same((await call(app, 'GET', '/cms/v2/users/me?context=edit', { as: author })).body, before, 'an invalid meta value writes nothing at all')
  const notObject = await call(app, 'POST', '/cms/v2/users/me', { as: author, body: { name: 'Changed', meta: 'demo_score' } })
  t.same([notObject.status, notObject.body.code], [400, 'rest_invalid_param'])
  // A failure inside the user's transaction (a slug another user has) leaves the meta unwritten too.
  const taken = (await call(app, 'GET', `/cms/v2/users/${admin.id}`, { as: admin })).body.slug as string
  const clash = await call(app, 'POST', '/cms/v2/users/me', { as: author, body: { slug: taken, meta: { demo_private: 'changed' } } })
  t.same([clash.status, clash.body.code], [400, 'rest_user_invalid_slug'])
  t.equal((await stored(author.id)).demo_private, '<script>x</script>')

  // Created with meta; unknown keys ignored.
  const made = await call(app, 'POST', '/cms/v2/users', { as: admin, body: { username: 'metauser', email: 'metauser@example.com', password: 'pw-metauser-1', meta: { demo_score: 'low', not_registered: 'x' } } })
  t.equal(made.status, 201, JSON.stringify(made.body))
  t.same(made.body.meta, { ...defaults, demo_score: 'low' }, 'meta given at creation')
  t.same(Object.keys(await seen.api!.content.userMeta(made.body.id)).filter((k) => k.startsWith('demo_') || k === 'not_registered'), ['demo_score'])

  // The item schema carries meta, so the index, OPTIONS, the write arguments and OpenAPI show it.
  const options = JSON.parse((await app.inject({ method: 'OPTIONS', url: '/cms-json/cms/v2/users' })).body)
  t.same(Object.keys(options.schema.properties.meta.properties), Object.keys(defaults), 'in the item schema')
  t.same(options.schema.properties.meta.properties.demo_private.context, ['edit'])
  const index = JSON.parse((await app.inject({ method: 'GET', url: '/cms-json/' })).body)
  const args = (path: string, method: string) => index.routes[path].endpoints.find((e: { methods: string[] }) => e.methods.includes(method)).args
  t.equal(args('/cms/v2/users', 'POST').meta.type, 'object', 'a create argument')
  t.equal(args('/cms/v2/users/me', 'POST').meta.type, 'object', 'an update argument')
  const openapi = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body)
  type Meta = { properties?: object, anyOf?: Array<{ properties?: object }> }
  const userSchemas = Object.values(openapi.components.schemas as Record<string, { title?: string, properties?: Record<string, Meta> }>)
    .filter((s) => s.properties?.meta !== undefined && s.properties?.username !== undefined)
  // An answer's meta may also be an empty list (the document says so with anyOf); the keys are in its object form.
  const metaKeys = (m: Meta): string[] => Object.keys(m.properties ?? m.anyOf?.find((x) => x.properties !== undefined)?.properties ?? {})
  t.same(userSchemas.map((s) => metaKeys(s.properties!.meta!)), [Object.keys(defaults)], 'in OpenAPI')
})

t.test('user meta keys: registered once, plain names, not after the routes are built', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: { api?: ContributionApi } = {}
  const { close } = await composed(store, seen)
  t.teardown(close)
  t.throws(() => seen.api!.registerMeta('user', 'late_key', { type: 'string', default: '' }), /after the routes were built/)
})

t.test('without user meta registered, cms/v2 users answer as before (no meta field)', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const { app, close } = await gatewayApp({ store })
  t.teardown(close)
  const author = await createCaller(store, 'author')
  const res = await app.inject({ method: 'GET', url: '/cms-json/cms/v2/users/me?context=edit', headers: author.headers })
  t.equal('meta' in JSON.parse(res.body), false)
})

t.test('content read functions: the list route\'s filters, a post with meta and terms, user meta', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  const seen: { api?: ContributionApi } = {}
  const { app, close } = await composed(store, seen)
  t.teardown(close)
  const admin = await createCaller(store, 'administrator')
  const author = await createCaller(store, 'author')
  const cat = (await call(app, 'POST', '/cms/v2/categories', { as: admin, body: { name: 'News' } })).body.id as number
  const news = (await call(app, 'POST', '/cms/v2/posts', { as: author, body: { title: 'Apples in the news', status: 'publish', categories: [cat], meta: { footnotes: '' } } })).body.id as number
  const other = (await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Pears', status: 'publish' } })).body.id as number
  const draft = (await call(app, 'POST', '/cms/v2/posts', { as: author, body: { title: 'Apples draft', status: 'draft' } })).body.id as number
  await call(app, 'POST', '/cms/v2/users/me', { as: author, body: { first_name: 'Ada' } })
  const content = seen.api!.content

  const ids = async (q: Parameters<typeof content.posts>[0]): Promise<number[]> => (await content.posts(q)).posts.map((p) => p.id)
  t.same(await ids({}), [other, news], 'published posts, newest first (as GET /posts)')
  t.same(await ids({ categories: [cat] }), [news])
  t.same(await ids({ search: 'apples' }), [news])
  t.same(await ids({ search: 'apples', status: ['publish', 'draft'], orderby: 'id', order: 'asc' }), [news, draft])
  t.same(await ids({ author: [author.id], status: ['draft'] }), [draft])
  t.same(await ids({ perPage: 1, page: 2 }), [news])
  t.equal((await content.posts({ perPage: 1 })).total, 2)
  const listed = await call(app, 'GET', '/cms/v2/posts')
  t.same(listed.body.map((p: { id: number }) => p.id), await ids({}), 'the same answer as the list route')

  const one = await content.post(news)
  t.equal(one?.post.title, 'Apples in the news')
  t.same(one?.terms.category.map((c) => c.id), [cat])
  t.same(await content.post(999999), undefined)
  t.same((await content.postsWithDetails([other, 999999, news])).map((p) => [p.post.id, p.terms.category.map((c) => c.id)]), [[other, [1]], [news, [cat]]], 'several posts at once, in the order asked')
  t.same((await content.postsWithDetails([news]))[0], one, 'as post(id) answers each')
  t.same(await content.postsWithDetails([]), [])
  t.same((await content.terms({ taxonomy: 'category', slug: ['news'] })).map((c) => c.id), [cat], 'terms by slug')
  t.same(await content.terms({ taxonomy: 'post_tag', slug: ['news'] }), [], 'a slug of another taxonomy')
  t.equal(await content.media(news, 'http://cms.test'), undefined, 'a post is no media item (media with a file: the seo package\'s head test)')
  t.same(await content.userMeta(author.id, ['first_name']), { first_name: 'Ada' })
})
