/**
 * test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a
 * process of its own, not in a batch where another file's leftovers could add to the figure).
 * Authentication with application passwords over HTTP Basic: who gets in,
 * the 401 codes and messages for everything else (public routes included),
 * timing that does not reveal whether a login exists, and what is stored
 * and logged.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { basic, call } from '@cms/rest/testing'
import { testApp, createCaller } from '../src/testing.js'
import { verifiedCallerKeys } from '../src/users/authenticate.js'
import { packageMeta } from './fixtures/package-meta.js'

const MESSAGES = {
  invalid_username: '<strong>Error:</strong> Unknown username. Check again or try your email address.',
  invalid_email: '<strong>Error:</strong> Unknown email address. Check again or try your username.',
  incorrect_password: 'The provided password is an invalid application password.'
}

t.test('authentication', async (t) => {
  const { app, store } = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true })
  t.teardown(() => app.close())
  const editor = await createCaller(store, 'editor', { login: 'Edith' })

  t.test('no Authorization header: anonymous', async (t) => {
    const me = await call(app, 'GET', '/cms/v2/users/me')
    t.equal(me.status, 401)
    t.same(me.body, { code: 'rest_not_logged_in', message: 'You are not currently logged in.', data: { status: 401 } })
    const index = await call(app, 'GET', '/')
    t.equal(index.status, 200, 'public routes work anonymously')
  })

  t.test('valid credentials in every accepted spelling', async (t) => {
    const chunked = editor.password.match(/.{4}/g)!.join(' ')
    const spellings: Array<[string, string]> = [
      ['login and raw password', basic('Edith', editor.password)],
      ['login in another case', basic('edith', editor.password)],
      ['e-mail address', basic('edith@example.com', editor.password)],
      ['e-mail in upper case', basic('EDITH@EXAMPLE.COM', editor.password)],
      ['chunked password (spaces ignored)', basic('Edith', chunked)],
      ['other separators ignored', basic('Edith', editor.password.match(/.{4}/g)!.join('-'))],
      ['scheme name in lower case', basic('Edith', editor.password).replace('Basic', 'basic')]
    ]
    for (const [what, auth] of spellings) {
      const me = await call(app, 'GET', '/cms/v2/users/me', { as: auth })
      t.equal(me.status, 200, what)
      t.equal(me.body.id, editor.user.id, what)
    }
  })

  t.test('failures are 401 with the exact code and message, on public routes too', async (t) => {
    const cases: Array<[string, string, keyof typeof MESSAGES]> = [
      ['unknown login', basic('nobody', editor.password), 'invalid_username'],
      ['unknown e-mail', basic('nobody@example.com', editor.password), 'invalid_email'],
      ['wrong password', basic('Edith', 'AAAAaaaaBBBBbbbbCCCCcccc'), 'incorrect_password'],
      ['wrong password by e-mail', basic('edith@example.com', 'short'), 'incorrect_password'],
      ['empty password', basic('Edith', ''), 'incorrect_password']
    ]
    for (const route of ['/', '/cms/v2/users', '/cms/v2/users/me']) {
      for (const [what, auth, code] of cases) {
        const res = await call(app, 'GET', route, { as: auth })
        t.equal(res.status, 401, `${what} on ${route}`)
        t.same(res.body, { code, message: MESSAGES[code], data: { status: 401 } }, `${what} on ${route}`)
      }
    }
  })

  t.test('the account password is not an application password', async (t) => {
    const withAccount = await createCaller(store, 'subscriber', { login: 'sam', password: 'correct horse battery staple' })
    const res = await call(app, 'GET', '/cms/v2/users/me', { as: basic('sam', 'correct horse battery staple') })
    t.equal(res.status, 401)
    t.equal(res.body.code, 'incorrect_password')
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: withAccount })).status, 200)
  })

  t.test('malformed Authorization headers', async (t) => {
    const b64 = (s: string): string => Buffer.from(s).toString('base64')
    const malformed = ['Basic', 'Basic ', 'Basic !!!not-base64!!!', `Basic ${b64('no-colon-here')}`, `Basic ${b64(':password-without-login')}`, 'Basic a']
    for (const header of malformed) {
      const res = await call(app, 'GET', '/', { as: header })
      t.equal(res.status, 401, JSON.stringify(header))
      t.equal(res.body.code, 'rest_invalid_authorization_header', JSON.stringify(header))
      t.match(res.body.message, /malformed/)
      t.equal(res.body.data.status, 401)
    }
    const bearer = await call(app, 'GET', '/', { as: 'Bearer abc.def.ghi' })
    t.equal(bearer.status, 401)
    t.equal(bearer.body.code, 'rest_unsupported_authorization_scheme')
  })

  t.test('a wrong password takes as long whether the login exists or not', async (t) => {
    const known = basic('Edith', 'WrongWrongWrongWrong1234')
    const unknown = basic('nobody-at-all', 'WrongWrongWrongWrong1234')
    // The work each answer costs, as CPU time of the process (the hash runs on its thread pool): what would
    // differ if a path skipped the hash, and what other processes on a loaded machine do not stretch.
    const time = async (auth: string): Promise<number> => {
      const start = process.cpuUsage()
      const res = await app.inject({ method: 'GET', url: '/cms-json/cms/v2/users/me', headers: { authorization: auth } })
      const used = process.cpuUsage(start)
      const ms = (used.user + used.system) / 1000
      if (res.statusCode !== 401) throw new Error(`expected 401, got ${res.statusCode}`)
      return ms
    }
    for (let i = 0; i < 5; i++) { await time(known); await time(unknown) }
    const a: number[] = []
    const b: number[] = []
    // Interleaved, so drift in the machine's load affects both series alike.
    for (let i = 0; i < 21; i++) { a.push(await time(known)); b.push(await time(unknown)) }
    const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
    const [ma, mb] = [median(a), median(b)]
    const tolerance = 5 + 0.5 * Math.min(ma, mb)
    t.ok(Math.abs(ma - mb) <= tolerance, `medians ${ma.toFixed(2)} ms of CPU (known login) and ${mb.toFixed(2)} ms (unknown) differ by at most ${tolerance.toFixed(2)} ms`)
  })

  t.test('only a keyed hash is stored; last use recorded at most once a day', async (t) => {
    const user = await createCaller(store, 'author', { login: 'hashy' })
    const [row] = await store.execute<{ hash: string, last_used: Date | null, last_ip: string | null }>(
      sql`select hash, last_used, last_ip from application_passwords where uuid = ${user.uuid}`)
    t.not(row!.hash, user.password)
    t.notMatch(row!.hash, user.password)
    t.not(row!.hash, createHash('sha256').update(user.password).digest('base64url'), 'not an unkeyed hash')
    t.equal(row!.last_used, null, 'never used yet')

    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: user })).status, 200)
    const [first] = await store.execute<{ last_used: Date, last_ip: string }>(
      sql`select last_used, last_ip from application_passwords where uuid = ${user.uuid}`)
    t.ok(first!.last_used !== null, 'last_used set on first use')
    t.equal(first!.last_ip, '127.0.0.1')

    await store.execute(sql`update application_passwords set last_used = now() - interval '2 hours', last_ip = '10.0.0.9' where uuid = ${user.uuid}`)
    await call(app, 'GET', '/cms/v2/users/me', { as: user })
    const [same] = await store.execute<{ last_ip: string }>(sql`select last_ip from application_passwords where uuid = ${user.uuid}`)
    t.equal(same!.last_ip, '10.0.0.9', 'not written again within a day')

    await store.execute(sql`update application_passwords set last_used = now() - interval '25 hours' where uuid = ${user.uuid}`)
    await call(app, 'GET', '/cms/v2/users/me', { as: user })
    const [later] = await store.execute<{ last_ip: string, fresh: boolean }>(
      sql`select last_ip, last_used > now() - interval '1 minute' as fresh from application_passwords where uuid = ${user.uuid}`)
    t.equal(later!.last_ip, '127.0.0.1', 'written again after a day')
    t.equal(later!.fresh, true)
  })

  // Credentials are kept while nothing is committed (authenticate.ts): any commit, by any process, is seen next.
  t.test('a revoked password, a changed role and a deleted user are seen by the very next request', async (t) => {
    const user = await createCaller(store, 'subscriber', { login: 'kept' })
    const roles = async (): Promise<unknown> => (await call(app, 'GET', '/cms/v2/users/me', { as: user, query: { context: 'edit' } })).body.roles
    t.same(await roles(), ['subscriber'])
    t.same(await roles(), ['subscriber'], 'asked again under the same horizon')
    await store.execute(sql`update users set roles = array['editor'] where id = ${user.user.id}`)
    t.same(await roles(), ['editor'], 'a role changed in SQL')
    await store.execute(sql`delete from application_passwords where uuid = ${user.uuid}`)
    const revoked = await call(app, 'GET', '/cms/v2/users/me', { as: user })
    t.equal(revoked.status, 401)
    t.equal(revoked.body.code, 'incorrect_password')
    const other = await createCaller(store, 'author', { login: 'gone' })
    t.equal((await call(app, 'GET', '/cms/v2/posts', { as: other })).status, 200)
    await store.execute(sql`delete from users where id = ${other.user.id}`)
    const deleted = await call(app, 'GET', '/cms/v2/posts', { as: other })
    t.equal(deleted.status, 401)
    t.equal(deleted.body.code, 'invalid_username')
  })

  // Kept by the credentials epoch (core migration 0013), not by the commit horizon: other commits leave them.
  t.test('credential rows are kept across commits of anything else, and read again after any change to credentials', async (t) => {
    const user = await createCaller(store, 'author', { login: 'steady' })
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: user })).status, 200, 'the first use is recorded (a change to credentials)')
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: user })).status, 200, 'the row as recorded, read and kept')
    // The stored hash changed behind the epoch's back (triggers off): only a read of the row would see it.
    await store.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`)
      await tx.execute(sql`update application_passwords set hash = 'not-the-hash' where uuid = ${user.uuid}`)
    })
    const before = await store.horizon()
    await store.execute(sql`insert into options (name, value) values ('unrelated_commit', '1'::jsonb)`)
    t.not(await store.horizon(), before, 'a commit of something else moved the horizon')
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: user })).status, 200, 'the kept row was used: not read again')
    await store.execute(sql`update users set email = 'steady-2@example.com' where id = ${user.user.id}`)
    const changed = await call(app, 'GET', '/cms/v2/users/me', { as: user })
    t.equal(changed.status, 401, 'a change to credentials renews the epoch: the row is read again')
    t.equal(changed.body.code, 'incorrect_password')
  })

  t.test('a verified caller is kept by a keyed digest of its header: no secret kept, a wrong password still refused', async (t) => {
    const user = await createCaller(store, 'author', { login: 'digested' })
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: user })).status, 200, 'first use (recorded)')
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: user })).status, 200, 'verified and kept')
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: user })).status, 200, 'the kept caller')
    const keys = verifiedCallerKeys(store)
    t.ok(keys.length > 0, 'callers are kept')
    const header = user.headers.authorization!
    const token = header.slice('Basic '.length)
    for (const key of keys) {
      t.notOk(key.includes(user.password) || key.includes(token) || key.includes(header), 'no password or header among the keys')
      t.not(key, createHash('sha256').update(header).digest('base64url'), 'not an unkeyed digest of the header')
    }
    // Same login, another password: another header, so checked afresh (and refused).
    const wrong = await call(app, 'GET', '/cms/v2/users/me', { as: basic('digested', 'ZZZZzzzzYYYYyyyyXXXXxxxx') })
    t.equal(wrong.status, 401)
    t.equal(wrong.body.code, 'incorrect_password')
    const malformed = await app.inject({ method: 'GET', url: '/cms-json/cms/v2/users/me', headers: { authorization: 'Basic !!!' } })
    t.equal(malformed.statusCode, 401)
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: user })).status, 200, 'the right one still in')
  })
})

t.test('passwords and Authorization headers never reach a log', async (t) => {
  const lines: string[] = []
  const { app, store } = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true, logLines: lines })
  t.teardown(() => app.close())
  const user = await createCaller(store, 'administrator', { login: 'logged', password: 'account-secret-123' })
  const wrong = basic('logged', 'ZZZZzzzzYYYYyyyyXXXXxxxx')
  await call(app, 'GET', '/cms/v2/users/me', { as: user })
  await call(app, 'GET', '/cms/v2/users/me', { as: wrong })
  await call(app, 'GET', '/cms/v2/users/me', { as: basic('ghost', user.password) })
  const created = await call(app, 'POST', '/cms/v2/users/me/application-passwords', { as: user, body: { name: 'logged app' } })
  t.equal(created.status, 201)
  const page = await app.inject({ method: 'GET', url: '/cms-admin/login' })
  const nonce = /cms_signin_nonce=([^;]+)/.exec(String(page.headers['set-cookie']))![1]!
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!
  await app.inject({
    method: 'POST',
    url: '/cms-admin/login',
    headers: { cookie: `cms_signin_nonce=${nonce}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf, log: 'logged', pwd: 'account-secret-123' }).toString()
  })
  t.ok(lines.length > 0, 'the requests were logged')
  const log = lines.join('\n')
  const secrets = [user.password, user.headers.authorization!.slice(6), wrong.slice(6), created.body.password.replace(/ /g, ''), created.body.password, 'account-secret-123']
  for (const secret of secrets) t.notOk(log.includes(secret), 'a secret is absent from the log')
})
