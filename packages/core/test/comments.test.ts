/**
 * /cms/v2/comments through HTTP: the resource (arguments, contexts, links,
 * `_embed`), the anonymous flow, moderation, duplicates and flood control,
 * threads, statuses and their events, password-protected and draft posts,
 * filtering of stored text, counts under concurrency, and every route's
 * permission cases.
 */
import t from 'tap'
import { setOption } from '@cms/store'
import { definePackage, LIFECYCLE_TOPICS, type LifecycleEvent } from '../src/index.js'
import { checkPermissions, testApp, type TestUser } from '../src/testing.js'
import { withContentUsers, type ContentHarness } from './fixtures/content/harness.js'

const BASE = 'http://cms.test'

type Seen = Array<{ topic: string, objectId: number, payload: Record<string, unknown> }>

function listener (seen: Seen) {
  return definePackage({
    name: '@cms/comment-listener',
    dependencies: ['@cms/core'],
    namespaces: [],
    listeners: Object.fromEntries(LIFECYCLE_TOPICS.filter((x) => x.startsWith('comment.')).map((topic) => [`record-${topic}`, topic])),
    serve (api) {
      for (const topic of LIFECYCLE_TOPICS.filter((x) => x.startsWith('comment.'))) {
        api.on(`record-${topic}`, (event: LifecycleEvent) => { seen.push({ topic: event.topic, objectId: event.objectId, payload: event.payload }) })
      }
    }
  })
}

async function harness (env: Record<string, string> = {}, seen: Seen = []): Promise<ContentHarness> {
  const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'], env, packages: [listener(seen)] }))
  // Flood control is tested on its own; elsewhere one commenter writes several comments at once.
  await setOption(h.store, 'comment_flood_seconds', 0)
  return h
}

async function publishedPost (h: ContentHarness, as: TestUser, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await h.call('POST', '/cms/v2/posts', { as, body: { title: 'Commented', content: 'Body', status: 'publish', ...extra } })
  if (res.status !== 201) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.id as number
}

