/**
 * addons-a/v1 ajaxselect2/{action} through HTTP (seo-rollback-assistant-addons.md
 * §4.1): each lookup with search, id prefill and paging; the core's read
 * rule for posts (no draft, private or protected post to a caller who could
 * not read it); no e-mail address to a caller without `list_users`; an
 * unknown action; bad input; who may call it.
 */
import t from 'tap'
import { builderPackage } from '@cms/builder'
import { testApp, type TestApp } from '@cms/testing'
import { addonsPackage } from '../src/index.js'
import { menus } from '../src/menus.js'

const S = '/addons-a/v1/ajaxselect2'

async function app (): Promise<TestApp> {
  return await testApp({ packages: [builderPackage, addonsPackage], namespaces: ['cms/v2', 'builder/v1', 'addons-a/v1', 'addons-b/v1'] })
}

const texts = (body: any): string[] => body.results.map((r: any) => r.text)

t.test('posts by type: search, ids, paging and the read rule', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const author = await h.caller('author')
  const contributor = await h.caller('contributor')
  const editor = await h.caller('editor')
  const post = async (as: typeof admin, body: Record<string, unknown>): Promise<number> => {
    const res = await h.call('POST', '/cms/v2/posts', { as, body })
    t.equal(res.status, 201, `created ${String(body.title)}`)
    return res.body.id
  }
  const published = await post(admin, { title: 'Alpha published', status: 'publish' })
  await post(admin, { title: 'Alpha draft', status: 'draft' })
  await post(admin, { title: 'Alpha private', status: 'private' })
  await post(admin, { title: 'Alpha protected', status: 'publish', password: 'secret' })
  const own = await post(author, { title: 'Alpha by author', status: 'publish', password: 'mine' })
  for (let i = 0; i < 17; i++) await post(admin, { title: `Bulk ${String(i).padStart(2, '0')}`, status: 'publish' })

  const asContributor = await h.call('GET', `${S}/get_posts_by_post_type`, { as: contributor, query: { query_slug: 'post', s: 'Alpha' } })
  t.equal(asContributor.status, 200)
  t.same(texts(asContributor.body), ['Alpha published'], 'a contributor sees no draft, private or protected post of another')
  t.same(asContributor.body.pagination, { more: false })
  const asAuthor = await h.call('GET', `${S}/get_posts_by_post_type`, { as: author, query: { query_slug: 'post', s: 'Alpha' } })
  t.same(texts(asAuthor.body), ['Alpha by author', 'Alpha published'], 'an author also sees the protected post it may edit')
  const asEditor = await h.call('GET', `${S}/get_posts_by_post_type`, { as: editor, query: { query_slug: 'post', s: 'alpha' } })
  t.same(texts(asEditor.body), ['Alpha by author', 'Alpha protected', 'Alpha published'], 'an editor sees protected posts, never drafts (the lookup lists published posts)')

  const prefill = await h.call('GET', `${S}/get_posts_by_post_type`, { as: contributor, query: { query_slug: 'post', ids: `${own},${published}` } })
  t.same(prefill.body.results, [{ id: published, text: 'Alpha published' }], 'ids resolve saved selections, in their order, still as the caller may read them')

  const page1 = await h.call('GET', `${S}/get_posts_by_post_type`, { as: contributor, query: { query_slug: 'post', s: 'Bulk' } })
  const page2 = await h.call('GET', `${S}/get_posts_by_post_type`, { as: contributor, query: { query_slug: 'post', s: 'Bulk', page: 2 } })
  t.equal(page1.body.results.length, 15)
  t.same(page1.body.pagination, { more: true })
  t.same(texts(page2.body), ['Bulk 15', 'Bulk 16'])
  t.same(page2.body.pagination, { more: false })

  const pages = await h.call('GET', `${S}/get_posts_by_post_type`, { as: contributor, query: { query_slug: 'page' } })
  t.same([pages.status, pages.body.results], [200, []])
  const unknownType = await h.call('GET', `${S}/get_posts_by_post_type`, { as: contributor, query: { query_slug: 'nosuchtype' } })
  t.same([unknownType.status, unknownType.body.code], [400, 'invalid_query_slug'])
})

t.test('users: names only without list_users', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const admin = await h.caller('administrator', { login: 'boss', displayName: 'The Boss' })
  const writer = await h.caller('author', { login: 'writer', displayName: 'Wendy Writer' })
  await h.caller('subscriber', { login: 'quiet', displayName: 'Quiet Reader' })
  const contributor = await h.caller('contributor')
  await h.call('POST', '/cms/v2/posts', { as: writer, body: { title: 'By Wendy', status: 'publish' } })

  const listed = await h.call('GET', `${S}/get_users`, { as: contributor })
  t.equal(listed.status, 200)
  t.same(listed.body.results, [{ id: writer.user.id, text: 'Wendy Writer' }], 'without list_users: authors of published content, by name')
  t.notMatch(JSON.stringify(listed.body), /@/, 'no e-mail address anywhere in the answer')
  const byEmail = await h.call('GET', `${S}/get_users`, { as: contributor, query: { s: writer.user.email } })
  t.same(byEmail.body.results, [], 'an e-mail address is not searchable without list_users')
  const full = await h.call('GET', `${S}/get_users`, { as: admin, query: { s: 'quiet' } })
  t.equal(full.body.results.length, 1)
  t.match(full.body.results[0].text, /^Quiet Reader \(.+@.+\)$/, 'with list_users every user, with the address')
  const ids = await h.call('GET', `${S}/get_users`, { as: admin, query: { ids: String(admin.user.id) } })
  t.same(ids.body.results.map((r: any) => r.id), [admin.user.id])
})

