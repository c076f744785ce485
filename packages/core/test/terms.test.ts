/**
 * Categories and tags: CRUD, the default category, hierarchy, counts,
 * slugs, list parameters and permissions.
 */
import t from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

t.test('terms', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor, author, contributor, subscriber } = h.users
  const call = h.call

  t.test('the default category exists', async (t) => {
    const res = await call('GET', '/cms/v2/categories/1')
    t.equal(res.status, 200)
    t.same(Object.keys(res.body), ['id', 'count', 'description', 'link', 'name', 'slug', 'taxonomy', 'parent', 'meta', '_links'])
    t.equal(res.body.name, 'Uncategorized')
    t.equal(res.body.slug, 'uncategorized')
    t.equal(res.body.link, 'http://cms.test/?cat=1')
    t.equal(res.body._links['cms:post_type'][0].href, 'http://cms.test/index.php?rest_route=%2Fcms%2Fv2%2Fposts&categories=1')
    const del = await call('DELETE', '/cms/v2/categories/1', { as: admin, query: { force: 'true' } })
    t.equal(del.status, 403, 'it cannot be deleted')
  })

  t.test('create, hierarchy, slugs', async (t) => {
    const parent = await call('POST', '/cms/v2/categories', { as: editor, body: { name: 'Travel', description: 'Trips' } })
    t.equal(parent.status, 201)
    t.equal(parent.headers.location, `http://cms.test/index.php?rest_route=/cms/v2/categories/${parent.body.id}`)
    t.equal(parent.body.slug, 'travel')
    const child = await call('POST', '/cms/v2/categories', { as: editor, body: { name: 'Europe', parent: parent.body.id } })
    t.equal(child.body.parent, parent.body.id)
    t.equal(child.body._links.up[0].href, `http://cms.test/index.php?rest_route=/cms/v2/categories/${parent.body.id}`)
    const dupName = await call('POST', '/cms/v2/categories', { as: editor, body: { name: 'travel' } })
    t.equal(dupName.status, 400)
    t.equal(dupName.body.code, 'term_exists')
    t.equal(dupName.body.data.term_id, parent.body.id)
    const sameNameElsewhere = await call('POST', '/cms/v2/categories', { as: editor, body: { name: 'Europe', parent: 0 } })
    t.equal(sameNameElsewhere.status, 201, 'the same name under another parent is fine')
    t.equal(sameNameElsewhere.body.slug, 'europe-2')
    const badParent = await call('POST', '/cms/v2/categories', { as: editor, body: { name: 'X', parent: 99999 } })
    t.equal(badParent.status, 400)
    t.equal(badParent.body.code, 'rest_term_invalid')
    t.equal(badParent.body.message, 'Parent term does not exist.')
    const tagParent = await call('POST', '/cms/v2/tags', { as: editor, body: { name: 'X', parent: 1 } })
    t.equal(tagParent.status, 400, 'tags do not nest')
    t.equal(tagParent.body.code, 'rest_taxonomy_not_hierarchical')
    const slugTaken = await call('POST', '/cms/v2/categories', { as: editor, body: { name: 'Other', slug: 'travel' } })
    t.equal(slugTaken.status, 400)
    t.equal(slugTaken.body.code, 'duplicate_term_slug')
    const noName = await call('POST', '/cms/v2/categories', { as: editor, body: {} })
    t.equal(noName.status, 400)
    t.equal(noName.body.code, 'rest_missing_callback_param')
    const blank = await call('POST', '/cms/v2/categories', { as: editor, body: { name: '  ' } })
    t.equal(blank.status, 400)
    t.equal(blank.body.code, 'empty_term_name')
    const loop = await call('POST', `/cms/v2/categories/${parent.body.id}`, { as: editor, body: { parent: child.body.id } })
    t.equal(loop.body.parent, 0, 'a loop resets the parent')
  })

  t.test('counts follow published posts', async (t) => {
    const cat = (await call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Counted' } })).body.id
    const tag = (await call('POST', '/cms/v2/tags', { as: admin, body: { name: 'counted tag' } })).body
    t.equal(tag.slug, 'counted-tag')
    t.equal(tag.link, 'http://cms.test/?tag=counted-tag')
    const p = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'C', status: 'publish', categories: [cat], tags: [tag.id] } })).body.id
    await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'D', status: 'draft', categories: [cat] } })
    t.equal((await call('GET', `/cms/v2/categories/${cat}`)).body.count, 1, 'drafts do not count')
    t.equal((await call('GET', `/cms/v2/tags/${tag.id}`)).body.count, 1)
    await call('DELETE', `/cms/v2/posts/${p}`, { as: admin })
    t.equal((await call('GET', `/cms/v2/categories/${cat}`)).body.count, 0, 'trashing uncounts')
    const withTerms = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'E', status: 'publish', categories: [cat] } })).body.id
    const del = await call('DELETE', `/cms/v2/categories/${cat}`, { as: admin, query: { force: 'true' } })
    t.equal(del.status, 200)
    t.equal(del.body.deleted, true)
    t.equal(del.body.previous.id, cat)
    const post = await call('GET', `/cms/v2/posts/${withTerms}`)
    t.same(post.body.categories, [1], 'a post left without category gets the default one')
    const noForce = await call('DELETE', `/cms/v2/tags/${tag.id}`, { as: admin })
    t.equal(noForce.status, 501)
    t.equal(noForce.body.code, 'rest_trash_not_supported')
    t.equal(noForce.body.message, "Terms do not support trashing. Set 'force=true' to delete.")
    const unknownTerms = await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'U', categories: [99999], tags: [99998] } })
    t.equal(unknownTerms.status, 201)
    t.same(unknownTerms.body.categories, [], 'unknown term ids are skipped')
    const removed = await call('POST', `/cms/v2/posts/${withTerms}`, { as: admin, body: { categories: [] } })
    t.same(removed.body.categories, [], 'an empty list removes them all')
  })

  t.test('list parameters', async (t) => {
    const names = async (path: string, query: Record<string, string | number | boolean>): Promise<string[]> =>
      (await call('GET', path, { query })).body.map((x: any) => x.name)
    t.same(await names('/cms/v2/categories', { search: 'eur' }), ['Europe', 'Europe'])
    t.same(await names('/cms/v2/categories', { parent: 0, orderby: 'name', per_page: 100 }), ['Europe', 'Other', 'Travel', 'Uncategorized'].filter((n) => n !== 'Other'))
    t.same(await names('/cms/v2/categories', { hide_empty: true }), [], 'no published post has a category now')
    await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Default', status: 'publish' } })
    t.same(await names('/cms/v2/categories', { hide_empty: true }), ['Uncategorized'])
    t.same(await names('/cms/v2/categories', { slug: 'travel,uncategorized', orderby: 'include_slugs' }), ['Travel', 'Uncategorized'])
    t.same(await names('/cms/v2/categories', { include: 1, orderby: 'include' }), ['Uncategorized'])
    t.same(await names('/cms/v2/categories', { order: 'desc', per_page: 1 }), ['Uncategorized'])
    const paged = await call('GET', '/cms/v2/categories', { query: { per_page: 1, page: 2 } })
    t.equal(paged.headers['x-cms-total'], '4')
    t.equal(paged.headers['x-cms-totalpages'], '4')
    const past = await call('GET', '/cms/v2/categories', { query: { per_page: 1, page: 9 } })
    t.equal(past.body.code, 'rest_term_invalid_page_number')
    const p = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Tagged', status: 'publish', tags: [(await call('POST', '/cms/v2/tags', { as: admin, body: { name: 'Zed' } })).body.id] } })).body.id
    t.same(await names('/cms/v2/tags', { post: p }), ['Zed'])
    const draft = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Secret' } })).body.id
    const hidden = await call('GET', '/cms/v2/tags', { query: { post: draft } })
    t.equal(hidden.status, 401, 'terms of a post the caller cannot read stay hidden')
  })

  t.test('permissions', async (t) => {
    const cat = await call('POST', '/cms/v2/categories', { as: author, body: { name: 'Nope' } })
    t.equal(cat.status, 403)
    t.equal(cat.body.code, 'rest_cannot_create')
    t.equal(cat.body.message, 'Sorry, you are not allowed to create terms in this taxonomy.')
    const tagByContributor = await call('POST', '/cms/v2/tags', { as: contributor, body: { name: 'Contributed' } })
    t.equal(tagByContributor.status, 201, 'tags need only edit_posts')
    const tagBySubscriber = await call('POST', '/cms/v2/tags', { as: subscriber, body: { name: 'x' } })
    t.equal(tagBySubscriber.status, 403)
    const anon = await call('POST', '/cms/v2/tags', { body: { name: 'x' } })
    t.equal(anon.status, 401)
    const edit = await call('POST', `/cms/v2/tags/${tagByContributor.body.id}`, { as: contributor, body: { name: 'Renamed' } })
    t.equal(edit.status, 403)
    t.equal(edit.body.code, 'rest_cannot_update')
    const byEditor = await call('PATCH', `/cms/v2/tags/${tagByContributor.body.id}`, { as: editor, body: { name: 'Renamed', slug: 'renamed' } })
    t.equal(byEditor.status, 200)
    t.equal(byEditor.body.slug, 'renamed')
    const del = await call('DELETE', `/cms/v2/tags/${tagByContributor.body.id}`, { as: author, query: { force: 'true' } })
    t.equal(del.status, 403)
    const ctx = await call('GET', '/cms/v2/categories', { as: author, query: { context: 'edit' } })
    t.equal(ctx.status, 403)
    t.equal(ctx.body.code, 'rest_forbidden_context')
    const missing = await call('GET', '/cms/v2/categories/99999')
    t.equal(missing.status, 404)
    t.equal(missing.body.code, 'rest_term_invalid')
    t.equal(missing.body.message, 'Term does not exist.')
  })
})
