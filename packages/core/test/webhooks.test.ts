/**
 * /cms/v2/webhooks through HTTP, on a real database, delivering to an HTTP
 * server this test starts (allow-listed with CMS_OUTBOUND_ALLOW, as an
 * operator would): a signed delivery the test verifies with the
 * `standardwebhooks` library, retries after a 500 and after a timeout
 * (time moved by advancing `next_at` in the database, never by waiting),
 * giving up and the replay of the failed delivery, a test delivery, the
 * secret's rotation (both signatures during its grace period),
 * disabling after a day of failures, one delivery per event and
 * subscription with two apps on one database, the secret shown once and
 * nowhere else (answers, the table, the log), bad input, and every route's
 * permission cases.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { openTestStores, testDatabaseUrl } from '@cms/store/testing'
import { checkPermissions, testApp, type TestApp, type TestUser } from '../src/testing.js'
import { webhookSettingsFromEnv } from '../src/webhooks/settings.js'

interface Received { headers: IncomingHttpHeaders, body: string }
/** What the receiver does with the next request: answer a status, or wait longer than the delivery timeout. */
type Behaviour = number | 'hang'

/** A local receiver: records every request and answers as told (200 once the script runs out). */
async function receiver (t: { teardown: (fn: () => void) => void }): Promise<{ url: string, received: Received[], script: Behaviour[] }> {
  const received: Received[] = []
  const script: Behaviour[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      const next = script.shift() ?? 200
      if (next === 'hang') {
        // Never answered: the client gives up at CMS_WEBHOOKS_TIMEOUT_MS (below); the teardown closes the connection.
        return
      }
      res.statusCode = next
      res.end(next === 200 ? 'thanks' : `failure ${next}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.closeAllConnections(); server.close() })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, script }
}

/**
 * Settings for the tests: a timeout short enough to wait for once and long enough for every delivery that must
 * succeed on a loaded machine (2 s was a deadline a stalled one could miss), under the default's 10 s; retries far
 * apart (the test moves them), a long retry period.
 */
const ENV = { CMS_WEBHOOKS_TIMEOUT_MS: '8000', CMS_WEBHOOKS_BACKOFF_MS: '60000', CMS_WEBHOOKS_BACKOFF_MAX_MS: '3600000' }

/** An app whose outbound client may reach this machine's loopback (read when the core is composed). */
async function app (opts: { store?: TestApp['store'], logLines?: string[], env?: Record<string, string> } = {}): Promise<TestApp> {
  const saved = process.env.CMS_OUTBOUND_ALLOW
  process.env.CMS_OUTBOUND_ALLOW = '127.0.0.1'
  try {
    return await testApp({ namespaces: ['cms/v2'], env: { ...ENV, ...opts.env }, ...(opts.store === undefined ? {} : { store: opts.store }), ...(opts.logLines === undefined ? {} : { logLines: opts.logLines }) })
  } finally {
    if (saved === undefined) delete process.env.CMS_OUTBOUND_ALLOW
    else process.env.CMS_OUTBOUND_ALLOW = saved
  }
}

/** The event worker, then the delivery worker: what the background jobs do, driven by the test. */
async function deliver (h: TestApp): Promise<number> {
  await h.services.events.drain()
  return await h.services.webhooks.runDue()
}

/** Makes every pending delivery due now (instead of waiting for its backoff). */
async function advance (h: TestApp): Promise<void> {
  await h.store.execute("update webhook_deliveries set next_at = now() where status = 'pending'")
}

async function subscribe (h: TestApp, admin: TestUser, url: string, events: string[] = ['post.created']): Promise<{ id: number, secret: string }> {
  const res = await h.call('POST', '/cms/v2/webhooks', { as: admin, body: { url, events, description: 'test receiver' } })
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`)
  return { id: res.body.id, secret: res.body.secret }
}

async function post (h: TestApp, as: TestUser, title = 'Hello'): Promise<number> {
  const res = await h.call('POST', '/cms/v2/posts', { as, body: { title, status: 'publish' } })
  if (res.status !== 201) throw new Error(`post: ${res.status}`)
  return res.body.id as number
}

const verify = (secret: string, r: Received): Record<string, any> =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Record<string, any>

// One app for every case but the two-app one (an app's start is most of this file's time); each case
// starts with no webhook.
const logLines: string[] = []
const shared = app({ logLines })
t.teardown(async () => { await (await shared).close() })
async function fresh (): Promise<TestApp> {
  const h = await shared
  await h.store.execute('delete from webhooks')
  return h
}

t.test('a delivery, signed: verified with the library; one per event', async (t) => {
  const h = await fresh()
  const rx = await receiver(t)
  const admin = await h.caller('administrator')
  const created = await h.call('POST', '/cms/v2/webhooks', { as: admin, body: { url: rx.url, events: ['post.created', 'post.deleted'] } })
  t.equal(created.status, 201)
  t.match(created.body, { url: rx.url, events: ['post.created', 'post.deleted'], active: true, status: 'active', disabled_reason: null })
  t.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'a Standard Webhooks secret, shown in the create\'s answer')
  t.equal(created.headers.location, `http://cms.test/index.php?rest_route=/cms/v2/webhooks/${created.body.id}`)
  const secret = created.body.secret as string

  const id = await post(h, admin)
  t.equal(rx.received.length, 0, 'nothing before the workers run')
  t.equal(await deliver(h), 1, 'one attempt')
  t.equal(rx.received.length, 1)
  const got = rx.received[0]!
  t.match(got.headers, { 'content-type': 'application/json', 'webhook-id': /^msg_[0-9a-f]{32}$/, 'webhook-timestamp': /^\d+$/, 'webhook-signature': /^v1,/ })
  const payload = verify(secret, got)
  t.match(payload, { type: 'post.created', timestamp: String, data: { event_id: Number, object_id: id, payload: { id, type: 'post', status: 'publish', author: admin.id } } }, 'the signature verifies; the documented body')
  t.throws(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(got.body, got.headers as Record<string, string>), 'another secret does not verify')
  t.throws(() => new Webhook(secret).verify(`${got.body} `, got.headers as Record<string, string>), 'a changed body does not verify')

  const log = await h.call('GET', `/cms/v2/webhooks/${created.body.id}/deliveries`, { as: admin })
  t.equal(log.status, 200)
  t.equal(log.headers['x-cms-total'], '1')
  t.match(log.body, [{ topic: 'post.created', status: 'delivered', attempts: 1, response_status: 200, response_body: 'thanks', error: null, duration_ms: Number, next_attempt: null, message_id: got.headers['webhook-id'] }])
  t.equal(JSON.parse(log.body[0].request_body).data.object_id, id, 'the body sent, in the log')

  // The event listener is delivered at least once: the same event handed over again adds nothing.
  await h.store.execute('delete from cms_event_deliveries')
  await h.store.execute('update cms_events set lease_until = null')
  t.equal(await deliver(h), 0, 'no second delivery for the same event')
  t.equal(rx.received.length, 1)
  t.same(await h.store.execute('select count(*)::int as n from webhook_deliveries'), [{ n: 1 }])

  // Topics not subscribed to make no delivery.
  await h.call('POST', `/cms/v2/posts/${id}`, { as: admin, body: { title: 'Renamed' } })
  t.equal(await deliver(h), 0, 'post.updated is not subscribed to')

  // The secret: in no later answer, not in clear in the table, not in the log.
  const answers = [
    await h.call('GET', `/cms/v2/webhooks/${created.body.id}`, { as: admin }),
    await h.call('GET', '/cms/v2/webhooks', { as: admin }),
    await h.call('GET', '/cms/v2/webhooks', { as: admin, query: { context: 'edit' } }),
    await h.call('POST', `/cms/v2/webhooks/${created.body.id}`, { as: admin, body: { description: 'renamed' } }),
    await h.call('OPTIONS', `/cms/v2/webhooks/${created.body.id}`, { as: admin })
  ]
  for (const a of answers) t.notOk(JSON.stringify(a.body).includes(secret.slice(6)), `not in ${a.status} ${JSON.stringify(a.body).slice(0, 40)}`)
  t.equal(answers[0]!.body.secret, undefined, 'no secret field on a read')
  const rows = await h.store.execute<{ secret_sealed: string }>('select secret_sealed from webhooks')
  t.match(rows[0]!.secret_sealed, /^v1\./, 'sealed at rest')
  t.notOk(rows[0]!.secret_sealed.includes(secret.slice(6)))
  t.ok(logLines.length > 0, 'the log was written (every request, at the most verbose level)')
  t.notOk(logLines.some((l) => l.includes(secret.slice(6))), 'not in the log')
})

