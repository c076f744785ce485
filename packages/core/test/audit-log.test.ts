/**
 * The audit log through HTTP on a real database: an entry for every write
 * (a create, method overrides, each request of a batch, a refused write, an
 * anonymous write refused before its body, writes a package's hook or the
 * rate limiter refused, the admin pages' forms), none holding a secret's value,
 * `GET /cms/v2/audit-log` with its filters, paging and permissions, the
 * table refusing changes, the retention prune (two at once), and
 * `CMS_AUDIT_LOG=off`.
 */
import t from 'tap'
import { sql } from 'drizzle-orm'
import { RestError } from '@cms/rest'
import { AuditLog, createUser, definePackage, type AuditEntry } from '../src/index.js'
import { checkPermissions, testApp } from '../src/testing.js'
import { withContentUsers, type ContentHarness } from './fixtures/content/harness.js'

async function harness (env: Record<string, string> = {}): Promise<ContentHarness> {
  return await withContentUsers(await testApp({ namespaces: ['cms/v2'], env }))
}

interface Row { id: number, at: Date, user_id: number, credential: string, credential_id: string | null, ip: string, method: string, route: string, path: string, object_type: string, object_id: string | null, status: number, error_code: string | null, fields: string[], values: Record<string, unknown> }

/** Every stored entry, oldest first, after this process's queue is written. */
async function stored (h: ContentHarness): Promise<Row[]> {
  await h.services.audit.flush()
  return await h.store.execute<Row & Record<string, unknown>>(sql`select * from audit_log order by id`)
}

const POST_ROUTE = '/cms/v2/posts'
const POST_ITEM = '/cms/v2/posts/(?P<id>[\\d]+)'

t.test('a create, overridden methods, a refused write and an anonymous one each leave one entry', async (t) => {
  const h = await harness()
  t.teardown(() => h.app.close())
  const { admin, subscriber } = h.users
  const sentFrom = Math.floor(Date.now() / 1000) * 1000
  const created = await h.call('POST', POST_ROUTE, { as: admin, body: { title: 'Audited', content: 'Body', status: 'publish', categories: [1] } })
  t.equal(created.status, 201)
  const id = created.body.id as number

  let rows = await stored(h)
  const readBy = Date.now()
  t.equal(rows.length, 1, 'one entry for one create')
  const entry = rows[0]!
  t.match(entry, {
    user_id: admin.id,
    credential: 'app-password',
    credential_id: admin.uuid,
    method: 'POST',
    route: POST_ROUTE,
    path: POST_ROUTE,
    object_type: 'post',
    object_id: String(id),
    status: 201,
    error_code: null
  })
  t.same([...entry.fields].sort(), ['categories', 'content', 'status', 'title'], 'the names of the arguments sent')
  t.same(entry.values, { status: 'publish', categories: [1] }, 'values of choices and ids only; free text by name')
  t.ok(entry.ip !== '', 'the client address')
  const at = new Date(entry.at).getTime()
  t.ok(at >= sentFrom && at <= readBy, 'when it was answered (between the clock read before the request and after the entry was read)')

  // `_method` and `X-HTTP-Method-Override`: the method as run, the route's pattern.
  t.equal((await h.call('POST', `/cms/v2/posts/${id}?_method=PATCH`, { as: admin, body: { excerpt: 'Short' } })).status, 200)
  t.equal((await h.call('POST', `/cms/v2/posts/${id}`, { as: admin, headers: { 'x-http-method-override': 'DELETE' } })).status, 200)
  // Refused by the permission check, and anonymous (refused before its body is read).
  t.equal((await h.call('POST', `/cms/v2/posts/${id}`, { as: subscriber, body: { title: 'Not mine' } })).status, 403)
  t.equal((await h.call('POST', POST_ROUTE, { body: { title: 'Who am I' } })).status, 401)
  // Reads are not recorded.
  t.equal((await h.call('GET', `/cms/v2/posts/${id}`, { as: admin })).status, 200)

  rows = (await stored(h)).slice(1)
  t.same(rows.map((r) => [r.method, r.route, r.path, r.object_type, r.object_id, r.status, r.error_code, r.credential]), [
    ['PATCH', POST_ITEM, `/cms/v2/posts/${id}`, 'post', String(id), 200, null, 'app-password'],
    ['DELETE', POST_ITEM, `/cms/v2/posts/${id}`, 'post', String(id), 200, null, 'app-password'],
    ['POST', POST_ITEM, `/cms/v2/posts/${id}`, 'post', String(id), 403, 'rest_cannot_edit', 'app-password'],
    ['POST', POST_ROUTE, POST_ROUTE, 'post', null, 401, 'rest_cannot_create', 'anonymous']
  ])
  t.same(rows[0]!.fields, ['excerpt'])
  t.equal(rows[3]!.user_id, 0)
})