t.test('terms, taxonomies, custom fields, templates, menus', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const used = await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Used news' } })
  await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Unused news' } })
  await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Filed', status: 'publish', categories: [used.body.id] } })
  const terms = await h.call('GET', `${S}/get_taxonomies`, { as: editor, query: { query_slug: 'category', s: 'news' } })
  t.same(terms.body.results, [{ id: used.body.id, text: 'Used news' }], 'only terms some published post carries')
  // Created out of name order: the product's term query sorts by name (case-insensitive here, then id), not by id.
  const zebra = await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Zebra' } })
  const apple = await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'apple' } })
  await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Filed too', status: 'publish', categories: [zebra.body.id, apple.body.id] } })
  const byName = await h.call('GET', `${S}/get_taxonomies`, { as: editor, query: { query_slug: 'category' } })
  t.same(texts(byName.body), ['apple', 'Used news', 'Zebra'], 'terms by name, not by id')
  const saved = await h.call('GET', `${S}/get_taxonomies`, { as: editor, query: { query_slug: 'category', ids: `${zebra.body.id as number},${apple.body.id as number}` } })
  t.same(texts(saved.body), ['apple', 'Zebra'], 'saved selections by name too')
  const badTax = await h.call('GET', `${S}/get_taxonomies`, { as: editor, query: { query_slug: 'nope' } })
  t.same([badTax.status, badTax.body.code], [400, 'invalid_query_slug'])

  const taxes = await h.call('GET', `${S}/get_post_type_taxonomies`, { as: editor, query: { query_slug: 'post' } })
  t.same(taxes.body.results.map((r: any) => r.id).sort(), ['category', 'post_tag'])

  const keys = await h.call('GET', `${S}/get_custom_meta_keys`, { as: editor })
  t.ok(Array.isArray(keys.body.results), 'custom field keys listed')
  t.notOk(keys.body.results.some((r: any) => String(r.id).startsWith('_')), 'no private (underscore) keys')
  const grouped = await h.call('GET', `${S}/get_custom_meta_keys_data`, { as: editor })
  t.same(Object.keys(grouped.body.results).sort(), ['page', 'post'], 'the data action groups keys by post type')

  const tpl = await h.call('POST', '/builder/v1/template-library/templates', { as: admin, body: { type: 'section', title: 'Hero section', content: [] } })
  t.equal(tpl.status, 200)
  await h.services.content.createPost({ type: 'builder_library', title: 'Hero draft', status: 'draft', author: admin.user.id, siteUrl: 'http://cms.test', meta: { _builder_template_type: 'section' } })
  const templates = await h.call('GET', `${S}/get_builder_templates`, { as: editor, query: { s: 'Hero' } })
  t.same(texts(templates.body), ['Hero section'], 'published page, section and container templates')

  const store = menus(() => h.store)
  await store.create('Main menu')
  await store.create('Footer')
  const found = await h.call('GET', `${S}/get_menus`, { as: editor, query: { s: 'main' } })
  t.same(texts(found.body), ['Main menu'])
})

t.test('unknown actions, bad input and permissions', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const contributor = await h.caller('contributor')
  const subscriber = await h.caller('subscriber')
  for (const action of ['nothing_here', 'constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    const res = await h.call('GET', `${S}/${action}`, { as: contributor })
    t.same([res.status, res.body.code, res.body.data.status], [404, 'invalid_action', 404], `${action} is no action`)
  }
  const dashed = await h.call('GET', `${S}/get-users`, { as: contributor })
  t.same([dashed.status, dashed.body.code], [404, 'rest_no_route'], 'the action is word characters')

  const bad: Array<[Record<string, string | number>, string]> = [
    [{ s: 'x'.repeat(1001) }, 's'],
    [{ ids: '1,abc' }, 'ids'],
    [{ ids: Array.from({ length: 101 }, (_, i) => i + 1).join(',') }, 'ids'],
    [{ ids: '99999999999' }, 'ids'],
    [{ page: 0 }, 'page'],
    [{ page: 'two' }, 'page']
  ]
  for (const [query, param] of bad) {
    const res = await h.call('GET', `${S}/get_posts_by_post_type`, { as: contributor, query })
    t.same([res.status, res.body.code, Object.keys(res.body.data.params)], [400, 'rest_invalid_param', [param]], `bad ${param}`)
  }

  const anon = await h.call('GET', `${S}/get_posts_by_post_type`)
  t.same([anon.status, anon.body.code], [401, 'rest_forbidden'], 'anonymous: 401 (the product answers null)')
  const sub = await h.call('GET', `${S}/get_users`, { as: subscriber })
  t.same([sub.status, sub.body.code], [403, 'rest_forbidden'], 'a subscriber may not look anything up')
})
