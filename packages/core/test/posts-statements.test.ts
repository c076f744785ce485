// Statements per request on the query path (issue 35), counted with
// recordStatements (@cms/store/testing) on either database: a signed-in
// page, a create, a create and an update with meta, so a change that adds
// a round trip fails here without timing anything. The app keeps reads
// under the commit horizon as the gateway does (`horizon: true`).
import t from 'tap'
import { statementsDuring } from '@cms/store/testing'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true }))
t.teardown(() => h.app.close())
const { admin } = h.users

const KINDS: Array<[string, RegExp]> = [
  ['snapshot', /^select pg_current_snapshot\(\)/],
  ['page', /^with "page" as/],
  ['create', /^with w as \(select cms_insert_post\(/],
  ['meta', /^insert into "post_meta"/],
  ['outbox', /^insert into audit_outbox/],
  ['audit flush', /^with moved as \( delete from audit_outbox/],
  ['extras', /^select p\.id, \(select json_object_agg\(m\.key, m\.value\) from "post_meta"/],
  ['rows', /^select "id", "type", "author", "status"/],
  ['begin', /^begin$/i],
  ['commit', /^commit$/i]
]

/** The statements `run` sent, each named by its kind (or its first words). */
async function statementsOf (run: () => Promise<unknown>): Promise<string[]> {
  return (await statementsDuring(h.store, run)).map((text) => {
    const flat = text.replace(/\s+/g, ' ').trim()
    return KINDS.find(([, re]) => re.test(flat))?.[0] ?? flat.slice(0, 60)
  })
}

let n = 0
for (let i = 0; i < 12; i++) {
  const made = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `Post ${i}`, content: `Content ${i}`, status: 'publish' } })
  if (made.status !== 201) throw new Error(`seeding: ${made.status}`)
}
await h.services.audit.flush()

t.test('a signed-in page: the horizon with the epochs, and one statement for the page with its extras', async (t) => {
  const page = async (query: Record<string, string>): Promise<void> => {
    const res = await h.call('GET', '/cms/v2/posts', { as: admin, query })
    t.equal(res.status, 200)
    t.equal(res.body.length, query.page === '2' ? 2 : 10)
  }
  await page({ per_page: '10' }) // the credentials are read once, then kept while their epoch stays
  // A parameter that never repeats: no kept answer matches (the page made afresh).
  t.same(await statementsOf(async () => await page({ per_page: '10', nocache: String(++n) })), ['snapshot', 'page'])
  // The same page again, nothing committed meanwhile: the answer kept for this caller, after the horizon
  // alone. On a PostgreSQL server other files share, their commits move the horizon (the server's), and
  // then the page is made afresh: tries until it is kept; not kept in any try although the horizon stayed
  // from the first request to the second in some (it never returns to an earlier value) is a fault. Other
  // files may commit so often that no try finds such a window: then the page made afresh is what is checked.
  let repeated: string[] = []
  let still = false
  for (let i = 0; i < 40 && repeated.join() !== 'snapshot'; i++) {
    const before = await h.store.horizon()
    await page({ per_page: '10', nocache: String(n) })
    repeated = await statementsOf(async () => await page({ per_page: '10', nocache: String(n) }))
    if (await h.store.horizon() === before) still = true
  }
  if (still || repeated.join() === 'snapshot') t.same(repeated, ['snapshot'], 'repeated: kept')
  else {
    t.comment('the horizon moved in every try (other files committing on the server): the kept answer was not observed')
    t.ok(['snapshot', 'snapshot\npage'].includes(repeated.join('\n')), `repeated: kept, or made afresh under a moved horizon (${repeated.join(', ')})`)
  }
  // A later page is one statement too: the page statement with its offset (named up to the tenth
  // page after the first, its offset in the text; deeper, a parameter, unnamed).
  t.same(await statementsOf(async () => await page({ per_page: '10', page: '2', nocache: String(++n) })), ['snapshot', 'page'], 'a later page: one statement')
  const deep = await statementsOf(async () => {
    const res = await h.call('GET', '/cms/v2/posts', { as: admin, query: { per_page: '1', page: '12', nocache: String(++n) } })
    t.equal(res.status, 200)
    t.equal(res.body.length, 1)
  })
  t.same(deep, ['snapshot', 'page'], 'a page past the named ones: one statement')
  t.same(await statementsOf(async () => await page({ per_page: '10', _fields: 'id,title', nocache: String(++n) })), ['snapshot', 'page'], '_fields: the same statement')
  const anonymous = await statementsOf(async () => {
    const res = await h.call('GET', '/cms/v2/posts', { query: { per_page: '10', nocache: String(++n) } })
    t.equal(res.status, 200)
  })
  t.same(anonymous, ['snapshot', 'page'], 'an anonymous page no kept answer matches: the same two')
})

t.test('a create: the horizon and one statement; its audit entry a statement per flushed batch', async (t) => {
  const create = async (): Promise<number> => {
    const res = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `Created ${++n}`, content: 'Body', status: 'publish' } })
    t.equal(res.status, 201)
    return res.body.id
  }
  t.same(await statementsOf(create), ['snapshot', 'create'], 'the post, its terms, its event and its audit outbox row in one statement')
  t.same(await statementsOf(create), ['snapshot', 'create'])
  t.same(await statementsOf(async () => await h.services.audit.flush()), ['audit flush'], 'both answered entries in one statement')
})