t.test('a batch: one entry per request, refused ones included, none for the envelope', async (t) => {
  const h = await harness()
  t.teardown(() => h.app.close())
  const { admin } = h.users
  const first = (await h.call('POST', POST_ROUTE, { as: admin, body: { title: 'Batched', status: 'draft' } })).body.id as number
  const before = (await stored(h)).length
  const res = await h.call('POST', '/batch/v1', {
    as: admin,
    body: {
      requests: [
        { method: 'POST', path: POST_ROUTE, body: { title: 'One', status: 'publish' } },
        { method: 'PUT', path: `/cms/v2/posts/${first}`, body: { title: 'Renamed' } },
        { method: 'DELETE', path: `/cms/v2/posts/${first}?force=true` }
      ]
    }
  })
  t.equal(res.status, 207)
  t.same(res.body.responses.map((r: any) => r.status), [201, 200, 200])
  const rows = (await stored(h)).slice(before)
  t.same(rows.map((r) => [r.method, r.route, r.object_id, r.status]), [
    ['POST', POST_ROUTE, String(res.body.responses[0].body.id), 201],
    ['PUT', POST_ITEM, String(first), 200],
    ['DELETE', POST_ITEM, String(first), 200]
  ], 'three requests, three entries, in order')
  t.same(rows[2]!.values, { force: 'true' }, 'a flag sent in the query string')
  t.notOk(rows.some((r) => r.route === '/batch/v1'), 'the envelope itself is not an entry')

  // A request refused before any runs (invalid arguments) is recorded with its error.
  const bad = await h.call('POST', '/batch/v1', { as: admin, body: { requests: [{ method: 'POST', path: POST_ROUTE, body: { status: 'nonsense' } }] } })
  t.equal(bad.body.responses[0].status, 400)
  const last = (await stored(h)).at(-1)!
  t.match(last, { method: 'POST', route: POST_ROUTE, status: 400, error_code: 'rest_invalid_param' })
})

t.test('no entry holds a password, an application password or a post password', async (t) => {
  const h = await harness()
  t.teardown(() => h.app.close())
  const { admin } = h.users
  const accountPassword = 'Account-Secret-7f3a9c'
  const user = await h.call('POST', '/cms/v2/users', { as: admin, body: { username: 'secretive', email: 'secretive@example.com', password: accountPassword, roles: ['editor'] } })
  t.equal(user.status, 201)
  const app = await h.call('POST', `/cms/v2/users/${user.body.id}/application-passwords`, { as: admin, body: { name: 'Deploy bot' } })
  t.equal(app.status, 201)
  const appPassword = app.body.password as string
  t.ok(appPassword.length >= 24)
  const changed = 'Changed-Secret-41b2e8'
  t.equal((await h.call('POST', `/cms/v2/users/${user.body.id}`, { as: admin, body: { password: changed } })).status, 200)
  const postPassword = 'Post-Secret-91c0d4'
  t.equal((await h.call('POST', POST_ROUTE, { as: admin, body: { title: 'Locked', password: postPassword, status: 'publish' } })).status, 201)
  // Signed in with the new application password: its value is the credential, never stored.
  const bot = `Basic ${Buffer.from(`secretive:${appPassword}`).toString('base64')}`
  t.equal((await h.call('POST', POST_ROUTE, { as: bot, body: { title: 'By the bot' } })).status, 201)

  const rows = await stored(h)
  t.equal(rows.length, 5)
  const text = (await h.store.execute<{ t: string }>(sql`select row_to_json(a)::text as t from audit_log a`)).map((r) => r.t).join('\n')
  for (const secret of [accountPassword, changed, postPassword, appPassword, appPassword.replace(/\s/g, ''), Buffer.from(`secretive:${appPassword}`).toString('base64')]) {
    t.notOk(text.includes(secret), `no entry holds ${secret.slice(0, 8)}...`)
  }
  t.ok(rows[0]!.fields.includes('password') && !('password' in rows[0]!.values), 'a password is named, its value kept out')
  t.ok(rows[3]!.fields.includes('password') && !('password' in rows[3]!.values), 'a post password too')
  t.match(rows[4], { user_id: user.body.id, credential: 'app-password', credential_id: app.body.uuid })
})