t.test('the resource: create, read, list, contexts and links', async (t) => {
  const h = await harness()
  t.teardown(() => h.close())
  const { admin, editor, subscriber, author } = h.users
  const post = await publishedPost(h, author)

  const anon = await h.call('POST', '/cms/v2/comments', { body: { post, content: 'Hi' } })
  t.equal(anon.status, 401, 'anonymous comments are refused by default')
  t.equal(anon.body.code, 'rest_comment_login_required')
  const anonBad = await h.call('POST', '/cms/v2/comments', { body: { post: 99999, status: 'approved', author: 3 } })
  t.equal(anonBad.body.code, 'rest_comment_login_required', 'before any other check')

  const created = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post, content: 'First :) see https://example.com/a.' } })
  t.equal(created.status, 201)
  const id = created.body.id as number
  t.equal(created.headers.location, `${BASE}/index.php?rest_route=/cms/v2/comments/${id}`)
  t.same(Object.keys(created.body), ['id', 'post', 'parent', 'author', 'author_name', 'author_email', 'author_url', 'author_ip', 'author_user_agent', 'date', 'date_gmt', 'content', 'link', 'status', 'type', 'author_avatar_urls', 'meta', '_links'], 'a moderator sees the edit context')
  t.match(created.body, { post, parent: 0, author: editor.id, author_name: 'editor', status: 'approved', type: 'comment', link: `${BASE}/?p=${post}#comment-${id}` })
  t.equal(created.body.content.raw, 'First :) see https://example.com/a.')
  t.equal(created.body.content.rendered, '<p>First \u{1F642} see <a href="https://example.com/a" rel="nofollow ugc">https://example.com/a</a>.</p>\n')
  t.same(Object.keys(created.body.author_avatar_urls), ['24', '48', '96'])

  const viewed = await h.call('GET', `/cms/v2/comments/${id}`)
  t.equal(viewed.status, 200)
  t.same(Object.keys(viewed.body), ['id', 'post', 'parent', 'author', 'author_name', 'author_url', 'date', 'date_gmt', 'content', 'link', 'status', 'type', 'author_avatar_urls', 'meta', '_links'], 'view context: no e-mail, address or agent')
  t.same(Object.keys(viewed.body.content), ['rendered'])
  t.same(viewed.body._links.up, [{ embeddable: true, post_type: 'post', href: `${BASE}/index.php?rest_route=/cms/v2/posts/${post}` }])
  t.same(viewed.body._links.author, [{ embeddable: true, href: `${BASE}/index.php?rest_route=/cms/v2/users/${editor.id}` }])
  const embedded = await h.call('GET', `/cms/v2/comments/${id}`, { query: { context: 'embed' } })
  t.same(Object.keys(embedded.body), ['id', 'parent', 'author', 'author_name', 'author_url', 'date', 'content', 'link', 'type', 'author_avatar_urls', '_links'])
  const editContext = await h.call('GET', `/cms/v2/comments/${id}`, { as: subscriber, query: { context: 'edit' } })
  t.equal(editContext.status, 403)
  t.equal(editContext.body.code, 'rest_forbidden_context')

  // The post's replies link resolves and embeds.
  const p = await h.call('GET', `/cms/v2/posts/${post}`, { query: { _embed: 'replies' } })
  t.same(p.body._links.replies, [{ embeddable: true, href: `${BASE}/index.php?rest_route=%2Fcms%2Fv2%2Fcomments&post=${post}` }])
  t.same(p.body._embedded.replies[0].map((c: { id: number }) => c.id), [id])
  const page = await h.call('POST', '/cms/v2/pages', { as: admin, body: { title: 'A page', status: 'publish' } })
  t.ok(page.body._links.replies, 'pages carry the replies link too')

  const reply = await h.call('POST', '/cms/v2/comments', { as: admin, body: { post, parent: id, content: 'A reply' } })
  t.equal(reply.status, 201)
  t.same(reply.body._links['in-reply-to'], [{ embeddable: true, href: `${BASE}/index.php?rest_route=/cms/v2/comments/${id}` }])
  const parent = await h.call('GET', `/cms/v2/comments/${id}`, { query: { _embed: 'children,up' } })
  t.same(parent.body._links.children, [{ embeddable: true, href: `${BASE}/index.php?rest_route=%2Fcms%2Fv2%2Fcomments&parent=${id}` }])
  t.same(parent.body._embedded.children[0].map((c: { id: number }) => c.id), [reply.body.id])
  t.equal(parent.body._embedded.up[0].id, post)

  const listed = await h.call('GET', '/cms/v2/comments', { query: { post: String(post) } })
  t.equal(listed.headers['x-cms-total'], '2')
  t.same(listed.body.map((c: { id: number }) => c.id), [reply.body.id, id], 'newest first')

  const empty = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post, content: '   ' } })
  t.equal(empty.status, 400)
  t.equal(empty.body.code, 'rest_comment_content_invalid')
  const typed = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post, content: 'x', type: 'pingback' } })
  t.equal(typed.body.code, 'rest_invalid_comment_type')
  const existing = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post, content: 'x', id: 5 } })
  t.equal(existing.status, 400)
  t.equal(existing.body.code, 'rest_comment_exists')
  const long = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post, content: 'x'.repeat(65526) } })
  t.equal(long.status, 400)
  t.equal(long.body.code, 'comment_content_column_length')
  const missing = await h.call('GET', '/cms/v2/comments/99999')
  t.equal(missing.status, 404)
  t.equal(missing.body.code, 'rest_comment_invalid_id')
})

