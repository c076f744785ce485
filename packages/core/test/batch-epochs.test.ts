/**
 * What a batch's items read in their shared transaction (issue 35): the
 * site options (as the packages' activation) are kept by epochs, and an item
 * reads the transaction's own view of them with its savepoint (store
 * joined.ts), so a run of creates reads neither once per item; and the rules
 * of the shared transaction still hold for what is kept by an epoch: an
 * option an earlier item changed is read afresh by the next (the
 * transaction renewed its epoch), a rolled-back change is not seen, and no
 * value of the transaction is kept for another request.
 */
import t from 'tap'
import { sql } from 'drizzle-orm'
import { endpoint, Enum, everyone, RestResponse, route, type NamespaceDecl } from '@cms/rest'
import { call } from '@cms/rest/testing'
import { setOption, type Store } from '@cms/store'
import { recordStatements } from '@cms/store/testing'
import { testApp, namespacePackage, createCaller, type TestApp, type TestUser } from '../src/testing.js'

const batch = async (h: TestApp, who: TestUser | undefined, body: unknown): ReturnType<typeof call> =>
  await call(h.app, 'POST', '/batch/v1', { as: who, body })

let fixtureStore: Store | undefined

/**
 * A route joining the batch's transaction that changes the default comment
 * status (an option a post create reads) and then answers as asked: 200
 * (the change stands) or 400 (the item is rolled back with it).
 */
const fixture: NamespaceDecl = {
  name: 'batch-epochs-fixture/v1',
  routes: [route({
    namespace: 'batch-epochs-fixture/v1',
    path: '/batch-epochs-fixture/v1/comments-default',
    allowBatch: true,
    endpoints: [endpoint({
      methods: ['POST'],
      batchTransaction: true,
      args: { status: Enum(['open', 'closed']), answer: Enum(['stand', 'fail']) },
      permission: everyone.because('a test fixture'),
      handler: async (req) => {
        await setOption(fixtureStore!, 'default_comment_status', req.params.status as 'open' | 'closed')
        return req.params.answer === 'stand'
          ? new RestResponse({ ok: true })
          : new RestResponse({ code: 'fixture_failed', message: 'Failed after writing.', data: { status: 400 } }, 400)
      }
    })]
  })]
}

const reads = (texts: readonly string[], table: string): number =>
  texts.filter((text) => new RegExp(`^\\s*select\\b[\\s\\S]*\\bfrom\\s+"?${table}"?\\b`, 'i').test(text)).length

t.test('a batch\'s items read options and activation by the transaction\'s epochs', async (t) => {
  // With the kernel's snapshot (as the service runs): what is kept by an epoch is reused.
  const h = await testApp({ horizon: true, packages: [namespacePackage(fixture)], namespaces: ['cms/v2', fixture.name] })
  t.teardown(() => h.app.close())
  fixtureStore = h.store
  const admin = await createCaller(h.store, 'administrator', { login: 'admin' })
  const comments = async (title: string): Promise<string> =>
    (await h.store.execute<{ s: string }>(sql`select comment_status as s from posts where title = ${title}`))[0]!.s

  await t.test('ten creates read the options once at most, not per item', async (t) => {
    // Warm: one create alone keeps the options and the off set under their epochs.
    t.equal((await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Warm', status: 'publish' } })).status, 201)
    const requests = Array.from({ length: 10 }, (_, i) => ({ path: '/cms/v2/posts', body: { title: `Read ${i}`, status: 'publish' } }))
    const log = recordStatements(h.store)
    const res = await batch(h, admin, { requests })
    log.stop()
    t.same(res.body.responses.map((r: any) => r.status), requests.map(() => 201))
    // 10 before (one an item; 34 statements in all, 25 after). The activation's read is the registry's
    // (not in this app): the gateway's bench:profile --scenario batch counts it.
    t.ok(reads(log.texts, 'options') <= 1, `options read ${reads(log.texts, 'options')} times for 10 items (statements: ${log.texts.length})`)
    // The request's horizon only: the shared transaction knows from the store that the database keeps epochs
    // (2 before 2026-11-29: it read a snapshot of its own to learn it).
    const snapshots = log.texts.filter((text) => /^\s*select pg_current_snapshot\(\)/i.test(text)).length
    t.equal(snapshots, 1, 'one snapshot for the batch request')
  })

  await t.test('an option an earlier item changed is what the next item reads', async (t) => {
    await setOption(h.store, 'default_comment_status', 'open')
    // Kept under the committed epoch by a create alone.
    t.equal((await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Before', status: 'publish' } })).status, 201)
    t.equal(await comments('Before'), 'open')
    const res = await batch(h, admin, {
      requests: [
        { path: '/batch-epochs-fixture/v1/comments-default', body: { status: 'closed', answer: 'stand' } },
        { path: '/cms/v2/posts', body: { title: 'After the change', status: 'publish' } },
        // Changed again: the epoch the transaction renewed keeps its value (the transaction's id), so what
        // was read under it must not be reused.
        { path: '/batch-epochs-fixture/v1/comments-default', body: { status: 'open', answer: 'stand' } },
        { path: '/cms/v2/posts', body: { title: 'After the second change', status: 'publish' } }
      ]
    })
    t.same(res.body.responses.map((r: any) => r.status), [200, 201, 200, 201])
    t.equal(await comments('After the change'), 'closed', 'the create read the option the item before it wrote')
    t.equal(await comments('After the second change'), 'open', 'and again after a second change')
    // Committed: a request alone reads the last value (its epoch moved with the commit).
    t.equal((await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Alone after', status: 'publish' } })).status, 201)
    t.equal(await comments('Alone after'), 'open')
  })

  await t.test('a rolled-back change is not read by the next item, nor kept for another request', async (t) => {
    await setOption(h.store, 'default_comment_status', 'open')
    t.equal((await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Kept open', status: 'publish' } })).status, 201)
    const res = await batch(h, admin, {
      requests: [
        { path: '/batch-epochs-fixture/v1/comments-default', body: { status: 'closed', answer: 'fail' } },
        { path: '/cms/v2/posts', body: { title: 'After the rollback', status: 'publish' } },
        { path: '/batch-epochs-fixture/v1/comments-default', body: { status: 'closed', answer: 'stand' } },
        { path: '/cms/v2/posts', body: { title: 'Closed again', status: 'publish' } },
        { path: '/batch-epochs-fixture/v1/comments-default', body: { status: 'open', answer: 'fail' } },
        { path: '/cms/v2/posts', body: { title: 'After the undone reopening', status: 'publish' } }
      ]
    })
    t.same(res.body.responses.map((r: any) => r.status), [400, 201, 200, 201, 400, 201])
    t.equal(await comments('After the rollback'), 'open', 'the rolled-back change was not read')
    t.equal(await comments('Closed again'), 'closed')
    t.equal(await comments('After the undone reopening'), 'closed', 'the undone reopening was not read')
    t.equal((await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Alone at the end', status: 'publish' } })).status, 201)
    t.equal(await comments('Alone at the end'), 'closed', 'a request after the batch reads what it committed')
  })
})
