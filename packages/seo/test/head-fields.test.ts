/**
 * `seo_head` / `seo_head_json` on cms/v2 posts and pages (head-fields.ts):
 * absent while the option `seo_head_fields` is off (the default) and while
 * the headless option is off; when on, equal to what GET /seo/v1/get_head
 * answers for the post's URL; drafts stay unreadable to anonymous callers;
 * a list of 20 posts carries them; kept anonymous answers follow a change
 * of the option and of the post.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

t.test('seo_head_json on posts and pages', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const options = h.platform.services.options
  const ids: number[] = []
  for (let i = 1; i <= 20; i++) {
    const res = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `Boots number ${i}`, content: `<p>Walking boots, pair ${i}.</p>`, status: 'publish' } })
    t.equal(res.status, 201)
    ids.push(res.body.id)
  }
  const page = (await h.call('POST', '/cms/v2/pages', { as: admin, body: { title: 'About the shop', content: '<p>Since 1901.</p>', status: 'publish' } })).body
  const draft = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Unfinished', status: 'draft' } })).body
  const headOf = async (url: string): Promise<any> => {
    const res = await h.call('GET', '/seo/v1/get_head', { query: { url } })
    t.equal(res.status, 200, `get_head ${url}`)
    return res.body
  }

  const schema = (await h.call('OPTIONS', '/cms/v2/posts')).body.schema.properties
  t.match(schema.seo_head_json, { type: ['object', 'null'], readonly: true }, 'in the posts schema')
  t.match((await h.call('OPTIONS', '/cms/v2/pages')).body.schema.properties.seo_head, { type: ['string', 'null'], readonly: true }, 'and the pages schema')

  const off = await h.call('GET', `/cms/v2/posts/${ids[0]!}`)
  t.notOk('seo_head_json' in off.body, 'absent while the option is off (the default)')
  t.notOk('seo_head' in off.body)
  t.notOk('seo_head_json' in (await h.call('GET', '/cms/v2/posts', { as: admin, query: { context: 'edit' } })).body[0], 'in lists and the edit context too')

  await options.write('seo_head_fields', true)
  t.teardown(async () => { await options.reset('seo_head_fields') })
  const post = (await h.call('GET', `/cms/v2/posts/${ids[0]!}`)).body
  const expected = await headOf(post.link)
  t.same(post.seo_head_json, expected.json, 'equal to get_head\'s json for the post\'s URL (the kept anonymous answer was not served)')
  t.equal(post.seo_head, expected.html, 'seo_head is its html')
  t.match(post.seo_head_json.title, /Boots number 1/)
  const shownPage = (await h.call('GET', `/cms/v2/pages/${page.id as number}`)).body
  t.same(shownPage.seo_head_json, (await headOf(shownPage.link)).json, 'a page\'s too')

  t.equal((await h.call('GET', `/cms/v2/posts/${draft.id as number}`)).status, 401, 'a draft stays unreadable to anonymous callers')
  const draftEdit = await h.call('GET', `/cms/v2/posts/${draft.id as number}`, { as: admin, query: { context: 'edit' } })
  t.match(draftEdit.body.seo_head_json.title, /Unfinished/, 'its editors see its head')

  const started = process.hrtime.bigint()
  const list = await h.call('GET', '/cms/v2/posts', { query: { per_page: 20 } })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  t.equal(list.body.length, 20)
  t.ok(list.body.every((p: any) => typeof p.seo_head === 'string' && p.seo_head_json !== null && p.seo_head_json.title.includes(p.title.rendered)), 'every post of a list of 20 has its own head')
  const last = list.body[19]
  t.same(last.seo_head_json, (await headOf(last.link)).json, 'a list item equals get_head too')
  t.comment(`a list of 20 posts with the head fields: ${ms.toFixed(0)} ms`)
  const picked = await h.call('GET', '/cms/v2/posts', { query: { per_page: 20, _fields: 'id,seo_head_json' } })
  t.same(Object.keys(picked.body[0]).sort(), ['id', 'seo_head_json'], '_fields picks the field')

  // The post changes: the kept anonymous answer is not served.
  await h.call('POST', `/cms/v2/posts/${ids[0]!}`, { as: admin, body: { title: 'Boots renamed' } })
  t.match((await h.call('GET', `/cms/v2/posts/${ids[0]!}`)).body.seo_head_json.title, /Boots renamed/, 'the head follows the post')

  await options.write('seo_enable_headless_rest_endpoints', false)
  t.teardown(async () => { await options.reset('seo_enable_headless_rest_endpoints') })
  t.notOk('seo_head_json' in (await h.call('GET', `/cms/v2/posts/${ids[0]!}`)).body, 'absent while the headless option is off')
})

t.test('seo_head_json on categories, tags and users', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const idle = await h.caller('subscriber')
  const options = h.platform.services.options
  const category = (await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Winter boots', description: 'Boots for snow.' } })).body
  const tag = (await h.call('POST', '/cms/v2/tags', { as: admin, body: { name: 'Waterproof' } })).body
  t.equal((await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Snow boots', status: 'publish', categories: [category.id], tags: [tag.id] } })).status, 201)
  const headOf = async (url: string): Promise<any> => (await h.call('GET', '/seo/v1/get_head', { query: { url } })).body

  t.match((await h.call('OPTIONS', '/cms/v2/categories')).body.schema.properties.seo_head_json, { type: ['object', 'null'], readonly: true }, 'in the categories schema')
  t.match((await h.call('OPTIONS', '/cms/v2/users')).body.schema.properties.seo_head, { type: ['string', 'null'], readonly: true }, 'and the users schema')
  t.notOk('seo_head_json' in (await h.call('GET', `/cms/v2/categories/${category.id as number}`)).body, 'absent while the option is off')

  await options.write('seo_head_fields', true)
  t.teardown(async () => { await options.reset('seo_head_fields') })
  const shown = (await h.call('GET', `/cms/v2/categories/${category.id as number}`)).body
  const expected = await headOf(shown.link)
  t.same(shown.seo_head_json, expected.json, 'a category\'s head equals get_head\'s for its link')
  t.equal(shown.seo_head, expected.html)
  t.match(shown.seo_head_json.title, /Winter boots/)
  const tags = (await h.call('GET', '/cms/v2/tags')).body
  t.same(tags[0].seo_head_json, (await headOf(tags[0].link)).json, 'a tag in a list')

  const users = (await h.call('GET', '/cms/v2/users', { as: admin })).body
  const author = users.find((u: any) => u.id === admin.id)
  t.same(author.seo_head_json, (await headOf(author.link)).json, 'an author\'s head equals get_head\'s for their archive')
  t.equal(author.seo_head_json.og_type, 'profile')
  t.equal(users.find((u: any) => u.id === idle.id).seo_head_json, null, 'null for a user with no published content (their archive is not found)')
  t.equal((await h.call('GET', `/cms/v2/users/${admin.id}`)).body.seo_head_json.title, author.seo_head_json.title, 'an anonymous read of an author')
})