t.test('every list argument, validated', async (t) => {
  const h = await harness()
  t.teardown(() => h.close())
  const { admin, editor, author, contributor, subscriber } = h.users
  const a = await publishedPost(h, author)
  const b = await publishedPost(h, author)
  const ids: number[] = []
  for (const [post, as, content] of [[a, editor, 'alpha one'], [a, admin, 'beta two'], [b, editor, 'gamma three']] as const) {
    const r = await h.call('POST', '/cms/v2/comments', { as, body: { post, content } })
    ids.push(r.body.id as number)
  }
  const reply = await h.call('POST', '/cms/v2/comments', { as: admin, body: { post: a, parent: ids[0], content: 'delta reply' } })
  ids.push(reply.body.id as number)
  const list = async (query: Record<string, string>, as?: TestUser) => await h.call('GET', '/cms/v2/comments', { as, query })
  const idsOf = (res: { status: number, body: Array<{ id: number }> }): number[] => {
    if (!Array.isArray(res.body)) throw new Error(`${res.status} ${JSON.stringify(res.body)}`)
    return res.body.map((c) => c.id)
  }

  t.same(idsOf(await list({ post: String(a), order: 'asc' })), [ids[0], ids[1], ids[3]])
  t.same(idsOf(await list({ post: `${a},${b}`, orderby: 'id', order: 'asc' })), ids)
  t.same(idsOf(await list({ parent: String(ids[0]) })), [ids[3]])
  const pe = await list({ parent_exclude: '0' })
  t.equal(pe.status, 200, JSON.stringify(pe.body))
  t.same(idsOf(pe), [ids[3]])
  t.same(idsOf(await list({ include: `${ids[2]},${ids[0]}`, orderby: 'include' })), [ids[2], ids[0]])
  t.same(idsOf(await list({ exclude: String(ids[3]), order: 'asc', orderby: 'id' })), [ids[0], ids[1], ids[2]])
  t.same(idsOf(await list({ search: 'gamma' })), [ids[2]])
  t.same(idsOf(await list({ author: String(admin.id), orderby: 'id', order: 'asc' }, editor)), [ids[1], ids[3]])
  t.same(idsOf(await list({ author_exclude: String(admin.id), orderby: 'id', order: 'asc' }, editor)), [ids[0], ids[2]])
  t.same(idsOf(await list({ per_page: '2', page: '2', orderby: 'id', order: 'asc' })), [ids[2], ids[3]])
  t.same(idsOf(await list({ offset: '3', orderby: 'id', order: 'asc' })), [ids[3]])
  t.same(idsOf(await list({ after: '2000-01-01T00:00:00', before: '2999-01-01T00:00:00', orderby: 'id', order: 'asc' })), ids)
  t.same(idsOf(await list({ after: '2999-01-01T00:00:00' })), [])
  const paged = await list({ per_page: '1' })
  t.equal(paged.headers['x-cms-totalpages'], '4')
  t.match(String(paged.headers.link), /rel="next"/)
  const past = await list({ page: '9' })
  t.equal(past.status, 200, 'a page past the end is an empty list, as the core answers')
  t.same(past.body, [])
  t.equal(past.headers['x-cms-total'], '4')
  const editorEmail = (await h.call('GET', `/cms/v2/comments/${ids[0]}`, { as: admin, query: { context: 'edit' } })).body.author_email
  t.same(idsOf(await list({ author_email: editorEmail, orderby: 'id', order: 'asc' }, admin)), [ids[0], ids[2]])

  for (const [query, param] of [
    [{ per_page: '0' }, 'per_page'], [{ per_page: '101' }, 'per_page'], [{ page: '0' }, 'page'], [{ order: 'up' }, 'order'],
    [{ orderby: 'author' }, 'orderby'], [{ after: 'yesterday' }, 'after'], [{ author_email: 'nope' }, 'author_email'],
    [{ post: 'x' }, 'post'], [{ context: 'admin' }, 'context']
  ] as const) {
    const res = await list(query, admin)
    t.equal(res.status, 400, `${param} validated`)
    t.equal(res.body.code, 'rest_invalid_param')
    t.ok(res.body.data.params[param], param)
  }
  // Filters that need authorization (edit_posts) are refused to others, as the core refuses them.
  const guarded: Array<Record<string, string>> = [{ status: 'hold' }, { type: 'all' }, { author: String(admin.id) }, { author_email: 'a@example.org' }]
  for (const query of guarded) {
    const res = await list(query, subscriber)
    t.equal(res.status, 403, `${Object.keys(query)[0]} needs authorization`)
    t.equal(res.body.code, 'rest_forbidden_param')
    t.equal((await list(query)).status, 401)
  }
  t.equal((await list({ status: 'hold' }, contributor)).status, 200, 'a contributor may filter by status (edit_posts)')
  // Search never looks at e-mail addresses for someone who may not see them.
  t.same(idsOf(await list({ search: `@${editorEmail.split('@')[1]}` })), [], 'no e-mail oracle')
  t.ok(idsOf(await list({ search: editorEmail }, admin)).length >= 2, 'moderators search e-mail addresses')
})

