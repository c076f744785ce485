/**
 * Rate limits over HTTP (inject) on a real database: the 429 with its
 * headers and body, per credential and per address, the classes (an
 * expensive route limited sooner, writes apart from reads, failed
 * credential checks), and one count shared by two apps on one database.
 * Windows are counted on a clock the test sets: nothing depends on time.
 */
import t, { type Test } from 'tap'
import { Type } from '@sinclair/typebox'
import { defineNamespace, endpoint, everyone, route } from '@cms/rest'
import { basic } from '@cms/rest/testing'
import type { Store } from '@cms/store'
import { openTestStore, openTestStores, testDatabaseUrl } from '@cms/store/testing'
import { namespacePackage, testApp, type TestApp } from '../src/testing.js'
import { createApplicationPassword } from '../src/users/store.js'
import { coreMigrations } from '../src/migrations.js'

const WINDOW = 60_000
// A window's start plus 15 s: 45 s are left of it.
const START = 29_000_000 * WINDOW
const clock = { now: START + 15_000 }
const now = (): number => clock.now

// A package's own expensive endpoint, declared in its route (no change to the kernel).
const fixture = namespacePackage(defineNamespace('heavy/v1', [
  route({ path: '/analyze', endpoints: [endpoint({ methods: ['GET'], rateClass: 'expensive', args: { q: Type.Optional(Type.String()) }, permission: everyone, handler: () => ({ ok: true }) })] }),
  route({ path: '/light', endpoints: [endpoint({ methods: ['GET'], permission: everyone, handler: () => ({ ok: true }) })] })
]))

const LIMITS = { read: 5, write: 3, expensive: 2, authFailures: 3, windowMs: WINDOW, authWindowMs: WINDOW, now }

async function limitedApp (extra: Partial<typeof LIMITS> & { syncMs?: number } = {}, store?: Store): Promise<TestApp> {
  return await testApp({ packages: [fixture], rateLimits: { ...LIMITS, ...extra }, store })
}

interface Sent { status: number, headers: Record<string, unknown>, body: any }

async function send (h: TestApp, method: string, path: string, opts: { ip?: string, headers?: Record<string, string>, body?: unknown } = {}): Promise<Sent> {
  const res = await h.app.inject({
    method: method as 'GET',
    url: `/cms-json${path}`,
    remoteAddress: opts.ip ?? '198.51.100.7',
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    ...(opts.body === undefined ? {} : { payload: JSON.stringify(opts.body) })
  })
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? null : JSON.parse(res.body) }
}

const statuses = async (n: number, f: () => Promise<Sent>): Promise<number[]> => {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push((await f()).status)
  return out
}

t.beforeEach(() => { clock.now = START + 15_000 })

t.test('the 429 after the limit: headers and body', async (t) => {
  const h = await limitedApp()
  t.teardown(h.close)
  for (let i = 1; i <= 5; i++) {
    const res = await send(h, 'GET', '/heavy/v1/light')
    t.equal(res.status, 200)
    t.same([res.headers['ratelimit-limit'], res.headers['ratelimit-remaining'], res.headers['ratelimit-reset']], ['5', String(5 - i), '45'], `read ${i}: limit, remaining, seconds to the window's end`)
  }
  const refused = await send(h, 'GET', '/heavy/v1/light')
  t.equal(refused.status, 429)
  t.same(refused.body, { code: 'rest_rate_limited', message: 'Too many requests. Wait before trying again.', data: { status: 429, retry_after: 45 } })
  t.equal(refused.headers['retry-after'], '45')
  t.same([refused.headers['ratelimit-limit'], refused.headers['ratelimit-remaining'], refused.headers['ratelimit-reset']], ['5', '0', '45'])
  t.match(String(refused.headers['access-control-expose-headers']), /RateLimit-Remaining.*Retry-After/, 'a browser client may read them')

  clock.now = START + WINDOW
  t.equal((await send(h, 'GET', '/heavy/v1/light')).status, 200, 'a new window counts afresh')
})

