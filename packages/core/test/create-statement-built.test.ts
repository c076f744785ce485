// A create's statement is built once per store, not once per create (issue
// 35): `cms_insert_post`'s call with its audit outbox row is a named
// statement whose text never changes, and drizzle's walk of its parts (the
// dialect's sqlToQuery) cost each create about 28 µs of the gateway's CPU.
// Counted: the walks of statements while creates run, never timed. The
// answers stay those of before (posts*.test.ts), the audit entry is still
// carried by the statement, and a create in a transaction or with meta
// still builds its own (same text, same name on a connection).
import t from 'tap'
import { sql } from 'drizzle-orm'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { insertNewPost, type PostRow } from '../src/content/post-store.js'
import { runWrite } from '../src/audit/outbox.js'
import type { AuditEntry } from '../src/audit/entry.js'
import { newPostRow } from './fixtures/content/post-row.js'
import { dialectWalks } from './fixtures/dialect-walks.js'

const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'] }))
t.teardown(() => h.app.close())
const { admin } = h.users
const cat = (await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Built' } })).body.id as number

const row = (title: string): PostRow => newPostRow(admin.id, title)
const opts = { terms: { ids: [cat], fallbackCategory: 0 }, checkSlug: true, hierarchical: false, guidPrefix: 'http://cms.test/?p=' }

const creates = (texts: string[]): number => texts.filter((s) => /cms_insert_post\(/.test(s)).length

t.test('a create on the store builds no statement after the first', async (t) => {
  await insertNewPost(h.store, row('Built first'), opts)
  const { texts, value } = await dialectWalks(async () => {
    const out = []
    for (let i = 0; i < 5; i++) out.push(await insertNewPost(h.store, row(`Built again ${i}`), opts))
    return out
  })
  t.equal(creates(texts), 0, 'no create statement built for 5 creates (5 before: one each)')
  t.same(value.map((w) => w.slug), [0, 1, 2, 3, 4].map((i) => `built-again-${i}`), 'each written, with its slug')
  t.same(value[0]!.terms, [{ id: cat, taxonomy: 'category', name: 'Built', slug: 'built' }])
  // A taken slug still gets its suffix (check_slug), the terms the default category when none given.
  const again = await insertNewPost(h.store, row('Built again 0'), { ...opts, terms: { ids: [], fallbackCategory: 1 } })
  t.equal(again.slug, 'built-again-0-2')
  t.same(again.terms.map((term) => term.id), [1])
})

t.test('the audit outbox row is still carried by the kept statement', async (t) => {
  const entry: AuditEntry = {
    at: new Date(),
    userId: admin.id,
    credential: 'app-password',
    credentialId: null,
    ip: '127.0.0.1',
    method: 'POST',
    route: '/cms/v2/posts',
    path: '/cms/v2/posts',
    objectType: 'post',
    objectId: null,
    status: 201,
    errorCode: null,
    fields: ['title'],
    values: {}
  }
  const { texts, value } = await dialectWalks(async () => await runWrite(() => entry, async (pending) => {
    const written = await insertNewPost(h.store, row('Built audited'), opts)
    return { written, key: pending.key, carried: pending.carried }
  }))
  t.equal(creates(texts), 0, 'not built')
  const rows = await h.store.execute<{ id: string }>(sql`select entry->>'object_id' as id from audit_outbox where key = ${value.key}::uuid`)
  t.same(rows, [{ id: String(value.written.id) }], 'the outbox row, with the written id')
})

t.test('in a transaction, or with meta, the statement is built as before (the same text)', async (t) => {
  const kept = await dialectWalks(async () => await insertNewPost(h.store, row('Built kept'), opts))
  t.equal(creates(kept.texts), 0)
  const inTx = await dialectWalks(async () => await h.store.transaction(async (tx) => await insertNewPost(tx, row('Built in tx'), opts)))
  t.equal(creates(inTx.texts), 1, 'built in a transaction')
  const withMeta = await dialectWalks(async () => await insertNewPost(h.store, row('Built with meta'), { ...opts, meta: { color: 'blue' } }))
  t.equal(creates(withMeta.texts), 1, 'built with meta')
  // The text a transaction builds is the kept statement's: one name, one text on a connection.
  // A store of its own, whose statements are made (once) while the walks are counted.
  const other = await testApp({ namespaces: ['cms/v2'] })
  t.teardown(() => other.app.close())
  const first = await dialectWalks(async () => await insertNewPost(other.store, row('Built elsewhere'), { ...opts, terms: undefined }))
  t.equal(creates(first.texts), 1, 'the kept statement built once, by the store\'s first create')
  const built = await dialectWalks(async () => await other.store.transaction(async (tx) => await insertNewPost(tx, row('Built text'), { ...opts, terms: undefined })))
  t.equal(built.texts.find((s) => /cms_insert_post\(/.test(s)), first.texts.find((s) => /cms_insert_post\(/.test(s)), 'the same text')
})
