/**
 * `cms/v2/users`, `users/{id}` and `users/me` over HTTP on a real database:
 * what anonymous and signed-in callers see, list arguments, create, update,
 * delete with reassignment, and the 401/403 codes.
 */
import t from 'tap'
import { sql } from 'drizzle-orm'
import type { Store } from '@cms/store'
import { call } from '@cms/rest/testing'
import { testApp, createCaller, type TestUser } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'
import { createUser } from '../src/index.js'

const PUBLIC_FIELDS = ['id', 'name', 'url', 'description', 'link', 'slug', 'avatar_urls', '_links']
const EDIT_FIELDS = ['id', 'username', 'name', 'first_name', 'last_name', 'email', 'url', 'description', 'link', 'locale',
  'nickname', 'slug', 'roles', 'registered_date', 'capabilities', 'extra_capabilities', 'avatar_urls', '_links']

/** A post row as the content module stores it (raw SQL: only the columns this test needs). */
async function post (store: Store, author: number, status = 'publish', type = 'post'): Promise<number> {
  const [row] = await store.execute<{ id: number }>(sql`insert into posts (type, author, status, title, modified_gmt, date_gmt)
    values (${type}, ${author}, ${status}, ${`by ${author}`}, now(), now()) returning id`)
  return row!.id
}

async function postsOf (store: Store, author: number): Promise<number> {
  const [row] = await store.execute<{ n: number }>(sql`select count(*)::int as n from posts where author = ${author}`)
  return row!.n
}