t.test('per credential, per address', async (t) => {
  const h = await limitedApp()
  t.teardown(h.close)
  const alice = await h.caller('author')
  const bob = await h.caller('author')
  const second = await createApplicationPassword(h.store, alice.id, { name: 'second client' })
  const aliceAgain = { authorization: basic(alice.login, second.password) }

  t.same(await statuses(6, async () => await send(h, 'GET', '/heavy/v1/light')), [200, 200, 200, 200, 200, 429], 'anonymous, one address')
  t.same(await statuses(6, async () => await send(h, 'GET', '/heavy/v1/light', { headers: alice.headers })), [200, 200, 200, 200, 200, 429], 'a signed-in caller from that address has a count of their own')
  t.same(await statuses(2, async () => await send(h, 'GET', '/heavy/v1/light', { headers: aliceAgain })), [200, 200], 'so has the same user\'s other application password')
  t.same(await statuses(2, async () => await send(h, 'GET', '/heavy/v1/light', { headers: bob.headers })), [200, 200], 'and another user')
  t.equal((await send(h, 'GET', '/heavy/v1/light', { ip: '203.0.113.50' })).status, 200, 'another address')
  t.equal((await send(h, 'GET', '/heavy/v1/light', { headers: alice.headers, ip: '203.0.113.50' })).status, 429, 'a credential is limited from any address')
  t.equal((await send(h, 'GET', '/heavy/v1/light', { ip: '2001:db8:1:2::99' })).status, 200)
  t.equal((await send(h, 'GET', '/heavy/v1/light', { ip: '2001:db8:1:2::100' })).status, 200, 'IPv6 addresses count by /64')
  t.same(await statuses(4, async () => await send(h, 'GET', '/heavy/v1/light', { ip: '2001:db8:1:2::101' })), [200, 200, 200, 429])
})

t.test('route classes', async (t) => {
  const h = await limitedApp()
  t.teardown(h.close)
  const author = await h.caller('author')

  const heavy = await statuses(3, async () => await send(h, 'GET', '/heavy/v1/analyze?q=x'))
  t.same(heavy, [200, 200, 429], 'a package\'s expensive endpoint: 2')
  t.equal((await send(h, 'GET', '/heavy/v1/analyze')).headers['ratelimit-limit'], '2')
  t.same(await statuses(3, async () => await send(h, 'GET', '/cms/v2/search?search=x')), [429, 429, 429], 'the core\'s search is expensive too, and shares the class\'s count')
  t.equal((await send(h, 'GET', '/heavy/v1/light')).status, 200, 'reads are counted apart')

  const writes = await statuses(4, async () => await send(h, 'POST', '/cms/v2/posts', { headers: author.headers, body: { title: 'x' } }))
  t.same(writes, [201, 201, 201, 429], 'writes: 3')
  t.equal((await send(h, 'GET', '/cms/v2/posts', { headers: author.headers })).status, 200, 'the writer still reads')
  const upload = await h.app.inject({ method: 'POST', url: '/cms-json/cms/v2/media', remoteAddress: '192.0.2.1', headers: { ...author.headers, 'content-type': 'image/png', 'content-disposition': 'attachment; filename="a.png"' }, payload: Buffer.from('not a png') })
  t.equal(upload.headers['ratelimit-limit'], '2', 'an upload (a streamed body) is expensive by default')
  t.equal((await h.app.inject({ method: 'OPTIONS', url: '/cms-json/heavy/v1/light', remoteAddress: '192.0.2.9' })).headers['ratelimit-limit'], '5', 'OPTIONS is a read')
})