t.test('anonymous comments, when the site takes them', async (t) => {
  const h = await harness({ CMS_COMMENTS_ANONYMOUS: '1' })
  t.teardown(() => h.close())
  const { editor, author } = h.users
  const post = await publishedPost(h, author)
  const closed = await publishedPost(h, author, { comment_status: 'closed' })

  const nameless = await h.call('POST', '/cms/v2/comments', { body: { post, content: 'Hello' } })
  t.equal(nameless.status, 400)
  t.equal(nameless.body.code, 'rest_comment_author_data_required')
  const closedRes = await h.call('POST', '/cms/v2/comments', { body: { post: closed, content: 'Hello', author_name: 'Ann', author_email: 'ann@example.org' } })
  t.equal(closedRes.status, 403)
  t.equal(closedRes.body.code, 'rest_comment_closed')
  const spoof = await h.call('POST', '/cms/v2/comments', { body: { post, content: 'Hello', author_name: 'Ann', author_email: 'ann@example.org', status: 'approved' } })
  t.equal(spoof.status, 401)
  t.equal(spoof.body.code, 'rest_comment_invalid_status')

  const held = await h.call('POST', '/cms/v2/comments', { body: { post, content: 'Hello <script>x()</script><b>there</b>', author_name: 'Ann <i>A</i>', author_email: 'ann@example.org' } })
  t.equal(held.status, 201)
  t.equal(held.body.status, 'hold', 'a first comment waits for moderation')
  t.notOk('author_email' in held.body, 'the answer never shows the e-mail to its anonymous author')
  t.equal(held.body.author_name, 'Ann A', 'the name is plain text')
  t.equal(held.body.content.rendered, '<p>Hello <b>there</b></p>\n', 'the text is filtered')
  const id = held.body.id as number
  t.equal((await h.call('GET', `/cms/v2/comments/${id}`)).status, 401, 'nobody else sees it')
  t.same((await h.call('GET', '/cms/v2/comments', { query: { post: String(post) } })).body, [])

  const approved = await h.call('POST', `/cms/v2/comments/${id}`, { as: editor, body: { status: 'approve' } })
  t.equal(approved.status, 200)
  t.equal(approved.body.status, 'approved')
  const shown = await h.call('GET', '/cms/v2/comments', { query: { post: String(post) } })
  t.same(shown.body.map((c: { id: number }) => c.id), [id], 'then public')
  t.notOk('author_email' in shown.body[0])

  const again = await h.call('POST', '/cms/v2/comments', { body: { post, content: 'Back again', author_name: 'Ann A', author_email: 'ann@example.org' } })
  t.equal(again.body.status, 'approved', 'an author with an approved comment is trusted')
})

t.test('moderation, duplicates and flood control', async (t) => {
  const h = await harness()
  t.teardown(() => h.close())
  const { admin, editor, author, subscriber, contributor } = h.users
  const post = await publishedPost(h, author)
  const say = async (as: TestUser, content: string, extra: Record<string, unknown> = {}) => await h.call('POST', '/cms/v2/comments', { as, body: { post, content, ...extra } })

  const first = await say(subscriber, 'My first words')
  t.equal(first.body.status, 'hold')
  t.equal((await h.call('GET', `/cms/v2/comments/${first.body.id}`, { as: subscriber })).status, 200, 'its author sees a held comment')
  t.equal((await h.call('GET', `/cms/v2/comments/${first.body.id}`, { as: contributor })).status, 403)
  t.equal((await h.call('GET', `/cms/v2/comments/${first.body.id}`, { as: author })).status, 200, "the post's author moderates its comments")
  t.equal((await say(author, 'Thanks for reading')).body.status, 'approved', "the post's author is approved")
  t.equal((await say(subscriber, 'Still waiting')).body.status, 'hold', 'held until one is approved')
  t.equal((await h.call('POST', `/cms/v2/comments/${first.body.id}`, { as: author, body: { status: 'approved' } })).status, 200)
  t.equal((await say(subscriber, 'Now trusted')).body.status, 'approved')
  t.equal((await say(subscriber, 'See http://a.example http://b.example http://c.example')).body.status, 'hold', 'more links than allowed')
  await setOption(h.store, 'moderation_keys', 'casino\n')
  t.equal((await say(subscriber, 'Visit the CASINO')).body.status, 'hold', 'a moderation word')
  await setOption(h.store, 'disallowed_keys', 'viagra')
  t.equal((await say(subscriber, 'buy viagra')).body.status, 'trash', 'a disallowed word')
  await setOption(h.store, 'comment_moderation', 1)
  t.equal((await say(subscriber, 'Everything is held')).body.status, 'hold')
  t.equal((await say(editor, 'Not for moderators')).body.status, 'approved')

  const dup = await say(subscriber, 'Everything is held')
  t.equal(dup.status, 409)
  t.equal(dup.body.code, 'comment_duplicate')
  t.equal((await say(admin, 'Everything is held')).status, 201, 'the same words by someone else are not a duplicate')

  // Everyone here comments from one address, which has just commented.
  await setOption(h.store, 'comment_flood_seconds', 15)
  const flood = await say(contributor, 'one more')
  t.equal(flood.status, 400)
  t.equal(flood.body.code, 'comment_flood')
  await setOption(h.store, 'comment_flood_seconds', 0)
  t.equal((await say(contributor, 'one more')).status, 201, 'the setting at 0 turns it off')
  await setOption(h.store, 'comment_flood_seconds', 15)
  const exempt = await say(admin, 'moderators are never held back')
  t.equal(exempt.status, 201, JSON.stringify(exempt.body))
})

