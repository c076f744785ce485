/**
 * Revisions: when they are made, their fields and links, the list
 * parameters and headers, parent checks, permissions and deletion.
 */
import t from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const REVISION_KEYS = ['author', 'date', 'date_gmt', 'id', 'modified', 'modified_gmt', 'parent', 'slug', 'guid', 'title', 'content', 'excerpt', 'meta', '_links']

t.test('revisions', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor, author, author2 } = h.users
  const call = h.call
  const revisionsOf = async (id: number, query: Record<string, string | number> = {}, as = admin): Promise<any> => await call('GET', `/cms/v2/posts/${id}/revisions`, { as, query })

  const created = await call('POST', '/cms/v2/posts', { as: author, body: { title: 'V1', content: 'One', status: 'publish' } })
  const id = created.body.id

  t.test('when revisions are made', async (t) => {
    t.equal((await revisionsOf(id)).body.length, 0, 'never on create')
    await call('POST', `/cms/v2/posts/${id}`, { as: author, body: {} })
    t.equal((await revisionsOf(id)).body.length, 1, 'the first update always makes one')
    await call('POST', `/cms/v2/posts/${id}`, { as: author, body: { comment_status: 'closed', slug: 'other-slug' } })
    t.equal((await revisionsOf(id)).body.length, 1, 'status, slug and the like make none')
    await call('POST', `/cms/v2/posts/${id}`, { as: author, body: { content: '  One  ' } })
    t.equal((await revisionsOf(id)).body.length, 1, 'whitespace is normalised')
    await call('POST', `/cms/v2/posts/${id}`, { as: editor, body: { title: 'V2' } })
    t.equal((await revisionsOf(id)).body.length, 2, 'a new title makes one')
    await call('POST', `/cms/v2/posts/${id}`, { as: author, body: { meta: { _builder_data: '[1]' } } })
    t.equal((await revisionsOf(id)).body.length, 2, 'meta that is not revisioned makes none')
    await call('POST', `/cms/v2/posts/${id}`, { as: author, body: { meta: { footnotes: '[{"id":"a","content":"A"}]' } } })
    const list = await revisionsOf(id)
    t.equal(list.body.length, 3, 'revisioned meta makes one')
    t.equal(list.body[0].meta.footnotes, '[{"id":"a","content":"A"}]', 'and is copied to it')
    t.equal(list.body[1].author, editor.id, 'the author of a revision is who made the update')
  })

  t.test('fields, contexts and links', async (t) => {
    const list = await revisionsOf(id)
    const rev = list.body[2]
    t.same(Object.keys(rev), REVISION_KEYS)
    t.equal(rev.slug, `${id}-revision-v1`)
    t.equal(rev.parent, id)
    t.equal(rev.guid.rendered, `http://cms.test/?p=${rev.id}`)
    t.same(Object.keys(rev.title), ['rendered'])
    t.same(Object.keys(rev.content), ['rendered'])
    t.same(Object.keys(rev._links), ['parent'])
    t.equal(rev._links.parent[0].href, `http://cms.test/index.php?rest_route=/cms/v2/posts/${id}`)
    const edit = await call('GET', `/cms/v2/posts/${id}/revisions/${rev.id}`, { as: admin, query: { context: 'edit' } })
    t.equal(edit.status, 200)
    t.equal(edit.body.title.raw, 'V1')
    t.equal(edit.body.content.rendered, '<p>One</p>\n')
    const embed = await call('GET', `/cms/v2/posts/${id}/revisions/${rev.id}`, { as: admin, query: { context: 'embed' } })
    t.same(Object.keys(embed.body), ['author', 'date', 'id', 'parent', 'slug', 'title', 'excerpt', '_links'])
    const post = await call('GET', `/cms/v2/posts/${id}`)
    t.equal(post.body._links['version-history'][0].count, 3)
    t.same(post.body._links['predecessor-version'][0], { id: list.body[0].id, href: `http://cms.test/index.php?rest_route=/cms/v2/posts/${id}/revisions/${list.body[0].id}` })
  })

  t.test('list parameters and headers', async (t) => {
    const all = await revisionsOf(id)
    t.equal(all.headers['x-cms-total'], '3')
    t.equal(all.headers['x-cms-totalpages'], '1', 'without per_page everything is one page')
    const ids = all.body.map((r: any) => r.id)
    const paged = await revisionsOf(id, { per_page: 2, page: 2 })
    t.same(paged.body.map((r: any) => r.id), [ids[2]])
    t.equal(paged.headers['x-cms-totalpages'], '2')
    t.match(paged.headers.link, /rel="prev"/)
    t.same((await revisionsOf(id, { order: 'asc' })).body.map((r: any) => r.id), [...ids].reverse())
    t.same((await revisionsOf(id, { include: `${ids[0]},${ids[2]}` })).body.map((r: any) => r.id), [ids[0], ids[2]])
    t.same((await revisionsOf(id, { exclude: ids[0] })).body.map((r: any) => r.id), [ids[1], ids[2]])
    t.same((await revisionsOf(id, { per_page: 1, offset: 1 })).body.map((r: any) => r.id), [ids[1]])
    t.same((await revisionsOf(id, { search: 'V2' })).body.map((r: any) => r.id), [ids[0], ids[1]])
    const past = await revisionsOf(id, { per_page: 2, page: 3 })
    t.equal(past.status, 400)
    t.equal(past.body.code, 'rest_revision_invalid_page_number')
    const noPerPage = await revisionsOf(id, { page: 2 })
    t.equal(noPerPage.body.code, 'rest_revision_invalid_page_number')
    const offset = await revisionsOf(id, { per_page: 2, offset: 3 })
    t.equal(offset.status, 400)
    t.equal(offset.body.code, 'rest_revision_invalid_offset_number')
    t.equal(offset.body.message, 'The offset number requested is larger than or equal to the number of available revisions.')
    const big = await revisionsOf(id, { per_page: 101 })
    t.equal(big.body.data.params.per_page, 'per_page must be between 1 (inclusive) and 100 (inclusive)')
  })

  t.test('parents, ids and permissions', async (t) => {
    const revId = (await revisionsOf(id)).body[0].id
    const anon = await call('GET', `/cms/v2/posts/${id}/revisions`)
    t.equal(anon.status, 401)
    t.equal(anon.body.code, 'rest_cannot_read')
    t.equal(anon.body.message, 'Sorry, you are not allowed to view revisions of this post.')
    const other = await revisionsOf(id, {}, author2)
    t.equal(other.status, 403)
    const own = await revisionsOf(id, {}, author)
    t.equal(own.status, 200)
    const noParent = await call('GET', '/cms/v2/posts/999999/revisions', { as: admin })
    t.equal(noParent.status, 404)
    t.equal(noParent.body.code, 'rest_post_invalid_parent')
    t.equal(noParent.body.message, 'Invalid post parent ID.')
    const pageId = (await call('POST', '/cms/v2/pages', { as: admin, body: { title: 'P' } })).body.id
    t.equal((await call('GET', `/cms/v2/posts/${pageId}/revisions`, { as: admin })).body.code, 'rest_post_invalid_parent', 'a page is not a post')
    const notRevision = await call('GET', `/cms/v2/posts/${id}/revisions/${id}`, { as: admin })
    t.equal(notRevision.status, 404)
    t.equal(notRevision.body.code, 'rest_post_invalid_id')
    t.equal(notRevision.body.message, 'Invalid revision ID.')
    const second = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Other', status: 'publish' } })).body.id
    await call('POST', `/cms/v2/posts/${second}`, { as: admin, body: {} })
    const mismatch = await call('GET', `/cms/v2/posts/${second}/revisions/${revId}`, { as: admin })
    t.equal(mismatch.status, 404)
    t.equal(mismatch.body.code, 'rest_revision_parent_id_mismatch')
    t.equal(mismatch.body.message, `The revision does not belong to the specified parent with id of "${second}"`)
    const post = await call('POST', `/cms/v2/posts/${id}/revisions`, { as: admin, body: {} })
    t.equal(post.status, 404)
    t.equal(post.body.code, 'rest_no_route')
  })

  t.test('delete', async (t) => {
    const revs = (await revisionsOf(id)).body
    const target = revs[revs.length - 1].id
    const noForce = await call('DELETE', `/cms/v2/posts/${id}/revisions/${target}`, { as: admin })
    t.equal(noForce.status, 501)
    t.equal(noForce.body.code, 'rest_trash_not_supported')
    t.equal(noForce.body.message, "Revisions do not support trashing. Set 'force=true' to delete.")
    const other = await call('DELETE', `/cms/v2/posts/${id}/revisions/${target}`, { as: author2, query: { force: 'true' } })
    t.equal(other.status, 403)
    t.equal(other.body.code, 'rest_cannot_delete')
    t.equal(other.body.message, 'Sorry, you are not allowed to delete revisions of this post.')
    const anon = await call('DELETE', `/cms/v2/posts/${id}/revisions/${target}`, { query: { force: 'true' } })
    t.equal(anon.status, 401)
    const done = await call('DELETE', `/cms/v2/posts/${id}/revisions/${target}`, { as: author, query: { force: 'true' } })
    t.equal(done.status, 200)
    t.equal(done.body.deleted, true)
    t.equal(done.body.previous.id, target)
    t.equal((await revisionsOf(id)).body.length, revs.length - 1)
    const again = await call('GET', `/cms/v2/posts/${id}/revisions/${target}`, { as: admin })
    t.equal(again.status, 404)
  })

  t.test('pages have revisions too', async (t) => {
    const page = (await call('POST', '/cms/v2/pages', { as: admin, body: { title: 'Page', status: 'publish' } })).body.id
    await call('POST', `/cms/v2/pages/${page}`, { as: admin, body: { title: 'Page 2' } })
    const list = await call('GET', `/cms/v2/pages/${page}/revisions`, { as: admin })
    t.equal(list.status, 200)
    t.equal(list.body.length, 1)
    t.equal(list.body[0]._links.parent[0].href, `http://cms.test/index.php?rest_route=/cms/v2/pages/${page}`)
  })

  t.test('force-deleting a post removes its revisions', async (t) => {
    const p = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Gone', status: 'publish' } })).body.id
    await call('POST', `/cms/v2/posts/${p}`, { as: admin, body: { title: 'Gone 2' } })
    const revId = (await revisionsOf(p)).body[0].id
    await call('DELETE', `/cms/v2/posts/${p}`, { as: admin, query: { force: 'true' } })
    const rows = await h.store.execute<{ n: number }>(`select count(*)::int as n from posts where id = ${Number(revId)}`)
    t.equal(rows[0]!.n, 0)
  })

  t.test('whitespace is trimmed as PHP trims it', async (t) => {
    const p = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Trim', content: 'One', status: 'publish' } })).body.id
    await call('POST', `/cms/v2/posts/${p}`, { as: admin, body: {} })
    t.equal((await revisionsOf(p)).body.length, 1)
    await call('POST', `/cms/v2/posts/${p}`, { as: admin, body: { content: '\t\r\n\u000bOne\n ' } })
    t.equal((await revisionsOf(p)).body.length, 1, 'tabs, newlines, carriage returns and vertical tabs around the text make none')
    await call('POST', `/cms/v2/posts/${p}`, { as: admin, body: { content: '\u00a0One' } })
    t.equal((await revisionsOf(p)).body.length, 2, 'a no-break space before it makes one (String.prototype.trim would drop it)')
  })
})