t.test('failed credential checks', async (t) => {
  const h = await limitedApp()
  t.teardown(h.close)
  const editor = await h.caller('editor')
  const wrong = { authorization: basic(editor.login, 'abcd efgh ijkl mnop qrst uvwx') }
  const ip = '198.51.100.20'

  t.same(await statuses(3, async () => await send(h, 'GET', '/heavy/v1/light', { headers: wrong, ip })), [401, 401, 401], 'three wrong passwords')
  const refused = await send(h, 'GET', '/heavy/v1/light', { headers: editor.headers, ip })
  t.equal(refused.status, 429, 'then even the right one is refused before it is checked')
  t.equal(refused.body.code, 'rest_rate_limited')
  t.same([refused.headers['ratelimit-limit'], refused.headers['ratelimit-remaining'], refused.headers['retry-after']], ['3', '0', '45'])
  t.equal((await send(h, 'GET', '/heavy/v1/light', { headers: { authorization: 'Basic !!!' }, ip })).status, 429, 'a malformed header too')
  t.equal((await send(h, 'GET', '/heavy/v1/light', { ip })).status, 200, 'the address still reads anonymously')
  t.equal((await send(h, 'GET', '/heavy/v1/light', { headers: editor.headers, ip: '198.51.100.21' })).status, 200, 'the credential works from another address')
  t.equal((await send(h, 'GET', '/heavy/v1/light', { headers: editor.headers })).status, 200, 'a right password is no failure')
  t.same(await statuses(3, async () => await send(h, 'GET', '/cms/v2/users/me', { headers: wrong, ip: '198.51.100.22' })), [401, 401, 401])
  t.equal((await send(h, 'GET', '/cms/v2/users/me', { headers: wrong, ip: '198.51.100.22' })).status, 429, 'on every route')

  // The sign-in form: its 401s count as failures too.
  const form = async (): Promise<number> => {
    const page = await h.app.inject({ method: 'GET', url: '/cms-admin/login', remoteAddress: '198.51.100.30' })
    const nonce = String(page.headers['set-cookie']).match(/=([^;]+)/)![1]!
    const csrf = page.body.match(/name="csrf" value="([^"]+)"/)![1]!
    const res = await h.app.inject({ method: 'POST', url: '/cms-admin/login', remoteAddress: '198.51.100.30', headers: { cookie: String(page.headers['set-cookie']).split(';')[0]!, 'content-type': 'application/x-www-form-urlencoded' }, payload: `csrf=${encodeURIComponent(csrf)}&log=nobody-${nonce.slice(0, 6)}&pwd=wrong` })
    return res.statusCode
  }
  t.same([await form(), await form(), await form(), await form()], [401, 401, 401, 429], 'sign-in form: three failures, then refused')

  clock.now = START + WINDOW
  t.equal((await send(h, 'GET', '/heavy/v1/light', { headers: editor.headers, ip })).status, 200, 'the next window forgives')
})

t.test('limits off: no headers, no count', async (t) => {
  const h = await testApp({ packages: [fixture] })
  t.teardown(h.close)
  const res = await send(h, 'GET', '/heavy/v1/light')
  t.equal(res.headers['ratelimit-limit'], undefined)
  t.same(await h.store.execute('select count(*)::int as n from rate_limit_hits'), [{ n: 0 }])
})

const hitRows = async (store: Store): Promise<Array<{ key: string, hits: number }>> =>
  await store.execute<{ key: string, hits: number }>('select key, hits from rate_limit_hits order by key')

/**
 * Lets every sync interval due so far run: Node runs timers in order of
 * expiry, so the limiter's timer (`syncMs` after the first hit, due
 * earlier) runs before this one; its check sends nothing unless some key
 * reached a tenth of its limit.
 */
const afterSyncs = async (syncMs: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, syncMs * 20)) }