t.test('threads, statuses, trash and delete, with their events', async (t) => {
  const seen: Seen = []
  const h = await harness({}, seen)
  t.teardown(() => h.close())
  const { admin, editor, author, subscriber } = h.users
  const post = await publishedPost(h, author)
  const other = await publishedPost(h, author)
  await setOption(h.store, 'thread_comments_depth', 3)
  const root = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post, content: 'root' } })
  const d2 = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post, parent: root.body.id, content: 'depth 2' } })
  const d3 = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post, parent: d2.body.id, content: 'depth 3' } })
  t.equal(d3.status, 201)
  const d4 = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post, parent: d3.body.id, content: 'depth 4' } })
  t.equal(d4.status, 400, 'deeper than the thread depth')
  t.equal(d4.body.code, 'rest_comment_invalid_parent')
  const elsewhere = await h.call('POST', '/cms/v2/comments', { as: editor, body: { post: other, parent: root.body.id, content: 'wrong post' } })
  t.equal(elsewhere.body.code, 'rest_comment_invalid_parent', 'a parent on another post')

  const id = d2.body.id as number
  for (const [status, expected] of [['spam', 'spam'], ['unspam', 'approved'], ['hold', 'hold'], ['trash', 'trash'], ['untrash', 'hold'], ['approved', 'approved'], ['approved', 'approved']] as const) {
    const res = await h.call('POST', `/cms/v2/comments/${id}`, { as: editor, body: { status } })
    t.equal(res.status, 200, `${status}`)
    t.equal(res.body.status, expected, `${status} -> ${expected}`)
  }
  t.equal((await h.call('POST', `/cms/v2/comments/${id}`, { as: editor, body: { status: 'published' } })).status, 400)
  t.equal((await h.call('POST', `/cms/v2/comments/${id}`, { as: editor, body: { type: 'pingback' } })).body.code, 'rest_comment_invalid_type')
  t.equal((await h.call('POST', `/cms/v2/comments/${id}`, { as: subscriber, body: { content: 'mine now' } })).status, 403)
  const edited = await h.call('POST', `/cms/v2/comments/${id}`, { as: editor, body: { content: { raw: 'edited' } } })
  t.equal(edited.body.content.raw, 'edited')

  const trashed = await h.call('DELETE', `/cms/v2/comments/${id}`, { as: editor })
  t.equal(trashed.status, 200)
  t.equal(trashed.body.status, 'trash')
  const again = await h.call('DELETE', `/cms/v2/comments/${id}`, { as: editor })
  t.equal(again.status, 410)
  t.equal(again.body.code, 'rest_already_trashed')
  const deleted = await h.call('DELETE', `/cms/v2/comments/${id}`, { as: admin, query: { force: 'true' } })
  t.same(Object.keys(deleted.body), ['deleted', 'previous'])
  t.equal((await h.call('GET', `/cms/v2/comments/${d3.body.id}`)).body.parent, root.body.id, 'its replies move up to its parent')
  t.equal((await h.call('GET', `/cms/v2/comments/${id}`)).status, 404)

  await h.services.events.drain()
  const of = (topic: string): number[] => seen.filter((e) => e.topic === topic).map((e) => e.objectId)
  t.same(of('comment.created'), [root.body.id, d2.body.id, d3.body.id])
  t.same(of('comment.spammed'), [id])
  t.same(of('comment.approved'), [id, id], 'approved after unspam and again after untrash was held')
  t.same(of('comment.trashed'), [id, id])
  t.same(of('comment.deleted'), [id])

  // A post's deletion takes its comments with it.
  t.equal((await h.call('DELETE', `/cms/v2/posts/${post}`, { as: admin, query: { force: 'true' } })).status, 200)
  t.equal((await h.call('GET', `/cms/v2/comments/${root.body.id}`)).status, 404)
})