t.test('a create with meta: one meta statement whatever the number of keys', async (t) => {
  const create = async (meta: Record<string, string>): Promise<void> => {
    const res = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `With meta ${++n}`, status: 'publish', meta } })
    t.equal(res.status, 201)
    t.equal(res.body.meta._builder_edit_mode, 'builder')
  }
  // A create with meta is a transaction (the outbox row added by the store's commit hook); its answer's meta read after.
  const expected = ['snapshot', 'begin', 'create', 'meta', 'outbox', 'commit', 'extras']
  t.same(await statementsOf(async () => await create({ _builder_edit_mode: 'builder' })), expected)
  t.same(await statementsOf(async () => await create({ _builder_edit_mode: 'builder', _builder_data: '[]', _builder_template_type: 'page' })), expected, 'three keys: the same statements')
  await h.services.audit.flush()
})

t.test('an update with meta: one meta statement whatever the number of keys (and no more statements than today)', async (t) => {
  const id = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `To update ${++n}`, status: 'publish' } })).body.id as number
  const update = async (meta: Record<string, string>): Promise<void> => {
    const res = await h.call('POST', `/cms/v2/posts/${id}`, { as: admin, body: { meta } })
    t.equal(res.status, 200)
  }
  const one = await statementsOf(async () => await update({ _builder_edit_mode: 'builder' }))
  const three = await statementsOf(async () => await update({ _builder_edit_mode: '', _builder_data: '[1]', _builder_template_type: 'post' }))
  t.equal(one.filter((k) => k === 'meta').length, 1, 'one key: one meta statement')
  t.equal(three.filter((k) => k === 'meta').length, 1, 'three keys: one meta statement')
  // 2026-11-28: 20 each (the update reads and writes in one transaction, recounts its terms, stores a revision; answered afresh).
  t.ok(one.length <= 20, `one key: ${one.length} statements, at most 20`)
  t.ok(three.length <= 20, `three keys: ${three.length} statements, at most 20`)
  await h.services.audit.flush()
})

t.test('a create whose slug is taken: the transaction that makes it unique (no more statements than today)', async (t) => {
  const title = `Same title ${++n}`
  t.equal((await h.call('POST', '/cms/v2/posts', { as: admin, body: { title, status: 'publish' } })).status, 201)
  const again = await statementsOf(async () => {
    const res = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title, status: 'publish' } })
    t.equal(res.status, 201)
    t.match(res.body.slug, /-2$/)
  })
  // 2026-11-28: 9: the horizon, the create tried (the slug taken), begin, the create tried again, two slug
  // reads, the create, the outbox row, commit.
  t.equal(again[0], 'snapshot')
  t.equal(again.at(-1), 'commit')
  t.ok(again.length <= 9, `${again.length} statements, at most 9`)
  await h.services.audit.flush()
})