t.test('callers under a tenth of every limit cost the database nothing; past a tenth, the count is shared', async (t) => {
  const syncMs = 5
  // A tenth of each class: 100 requests.
  const h = await limitedApp({ read: 1000, write: 1000, expensive: 1000, authFailures: 1000, syncMs })
  t.teardown(h.close)
  const author = await h.caller('author')
  const ips = ['198.51.100.1', '198.51.100.2', '2001:db8:5::1']
  let sent = 0
  for (let round = 0; round < 3; round++) {
    for (const ip of ips) {
      // Reads, expensive reads and an anonymous refused write per address; a signed-in caller's reads and writes.
      for (let i = 0; i < 30; i++) sent += Number((await send(h, 'GET', '/heavy/v1/light', { ip })).status === 200)
      for (let i = 0; i < 3; i++) sent += Number((await send(h, 'GET', '/heavy/v1/analyze', { ip })).status === 200)
      sent += Number((await send(h, 'POST', '/cms/v2/posts', { ip, body: { title: 'x' } })).status === 401)
    }
    for (let i = 0; i < 20; i++) sent += Number((await send(h, 'GET', '/heavy/v1/light', { headers: author.headers })).status === 200)
    for (let i = 0; i < 3; i++) sent += Number((await send(h, 'POST', '/cms/v2/posts', { headers: author.headers, body: { title: `Post ${round}.${i}` } })).status === 201)
    await afterSyncs(syncMs)
    t.same(await hitRows(h.store), [], `round ${round + 1}: no row written`)
  }
  t.equal(sent, 3 * (3 * 34 + 23), 'every request answered as expected (none limited)')
  const last = await send(h, 'GET', '/heavy/v1/light', { ip: ips[0] })
  t.equal(last.headers['ratelimit-remaining'], String(1000 - 91), 'counted all the same: 91 reads of that address')

  // The first address reaches a tenth of the read limit (100): its count is sent, with the others counted meanwhile.
  t.same(await statuses(9, async () => await send(h, 'GET', '/heavy/v1/light', { ip: ips[0] })), Array(9).fill(200))
  t.equal(await stored(h.store, 'read|ip:198.51.100.1', 100), 100, 'written once a tenth of the limit is used')
})

/** Waits (counting tries, never asserting on time) until the shared row of `key` holds `hits`. */
async function stored (store: Store, key: string, hits: number): Promise<number> {
  let last = -1
  // 6,000 tries, a minute at least: only a send that never comes outlasts them on a loaded machine.
  for (let i = 0; i < 6000 && last !== hits; i++) {
    const rows = await store.execute<{ hits: number }>(`select hits from rate_limit_hits where key = '${key}'`)
    last = rows[0]?.hits ?? 0
    if (last !== hits) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return last
}

/**
 * `twoStore` is the second app's store, with one connection: the row read
 * there shows its hit once its own send has ended and taken in the total
 * (read on another connection, the row could show it first, and the app's
 * next read be counted without it).
 */
async function sharedCount (t: Test, one: TestApp, two: TestApp, store: Store, twoStore: Store): Promise<void> {
  const key = 'read|ip:198.51.100.7'
  t.same(await statuses(4, async () => await send(one, 'GET', '/heavy/v1/light')), [200, 200, 200, 200], 'four reads on the first app')
  t.equal(await stored(store, key, 4), 4, 'sent to the database within the sync interval')
  const first = await send(two, 'GET', '/heavy/v1/light')
  t.equal(first.status, 200, 'the second app\'s first read')
  t.equal(await stored(twoStore, key, 5), 5, 'its hit joins the same row')
  const second = await send(two, 'GET', '/heavy/v1/light')
  t.equal(second.status, 429, 'its second read is the sixth of the address: refused')
  t.equal(second.headers['ratelimit-remaining'], '0')
}

t.test('two apps on one database share the count', async (t) => {
  // PGlite: one database in this process, two apps each counting on their own.
  const store = await openTestStore({ migrations: [coreMigrations] })
  t.teardown(async () => { await store.close() })
  const one = await limitedApp({ syncMs: 10 }, store)
  t.teardown(one.close)
  const two = await limitedApp({ syncMs: 10 }, store)
  t.teardown(two.close)
  await sharedCount(t, one, two, store, store)
})

// Separate connection pools, as two processes have: run when the suite runs on PostgreSQL.
if (testDatabaseUrl() !== undefined) {
  t.test('two gateways with their own connections to one PostgreSQL database', async (t) => {
    // A connection each: the test's read of the row on the second app's waits for that app's send to end.
    const stores = await openTestStores(2, { poolSize: 1 })
    t.teardown(async () => { for (const s of stores) await s.close() })
    const one = await limitedApp({ syncMs: 10 }, stores[0]!)
    t.teardown(one.close)
    const two = await limitedApp({ syncMs: 10 }, stores[1]!)
    t.teardown(two.close)
    await sharedCount(t, one, two, stores[0]!, stores[1]!)
  })
}
