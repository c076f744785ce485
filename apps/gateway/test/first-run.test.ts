/**
 * What a new user meets first: each bad setting stops the start with one line
 * naming the setting, the value and what is allowed; the first administrator
 * is made from CMS_ADMIN_* when no user exists (and a second start changes
 * nothing); one log line per request without credentials.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { childArgs, openTestStore } from '@cms/store/testing'
import { listApplicationPasswords, listUsers } from '@cms/core'
import { loadSettings } from '../src/settings.js'
import { loggableUrl } from '../src/request-log.js'
import { gatewayApp } from './helpers.js'

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url))

function settingError (env: Record<string, string>): string {
  try {
    loadSettings({ CMS_DATA_DIR: '/nonexistent-not-used', ...env })
  } catch (err) {
    return (err as Error).message
  }
  return 'no error'
}

t.test('each bad setting is one line: the setting, the value, what is allowed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-settings-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'empty'), '')
  const cases: Array<[Record<string, string>, string]> = [
    [{ CMS_DEPLOYMENT: 'C' }, 'CMS_DEPLOYMENT must be a profile: A, B (add one with CMS_PROFILES), got "C"'],
    [{ PORT: 'eighty' }, 'PORT must be an integer from 0 to 65535, got "eighty"'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535, got "70000"'],
    [{ CMS_BODY_LIMIT: '10' }, 'CMS_BODY_LIMIT must be an integer of at least 1024, got "10"'],
    [{ CMS_SCHEDULER_INTERVAL_MS: 'often' }, 'CMS_SCHEDULER_INTERVAL_MS must be an integer of at least 100, got "often"'],
    [{ CMS_ENVIRONMENT: 'staging' }, 'CMS_ENVIRONMENT must be local or production (or empty), got "staging"'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent, got "loud"'],
    [{ CMS_BASE_URL: 'not a url' }, 'CMS_BASE_URL must be an absolute http(s) URL such as https://cms.example.com, got "not a url"'],
    [{ CMS_REMOTE_NAMESPACES: 'seo/v1=ftp://x' }, 'CMS_REMOTE_NAMESPACES must be a comma list of namespace=http(s)://host:port, got "seo/v1=ftp://x"'],
    [{ CMS_DB_POOL_SIZE: 'many' }, 'CMS_DB_POOL_SIZE must be a positive integer, got "many"'],
    [{ CMS_EVENTS_LEASE_MS: '999' }, 'CMS_EVENTS_LEASE_MS must be an integer from 1000 to 86400000, got "999"'],
    [{ CMS_UPSTREAM_RANK_TRACKER_URL: 'ftp://x' }, 'CMS_UPSTREAM_RANK_TRACKER_URL must be an absolute http(s) base URL such as https://service.example/api/, got "ftp://x"'],
    [{ CMS_UPSTREAM_RANK_TRACKER_URL: 'https://rank.example/', CMS_UPSTREAM_RANK_TRACKER_TIMEOUT_MS: '5s' }, 'CMS_UPSTREAM_RANK_TRACKER_TIMEOUT_MS must be an integer from 100 to 600000 (milliseconds), got "5s"'],
    [{ CMS_UPSTREAM_RANK_TRACKER_TOKEN: 'secret-token' }, "CMS_UPSTREAM_RANK_TRACKER_URL must be set when CMS_UPSTREAM_RANK_TRACKER_TOKEN is (the outside service's base URL)"],
    [{ DATABASE_URL: 'localhost:5432' }, 'DATABASE_URL must be a postgres://user:password@host:port/database URL (or unset for the embedded database), got "localhost:5432"'],
    [{ CMS_ADMIN_LOGIN: 'admin' }, 'CMS_ADMIN_EMAIL must be set when CMS_ADMIN_LOGIN is (the first administrator\'s e-mail address)'],
    [{ CMS_ADMIN_LOGIN: 'admin', CMS_ADMIN_EMAIL: 'a@example.com' }, 'CMS_ADMIN_PASSWORD must be set (or CMS_ADMIN_PASSWORD_FILE) when CMS_ADMIN_LOGIN is'],
    [{ CMS_ADMIN_EMAIL: 'a@example.com' }, 'CMS_ADMIN_LOGIN must be set when CMS_ADMIN_EMAIL is (the first administrator\'s login)'],
    [{ CMS_ADMIN_LOGIN: 'admin', CMS_ADMIN_EMAIL: 'a@example.com', CMS_ADMIN_PASSWORD_FILE: join(dir, 'missing') }, `CMS_ADMIN_PASSWORD_FILE must be the path of a readable file holding the password, got "${join(dir, 'missing')}"`],
    [{ CMS_ADMIN_LOGIN: 'admin', CMS_ADMIN_EMAIL: 'a@example.com', CMS_ADMIN_PASSWORD_FILE: join(dir, 'empty') }, `CMS_ADMIN_PASSWORD_FILE must be a file holding a password (it is empty), got "${join(dir, 'empty')}"`],
    [{ CMS_ADMIN_LOGIN: 'admin', CMS_ADMIN_EMAIL: 'a@example.com', CMS_ADMIN_PASSWORD: 'x', CMS_ADMIN_PASSWORD_FILE: join(dir, 'empty') }, `CMS_ADMIN_PASSWORD_FILE must be unset when CMS_ADMIN_PASSWORD is set (give one of the two), got "${join(dir, 'empty')}"`]
  ]
  for (const [env, message] of cases) t.equal(settingError(env), message, Object.keys(env).join(', '))
  t.equal(settingError({ PORT: '9000', CMS_DEPLOYMENT: 'B' }), 'no error', 'good values pass')
})

t.test('the service prints that one line and stops, without a stack trace', async (t) => {
  const start = (env: Record<string, string>): { status: number | null, stderr: string } => {
    const r = spawnSync(process.execPath, childArgs(MAIN), { env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: '', ...env }, encoding: 'utf8', timeout: 120_000 })
    return { status: r.status, stderr: r.stderr.replace(/^\(node:\d+\) .*\n(\(Use .*\n)?/gm, '') }
  }
  const bad = start({ CMS_DEPLOYMENT: 'C' })
  t.equal(bad.status, 1)
  t.equal(bad.stderr, 'cms: CMS_DEPLOYMENT must be a profile: A, B (add one with CMS_PROFILES), got "C"\n')
  const upstream = start({ CMS_UPSTREAM_RANK_TRACKER_URL: 'https://user:pw@rank.example/' })
  t.equal(upstream.status, 1)
  t.equal(upstream.stderr, 'cms: CMS_UPSTREAM_RANK_TRACKER_URL must be a URL without credentials (they go in CMS_UPSTREAM_RANK_TRACKER_TOKEN), got "https://user:***@rank.example/"\n', 'an upstream setting too, its password not shown')
  // A port nothing listens on: refused at once.
  const unreachable = start({ DATABASE_URL: 'postgres://cms:secret@127.0.0.1:9/cms' })
  t.equal(unreachable.status, 1)
  t.equal(unreachable.stderr, 'cms: cannot reach the PostgreSQL server at 127.0.0.1:9 (from DATABASE_URL): connection refused\n')
})

/** Settings that make the first administrator (`admin`, password `admin-password-123`) in a directory removed after `t`. */
function firstAdminEnv (t: Test): { dir: string, env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'cms-first-admin-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'password'), 'admin-password-123\n')
  return {
    dir,
    env: {
      LOG_LEVEL: 'silent',
      CMS_DATA_DIR: '/nonexistent-not-used',
      CMS_ADMIN_LOGIN: 'admin',
      CMS_ADMIN_EMAIL: 'admin@example.com',
      CMS_ADMIN_PASSWORD_FILE: join(dir, 'password'),
      CMS_ADMIN_APP_PASSWORD_FILE: join(dir, 'app-password')
    }
  }
}

