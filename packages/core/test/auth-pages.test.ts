/**
 * The sign-in page and the application authorization page over HTTP:
 * sessions and their cookie, CSRF tokens, slowed and limited failed
 * sign-ins, validation of the request, approve and reject flows.
 * (The same flow in a real browser: apps/gateway/test/authorize-browser.test.ts.)
 */
import t from 'tap'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { basic, call } from '@cms/rest/testing'
import { createUser, listApplicationPasswords } from '../src/index.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

// Failed sign-ins are slowed down on purpose (about 15 s of waiting in this file).

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

function cookieOf (setCookie: string | string[] | undefined, name: string): string | undefined {
  for (const c of [setCookie ?? []].flat()) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(c)
    if (m !== null) return m[1]
  }
  return undefined
}

function field (html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)
  if (m === null) throw new Error(`no field ${name}`)
  return m[1]!
}

/** Signs in through the form and returns the session cookie value. */
async function signIn (app: FastifyInstance, login: string, password: string, redirectTo = ''): Promise<{ status: number, location?: string, session?: string, headers: Record<string, unknown>, body: string }> {
  const form = await app.inject({ method: 'GET', url: `/cms-admin/login${redirectTo === '' ? '' : `?redirect_to=${encodeURIComponent(redirectTo)}`}` })
  const nonce = cookieOf(form.headers['set-cookie'], 'cms_signin_nonce')!
  const res = await app.inject({
    method: 'POST',
    url: '/cms-admin/login',
    headers: { ...FORM, cookie: `cms_signin_nonce=${nonce}` },
    payload: new URLSearchParams({ csrf: field(form.body, 'csrf'), redirect_to: field(form.body, 'redirect_to'), log: login, pwd: password }).toString()
  })
  return { status: res.statusCode, location: res.headers.location as string | undefined, session: cookieOf(res.headers['set-cookie'], 'cms_session'), headers: res.headers, body: res.body }
}

const authorizeUrl = (params: Record<string, string>): string => `/cms-admin/authorize-application.php?${new URLSearchParams(params).toString()}`

