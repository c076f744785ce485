/**
 * Autosaves: the author's own draft is saved in place; other posts get one
 * autosave per user; reading them, permissions and errors.
 */
import t from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

t.test('autosaves', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor, author, author2 } = h.users
  const call = h.call

  t.test("the author's own draft is updated in place", async (t) => {
    const draft = (await call('POST', '/cms/v2/posts', { as: author, body: { title: 'Draft', content: 'first' } })).body
    const res = await call('POST', `/cms/v2/posts/${draft.id}/autosaves`, { as: author, body: { content: 'second' } })
    t.equal(res.status, 200, 'never 201')
    t.equal(res.body.id, draft.id, 'the post itself')
    t.equal(res.body.parent, 0)
    t.equal(res.body.slug, '')
    t.equal(res.body.date, null, 'a floating draft has no date here')
    t.equal(res.body.date_gmt, null)
    t.equal(res.body.content.raw, 'second', 'edit context')
    t.equal(res.body.preview_link, `http://cms.test/?p=${draft.id}&preview=true`)
    t.notOk(res.body._links, 'no parent, no links')
    const post = await call('GET', `/cms/v2/posts/${draft.id}`, { as: author, query: { context: 'edit' } })
    t.equal(post.body.content.raw, 'second')
    const revisions = await call('GET', `/cms/v2/posts/${draft.id}/revisions`, { as: author })
    t.equal(revisions.body.length, 0, 'no revision is made')
  })

  t.test('other posts get one autosave per user', async (t) => {
    const post = (await call('POST', '/cms/v2/posts', { as: author, body: { title: 'Live', content: 'published text', status: 'publish' } })).body
    const first = await call('POST', `/cms/v2/posts/${post.id}/autosaves`, { as: author, body: { title: 'Live', content: 'edited text', meta: { footnotes: '[{"id":"fn","content":"Note"}]' } } })
    t.equal(first.status, 200)
    t.not(first.body.id, post.id)
    t.equal(first.body.slug, `${post.id}-autosave-v1`)
    t.equal(first.body.parent, post.id)
    t.equal(first.body.author, author.id)
    t.equal(first.body.meta.footnotes, '[{"id":"fn","content":"Note"}]')
    t.match(first.body.preview_link, new RegExp(`^http://cms\\.test/\\?p=${post.id}&preview_id=${post.id}&preview_nonce=\\w+&preview=true$`))
    t.equal(first.body._links.parent[0].href, `http://cms.test/index.php?rest_route=/cms/v2/posts/${post.id}`)
    const live = await call('GET', `/cms/v2/posts/${post.id}`, { as: author, query: { context: 'edit' } })
    t.equal(live.body.content.raw, 'published text', 'the post is untouched')
    t.equal(live.body.meta.footnotes, '')

    const same = await call('POST', `/cms/v2/posts/${post.id}/autosaves`, { as: author, body: { content: 'edited text' } })
    t.equal(same.body.id, first.body.id, 'nothing new: the same autosave')
    const again = await call('POST', `/cms/v2/posts/${post.id}/autosaves`, { as: author, body: { content: 'edited more' } })
    t.equal(again.body.id, first.body.id, 'overwritten, not added')
    t.equal(again.body.content.raw, 'edited more')
    const byEditor = await call('POST', `/cms/v2/posts/${post.id}/autosaves`, { as: editor, body: { content: 'editor text' } })
    t.not(byEditor.body.id, first.body.id, 'one per user')

    const list = await call('GET', `/cms/v2/posts/${post.id}/autosaves`, { as: author })
    t.equal(list.status, 200)
    t.same(list.body.map((a: any) => a.id).sort(), [first.body.id, byEditor.body.id].sort())
    t.equal(list.headers['x-cms-total'], undefined, 'no pagination headers')
    const latest = await call('GET', `/cms/v2/posts/${post.id}/autosaves/${first.body.id}`, { as: author })
    t.equal(latest.status, 200)
    t.equal(latest.body.id, Math.max(first.body.id, byEditor.body.id), 'the id is ignored: the latest autosave')
    const revisions = await call('GET', `/cms/v2/posts/${post.id}/revisions`, { as: author })
    t.same(revisions.body.map((r: any) => r.slug).filter((s: string) => s.includes('-revision-')), [], 'autosaves never make regular revisions')
  })

  t.test('errors and permissions', async (t) => {
    const post = (await call('POST', '/cms/v2/posts', { as: author, body: { title: 'P', status: 'publish' } })).body
    const missing = await call('POST', '/cms/v2/posts/999999/autosaves', { as: admin, body: { content: 'x' } })
    t.equal(missing.status, 404)
    t.equal(missing.body.code, 'rest_post_invalid_id')
    const other = await call('POST', `/cms/v2/posts/${post.id}/autosaves`, { as: author2, body: { content: 'x' } })
    t.equal(other.status, 403)
    t.equal(other.body.code, 'rest_cannot_edit')
    const anon = await call('GET', `/cms/v2/posts/${post.id}/autosaves`)
    t.equal(anon.status, 401)
    t.equal(anon.body.code, 'rest_cannot_read')
    t.equal(anon.body.message, 'Sorry, you are not allowed to view autosaves of this post.')
    const none = await call('GET', `/cms/v2/posts/${post.id}/autosaves/1`, { as: author })
    t.equal(none.status, 404)
    t.equal(none.body.code, 'rest_post_no_autosave')
    t.equal(none.body.message, 'There is no autosave revision for this post.')
    const noParent = await call('GET', '/cms/v2/posts/999999/autosaves', { as: admin })
    t.equal(noParent.status, 404)
    t.equal(noParent.body.code, 'rest_post_invalid_parent')
    const badMeta = await call('POST', `/cms/v2/posts/${post.id}/autosaves`, { as: author, body: { meta: { footnotes: 1 } } })
    t.equal(badMeta.status, 400)
    t.equal(badMeta.body.code, 'rest_invalid_type')
  })

  t.test('pages: parent names the page, not a new page parent', async (t) => {
    const page = (await call('POST', '/cms/v2/pages', { as: admin, body: { title: 'Page', status: 'publish' } })).body
    const res = await call('POST', `/cms/v2/pages/${page.id}/autosaves`, { as: admin, body: { parent: page.id, content: 'autosaved' } })
    t.equal(res.status, 200)
    t.equal(res.body.parent, page.id)
    const live = await call('GET', `/cms/v2/pages/${page.id}`, { as: admin })
    t.equal(live.body.parent, 0)
  })
})