t.test('protected, private and draft posts', async (t) => {
  const h = await harness()
  t.teardown(() => h.close())
  const { admin, author, author2, subscriber } = h.users
  const locked = await publishedPost(h, author, { password: 'sesame' })
  const draft = (await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Draft', status: 'draft' } })).body.id as number
  const secret = (await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Private', status: 'private' } })).body.id as number
  const c = await h.call('POST', '/cms/v2/comments', { as: admin, body: { post: locked, content: 'behind the password' } })
  t.equal(c.status, 201)
  await h.call('POST', '/cms/v2/comments', { as: admin, body: { post: secret, content: 'on a private post' } })

  t.same((await h.call('GET', '/cms/v2/comments')).body, [], 'neither is listed for the public')
  t.equal((await h.call('GET', `/cms/v2/comments/${c.body.id}`)).status, 401)
  const withPassword = await h.call('GET', '/cms/v2/comments', { query: { post: String(locked), password: 'sesame' } })
  t.same(withPassword.body.map((x: { id: number }) => x.id), [c.body.id], 'the post password unlocks them')
  t.equal((await h.call('GET', `/cms/v2/comments/${c.body.id}`, { query: { password: 'sesame' } })).status, 200)
  t.equal((await h.call('GET', '/cms/v2/comments', { query: { post: String(locked), password: 'wrong' } })).status, 401)
  t.equal((await h.call('GET', '/cms/v2/comments', { as: author2 })).body.length, 0, 'another author sees neither')
  t.equal((await h.call('GET', '/cms/v2/comments', { as: author })).body.length, 2, 'the posts\u2019 author sees both')

  const onLocked = await h.call('POST', '/cms/v2/comments', { as: subscriber, body: { post: locked, content: 'let me in' } })
  t.equal(onLocked.status, 403)
  t.equal(onLocked.body.code, 'rest_cannot_read_post')
  const onDraft = await h.call('POST', '/cms/v2/comments', { as: author, body: { post: draft, content: 'early' } })
  t.equal(onDraft.status, 403)
  t.equal(onDraft.body.code, 'rest_comment_draft_post')
  const onMissing = await h.call('POST', '/cms/v2/comments', { as: subscriber, body: { post: 99999, content: 'void' } })
  t.equal(onMissing.body.code, 'rest_comment_invalid_post_id')
  const noPost = await h.call('POST', '/cms/v2/comments', { as: subscriber, body: { content: 'nowhere' } })
  t.equal(noPost.status, 403)
  t.equal(noPost.body.code, 'rest_comment_invalid_post_id')
})

t.test('stored text, smilies and counts under concurrency', async (t) => {
  const h = await harness()
  t.teardown(() => h.close())
  const { admin, author } = h.users
  const post = await publishedPost(h, author)
  const trusted = await h.call('POST', '/cms/v2/comments', { as: admin, body: { post, content: '<span class="x">kept</span> :)' } })
  t.equal(trusted.body.content.raw, '<span class="x">kept</span> :)', 'unfiltered_html keeps markup')
  const smiling = await publishedPost(h, author, { content: 'Hello :)' })
  t.equal((await h.call('GET', `/cms/v2/posts/${smiling}`)).body.content.rendered, '<p>Hello \u{1F642}</p>\n', 'smilies are emoji by default')
  await h.call('POST', '/cms/v2/settings', { as: admin, body: { use_smilies: false } })
  t.equal((await h.call('GET', `/cms/v2/posts/${smiling}`)).body.content.rendered, '<p>Hello :)</p>\n', 'use_smilies off: posts keep the text')
  t.equal((await h.call('GET', '/cms/v2/settings', { as: admin })).body.use_smilies, false)
  t.equal((await h.call('GET', `/cms/v2/comments/${trusted.body.id}`)).body.content.rendered, '<p><span class="x">kept</span> :)</p>\n', 'no smilies once switched off')

  const many = await Promise.all(Array.from({ length: 50 }, async (_, i) => await h.call('POST', '/cms/v2/comments', { as: admin, body: { post, content: `comment ${i}` } })))
  t.same(many.map((r) => r.status), Array(50).fill(201), '50 comments at once, all taken')
  t.equal(new Set(many.map((r) => r.body.id)).size, 50)
  const total = await h.call('GET', '/cms/v2/comments', { query: { post: String(post), per_page: '1' } })
  t.equal(total.headers['x-cms-total'], '51')
})

t.test('permission cases of every comment route', async (t) => {
  const h = await testApp({ namespaces: ['cms/v2'] })
  t.teardown(() => h.close())
  await setOption(h.store, 'comment_flood_seconds', 0)
  const probed = await checkPermissions(t, h, { only: (target) => target.key.includes(' /cms/v2/comments') })
  t.equal(probed, 7, 'list, create, read, update (POST, PUT, PATCH) and delete')
})