t.test('admin pages', async (t) => {
  const { app, store } = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true })
  t.teardown(() => app.close())
  const alice = await createUser(store, { login: 'alice', email: 'alice@example.com', roles: ['author'], password: 'alice-secret-pw' })
  await createUser(store, { login: 'bob', email: 'bob@example.com', roles: ['subscriber'], password: 'bob-secret-pw' })

  t.test('the authorization page sends anonymous visitors to sign in', async (t) => {
    const url = authorizeUrl({ app_name: 'My App', success_url: 'https://app.example/cb' })
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 303)
    t.equal(res.headers.location, `http://cms.test/cms-admin/login?redirect_to=${encodeURIComponent(url)}`)
  })

  t.test('the sign-in page', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/cms-admin/login' })
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^text\/html; charset=utf-8/)
    t.match(res.body, /<html lang="en">/)
    t.match(res.body, /<h1>Sign in<\/h1>/)
    t.match(res.body, /<label for="user_login">[^<]+<\/label>\s*<input type="text" id="user_login" name="log"/)
    t.match(res.body, /<label for="user_pass">Password<\/label>\s*<input type="password" id="user_pass" name="pwd"/)
    t.match(res.body, /name="csrf" value="[\w-]{20,}"/)
    t.equal(res.headers['x-frame-options'], 'DENY')
    t.match(res.headers['content-security-policy'], /frame-ancestors 'none'/)
    t.equal(res.headers['cache-control'], 'no-store, private')
    const nonce = [res.headers['set-cookie']].flat()[0]!
    t.match(nonce, /^cms_signin_nonce=[\w-]+; Path=\/cms-admin; HttpOnly; SameSite=Lax; Max-Age=3600$/, 'no Secure over plain http')
  })

  t.test('signing in', async (t) => {
    const wrongCsrf = await app.inject({
      method: 'POST',
      url: '/cms-admin/login',
      headers: { ...FORM, cookie: 'cms_signin_nonce=abcdefabcdefabcdefabcdef' },
      payload: 'csrf=forged&log=alice&pwd=alice-secret-pw'
    })
    t.equal(wrongCsrf.statusCode, 403, 'a forged form is refused')
    t.equal(cookieOf(wrongCsrf.headers['set-cookie'], 'cms_session'), undefined)
    const noCookie = await app.inject({ method: 'POST', url: '/cms-admin/login', headers: FORM, payload: 'csrf=x&log=alice&pwd=alice-secret-pw' })
    t.equal(noCookie.statusCode, 403)

    const started = Date.now()
    const wrong = await signIn(app, 'alice', 'not-her-password')
    t.equal(wrong.status, 401)
    t.ok(Date.now() - started >= 350, 'a failed sign-in is slowed down')
    t.match(wrong.body, /role="alert">The username or password is incorrect\./)
    t.match(wrong.body, /value="alice"/, 'the login is kept in the form')
    const unknown = await signIn(app, 'nobody', 'whatever')
    t.equal(unknown.status, 401)
    t.match(unknown.body, /The username or password is incorrect\./, 'unknown logins get the same answer')

    const ok = await signIn(app, 'alice@example.com', 'alice-secret-pw', '/cms-admin/authorize-application.php?app_name=X')
    t.equal(ok.status, 303)
    t.equal(ok.location, 'http://cms.test/cms-admin/authorize-application.php?app_name=X')
    const setCookie = [ok.headers['set-cookie'] as string[]].flat().find((c) => c.startsWith('cms_session='))!
    t.match(setCookie, /^cms_session=[\w-]{40,}; Path=\/cms-admin; HttpOnly; SameSite=Lax; Max-Age=172800$/)
    const rows = await store.execute<{ token_hash: string, user_id: number, valid_for: number }>(
      sql`select token_hash, user_id, extract(epoch from expires - now())::int as valid_for from user_sessions where user_id = ${alice.id}`)
    t.equal(rows.length, 1, 'the session is stored server-side')
    t.not(rows[0]!.token_hash, ok.session, 'only a hash of the cookie is stored')
    t.ok(rows[0]!.valid_for > 172000 && rows[0]!.valid_for <= 172800, 'it expires in two days')

    const evil = await signIn(app, 'bob', 'bob-secret-pw', 'https://evil.example/')
    t.equal(evil.location, 'http://cms.test/cms-admin/login', 'no open redirect')
    const home = await app.inject({ method: 'GET', url: '/cms-admin/login', headers: { cookie: `cms_session=${evil.session}` } })
    t.match(home.body, /Signed in as <strong>bob<\/strong>/)
  })

  t.test('repeated failures are limited per login and address', async (t) => {
    await createUser(store, { login: 'carol', email: 'carol@example.com', roles: ['subscriber'], password: 'carol-secret-pw' })
    for (let i = 0; i < 5; i++) t.equal((await signIn(app, 'carol', `guess-${i}`)).status, 401)
    const locked = await signIn(app, 'carol', 'carol-secret-pw')
    t.equal(locked.status, 429, 'even the right password waits once the limit is reached')
    t.equal(locked.headers['retry-after'], '900')
    t.match(locked.body, /Too many failed sign-in attempts/)
    await store.execute(sql`update sign_in_failures set last_failure = now() - interval '16 minutes'`)
    t.equal((await signIn(app, 'carol', 'carol-secret-pw')).status, 303, 'after the window it works again')
  })

  t.test('authorizing an application', async (t) => {
    const { session } = await signIn(app, 'alice', 'alice-secret-pw')
    const cookie = `cms_session=${session}`
    const get = async (params: Record<string, string>): Promise<{ statusCode: number, body: string }> =>
      await app.inject({ method: 'GET', url: authorizeUrl(params), headers: { cookie } })

    const page = await get({ app_name: '<script>alert(1)</script>', app_id: 'c1d1e1f1-0000-4000-8000-000000000001', success_url: 'https://app.example/cb?state=1' })
    t.equal(page.statusCode, 200)
    t.notMatch(page.body, /<script>alert/, 'everything echoed is escaped')
    t.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
    t.match(page.body, /<h1>Authorize Application<\/h1>/)
    t.match(page.body, /<label for="app_name">[^<]+<\/label>\s*<input type="text" id="app_name" name="app_name"/)
    t.match(page.body, /sent to <strong>app\.example<\/strong>/)
    t.match(page.body, /Signed in as <strong>alice<\/strong>/)
    const csrf = field(page.body, 'csrf')

    const invalid: Array<[Record<string, string>, string]> = [
      [{ app_id: 'not-a-uuid' }, 'The application ID must be a UUID.'],
      [{ success_url: 'http://app.example/cb' }, 'The URL must be served over a secure connection.'],
      [{ reject_url: 'http://app.example/no' }, 'The URL must be served over a secure connection.'],
      [{ success_url: 'javascript:alert(1)' }, 'Invalid URL format.'],
      [{ success_url: 'data:text/html,hi' }, 'Invalid URL format.'],
      [{ success_url: 'app.example/cb' }, 'Invalid URL format.']
    ]
    for (const [params, message] of invalid) {
      const res = await get({ app_name: 'X', ...params })
      t.equal(res.statusCode, 400, JSON.stringify(params))
      t.match(res.body, `The Authorize Application request is not allowed. ${message}`)
      t.notMatch(res.body, /name="action"/, 'no approve button')
    }
    for (const ok of ['http://localhost:8123/cb', 'http://127.0.0.1/cb', 'http://[::1]:9/cb', 'com.example.app://callback']) {
      t.equal((await get({ app_name: 'X', success_url: ok })).statusCode, 200, `${ok} is accepted`)
    }

    const post = async (form: Record<string, string>, withCookie = cookie): Promise<{ statusCode: number, headers: Record<string, any>, body: string }> =>
      await app.inject({ method: 'POST', url: '/cms-admin/authorize-application.php', headers: { ...FORM, cookie: withCookie }, payload: new URLSearchParams(form).toString() })
    const before = (await listApplicationPasswords(store, alice.id)).length

    const forged = await post({ csrf: 'nope', action: 'approve', app_name: 'Forged', success_url: 'https://app.example/cb' })
    t.equal(forged.statusCode, 403, 'CSRF token required')
    const noSession = await post({ csrf, action: 'approve', app_name: 'NoSession' }, '')
    t.equal(noSession.statusCode, 401)
    const noName = await post({ csrf, action: 'approve', app_name: '  ' })
    t.equal(noName.statusCode, 400)
    t.match(noName.body, /An application name is required to create an application password\./)
    const badUrl = await post({ csrf, action: 'approve', app_name: 'Bad', success_url: 'javascript:alert(1)' })
    t.equal(badUrl.statusCode, 400, 'the posted request is validated again')
    t.equal((await listApplicationPasswords(store, alice.id)).length, before, 'nothing created by refused posts')

    const approved = await post({ csrf, action: 'approve', app_name: 'My App', app_id: 'c1d1e1f1-0000-4000-8000-000000000001', success_url: 'https://app.example/cb?state=1' })
    t.equal(approved.statusCode, 303)
    const target = new URL(approved.headers.location)
    t.equal(`${target.origin}${target.pathname}`, 'https://app.example/cb')
    t.equal(target.searchParams.get('state'), '1', 'the application\'s own parameters are kept')
    t.equal(target.searchParams.get('site_url'), 'http://cms.test')
    t.equal(target.searchParams.get('user_login'), 'alice')
    const password = target.searchParams.get('password')!
    t.match(password, /^[A-Za-z0-9]{24}$/)
    const me = await call(app, 'GET', '/cms/v2/users/me', { as: basic('alice', password) })
    t.equal(me.body.id, alice.id, 'the password works against the API')
    const made = (await listApplicationPasswords(store, alice.id)).find((p) => p.name === 'My App')!
    t.equal(made.appId, 'c1d1e1f1-0000-4000-8000-000000000001')

    const shown = await post({ csrf, action: 'approve', app_name: 'Desktop' })
    t.equal(shown.statusCode, 201, 'without success_url the password is shown')
    const chunked = /<kbd id="new-password">([A-Za-z0-9 ]+)<\/kbd>/.exec(shown.body)![1]!
    t.match(chunked, /^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/)
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: basic('alice', chunked) })).status, 200)
    t.match(shown.headers['cache-control'], /no-store/)

    const count = (await listApplicationPasswords(store, alice.id)).length
    const rejected = await post({ csrf, action: 'reject', app_name: 'Nope', success_url: 'https://app.example/cb' })
    t.equal(rejected.statusCode, 303)
    t.equal(rejected.headers.location, 'https://app.example/cb?success=false', 'default reject_url')
    const rejectedTo = await post({ csrf, action: 'reject', app_name: 'Nope', success_url: 'https://app.example/cb', reject_url: 'https://app.example/denied' })
    t.equal(rejectedTo.headers.location, 'https://app.example/denied')
    const rejectedHere = await post({ csrf, action: 'reject', app_name: 'Nope' })
    t.equal(rejectedHere.statusCode, 200)
    t.match(rejectedHere.body, /No password was created/)
    t.equal((await listApplicationPasswords(store, alice.id)).length, count, 'rejecting creates nothing')
    const injected = await post({ csrf, action: 'reject', app_name: 'Nope', reject_url: 'https://app.example/x\r\nSet-Cookie: z=1' })
    t.equal(injected.statusCode, 303)
    t.notMatch(injected.headers.location, /[\r\n]/, 'no header injection through a redirect URL')
    t.equal(injected.headers['set-cookie'], undefined)

    const other = await signIn(app, 'bob', 'bob-secret-pw')
    const stolen = await post({ csrf, action: 'approve', app_name: 'Stolen' }, `cms_session=${other.session}`)
    t.equal(stolen.statusCode, 403, 'one session\'s token does not work in another')
  })

  t.test('signing out and expiry', async (t) => {
    const { session } = await signIn(app, 'alice', 'alice-secret-pw')
    const page = await app.inject({ method: 'GET', url: authorizeUrl({ app_name: 'X' }), headers: { cookie: `cms_session=${session}` } })
    const out = await app.inject({ method: 'POST', url: '/cms-admin/logout', headers: { ...FORM, cookie: `cms_session=${session}` }, payload: `csrf=${field(page.body, 'csrf')}` })
    t.equal(out.statusCode, 303)
    t.match([out.headers['set-cookie']].flat()[0], /^cms_session=; .*Max-Age=0/)
    const after = await app.inject({ method: 'GET', url: authorizeUrl({ app_name: 'X' }), headers: { cookie: `cms_session=${session}` } })
    t.equal(after.statusCode, 303, 'the session is gone server-side')

    const again = await signIn(app, 'alice', 'alice-secret-pw')
    await store.execute(sql`update user_sessions set expires = now() - interval '1 second'`)
    const expired = await app.inject({ method: 'GET', url: authorizeUrl({ app_name: 'X' }), headers: { cookie: `cms_session=${again.session}` } })
    t.equal(expired.statusCode, 303, 'an expired session signs nobody in')
  })
})

t.test('https and the local environment', async (t) => {
  const secure = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true, baseUrl: 'https://cms.test' })
  t.teardown(() => secure.app.close())
  const form = await secure.app.inject({ method: 'GET', url: '/cms-admin/login' })
  t.match([form.headers['set-cookie']].flat()[0], /; Secure$/, 'cookies are Secure over https')

  const local = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true, environment: 'local' })
  t.teardown(() => local.app.close())
  await createUser(local.store, { login: 'dev', email: 'dev@example.com', roles: ['administrator'], password: 'dev-password' })
  const { session } = await signIn(local.app, 'dev', 'dev-password')
  const res = await local.app.inject({ method: 'GET', url: authorizeUrl({ app_name: 'X', success_url: 'http://app.example/cb' }), headers: { cookie: `cms_session=${session}` } })
  t.equal(res.statusCode, 200, 'plain http redirect URLs are fine when CMS_ENVIRONMENT=local')
})
