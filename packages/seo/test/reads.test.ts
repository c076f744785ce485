/**
 * Part 4: the reads over the indexables (statistics, seo_scores,
 * readability_scores with the notes' exact boundaries), the bulk editor
 * round trip (one invalid item writes nothing), available_posts and
 * meta/search, through HTTP. Scores here are written as meta by the test
 * (the analysis is not run), so each boundary value is exact.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

t.test('reads', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'], env: { CMS_ADMIN_URL: 'https://admin.example/cms-admin' } })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const author = await h.caller('author')
  const news = (await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'News' } })).body.id
  const post = async (title: string, meta: Record<string, string>, extra: Record<string, unknown> = {}, as = admin): Promise<number> => {
    const res = await h.call('POST', '/cms/v2/posts', { as, body: { title, status: 'publish', content: `<p>${title}</p>`, meta, ...extra } })
    t.equal(res.status, 201, `made ${title}`)
    return res.body.id
  }
  const kw = { _seo_focuskw: 'boots' }
  const ids = {
    s40: await post('S40', { ...kw, _seo_linkdex: '40', _seo_content_score: '40' }),
    s41: await post('S41', { ...kw, _seo_linkdex: '41', _seo_content_score: '41' }, { categories: [news] }),
    s70: await post('S70', { ...kw, _seo_linkdex: '70', _seo_content_score: '70' }, { categories: [news] }),
    s71: await post('S71', { ...kw, _seo_linkdex: '71', _seo_content_score: '71' }),
    nokw: await post('No keyphrase', { _seo_linkdex: '90', _seo_content_score: '0', '_seo_estimated-reading-time-minutes': '2' }),
    zero: await post('Zero', { ...kw, _seo_linkdex: '0', _seo_content_score: '0' }),
    noindex: await post('Hidden', { ...kw, _seo_linkdex: '95', _seo_content_score: '95', '_seo_meta-robots-noindex': '1' }),
    mine: await post('Mine', { ...kw, _seo_linkdex: '80', _seo_content_score: '80' }, {}, author)
  }
  await h.platform.services.events.drain()

  t.test('seo_scores and readability_scores', async (t) => {
    const seo = await h.call('GET', '/seo/v1/seo_scores', { as: admin, query: { contentType: 'post', troubleshooting: true } })
    t.equal(seo.status, 200)
    t.same(seo.body.scores.map((s: any) => [s.name, s.amount, s.ids]), [
      ['good', 2, `${ids.s71},${ids.mine}`],
      ['ok', 2, `${ids.s41},${ids.s70}`],
      ['bad', 1, `${ids.s40}`],
      ['notAnalyzed', 2, `${ids.nokw},${ids.zero}`]
    ], '71 good, 41 and 70 ok, 40 bad; no keyphrase or 0 not analysed; noindex left out')
    t.equal(seo.body.cacheUsed, false)
    t.match(seo.body.scores[0].links.view, /\/cms-admin\/edit\.php\?post_status=publish&post_type=post&seo_filter=good$/)

    const read = await h.call('GET', '/seo/v1/readability_scores', { as: admin, query: { contentType: 'post', troubleshooting: true } })
    t.same(read.body.scores.map((s: any) => [s.name, s.amount, s.ids]), [
      ['good', 3, `${ids.s71},${ids.noindex},${ids.mine}`],
      ['ok', 2, `${ids.s41},${ids.s70}`],
      ['bad', 2, `${ids.s40},${ids.nokw}`],
      ['notAnalyzed', 1, `${ids.zero}`]
    ], 'score 0 with a reading time is bad, without one not analysed; noindexed posts count')

    const first = await h.call('GET', '/seo/v1/seo_scores', { as: admin, query: { contentType: 'post' } })
    const cached = await h.call('GET', '/seo/v1/seo_scores', { as: admin, query: { contentType: 'post' } })
    t.same([first.body.cacheUsed, cached.body.cacheUsed, cached.body.queryTime], [false, true, 0], 'kept 60 s')
    t.notOk('ids' in cached.body.scores[0])

    const term = await h.call('GET', '/seo/v1/seo_scores', { as: admin, query: { contentType: 'post', taxonomy: 'category', term: news } })
    t.same(term.body.scores.map((s: any) => s.amount), [0, 2, 0, 0], 'only the posts of the term')
    t.match(term.body.scores[1].links.view, /&category_name=news$/)

    const bad = async (query: Record<string, string | number>, code: string): Promise<void> => {
      const res = await h.call('GET', '/seo/v1/seo_scores', { as: admin, query })
      t.same([res.status, res.body.code], [400, code], JSON.stringify(query))
    }
    await bad({ contentType: 'nope' }, 'seo_invalid_content_type')
    await bad({ contentType: 'post', taxonomy: 'post_tag', term: 1 }, 'seo_invalid_taxonomy')
    await bad({ contentType: 'post', term: news }, 'seo_term_needs_taxonomy')
    await bad({ contentType: 'post', taxonomy: 'category' }, 'seo_taxonomy_needs_term')
    await bad({ contentType: 'post', taxonomy: 'category', term: 999999 }, 'seo_invalid_term')
    t.equal((await h.call('GET', '/seo/v1/seo_scores', { as: editor, query: { contentType: 'post' } })).status, 403)
  })

  t.test('statistics', async (t) => {
    const all = await h.call('GET', '/seo/v1/statistics', { as: editor })
    t.equal(all.status, 200)
    t.same(all.body.seo_scores.map((s: any) => [s.seo_rank, s.count]), [['na', 2], ['bad', 1], ['ok', 2], ['good', 2], ['noindex', 1]])
    t.match(all.body.seo_scores.find((s: any) => s.seo_rank === 'good'), { label: 'Posts with the SEO score: <strong>Good</strong>', link: /seo_filter=good$/ })
    t.match(all.body.header, /Now is as good a time as any/)
    const own = await h.call('GET', '/seo/v1/statistics', { as: author })
    t.same(own.body.seo_scores.map((s: any) => [s.seo_rank, s.count]), [['good', 1]], 'without edit_others_posts: own posts only')
    t.match(own.body.header, /doing pretty well/)
    const sub = await h.caller('subscriber')
    const none = await h.call('GET', '/seo/v1/statistics', { as: sub })
    t.same(none.body.seo_scores, [])
    t.match(none.body.header, /don't have any published posts/)
    t.equal((await h.call('GET', '/seo/v1/statistics')).status, 401)
  })

  t.test('bulk editor', async (t) => {
    const list = await h.call('GET', '/seo/v1/bulk_editor/posts', { as: admin, query: { content_type: 'post', per_page: 3 } })
    t.equal(list.status, 200)
    t.same([list.body.total, list.body.total_pages, list.body.page, list.body.per_page], [8, 3, 1, 3])
    t.same(list.body.posts.map((p: any) => p.id), [ids.mine, ids.noindex, ids.zero], 'newest id first')
    t.match(list.body.posts[0], { title: 'Mine', status: 'publish', focus_keyphrase: 'boots', editable: true, edit_link: new RegExp(`/cms-admin/post\\.php\\?post=${ids.mine}&action=edit$`) })
    const found = await h.call('GET', '/seo/v1/bulk_editor/posts', { as: admin, query: { content_type: 'post', search: 'S7' } })
    t.same(found.body.posts.map((p: any) => p.id), [ids.s71, ids.s70])
    const wrong = await h.call('GET', '/seo/v1/bulk_editor/posts', { as: admin, query: { content_type: 'attachment' } })
    t.same([wrong.status, wrong.body.code], [400, 'rest_invalid_content_type'])

    const before = await h.call('GET', `/cms/v2/posts/${ids.s40}`, { as: admin, query: { context: 'edit' } })
    const refused = await h.call('POST', '/seo/v1/bulk_editor/update_search', { as: admin, body: { items: [{ id: ids.s40, seo_title: 'New title' }, { id: 'x', seo_title: 'y' }] } })
    t.same([refused.status, refused.body.code], [400, 'rest_invalid_item_id'])
    const unchanged = await h.call('GET', `/cms/v2/posts/${ids.s40}`, { as: admin, query: { context: 'edit' } })
    t.same(unchanged.body.meta._seo_title, before.body.meta._seo_title, 'one invalid item: nothing written')

    for (const [items, code] of [['x', 'rest_invalid_items'], [[], 'rest_no_items'], [Array.from({ length: 21 }, (_, i) => ({ id: i + 1, seo_title: 't' })), 'rest_too_many_items'],
      [[1], 'rest_invalid_item'], [[{ id: ids.s40 }], 'rest_no_fields_to_update'], [[{ id: ids.s40, seo_title: 5 }], 'rest_invalid_item_field']] as const) {
      const res = await h.call('POST', '/seo/v1/bulk_editor/update_search', { as: admin, body: { items } })
      t.same([res.status, res.body.code], [400, code], code)
    }

    const done = await h.call('POST', '/seo/v1/bulk_editor/update_search', { as: admin, body: { items: [{ id: ids.s40, seo_title: ' <b>New</b> title ', meta_description: 'Desc', focus_keyphrase: 'shoes' }, { id: 999999, seo_title: 'x' }] } })
    t.same(done.body, { results: [{ id: ids.s40, success: true }, { id: 999999, success: false, error: 'not_found' }] })
    const social = await h.call('POST', '/seo/v1/bulk_editor/update_social', { as: admin, body: { items: [{ id: ids.s40, social_title: 'Social', social_description: 'Shared' }] } })
    t.same(social.body, { results: [{ id: ids.s40, success: true }] })
    const after = await h.call('GET', `/cms/v2/posts/${ids.s40}`, { as: admin, query: { context: 'edit' } })
    t.match(after.body.meta, { _seo_title: 'New title', _seo_metadesc: 'Desc', _seo_focuskw: 'shoes', '_seo_opengraph-title': 'Social', '_seo_opengraph-description': 'Shared' })
    // The very next request, no event delivered in between: the writes rebuilt the indexable.
    const listed = await h.call('GET', '/seo/v1/bulk_editor/posts', { as: admin, query: { content_type: 'post', search: 'Shared' } })
    t.match(listed.body.posts, [{ id: ids.s40, seo_title: 'New title', social_title: 'Social', focus_keyphrase: 'shoes' }], 'the indexable follows at once')
    // A post written through cms/v2 (its events not yet delivered) is listed, with its SEO values, by the next request.
    const fresh = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Just now', status: 'draft', meta: { _seo_title: 'Fresh title', _seo_focuskw: 'fresh' } } })).body.id
    const now = await h.call('GET', '/seo/v1/bulk_editor/posts', { as: admin, query: { content_type: 'post' } })
    t.match(now.body.posts[0], { id: fresh, title: 'Just now', seo_title: 'Fresh title', focus_keyphrase: 'fresh' }, 'a post created a moment ago is listed')
    await h.call('POST', `/cms/v2/posts/${fresh}`, { as: admin, body: { meta: { _seo_title: 'Changed title' } } })
    const changed = await h.call('GET', '/seo/v1/bulk_editor/posts', { as: admin, query: { content_type: 'post', search: 'Changed' } })
    t.match(changed.body.posts, [{ id: fresh, seo_title: 'Changed title' }], 'and its change')
    const scores = await h.call('GET', '/seo/v1/seo_scores', { as: admin, query: { contentType: 'post' } })
    t.equal(scores.body.cacheUsed, false, 'a kept score answer is not used after a write')
    await h.call('DELETE', `/cms/v2/posts/${fresh}`, { as: admin, query: { force: true } })
    const gone = await h.call('GET', '/seo/v1/bulk_editor/posts', { as: admin, query: { content_type: 'post', search: 'Changed' } })
    t.same(gone.body.posts, [], 'a deleted post leaves the list at once')
    t.equal((await h.call('POST', '/seo/v1/bulk_editor/update_search', { as: editor, body: { items: [{ id: ids.s40, seo_title: 'x' }] } })).status, 403)
  })

  t.test('available_posts and meta/search', async (t) => {
    await h.call('POST', '/cms/v2/pages', { as: admin, body: { title: 'About us', status: 'publish' } })
    await h.call('POST', '/cms/v2/pages', { as: admin, body: { title: 'Contact', status: 'publish' } })
    await h.call('POST', '/cms/v2/pages', { as: admin, body: { title: 'About drafts', status: 'draft' } })
    const pages = await h.call('GET', '/seo/v1/available_posts', { as: admin, query: { search: 'About' } })
    t.match(pages.body, [{ title: 'About us', slug: 'about-us' }])
    t.equal(pages.body.length, 1, 'published only')
    t.equal((await h.call('GET', '/seo/v1/available_posts', { as: admin, query: { postType: 'post' } })).body.length, 8)
    const invalid = await h.call('GET', '/seo/v1/available_posts', { as: admin, query: { postType: 'nope' } })
    t.same([invalid.status, invalid.body.code], [400, 'seo_invalid_post_type'])

    const all = await h.call('GET', '/seo/v1/meta/search', { as: editor, query: { post_id: ids.s41 } })
    t.equal(all.status, 200)
    t.same(all.body, { meta: [] }, 'an empty query leaves out keys starting with _')
    const seo = await h.call('GET', '/seo/v1/meta/search', { as: editor, query: { post_id: ids.s41, query: '_seo_l' } })
    t.same(seo.body, { meta: [{ key: '_seo_linkdex', value: '41' }] })
    t.equal((await h.call('GET', '/seo/v1/meta/search', { as: author, query: { post_id: ids.s41 } })).status, 403, 'not the author\'s post')
    t.equal((await h.call('GET', '/seo/v1/meta/search', { as: admin })).status, 403, 'no post_id: refused')
  })
})