t.test('writes a hook answers before the endpoint runs: a package\'s hook refusing one, the rate limiter', async (t) => {
  // A package's own Fastify hook (its `serve` may add one) refusing some writes before the kernel runs them.
  const guard = definePackage({
    name: 'audit-guard-fixture',
    namespaces: [],
    serve: (_api, _options, app) => {
      app.addHook('preHandler', async (request) => {
        const body = request.body as { title?: unknown } | undefined
        if (request.method === 'POST' && body?.title === 'Forbidden title') throw new RestError('fixture_refused', 'Not that title.', 422)
      })
    }
  })
  const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'], packages: [guard], rateLimits: { write: 3 } }))
  t.teardown(() => h.app.close())
  const { admin } = h.users
  const refused = await h.call('POST', POST_ROUTE, { as: admin, body: { title: 'Forbidden title', status: 'draft' } })
  t.same([refused.status, refused.body.code], [422, 'fixture_refused'], 'the hook refused it')
  t.equal((await h.call('POST', POST_ROUTE, { as: admin, body: { title: 'Fine' } })).status, 201)
  t.equal((await h.call('POST', POST_ROUTE, { as: admin, body: { title: 'Fine too' } })).status, 201)
  const limited = await h.call('POST', POST_ROUTE, { as: admin, body: { title: 'One too many' } })
  t.same([limited.status, limited.body.code], [429, 'rest_rate_limited'])

  const rows = await stored(h)
  t.same(rows.map((r) => [r.method, r.route, r.status, r.error_code, r.user_id]), [
    ['POST', POST_ROUTE, 422, 'fixture_refused', admin.id],
    ['POST', POST_ROUTE, 201, null, admin.id],
    ['POST', POST_ROUTE, 201, null, admin.id],
    ['POST', POST_ROUTE, 429, 'rest_rate_limited', admin.id]
  ], 'one entry each, refused ones with their code, none twice')
  t.same([...rows[0]!.fields].sort(), ['status', 'title'], 'what the refused write sent')
  t.same(rows[0]!.values, { status: 'draft' })
  t.same(rows[3]!.fields, [], 'refused before its body was read: nothing sent is known')
})