t.test('users routes', async (t) => {
  const { app, store } = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true })
  t.teardown(() => app.close())
  const admin = await createCaller(store, 'administrator', { login: 'admin' })
  const editor = await createCaller(store, 'editor', { login: 'edna' })
  const author = await createCaller(store, 'author', { login: 'arthur' })
  const contributor = await createCaller(store, 'contributor', { login: 'connie' })
  const subscriber = await createCaller(store, 'subscriber', { login: 'sub' })
  await post(store, author.user.id)
  await post(store, editor.user.id, 'draft')

  t.test('anonymous callers see only users with published posts, and only public fields', async (t) => {
    const list = await call(app, 'GET', '/cms/v2/users')
    t.equal(list.status, 200)
    t.same(list.body.map((u: any) => u.id), [author.user.id], 'only the author with a published post')
    t.equal(list.headers['x-cms-total'], '1')
    t.equal(list.headers['x-cms-totalpages'], '1')
    t.same(Object.keys(list.body[0]), PUBLIC_FIELDS)
    t.same(list.body[0]._links, {
      self: [{ href: `http://cms.test/index.php?rest_route=/cms/v2/users/${author.user.id}` }],
      collection: [{ href: 'http://cms.test/index.php?rest_route=/cms/v2/users' }]
    })
    t.equal(list.body[0].link, `http://cms.test/?author=${author.user.id}`)
    t.same(Object.keys(list.body[0].avatar_urls), ['24', '48', '96'])
    t.equal(list.headers.allow, 'GET', 'anonymous may only read')

    const one = await call(app, 'GET', `/cms/v2/users/${author.user.id}`)
    t.equal(one.status, 200)
    t.same(Object.keys(one.body), PUBLIC_FIELDS)
    const embed = await call(app, 'GET', `/cms/v2/users/${author.user.id}`, { query: { context: 'embed' } })
    t.same(Object.keys(embed.body), PUBLIC_FIELDS, 'embed context: the same public fields')

    const hidden = await call(app, 'GET', `/cms/v2/users/${editor.user.id}`)
    t.equal(hidden.status, 401, 'a user with only drafts is not public')
    t.same(hidden.body, { code: 'rest_user_cannot_view', message: 'Sorry, you are not allowed to list users.', data: { status: 401 } })

    const missing = await call(app, 'GET', '/cms/v2/users/9999')
    t.equal(missing.status, 404)
    t.same(missing.body, { code: 'rest_user_invalid_id', message: 'Invalid user ID.', data: { status: 404 } })

    const edit = await call(app, 'GET', '/cms/v2/users', { query: { context: 'edit' } })
    t.equal(edit.status, 401)
    t.same(edit.body, { code: 'rest_forbidden_context', message: 'Sorry, you are not allowed to list users.', data: { status: 401 } })
  })

  t.test('administrators see everyone; context=edit adds the private fields', async (t) => {
    const list = await call(app, 'GET', '/cms/v2/users', { as: admin, query: { orderby: 'id' } })
    t.equal(list.status, 200)
    t.same(list.body.map((u: any) => u.id), [admin, editor, author, contributor, subscriber].map((a) => a.user.id))
    t.same(Object.keys(list.body[0]), PUBLIC_FIELDS, 'view context by default')
    t.equal(list.headers.allow, 'GET, POST')

    const edit = await call(app, 'GET', `/cms/v2/users/${editor.user.id}`, { as: admin, query: { context: 'edit' } })
    t.equal(edit.status, 200)
    t.same(Object.keys(edit.body), EDIT_FIELDS)
    t.equal(edit.body.username, 'edna')
    t.equal(edit.body.email, 'edna@example.com')
    t.same(edit.body.roles, ['editor'])
    t.match(edit.body.registered_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
    t.equal(edit.body.nickname, 'edna')
    t.equal(edit.body.locale, 'en_US')
    t.equal(edit.headers.allow, 'GET, POST, PUT, PATCH, DELETE')
  })

  t.test('signed-in users without list_users', async (t) => {
    const list = await call(app, 'GET', '/cms/v2/users', { as: subscriber })
    t.same(list.body.map((u: any) => u.id), [author.user.id], 'like anonymous callers')
    const edit = await call(app, 'GET', '/cms/v2/users', { as: subscriber, query: { context: 'edit' } })
    t.equal(edit.status, 403)
    t.equal(edit.body.code, 'rest_forbidden_context')
    const own = await call(app, 'GET', `/cms/v2/users/${subscriber.user.id}`, { as: subscriber, query: { context: 'edit' } })
    t.equal(own.status, 200, 'anyone reads themselves, edit context included')
    t.same(Object.keys(own.body), EDIT_FIELDS)
    const other = await call(app, 'GET', `/cms/v2/users/${editor.user.id}`, { as: subscriber })
    t.equal(other.status, 403)
    t.equal(other.body.code, 'rest_user_cannot_view')
    const otherEdit = await call(app, 'GET', `/cms/v2/users/${author.user.id}`, { as: subscriber, query: { context: 'edit' } })
    t.equal(otherEdit.status, 403, 'a public author, but not in edit context')
  })

  t.test('users/me', async (t) => {
    const anon = await call(app, 'GET', '/cms/v2/users/me')
    t.equal(anon.status, 401)
    t.equal(anon.body.code, 'rest_not_logged_in')
    const me = await call(app, 'GET', '/cms/v2/users/me', { as: contributor })
    t.equal(me.status, 200)
    t.equal(me.body.id, contributor.user.id)
    t.same(Object.keys(me.body), PUBLIC_FIELDS)
    const meEdit = await call(app, 'GET', '/cms/v2/users/me', { as: contributor, query: { context: 'edit' } })
    t.same(meEdit.body.roles, ['contributor'])
    const renamed = await call(app, 'POST', '/cms/v2/users/me', { as: contributor, body: { name: 'Connie C.', first_name: 'Connie' } })
    t.equal(renamed.status, 200)
    t.equal(renamed.body.name, 'Connie C.')
    t.equal(renamed.body.first_name, 'Connie')
    t.equal(renamed.body.username, 'connie', 'write responses are in edit context')
    const anonUpdate = await call(app, 'POST', '/cms/v2/users/me', { body: { name: 'x' } })
    t.equal(anonUpdate.status, 401)
    t.equal(anonUpdate.body.code, 'rest_not_logged_in')
    const anonDelete = await call(app, 'DELETE', '/cms/v2/users/me', { query: { force: 'true', reassign: 'false' } })
    t.equal(anonDelete.status, 401)
  })

  t.test('list arguments', async (t) => {
    const ids = (res: { body: any[] }): number[] => res.body.map((u) => u.id)
    // `null`: anonymous.
    const q = async (query: Record<string, string>, who: TestUser | null = admin): Promise<any> =>
      await call(app, 'GET', '/cms/v2/users', { as: who ?? undefined, query })

    const page1 = await q({ per_page: '2', orderby: 'id' })
    t.same(ids(page1), [admin.user.id, editor.user.id])
    t.equal(page1.headers['x-cms-total'], '5')
    t.equal(page1.headers['x-cms-totalpages'], '3')
    t.equal(page1.headers.link, '<http://cms.test/index.php?rest_route=%2Fcms%2Fv2%2Fusers&per_page=2&orderby=id&page=2>; rel="next"')
    const page3 = await q({ per_page: '2', orderby: 'id', page: '3' })
    t.same(ids(page3), [subscriber.user.id])
    t.match(page3.headers.link, /page=2>; rel="prev"$/)
    const beyond = await q({ per_page: '2', page: '9' })
    t.equal(beyond.status, 200, 'no page error for users')
    t.same(beyond.body, [])
    const offset = await q({ per_page: '2', orderby: 'id', offset: '3' })
    t.same(ids(offset), [contributor.user.id, subscriber.user.id])

    t.same(ids(await q({ orderby: 'id', order: 'desc', per_page: '2' })), [subscriber.user.id, contributor.user.id])
    t.same(ids(await q({ include: `${author.user.id},${admin.user.id}`, orderby: 'include' })), [author.user.id, admin.user.id])
    t.same(ids(await q({ exclude: `${admin.user.id}`, orderby: 'id', per_page: '1' })), [editor.user.id])
    t.same(ids(await q({ slug: 'sub,edna', orderby: 'include_slugs' })), [subscriber.user.id, editor.user.id])
    t.same(ids(await q({ roles: 'editor,author', orderby: 'id' })), [editor.user.id, author.user.id])
    t.same(ids(await q({ capabilities: 'edit_others_posts', orderby: 'id' })), [admin.user.id, editor.user.id])
    t.same(ids(await q({ search: 'arth' })), [author.user.id])
    t.same(ids(await q({ search: 'ARTH' })), [author.user.id], 'the search ignores case')
    t.same(ids(await q({ search: 'sub@example' })), [subscriber.user.id], 'administrators search e-mail addresses')
    t.same(ids(await q({ search: 'arthur@example' })), [author.user.id])
    t.same(ids(await q({ search: 'arthur@example' }, null)), [], 'anonymous searches do not look at e-mail addresses')
    t.same(ids(await q({ search: 'arth' }, null)), [author.user.id])
    t.same(ids(await q({ has_published_posts: 'true' })), [author.user.id])
    t.same(ids(await q({ has_published_posts: 'page' })), [])
    t.same(ids(await q({ who: 'authors', orderby: 'id' }, contributor)), [admin, editor, author, contributor].map((a) => a.user.id),
      'who=authors: everyone who may write, posts or not')

    const badPage = await q({ per_page: '101' })
    t.equal(badPage.status, 400)
    t.equal(badPage.body.code, 'rest_invalid_param')
    const badOrder = await q({ orderby: 'nope' })
    t.equal(badOrder.status, 400)

    const byRole = await q({ roles: 'editor' }, null)
    t.equal(byRole.status, 401)
    t.same(byRole.body, { code: 'rest_user_cannot_view', message: 'Sorry, you are not allowed to filter users by role.', data: { status: 401 } })
    t.equal((await q({ roles: 'editor' }, subscriber)).status, 403)
    const byCap = await q({ capabilities: 'read' }, subscriber)
    t.equal(byCap.status, 403)
    t.equal(byCap.body.message, 'Sorry, you are not allowed to filter users by capability.')
    const byEmail = await q({ orderby: 'email' }, null)
    t.same(byEmail.body, { code: 'rest_forbidden_orderby', message: 'Sorry, you are not allowed to order users by this parameter.', data: { status: 401 } })
    const who = await q({ who: 'authors' }, subscriber)
    t.same(who.body, { code: 'rest_forbidden_who', message: 'Sorry, you are not allowed to query users by this parameter.', data: { status: 403 } })
  })

  t.test('create', async (t) => {
    const before = await call(app, 'GET', '/cms/v2/users', { as: admin })
    const made = await call(app, 'POST', '/cms/v2/users', {
      as: admin,
      body: { username: 'newbie', email: 'newbie@example.com', password: 'pw-123456', name: 'New Bie', roles: ['author'], description: 'Hello', url: 'https://newbie.example' }
    })
    t.equal(made.status, 201)
    t.equal(made.headers.location, `http://cms.test/index.php?rest_route=/cms/v2/users/${made.body.id}`)
    t.same(Object.keys(made.body), EDIT_FIELDS)
    t.match(made.body, { username: 'newbie', name: 'New Bie', email: 'newbie@example.com', roles: ['author'], slug: 'newbie', description: 'Hello', url: 'https://newbie.example' })
    t.notOk('password' in made.body, 'the password is never shown')

    const plain = await call(app, 'POST', '/cms/v2/users', { as: admin, body: { username: 'Plain User', email: 'plain@example.com', password: 'x' } })
    t.equal(plain.status, 201)
    t.same(plain.body.roles, ['subscriber'], 'default role')
    t.equal(plain.body.slug, 'plain-user')

    const expectations: Array<[string, Record<string, unknown>, number, string]> = [
      ['missing fields', {}, 400, 'rest_missing_callback_param'],
      ['bad e-mail', { username: 'x1', email: 'not-an-email', password: 'p' }, 400, 'rest_invalid_param'],
      ['taken login', { username: 'NEWBIE', email: 'other@example.com', password: 'p' }, 400, 'existing_user_login'],
      ['taken e-mail', { username: 'other', email: 'Newbie@Example.com', password: 'p' }, 400, 'existing_user_email'],
      ['unknown role', { username: 'x2', email: 'x2@example.com', password: 'p', roles: ['wizard'] }, 400, 'rest_user_invalid_role'],
      ['illegal login', { username: 'bad:login', email: 'x3@example.com', password: 'p' }, 400, 'rest_invalid_param'],
      ['backslash password', { username: 'x4', email: 'x4@example.com', password: 'a\\b' }, 400, 'rest_invalid_param'],
      ['existing id', { id: 5, username: 'x5', email: 'x5@example.com', password: 'p' }, 400, 'rest_user_exists']
    ]
    for (const [what, body, status, code] of expectations) {
      const res = await call(app, 'POST', '/cms/v2/users', { as: admin, body })
      t.equal(res.status, status, what)
      t.equal(res.body.code, code, what)
    }
    const missing = await call(app, 'POST', '/cms/v2/users', { as: admin, body: {} })
    t.equal(missing.body.message, 'Missing parameter(s): username, email, password')
    const illegal = await call(app, 'POST', '/cms/v2/users', { as: admin, body: { username: 'bad:login', email: 'x3@example.com', password: 'p' } })
    t.equal(illegal.body.data.details.username.code, 'rest_user_invalid_username')
    t.equal(illegal.body.data.params.username, 'This username is invalid because it uses illegal characters. Please enter a valid username.')
    const taken = await call(app, 'POST', '/cms/v2/users', { as: admin, body: { username: 'other', email: 'newbie@example.com', password: 'p' } })
    t.equal(taken.body.message, 'Sorry, that email address is already used!')

    const valid = { username: 'x6', email: 'x6@example.com', password: 'p' }
    const byEditor = await call(app, 'POST', '/cms/v2/users', { as: editor, body: valid })
    t.same(byEditor.body, { code: 'rest_cannot_create_user', message: 'Sorry, you are not allowed to create new users.', data: { status: 403 } })
    const byNobody = await call(app, 'POST', '/cms/v2/users', { body: valid })
    t.equal(byNobody.status, 401)

    const after = await call(app, 'GET', '/cms/v2/users', { as: admin })
    t.equal(Number(after.headers['x-cms-total']), Number(before.headers['x-cms-total']) + 2, 'failed creates left nothing behind')
  })

  t.test('update', async (t) => {
    const target = await createCaller(store, 'author', { login: 'target' })
    const url = `/cms/v2/users/${target.user.id}`
    const updated = await call(app, 'PATCH', url, {
      as: admin,
      body: { name: 'T. Arget', email: 'target2@example.com', description: 'Bio', url: 'https://t.example', slug: 'the-target', last_name: 'Arget', nickname: 'tee' }
    })
    t.equal(updated.status, 200)
    t.match(updated.body, { name: 'T. Arget', email: 'target2@example.com', description: 'Bio', url: 'https://t.example', slug: 'the-target', last_name: 'Arget', nickname: 'tee', username: 'target' })
    const reread = await call(app, 'GET', url, { as: admin, query: { context: 'edit' } })
    t.match(reread.body, { email: 'target2@example.com', last_name: 'Arget', slug: 'the-target' }, 'stored')

    const self = await call(app, 'PUT', url, { as: target, body: { description: 'Mine' } })
    t.equal(self.status, 200, 'users edit themselves')
    const other = await call(app, 'POST', url, { as: subscriber, body: { description: 'Not yours' } })
    t.same(other.body, { code: 'rest_cannot_edit', message: 'Sorry, you are not allowed to edit this user.', data: { status: 403 } })
    t.equal((await call(app, 'POST', url, { body: { description: 'x' } })).status, 401)
    t.equal((await call(app, 'POST', '/cms/v2/users/9999', { as: admin, body: { name: 'x' } })).status, 404)

    const cases: Array<[string, Record<string, unknown>, number, string]> = [
      ['username is fixed', { username: 'renamed' }, 400, 'rest_user_invalid_argument'],
      ['e-mail of another user', { email: 'edna@example.com' }, 400, 'rest_user_invalid_email'],
      ['slug of another user', { slug: 'edna' }, 400, 'rest_user_invalid_slug'],
      ['unknown role', { roles: ['wizard'] }, 400, 'rest_user_invalid_role']
    ]
    for (const [what, body, status, code] of cases) {
      const res = await call(app, 'POST', url, { as: admin, body })
      t.equal(res.status, status, what)
      t.equal(res.body.code, code, what)
    }
    const sameName = await call(app, 'POST', url, { as: admin, body: { username: 'target' } })
    t.equal(sameName.status, 200, 'sending the same username is fine')

    const promote = await call(app, 'POST', url, { as: admin, body: { roles: ['editor'] } })
    t.same(promote.body.roles, ['editor'])
    const byEditor = await call(app, 'POST', url, { as: editor, body: { roles: ['administrator'] } })
    t.same(byEditor.body, { code: 'rest_cannot_edit_roles', message: 'Sorry, you are not allowed to edit roles of this user.', data: { status: 403 } })
    const selfPromote = await call(app, 'POST', url, { as: target, body: { roles: ['administrator'] } })
    t.equal(selfPromote.status, 403, 'nobody promotes themselves without promote_users')
    const demoteSelf = await call(app, 'POST', `/cms/v2/users/${admin.user.id}`, { as: admin, body: { roles: ['editor'] } })
    t.same(demoteSelf.body, { code: 'rest_user_invalid_role', message: 'Sorry, you are not allowed to give users that role.', data: { status: 403 } })
  })

  t.test('delete, with and without reassignment', async (t) => {
    const leaving = await createCaller(store, 'author', { login: 'leaving' })
    const heir = await createCaller(store, 'author', { login: 'heir' })
    const url = `/cms/v2/users/${leaving.user.id}`
    await post(store, leaving.user.id)
    await post(store, leaving.user.id, 'draft')

    const noForce = await call(app, 'DELETE', url, { as: admin, query: { reassign: String(heir.user.id) } })
    t.same(noForce.body, { code: 'rest_trash_not_supported', message: 'Users do not support trashing. Set \'force=true\' to delete.', data: { status: 501 } })
    const noReassign = await call(app, 'DELETE', url, { as: admin, query: { force: 'true' } })
    t.equal(noReassign.status, 400)
    t.same(noReassign.body.data.params, ['reassign'])
    for (const bad of [String(leaving.user.id), '9999']) {
      const res = await call(app, 'DELETE', url, { as: admin, query: { force: 'true', reassign: bad } })
      t.same(res.body, { code: 'rest_user_invalid_reassign', message: 'Invalid user ID for reassignment.', data: { status: 400 } })
    }
    const reassignTrue = await call(app, 'DELETE', url, { as: admin, query: { force: 'true', reassign: 'true' } })
    t.equal(reassignTrue.status, 400, 'reassign=true names nobody')
    t.equal(reassignTrue.body.code, 'rest_invalid_param')
    const byEditor = await call(app, 'DELETE', url, { as: editor, query: { force: 'true', reassign: 'false' } })
    t.same(byEditor.body, { code: 'rest_user_cannot_delete', message: 'Sorry, you are not allowed to delete this user.', data: { status: 403 } })
    t.equal((await call(app, 'DELETE', url, { query: { force: 'true', reassign: 'false' } })).status, 401)
    t.equal(await postsOf(store, leaving.user.id), 2, 'nothing changed yet')

    const gone = await call(app, 'DELETE', url, { as: admin, query: { force: 'true', reassign: String(heir.user.id) } })
    t.equal(gone.status, 200)
    t.equal(gone.body.deleted, true)
    t.same(Object.keys(gone.body.previous), EDIT_FIELDS.filter((f) => f !== '_links'))
    t.equal(gone.body.previous.username, 'leaving')
    t.equal(gone.headers.allow, undefined, 'nothing is allowed on a deleted user')
    t.equal(await postsOf(store, heir.user.id), 2, 'posts reassigned')
    t.equal(await postsOf(store, leaving.user.id), 0)
    t.equal((await call(app, 'GET', url, { as: admin })).status, 404)
    const stale = await call(app, 'GET', '/cms/v2/users/me', { as: leaving })
    t.equal(stale.status, 401, 'their application passwords went with them')
    t.equal(stale.body.code, 'invalid_username')

    const dropped = await call(app, 'DELETE', `/cms/v2/users/${heir.user.id}`, { as: admin, query: { force: 'true', reassign: 'false' } })
    t.equal(dropped.status, 200)
    t.equal(await postsOf(store, heir.user.id), 0, 'without reassignment the posts are deleted')

    const quitter = await createCaller(store, 'subscriber', { login: 'quitter' })
    const selfDelete = await call(app, 'DELETE', '/cms/v2/users/me', { as: quitter, query: { force: 'true', reassign: 'false' } })
    t.equal(selfDelete.status, 403, 'subscribers cannot delete users, themselves included')
  })

  t.test('odd input is a 2xx or 4xx, never a 500', async (t) => {
    const queries: Array<Record<string, string>> = [
      { include: '99999999999' }, { exclude: '99999999999,-5' }, { page: '100000000000000000000' },
      { offset: '99999999999999999999' }, { offset: '-5' }, { search: '%_\\' }, { search: '\u0000' },
      { roles: 'administrator\u0000' }, { slug: 'a\u0000' }
    ]
    for (const query of queries) {
      const res = await call(app, 'GET', '/cms/v2/users', { as: admin, query })
      t.ok(res.status === 200 || res.status === 400, `${JSON.stringify(query)}: ${res.status}`)
    }
    t.same((await call(app, 'GET', '/cms/v2/users', { as: admin, query: { include: '99999999999' } })).body, [], 'an id out of range matches nobody')
    const nul = await call(app, 'POST', '/cms/v2/users', { as: admin, body: { username: 'nul', email: 'nul@example.com', password: 'p', name: 'a\u0000b' } })
    t.ok(nul.status === 201 || nul.status === 400, `NUL in a field: ${nul.status}`)
    // Callers other than the API (the CLI, other modules) reach the store directly: it drops NUL characters.
    const stored = await createUser(store, { login: 'nully', email: 'nully@example.com', roles: [], displayName: 'a\u0000b', url: 'https://x.example/a\u0000b', profile: { first_name: 'x\u0000' } })
    const withNul = await call(app, 'GET', `/cms/v2/users/${stored.id}`, { as: admin, query: { context: 'edit' } })
    t.match(withNul.body, { name: 'ab', first_name: 'x', url: 'https://x.example/ab' })
    const big = await call(app, 'DELETE', `/cms/v2/users/${withNul.body.id}`, { as: admin, query: { force: 'true', reassign: '99999999999' } })
    t.equal(big.status, 400)
    t.equal(big.body.code, 'rest_user_invalid_reassign')
    const nulLogin = await call(app, 'GET', '/cms/v2/users/me', { as: `Basic ${Buffer.from('a\u0000b:pw').toString('base64')}` })
    t.equal(nulLogin.status, 401)
    t.equal(nulLogin.body.code, 'invalid_username')
  })

  t.test('the routes are in the namespace index', async (t) => {
    const index = await call(app, 'GET', '/cms/v2')
    const routes = Object.keys(index.body.routes)
    for (const key of ['/cms/v2/users', '/cms/v2/users/(?P<id>[\\d]+)', '/cms/v2/users/me',
      '/cms/v2/users/(?P<user_id>(?:[\\d]+|me))/application-passwords',
      '/cms/v2/users/(?P<user_id>(?:[\\d]+|me))/application-passwords/introspect',
      '/cms/v2/users/(?P<user_id>(?:[\\d]+|me))/application-passwords/(?P<uuid>[\\w\\-]+)']) {
      t.ok(routes.includes(key), key)
    }
    const users = index.body.routes['/cms/v2/users']
    t.same(users.methods, ['GET', 'POST'])
    t.same(Object.keys(users.endpoints[0].args), ['context', 'page', 'per_page', 'search', 'exclude', 'include', 'offset', 'order',
      'orderby', 'slug', 'roles', 'capabilities', 'who', 'has_published_posts'])
    t.same(users.endpoints[1].args.username, { description: 'Login name for the user.', type: 'string', required: true })
    t.same(index.body.routes['/cms/v2/users/(?P<id>[\\d]+)'].endpoints[2].args.force,
      { description: 'Required to be true, as users do not support trashing.', default: false, type: 'boolean', required: false })
  })
})