t.test('the first administrator from CMS_ADMIN_*, once', async (t) => {
  const { dir, env } = firstAdminEnv(t)
  const store = await openTestStore()
  t.teardown(() => store.close())

  // No base URL, as a first start has: links name the address asked for.
  const first = await gatewayApp({ env: { ...env, CMS_BASE_URL: '' }, store })
  const { users } = await listUsers(store)
  t.match(users, [{ id: 1, login: 'admin', email: 'admin@example.com', roles: ['administrator'], hasPassword: true }], 'created at start')
  const file = join(dir, 'app-password')
  t.equal(statSync(file).mode & 0o777, 0o600, 'the password file is mode 600')
  const password = readFileSync(file, 'utf8').trim()
  t.match(password, /^[A-Za-z0-9]{24}$/)
  const me = await first.app.inject({ url: '/index.php?rest_route=/cms/v2/users/me&context=edit', headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` } })
  t.equal(me.statusCode, 200, 'the written application password signs in')
  t.match(me.json(), { id: 1, roles: ['administrator'] })
  await first.close()

  const writtenAt = statSync(file).mtimeMs
  const second = await gatewayApp({ env: { ...env, CMS_BASE_URL: '', CMS_ADMIN_LOGIN: 'other', CMS_ADMIN_EMAIL: 'other@example.com' }, store })
  await second.close()
  t.equal((await listUsers(store)).users.length, 1, 'a second start creates nobody')
  t.equal((await listApplicationPasswords(store, 1)).length, 1, 'and no second application password')
  t.equal(statSync(file).mtimeMs, writtenAt, 'the file is left as it was')
})

t.test('the application password file\'s directory is made when it does not exist (on PostgreSQL .data/ is not)', async (t) => {
  const { dir, env } = firstAdminEnv(t)
  const store = await openTestStore()
  t.teardown(() => store.close())
  const file = join(dir, '.data', 'admin-app-password')
  const { close } = await gatewayApp({ env: { ...env, CMS_ADMIN_APP_PASSWORD_FILE: file }, store })
  await close()
  t.match(readFileSync(file, 'utf8'), /^[A-Za-z0-9]{24}\n$/, 'written')
  t.equal(statSync(join(dir, '.data')).mode & 0o777, 0o700, 'in a directory only its user reads')
})

t.test('CMS_SCHEDULER_INTERVAL_MS and CMS_ENVIRONMENT reach the core through the settings', async (t) => {
  const { dir, env: base } = firstAdminEnv(t)
  const store = await openTestStore()
  t.teardown(() => store.close())
  const { app, close } = await gatewayApp({ env: { ...base, CMS_BASE_URL: '', CMS_SCHEDULER_INTERVAL_MS: '100', CMS_ENVIRONMENT: 'local' }, store, jobs: true })
  t.teardown(close)
  const auth = `Basic ${Buffer.from(`admin:${readFileSync(join(dir, 'app-password'), 'utf8').trim()}`).toString('base64')}`
  // The scheduler runs at the setting (read back: a time limit that tells 100 ms from the default 10 s
  // failed when a loaded machine was slow); each post made due is published by it, within a wait that
  // only a true hang outlasts.
  t.equal(app.platform.services.settings.schedulerIntervalMs, 100, 'the scheduler\'s interval is the setting')
  for (const title of ['First', 'Second']) {
    const created = await app.inject({ method: 'POST', url: '/index.php?rest_route=/cms/v2/posts', headers: { authorization: auth, 'content-type': 'application/json' }, payload: { title, status: 'future', date_gmt: '2099-01-01T00:00:00' } })
    t.equal(created.json().status, 'future', created.body)
    const id = Number(created.json().id)
    await store.execute(`update posts set date_gmt = now() - interval '1 second' where id = ${id}`)
    let status = 'future'
    const until = Date.now() + 60_000
    while (status === 'future' && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = (await app.inject({ url: `/index.php?rest_route=/cms/v2/posts/${id}&context=edit`, headers: { authorization: auth } })).json().status
    }
    t.equal(status, 'publish', `${title}: published by the scheduler`)
  }

  const cookie = (headers: unknown, name: string): string => String([headers].flat().find((c) => String(c).startsWith(`${name}=`))).split(';')[0]!
  const field = (html: string, name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)![1]!
  const form = await app.inject({ url: '/cms-admin/login' })
  const signedIn = await app.inject({
    method: 'POST',
    url: '/cms-admin/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie(form.headers['set-cookie'], 'cms_signin_nonce') },
    payload: new URLSearchParams({ csrf: field(form.body, 'csrf'), redirect_to: field(form.body, 'redirect_to'), log: 'admin', pwd: 'admin-password-123' }).toString()
  })
  const page = await app.inject({ url: '/cms-admin/authorize-application.php?app_name=X&success_url=http%3A%2F%2Fapp.example%2Fcb', headers: { cookie: cookie(signedIn.headers['set-cookie'], 'cms_session') } })
  t.equal(page.statusCode, 200, 'a plain-http redirect URL is accepted in the local environment')
})

t.test('one log line per request, credentials left out', async (t) => {
  t.equal(loggableUrl('/index.php?rest_route=/cms/v2/posts/1&password=open%20sesame&x=1'), '/index.php?rest_route=/cms/v2/posts/1&password=[redacted]&x=1')
  t.equal(loggableUrl('/cms-json/cms/v2/posts?per_page=2'), '/cms-json/cms/v2/posts?per_page=2')
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(...String(chunk).trim().split('\n')); done() } })
  const store = await openTestStore()
  t.teardown(() => store.close())
  const { app, close } = await gatewayApp({ env: { CMS_BASE_URL: '' }, store, logger: { level: 'info', stream } })
  t.teardown(close)
  lines.length = 0
  await app.inject({ url: '/cms-json/cms/v2/posts?per_page=2&password=hunter2', headers: { authorization: 'Basic YWRtaW46c2VjcmV0' } })
  const logged = lines.map((l) => JSON.parse(l) as { level: number, msg: string })
  t.equal(logged.length, 1, 'one line')
  t.equal(logged[0]!.level, 30, 'at info')
  t.match(logged[0]!.msg, /^GET \/cms-json\/cms\/v2\/posts\?per_page=2&password=\[redacted\] 401 [0-9.]+ ms$/, 'method, URL, status, time')
  t.notMatch(lines.join('\n'), /hunter2|YWRtaW46c2VjcmV0/, 'no credential anywhere')
})