t.test('the admin pages\' forms: each post an entry with its outcome, never a password', async (t) => {
  const h = await harness()
  t.teardown(() => h.app.close())
  const password = 'Admin-Page-Secret-3e7d'
  const user = await createUser(h.store, { login: 'pagewriter', email: 'pagewriter@example.com', roles: ['editor'], password })
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
  const cookie = (res: { headers: Record<string, unknown> }, name: string): string =>
    [res.headers['set-cookie'] as string | string[]].flat().map((c) => new RegExp(`^${name}=([^;]*)`).exec(c ?? '')?.[1]).find((v) => v !== undefined) ?? ''
  const field = (html: string, name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? ''
  const signIn = async (pwd: string): Promise<{ status: number, session: string }> => {
    const form = await h.app.inject({ method: 'GET', url: '/cms-admin/login' })
    const res = await h.app.inject({
      method: 'POST',
      url: '/cms-admin/login',
      headers: { ...FORM, cookie: `cms_signin_nonce=${cookie(form, 'cms_signin_nonce')}` },
      payload: new URLSearchParams({ csrf: field(form.body, 'csrf'), redirect_to: '', log: 'pagewriter', pwd }).toString()
    })
    return { status: res.statusCode, session: cookie(res, 'cms_session') }
  }

  t.equal((await signIn('not-the-password')).status, 401)
  const ok = await signIn(password)
  t.equal(ok.status, 303)
  const page = await h.app.inject({ method: 'GET', url: '/cms-admin/authorize-application.php?app_name=Audited%20App', headers: { cookie: `cms_session=${ok.session}` } })
  t.equal(page.statusCode, 200)
  const csrf = field(page.body, 'csrf')
  const approve = async (fields: Record<string, string>): Promise<{ statusCode: number, body: string }> => await h.app.inject({
    method: 'POST',
    url: '/cms-admin/authorize-application.php',
    headers: { ...FORM, cookie: `cms_session=${ok.session}` },
    payload: new URLSearchParams({ app_id: '', success_url: '', reject_url: '', ...fields }).toString()
  })
  t.equal((await approve({ csrf: 'forged', app_name: 'Audited App', action: 'approve' })).statusCode, 403)
  const approved = await approve({ csrf, app_name: 'Audited App', action: 'approve' })
  t.equal(approved.statusCode, 201)
  const appPassword = /<kbd id="new-password">([^<]*)</.exec(approved.body)?.[1] ?? ''
  t.ok(appPassword.length > 20)
  t.equal((await h.app.inject({ method: 'POST', url: '/cms-admin/logout', headers: { ...FORM, cookie: `cms_session=${ok.session}` }, payload: `csrf=${csrf}` })).statusCode, 303)
  const uuid = (await h.store.execute<{ uuid: string }>(sql`select uuid from application_passwords where user_id = ${user.id}`))[0]!.uuid

  const rows = await stored(h)
  t.same(rows.map((r) => [r.method, r.route, r.object_type, r.object_id, r.status, r.error_code, r.user_id, r.credential]), [
    ['POST', '/cms-admin/login', 'session', null, 401, 'cms_admin_incorrect_password', 0, 'anonymous'],
    ['POST', '/cms-admin/login', 'session', null, 303, null, user.id, 'cookie'],
    ['POST', '/cms-admin/authorize-application.php', 'application-password', null, 403, 'cms_admin_form_expired', user.id, 'cookie'],
    ['POST', '/cms-admin/authorize-application.php', 'application-password', uuid, 201, null, user.id, 'cookie'],
    ['POST', '/cms-admin/logout', 'session', null, 303, null, user.id, 'cookie']
  ], 'a failed and a good sign-in, a refused and a good approval, a sign-out')
  t.same(rows[1]!.fields, ['csrf', 'redirect_to', 'log', 'pwd'], 'the form\'s field names')
  t.same(rows[3]!.values, { action: 'approve' }, 'the choice made; nothing typed')
  const text = (await h.store.execute<{ t: string }>(sql`select row_to_json(a)::text as t from audit_log a`)).map((r) => r.t).join('\n')
  for (const secret of [password, appPassword, appPassword.replace(/\s/g, ''), ok.session, csrf]) t.notOk(text.includes(secret), `no entry holds ${secret.slice(0, 6)}...`)
})

t.test('GET /cms/v2/audit-log: newest first, paged with totals, filtered; administrators only', async (t) => {
  const h = await harness()
  t.teardown(() => h.app.close())
  const { admin, editor } = h.users
  const ids: number[] = []
  for (const title of ['A', 'B', 'C']) ids.push((await h.call('POST', POST_ROUTE, { as: admin, body: { title } })).body.id)
  const middle = new Date()
  await new Promise((resolve) => setTimeout(resolve, 1100))
  const page = (await h.call('POST', '/cms/v2/pages', { as: editor, body: { title: 'P' } })).body.id as number
  t.equal((await h.call('POST', `/cms/v2/posts/${ids[0]}`, { as: editor, body: { title: 'A2' } })).status, 200)

  const all = await h.call('GET', '/cms/v2/audit-log', { as: admin })
  t.equal(all.status, 200)
  t.equal(all.headers['x-cms-total'], '5')
  t.same(all.body.map((e: any) => [e.method, e.object_type, e.object_id]), [
    ['POST', 'post', String(ids[0])], ['POST', 'page', String(page)], ['POST', 'post', String(ids[2])], ['POST', 'post', String(ids[1])], ['POST', 'post', String(ids[0])]
  ], 'newest first, written without waiting for the queue')
  t.match(all.body[0], { user: editor.id, credential: 'app-password', route: POST_ITEM, status: 200, fields: ['title'] })
  t.match(all.body[0].date_gmt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

  const paged = await h.call('GET', '/cms/v2/audit-log', { as: admin, query: { per_page: 2, page: 2 } })
  t.equal(paged.headers['x-cms-total'], '5')
  t.equal(paged.headers['x-cms-totalpages'], '3')
  t.same(paged.body.map((e: any) => e.object_id), [String(ids[2]), String(ids[1])])
  t.match(paged.headers.link, /rel="prev".*rel="next"/)
  const past = await h.call('GET', '/cms/v2/audit-log', { as: admin, query: { per_page: 2, page: 4 } })
  t.same([past.status, past.body.code], [400, 'rest_audit_log_invalid_page_number'])

  const list = async (query: Record<string, string | number>): Promise<string[]> =>
    (await h.call('GET', '/cms/v2/audit-log', { as: admin, query })).body.map((e: any) => `${e.object_type}:${e.object_id}`)
  t.same(await list({ user: editor.id }), [`post:${ids[0]}`, `page:${page}`], 'by actor')
  t.same(await list({ object_type: 'post', object_id: String(ids[0]) }), [`post:${ids[0]}`, `post:${ids[0]}`], 'by object')
  t.same(await list({ object_type: 'page' }), [`page:${page}`], 'by object type')
  t.same(await list({ route: POST_ITEM }), [`post:${ids[0]}`], 'by route pattern')
  t.same(await list({ after: new Date(middle.getTime() + 1000).toISOString() }), [`post:${ids[0]}`, `page:${page}`], 'after a time')
  t.same((await list({ before: new Date(middle.getTime() + 1000).toISOString() })).length, 3, 'before a time')
  t.same(await list({ credential: 'anonymous' }), [])
  const bad = await h.call('GET', '/cms/v2/audit-log', { as: admin, query: { after: 'yesterday' } })
  t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'])

  t.equal((await h.call('GET', '/cms/v2/audit-log', { as: editor })).status, 403, 'an editor may not read it')
  t.equal((await h.call('GET', '/cms/v2/audit-log')).status, 401)
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    t.equal((await h.call(method, '/cms/v2/audit-log', { as: admin })).status, 404, `no ${method}: entries are never changed through the API`)
  }
  const probed = await checkPermissions(t, h, { only: (target) => target.key.includes(' /cms/v2/audit-log') })
  t.equal(probed, 1)
})

t.test('the table refuses changes; the retention prune removes old entries, on two replicas at once', async (t) => {
  const h = await harness()
  t.teardown(() => h.app.close())
  t.equal((await h.call('POST', POST_ROUTE, { as: h.users.admin, body: { title: 'Kept' } })).status, 201)
  await h.services.audit.flush()
  // drizzle wraps the database's error (`Failed query: ...`); the trigger's message is its cause's.
  const refusal = async (statement: ReturnType<typeof sql>): Promise<string> => {
    try {
      await h.store.execute(statement)
      return 'accepted'
    } catch (err) {
      const e = err as { message: string, cause?: { message?: string } }
      return e.cause?.message ?? e.message
    }
  }
  t.match(await refusal(sql`update audit_log set status = 200`), /audit_log is append-only: UPDATE refused/)
  t.match(await refusal(sql`delete from audit_log`), /audit_log is append-only: DELETE refused/)
  t.match(await refusal(sql`truncate audit_log`), /audit_log is append-only: TRUNCATE refused/)
  t.equal((await stored(h)).length, 1, 'the entry is still there')

  const old = (days: number): AuditEntry => ({
    at: new Date(Date.now() - days * 86_400_000), userId: 1, credential: 'cli', credentialId: 'someone', ip: '', method: 'CLI', route: 'cms user create', path: 'cms user create x', objectType: 'user', objectId: 'x', status: 0, errorCode: null, fields: [], values: {}
  })
  const aged = Array.from({ length: 30 }, (_, i) => old(91 + i))
  const a = new AuditLog(() => h.store, { retentionDays: 90 })
  const b = new AuditLog(() => h.store, { retentionDays: 90 })
  for (const e of [...aged, old(89)]) a.append(e)
  await a.flush()
  t.equal((await stored(h)).length, 32)
  const [x, y] = await Promise.all([a.prune(), b.prune()])
  t.equal(x + y, 30, 'every entry past the retention pruned once between the two')
  const left = await stored(h)
  t.same(left.map((r) => r.route), [POST_ROUTE, 'cms user create'], 'younger entries stay')
  t.equal(await new AuditLog(() => h.store, { retentionDays: 0 }).prune(), 0, 'a retention of 0 keeps everything')
  t.equal(h.services.audit.settings.retentionDays, 90, 'kept 90 days by default')
})

t.test('CMS_AUDIT_LOG=off: nothing is recorded, the log still reads', async (t) => {
  const h = await harness({ CMS_AUDIT_LOG: 'off' })
  t.teardown(() => h.app.close())
  t.equal((await h.call('POST', POST_ROUTE, { as: h.users.admin, body: { title: 'Unrecorded' } })).status, 201)
  t.same(await stored(h), [])
  const read = await h.call('GET', '/cms/v2/audit-log', { as: h.users.admin })
  t.same([read.status, read.body], [200, []])
})

t.test('a failing flush is logged and never reaches the writer', async (t) => {
  const h = await harness()
  t.teardown(() => h.app.close())
  const logged: string[] = []
  h.services.audit.logTo((message) => { logged.push(message) })
  await h.store.execute(sql`alter table audit_log rename to audit_log_away`)
  const res = await h.call('POST', POST_ROUTE, { as: h.users.admin, body: { title: 'Written anyway' } })
  t.equal(res.status, 201, 'the write is answered')
  await h.services.audit.flush()
  t.match(logged, [/audit log: 1 entries could not be written/])
  await h.store.execute(sql`alter table audit_log_away rename to audit_log`)
  t.equal((await h.call('GET', `/cms/v2/posts/${res.body.id}`, { as: h.users.admin })).status, 200, 'the post is there')
})