t.test('retries after a 500 and after a timeout, with backoff; a test delivery', async (t) => {
  const h = await fresh()
  const rx = await receiver(t)
  const admin = await h.caller('administrator')
  const hook = await subscribe(h, admin, rx.url)
  rx.script.push(500, 'hang')
  await post(h, admin)

  t.equal(await deliver(h), 1)
  const state = async (): Promise<Record<string, any>> => (await h.call('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { as: admin })).body[0]
  t.match(await state(), { status: 'pending', attempts: 1, response_status: 500, response_body: 'failure 500', error: 'HTTP 500' }, 'a 500 is retried')
  const delay = async (): Promise<number> => Number((await h.store.execute<{ s: number }>('select extract(epoch from next_at - last_attempt_at)::float as s from webhook_deliveries'))[0]!.s)
  const first = await delay()
  t.ok(first >= 29 && first <= 61, `first retry after 30-60 s (CMS_WEBHOOKS_BACKOFF_MS with jitter): ${first}`)
  t.equal(await h.services.webhooks.runDue(), 0, 'not due before its time')

  await advance(h)
  t.equal(await h.services.webhooks.runDue(), 1)
  t.match(await state(), { status: 'pending', attempts: 2, response_status: null, error: /^timeout/ }, 'no answer within CMS_WEBHOOKS_TIMEOUT_MS: retried')
  const second = await delay()
  t.ok(second >= 59 && second <= 121, `the second retry waits twice as long: ${second}`)

  await advance(h)
  t.equal(await h.services.webhooks.runDue(), 1)
  t.match(await state(), { status: 'delivered', attempts: 3, response_status: 200 })
  t.equal(rx.received.length, 3)
  t.equal(new Set(rx.received.map((r) => r.headers['webhook-id'])).size, 1, 'every attempt carries the same message id')
  for (const r of rx.received) verify(hook.secret, r)
  t.equal((await h.call('GET', `/cms/v2/webhooks/${hook.id}`, { as: admin })).body.failing_since, null, 'a success clears the failing state')

  const test = await h.call('POST', `/cms/v2/webhooks/${hook.id}/test`, { as: admin })
  t.equal(test.status, 202)
  t.match(test.body, { topic: 'webhook.test', status: 'pending', attempts: 0, event_id: null })
  t.equal(await h.services.webhooks.runDue(), 1)
  t.match(verify(hook.secret, rx.received[3]!), { type: 'webhook.test', data: { webhook_id: hook.id } }, 'the test delivery, signed')
  const page = await h.call('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { as: admin, query: { per_page: 1, status: 'delivered' } })
  t.equal(page.headers['x-cms-total'], '2')
  t.match(page.headers.link, /rel="next"/)
  t.match(page.body, [{ topic: 'webhook.test' }], 'newest first')
})

t.test('a delivery that keeps failing gives up; its replay delivers it', async (t) => {
  const h = await fresh()
  const rx = await receiver(t)
  const admin = await h.caller('administrator')
  const hook = await subscribe(h, admin, rx.url)
  rx.script.push(503, 500)
  await post(h, admin)
  t.equal(await deliver(h), 1)
  // The retry period ends before the next attempt: that one is the last.
  await h.store.execute('update webhook_deliveries set next_at = now(), retry_until = now() + interval \'1 second\'')
  t.equal(await h.services.webhooks.runDue(), 1)
  const log = (await h.call('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { as: admin })).body
  t.match(log, [{ status: 'failed', attempts: 2, response_status: 500, next_attempt: null }], 'failed: no retry left')
  const delivery = log[0].id as number
  t.equal(await h.services.webhooks.runDue(), 0, 'nothing more is sent')

  const replay = await h.call('POST', `/cms/v2/webhooks/${hook.id}/deliveries/${delivery}/replay`, { as: admin })
  t.equal(replay.status, 202)
  t.match(replay.body, { id: delivery, status: 'pending', next_attempt: String })
  const again = await h.call('POST', `/cms/v2/webhooks/${hook.id}/deliveries/${delivery}/replay`, { as: admin })
  t.match([again.status, again.body], [409, { code: 'rest_webhook_delivery_pending', data: { status: 409 } }], 'a pending delivery is not replayed')
  t.equal(await h.services.webhooks.runDue(), 1)
  t.match((await h.call('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { as: admin })).body, [{ id: delivery, status: 'delivered', attempts: 3, response_status: 200 }])
  t.equal(rx.received.length, 3)
  t.equal(rx.received[2]!.headers['webhook-id'], rx.received[0]!.headers['webhook-id'], 'the replay is the same message')
  t.match(verify(hook.secret, rx.received[2]!), { type: 'post.created' })

  // Finished deliveries are kept for CMS_WEBHOOKS_RETENTION_MS (30 days), then pruned by the worker.
  t.equal(await h.services.webhooks.prune(), 0, 'a recent delivery is kept')
  await h.store.execute(`update webhook_deliveries set last_attempt_at = now() - interval '31 days' where id = ${delivery}`)
  t.equal(await h.services.webhooks.prune(), 1, 'pruned once older than the retention')

  const unknown = await h.call('POST', `/cms/v2/webhooks/${hook.id}/deliveries/999999/replay`, { as: admin })
  t.match([unknown.status, unknown.body.code], [404, 'rest_webhook_delivery_invalid_id'])
  const other = await subscribe(h, admin, rx.url)
  const elsewhere = await h.call('POST', `/cms/v2/webhooks/${other.id}/deliveries/${delivery}/replay`, { as: admin })
  t.equal(elsewhere.status, 404, 'a delivery of another webhook is not found under this one')
})

t.test('rotating the secret: both signatures during the grace period, then the new one only', async (t) => {
  const h = await fresh()
  const rx = await receiver(t)
  const admin = await h.caller('administrator')
  const hook = await subscribe(h, admin, rx.url)
  const signatures = (r: Received): string[] => String(r.headers['webhook-signature']).split(' ')

  const rotated = await h.call('POST', `/cms/v2/webhooks/${hook.id}/rotate-secret`, { as: admin })
  t.equal(rotated.status, 200)
  const secret = rotated.body.secret as string
  t.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'the new secret, in this answer')
  t.not(secret, hook.secret)
  const expires = Date.parse(rotated.body.previous_secret_expires as string)
  t.ok(Math.abs(expires - Date.now() - 86_400_000) < 600_000, 'the old secret signs for a day by default')
  const read = await h.call('GET', `/cms/v2/webhooks/${hook.id}`, { as: admin })
  t.equal(read.body.secret, undefined, 'never shown again')
  t.equal(read.body.previous_secret_expires, rotated.body.previous_secret_expires)
  t.notOk(JSON.stringify(await h.store.execute('select * from webhooks')).includes(secret.slice(6)), 'sealed at rest')
  t.notOk(logLines.some((l) => l.includes(secret.slice(6))), 'not in the log')

  await post(h, admin)
  t.equal(await deliver(h), 1)
  const during = rx.received[0]!
  t.equal(signatures(during).length, 2, 'two signatures, space-separated')
  t.match(verify(secret, during), { type: 'post.created' }, 'a receiver with the new secret verifies it')
  t.match(verify(hook.secret, during), { type: 'post.created' }, 'and one still holding the old secret')
  const [byNew, byOld] = signatures(during)
  const only = (signature: string | undefined): Received => ({ body: during.body, headers: { ...during.headers, 'webhook-signature': signature } })
  t.match(verify(secret, only(byNew)), { type: 'post.created' }, 'the first is the new secret\'s')
  t.match(verify(hook.secret, only(byOld)), { type: 'post.created' }, 'the second the old one\'s')

  // The grace period ends (moved in the database, not waited for): the old secret no longer signs.
  await h.store.execute(`update webhooks set previous_secret_until = now() - interval '1 second' where id = ${hook.id}`)
  t.equal((await h.call('GET', `/cms/v2/webhooks/${hook.id}`, { as: admin })).body.previous_secret_expires, null)
  const test = await h.call('POST', `/cms/v2/webhooks/${hook.id}/test`, { as: admin })
  t.equal(test.status, 202)
  t.equal(await h.services.webhooks.runDue(), 1)
  const after = rx.received[1]!
  t.equal(signatures(after).length, 1, 'one signature')
  t.match(verify(secret, after), { type: 'webhook.test' })
  t.throws(() => verify(hook.secret, after), 'the old secret does not verify any more')

  // No grace period: the old secret stops at once; a rotation during a grace period keeps only the last two.
  const third = (await h.call('POST', `/cms/v2/webhooks/${hook.id}/rotate-secret`, { as: admin, body: { grace_period: 0 } })).body
  t.equal(third.previous_secret_expires, null)
  const fourth = (await h.call('POST', `/cms/v2/webhooks/${hook.id}/rotate-secret`, { as: admin, body: { grace_period: 3600 } })).body
  const fifth = (await h.call('POST', `/cms/v2/webhooks/${hook.id}/rotate-secret`, { as: admin, body: { grace_period: 3600 } })).body
  await h.call('POST', `/cms/v2/webhooks/${hook.id}/test`, { as: admin })
  t.equal(await h.services.webhooks.runDue(), 1)
  const last = rx.received[2]!
  t.equal(signatures(last).length, 2)
  t.match(verify(fifth.secret, last), { type: 'webhook.test' })
  t.match(verify(fourth.secret, last), { type: 'webhook.test' })
  t.throws(() => verify(third.secret, last), 'the secret before the last two does not verify')

  for (const [body, why] of [[{ grace_period: -1 }, 'negative'], [{ grace_period: 8 * 86_400 }, 'more than a week'], [{ grace_period: 'soon' }, 'not a number']] as const) {
    const bad = await h.call('POST', `/cms/v2/webhooks/${hook.id}/rotate-secret`, { as: admin, body })
    t.match([bad.status, bad.body], [400, { code: 'rest_invalid_param', data: { status: 400 } }], why)
  }
  const unknown = await h.call('POST', '/cms/v2/webhooks/999999/rotate-secret', { as: admin })
  t.match([unknown.status, unknown.body.code], [404, 'rest_webhook_invalid_id'])
  t.equal((await h.call('POST', `/cms/v2/webhooks/${hook.id}/rotate-secret`, { as: await h.caller('editor') })).status, 403, 'administrators only')
  t.equal(rx.received.length, 3, 'nothing else was sent')
})

t.test('a subscription failing for a day is disabled and says so; active: true re-enables it', async (t) => {
  const h = await fresh()
  const rx = await receiver(t)
  const admin = await h.caller('administrator')
  const hook = await subscribe(h, admin, rx.url)
  rx.script.push(500, 500)
  await post(h, admin, 'One')
  t.equal(await deliver(h), 1)
  const read = async (): Promise<Record<string, any>> => (await h.call('GET', `/cms/v2/webhooks/${hook.id}`, { as: admin })).body
  t.match(await read(), { status: 'active', failing_since: String, disabled_at: null })
  // A day later (CMS_WEBHOOKS_DISABLE_AFTER_MS, default 24 h), it fails again.
  await h.store.execute("update webhooks set failing_since = failing_since - interval '25 hours'")
  await advance(h)
  t.equal(await h.services.webhooks.runDue(), 1)
  const disabled = await read()
  t.match(disabled, { status: 'disabled', active: true, disabled_at: String, disabled_reason: /^Deliveries failed for 24 hours without a success \(since .*; last: HTTP 500\)\.$/ })

  await post(h, admin, 'Two')
  await deliver(h)
  t.equal(rx.received.length, 2, 'a disabled subscription gets no new delivery')
  t.equal((await h.call('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { as: admin })).headers['x-cms-total'], '1')

  const enabled = await h.call('PATCH', `/cms/v2/webhooks/${hook.id}`, { as: admin, body: { active: true } })
  t.match(enabled.body, { status: 'active', disabled_at: null, disabled_reason: null, failing_since: null })
  const off = await h.call('PATCH', `/cms/v2/webhooks/${hook.id}`, { as: admin, body: { active: false } })
  t.match(off.body, { status: 'inactive', active: false })
  await post(h, admin, 'Three')
  await deliver(h)
  t.equal(rx.received.length, 2, 'nor does an inactive one')
})

t.test('two apps on one database: one delivery per event and subscription', async (t) => {
  // On PostgreSQL (CMS_TEST_DATABASE_URL) each app has its own connection pool to one database, as two
  // replicas do, and their workers run at once. The embedded PGlite has one connection, so there the
  // two apps share it (their statements interleave, as other multi-replica tests here do).
  const pg = testDatabaseUrl() !== undefined
  t.comment(pg ? 'PostgreSQL: two pools on one database' : 'PGlite: two apps on one shared connection (set CMS_TEST_DATABASE_URL for two pools)')
  let a: TestApp
  let b: TestApp
  if (pg) {
    const [one, two] = await openTestStores(2, { poolSize: 4 })
    t.teardown(async () => { await one!.close(); await two!.close() })
    a = await app({ store: one! })
    t.teardown(() => a.close())
    b = await app({ store: two! })
  } else {
    a = await fresh()
    b = await app({ store: a.store })
  }
  t.teardown(() => b.close())
  // Only this case's events: those of the cases before are delivered already.
  await a.services.events.drain()
  const rx = await receiver(t)
  const admin = await a.caller('administrator')
  const first = await subscribe(a, admin, rx.url)
  const second = await subscribe(b, admin, rx.url)
  const ids: number[] = []
  for (let i = 0; i < 6; i++) ids.push(await post(i % 2 === 0 ? a : b, admin, `Post ${i}`))

  await Promise.all([a.services.events.drain(), b.services.events.drain(), a.services.events.drain(), b.services.events.drain()])
  // As if each replica's listener had run again (at least once): the unique key keeps one delivery.
  await a.store.execute(`delete from cms_event_deliveries where event_id in (select id from cms_events where object_id in (${ids.join(',')}))`)
  await a.store.execute('update cms_events set lease_until = null')
  await Promise.all([a.services.events.drain(), b.services.events.drain()])
  const sent = await Promise.all([a.services.webhooks.runDue(), b.services.webhooks.runDue()])
  t.equal(sent.reduce((x, y) => x + y, 0), 12, `12 attempts between both workers (${sent.join(', ')})`)
  t.equal(rx.received.length, 12, 'six events, two subscriptions: twelve requests')
  const seen = (secret: string): number[] => rx.received.flatMap((r) => { try { return [verify(secret, r).data.object_id as number] } catch { return [] } }).sort((x, y) => x - y)
  t.same(seen(first.secret), ids, 'each event once to the first subscription')
  t.same(seen(second.secret), ids, 'and once to the second')
  t.same(await a.store.execute('select status, count(*)::int as n from webhook_deliveries group by status'), [{ status: 'delivered', n: 12 }])
})

t.test('bad input: 4xx in the error shape, nothing written', async (t) => {
  const h = await fresh()
  const rx = await receiver(t)
  const admin = await h.caller('administrator')
  const count = async (): Promise<number> => (await h.store.execute<{ n: number }>('select count(*)::int as n from webhooks'))[0]!.n
  const cases: Array<[string, Record<string, unknown>]> = [
    ['no url', { events: ['post.created'] }],
    ['not a URL', { url: 'not a url', events: ['post.created'] }],
    ['not http', { url: 'ftp://127.0.0.1/x', events: ['post.created'] }],
    ['credentials in the URL', { url: 'http://user:pw@127.0.0.1/x', events: ['post.created'] }],
    ['a private address', { url: 'http://10.1.2.3/hook', events: ['post.created'] }],
    ['a metadata address', { url: 'http://169.254.169.254/latest', events: ['post.created'] }],
    ['no events', { url: rx.url, events: [] }],
    ['an unknown event', { url: rx.url, events: ['post.exploded'] }],
    ['events twice', { url: rx.url, events: ['post.created', 'post.created'] }],
    ['a comma list with an unknown event', { url: rx.url, events: 'post.created,post.exploded' }],
    ['active not a boolean', { url: rx.url, events: ['post.created'], active: 'maybe' }]
  ]
  for (const [why, body] of cases) {
    const res = await h.call('POST', '/cms/v2/webhooks', { as: admin, body })
    t.equal(res.status, 400, why)
    t.match(res.body, { code: why === 'no url' ? 'rest_missing_callback_param' : 'rest_invalid_param', message: String, data: { status: 400 } }, why)
  }
  t.equal(await count(), 0, 'no webhook was written')

  const hook = await subscribe(h, admin, rx.url)
  const bad = await h.call('PATCH', `/cms/v2/webhooks/${hook.id}`, { as: admin, body: { url: 'http://192.168.0.1/', events: ['post.created'] } })
  t.match([bad.status, bad.body.code], [400, 'rest_invalid_param'])
  t.match((await h.call('GET', `/cms/v2/webhooks/${hook.id}`, { as: admin })).body, { url: rx.url }, 'the update changed nothing')
  for (const [method, path] of [['GET', '/cms/v2/webhooks/999999'], ['PATCH', '/cms/v2/webhooks/999999'], ['DELETE', '/cms/v2/webhooks/999999'], ['POST', '/cms/v2/webhooks/999999/test'], ['GET', '/cms/v2/webhooks/999999/deliveries'], ['GET', '/cms/v2/webhooks/99999999999/deliveries']] as const) {
    const res = await h.call(method, path, { as: admin, body: method === 'PATCH' ? { active: true } : undefined })
    t.match([res.status, res.body], [404, { code: 'rest_webhook_invalid_id', data: { status: 404 } }], `${method} ${path}`)
  }
  const past = await h.call('GET', '/cms/v2/webhooks', { as: admin, query: { page: 5 } })
  t.match([past.status, past.body.code], [400, 'rest_webhook_invalid_page_number'])
  const status = await h.call('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { as: admin, query: { status: 'lost' } })
  t.match([status.status, status.body.code], [400, 'rest_invalid_param'])

  // The settings: defaults, and a bad value stops the start with one line.
  t.match(webhookSettingsFromEnv({}), { timeoutMs: 10_000, retryForMs: 86_400_000, disableAfterMs: 86_400_000, backoffMs: 5000 })
  t.throws(() => webhookSettingsFromEnv({ CMS_WEBHOOKS_TIMEOUT_MS: '5' }), { name: 'SettingError', message: 'CMS_WEBHOOKS_TIMEOUT_MS must be an integer from 100 to 120000, got "5"' })
  t.throws(() => webhookSettingsFromEnv({ CMS_WEBHOOKS_DISABLE_AFTER_MS: '1h' }), { name: 'SettingError' })

  const removed = await h.call('DELETE', `/cms/v2/webhooks/${hook.id}`, { as: admin })
  t.match(removed.body, { deleted: true, previous: { id: hook.id } })
  t.equal(await count(), 0)
})

t.test('permissions: administrators only; every route\'s cases', async (t) => {
  const h = await fresh()
  const rx = await receiver(t)
  const admin = await h.caller('administrator')
  const hook = await subscribe(h, admin, rx.url)
  t.equal((await h.call('GET', '/cms/v2/webhooks')).status, 401, 'anonymous')
  for (const role of ['subscriber', 'contributor', 'author', 'editor'] as const) {
    const as = await h.caller(role)
    t.equal((await h.call('GET', '/cms/v2/webhooks', { as })).status, 403, role)
    t.equal((await h.call('POST', '/cms/v2/webhooks', { as, body: { url: rx.url, events: ['post.created'] } })).status, 403, `${role} creates nothing`)
    t.equal((await h.call('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { as })).status, 403, `${role} reads no log`)
  }
  t.equal((await h.call('GET', '/cms/v2/webhooks', { as: admin })).status, 200, 'administrator')
  const probed = await checkPermissions(t, h, { only: (target) => target.key.includes(' /cms/v2/webhooks') })
  t.equal(probed, 11, 'list, create, read, update (POST, PUT, PATCH), delete, test, rotate-secret, deliveries, replay')
})
