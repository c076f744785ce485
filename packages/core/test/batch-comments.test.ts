/**
 * A batch's comment writes join its one transaction (issue 35), as the post
 * types' do (store joined.ts): ten creates commit once; a later request
 * reads what an earlier one wrote (the same words again are a duplicate, 409,
 * before anything is committed); an update and a delete of a comment made
 * earlier in the batch. And the discussion settings a comment write and its
 * answer read are kept by the settings epoch: a create alone or in a batch
 * reads no option while nobody changed one, and reads afresh after a change.
 */
import t from 'tap'
import { sql } from 'drizzle-orm'
import { call } from '@cms/rest/testing'
import { setOption } from '@cms/store'
import { recordStatements } from '@cms/store/testing'
import { createCaller, testApp } from '../src/testing.js'

t.test('a batch\'s comment writes in one transaction', async (t) => {
  const h = await testApp({ namespaces: ['cms/v2'] })
  t.teardown(() => h.app.close())
  const admin = await createCaller(h.store, 'administrator', { login: 'admin' })
  const made = await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Commented', status: 'publish' } })
  const post = made.body.id as number
  const batch = async (requests: unknown[]): Promise<any> => await call(h.app, 'POST', '/batch/v1', { as: admin, body: { requests } })
  const contents = async (): Promise<string[]> =>
    (await h.store.execute<{ content: string }>(sql`select content from comments where post_id = ${post} order by id`)).map((r) => r.content)

  await t.test('ten creates commit once', async (t) => {
    const requests = Array.from({ length: 10 }, (_, i) => ({ path: '/cms/v2/comments', body: { post, content: `Comment ${i}` } }))
    const log = recordStatements(h.store)
    const res = await batch(requests)
    log.stop()
    t.same(res.body.responses.map((r: any) => r.status), requests.map(() => 201))
    const texts = log.texts.map((text) => text.trim().toLowerCase())
    t.equal(texts.filter((text) => text === 'commit').length, 1, `one commit (statements: ${texts.length})`)
    const begin = texts.findIndex((text) => text === 'begin' || text.startsWith('begin '))
    const firstInsert = texts.findIndex((text) => /\binsert\s+into\s+"?comments"?/.test(text))
    t.ok(begin >= 0 && firstInsert > begin, 'the inserts are inside the transaction')
    t.equal((await contents()).length, 10)
  })

  await t.test('a later request reads what an earlier one wrote: the same words again are a duplicate', async (t) => {
    const res = await batch([
      { path: '/cms/v2/comments', body: { post, content: 'Said once' } },
      { path: '/cms/v2/comments', body: { post, content: 'Said once' } }
    ])
    t.same(res.body.responses.map((r: any) => r.status), [201, 409])
    t.equal(res.body.responses[1].body.code, 'comment_duplicate')
    t.equal((await contents()).filter((c) => c === 'Said once').length, 1)
  })

  await t.test('an update and a delete of a comment in the same batch as its create', async (t) => {
    const first = await batch([{ path: '/cms/v2/comments', body: { post, content: 'To edit' } }])
    const id = first.body.responses[0].body.id as number
    const res = await batch([
      { path: `/cms/v2/comments/${id}`, body: { content: 'Edited' } },
      { method: 'DELETE', path: `/cms/v2/comments/${id}?force=true` },
      { path: '/cms/v2/comments', body: { post, content: 'After the delete' } }
    ])
    t.same(res.body.responses.map((r: any) => r.status), [200, 200, 201])
    t.equal(res.body.responses[1].body.previous.content.raw, 'Edited', 'the delete saw the update before it')
    const now = await contents()
    t.notOk(now.includes('To edit') || now.includes('Edited'), 'deleted')
    t.ok(now.includes('After the delete'))
  })
})

t.test('the discussion settings are kept by the settings epoch', async (t) => {
  // With the kernel's snapshot, as the service runs: what is kept by an epoch is reused.
  const h = await testApp({ horizon: true, namespaces: ['cms/v2'] })
  t.teardown(() => h.app.close())
  const admin = await createCaller(h.store, 'administrator', { login: 'admin' })
  const post = (await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Commented', status: 'publish' } })).body.id as number
  const optionReads = (texts: readonly string[]): number => texts.filter((text) => /\bfrom\s+"options"/i.test(text)).length
  const create = async (content: string, batched: boolean): Promise<{ status: number, reads: number }> => {
    const log = recordStatements(h.store)
    const res = batched
      ? await call(h.app, 'POST', '/batch/v1', { as: admin, body: { requests: [{ path: '/cms/v2/comments', body: { post, content } }] } })
      : await call(h.app, 'POST', '/cms/v2/comments', { as: admin, body: { post, content } })
    log.stop()
    return { status: batched ? res.body.responses[0].status : res.status, reads: optionReads(log.texts) }
  }
  await create('Warm', false)
  // 3 reads a create before (the discussion settings twice, the display once), alone or in a batch.
  t.same(await create('Alone', false), { status: 201, reads: 0 }, 'a create alone reads no option')
  t.same(await create('In a batch', true), { status: 201, reads: 0 }, 'nor one in a batch')
  // A change renews the epoch: the next create reads the settings again and holds its comment.
  await setOption(h.store, 'comment_moderation', 1)
  // A subscriber's comment (a moderator's is never held), from the address that just commented: no flood interval.
  await setOption(h.store, 'comment_flood_seconds', 0)
  const reader = await createCaller(h.store, 'subscriber', { login: 'reader' })
  const held = await call(h.app, 'POST', '/cms/v2/comments', { as: reader, body: { post, content: 'After the change' } })
  t.equal(held.status, 201)
  t.equal(held.body.status, 'hold', 'the changed setting was read')
})
