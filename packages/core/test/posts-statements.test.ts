// Statements per request on the query path (issue 35), counted with
// recordStatements (@cms/store/testing) on either database: a signed-in
// page, a create, a create and an update with meta, so a change that adds
// a round trip fails here without timing anything. The app keeps reads
// under the commit horizon as the gateway does (`horizon: true`).
import t from 'tap'
import { statementsDuring } from '@cms/store/testing'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { sql } from 'drizzle-orm'
import { uniquePostSlug } from '../src/content/post-store.js'
import { truncateSlug } from '../src/text/slugs.js'
import { packageMeta } from './fixtures/package-meta.js'
import { definePackage } from '../src/index.js'

/** A package registering many post meta keys, as the SEO package does (a create may write a dozen or more). */
const manyKeys = definePackage({
  name: 'many-keys',
  namespaces: [],
  contribute (api) {
    for (let i = 1; i <= 20; i++) api.registerMeta('post', `_many_${i}`, { type: 'string', default: '', description: `Key ${i}.` }, { context: ['edit'] })
  }
})

// The audit log is flushed by the tests alone: its timer's flush would land inside a counted window on a slow machine.
const h = await withContentUsers(await testApp({ packages: [packageMeta, manyKeys], namespaces: ['cms/v2'], horizon: true, audit: { flushMs: 3_600_000, moveEveryMs: 3_600_000 } }))
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
  // A query never asked before (it excludes a post that does not exist): no kept answer or kept page matches,
  // the page is made afresh. (A parameter the route ignores finds the page its query read: list-pages-kept.test.ts.)
  const unseen = (): Record<string, string> => ({ nocache: String(++n), exclude: String(1_000_000 + n) })
  t.same(await statementsOf(async () => await page({ per_page: '10', ...unseen() })), ['snapshot', 'page'])
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
  t.same(await statementsOf(async () => await page({ per_page: '10', _fields: 'id,title', ...unseen() })), ['snapshot', 'page'], '_fields: the same statement')
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

t.test('a create with meta: its meta in the create\'s own statement, the answer\'s meta the request\'s', async (t) => {
  const create = async (meta: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const res = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `With meta ${++n}`, status: 'publish', meta } })
    t.equal(res.status, 201)
    const read = await h.call('GET', `/cms/v2/posts/${res.body.id as number}`, { as: admin, query: { context: 'edit' } })
    t.same(res.body.meta, read.body.meta, 'the answer\'s meta is what a read answers')
    t.same(Object.keys(res.body.meta), Object.keys(read.body.meta))
    return res.body.meta
  }
  // 2026-11-28, before: 7 whatever the number of keys (the horizon, begin, the create, one meta
  // statement, the outbox row, commit, the answer's extras read back).
  // The audit entries' flush runs on its own timer and batch size: not the create's.
  const statements = async (meta: Record<string, unknown>): Promise<string[]> => (await statementsOf(async () => {
    const res = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `With meta ${++n}`, status: 'publish', meta } })
    t.equal(res.status, 201)
    t.equal(res.body.meta._builder_edit_mode, 'builder')
  })).filter((k) => k !== 'audit flush')
  t.same(await statements({ _builder_edit_mode: 'builder' }), ['snapshot', 'create'], 'one key: the horizon and one statement')
  t.same(await statements({ _builder_edit_mode: 'builder', _builder_data: '[]', _builder_template_type: 'page' }), ['snapshot', 'create'], 'three keys: the same')
  t.same(await statements({ _builder_edit_mode: 'builder', _builder_page_settings: { hide_title: 'yes' } }), ['snapshot', 'create'], 'an object of one key reads back as it is')
  // An object of two keys or more reads back in jsonb's order of keys: the answer reads it.
  t.same(await statements({ _builder_edit_mode: 'builder', _builder_page_settings: { zeta: 'z', hide_title: 'yes' } }), ['snapshot', 'create', 'extras'], 'an object of two keys: read back')

  // Whether the answer may be the request's is decided by looking at 256 values at most: a longer list is read back.
  const long = Array.from({ length: 300 }, (_, i) => `item ${i}`)
  t.same(await statements({ _builder_edit_mode: 'builder', _builder_page_settings: { list: long } }), ['snapshot', 'create', 'extras'], 'a list of 300: read back')
  t.same((await create({ _builder_page_settings: { list: long } }))._builder_page_settings, { list: long })

  // 2026-11-29, before: more than 8 keys went to a transaction (the horizon, begin, the create, the meta, commit, the extras).
  const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`_many_${i + 1}`, `value ${i + 1}`]))
  t.same(await statements({ _builder_edit_mode: 'builder', ...many }), ['snapshot', 'create'], '21 keys: the same one statement')
  t.same(Object.entries(await create(many)).filter(([k]) => k.startsWith('_many_')), Object.entries(many))

  const meta = await create({ _builder_edit_mode: 'builder', _builder_data: JSON.stringify([{ b: 1, a: '<b>x</b>' }]), _builder_template_type: 'page' })
  t.equal(meta._builder_template_type, 'page')
  t.same((await create({ _builder_page_settings: { zeta: 'z', hide_title: 'yes', alpha: [1, { y: 2, x: 1 }] } }))._builder_page_settings, { alpha: [1, { x: 1, y: 2 }], hide_title: 'yes', zeta: 'z' })
  t.same((await create({}))._builder_edit_mode, '', 'an empty meta object: the defaults')
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

t.test('a create whose slug is taken or reserved: the same one statement, the suffix found by the insert', async (t) => {
  // 2026-11-28, before migration 0017: 9 statements (the horizon, the create tried and the slug found
  // taken, begin, the create tried again, two slug reads, the create, the outbox row, commit).
  const create = async (body: Record<string, unknown>, type = 'posts'): Promise<{ slug: string, statements: string[] }> => {
    let slug = ''
    const statements = await statementsOf(async () => {
      const res = await h.call('POST', `/cms/v2/${type}`, { as: admin, body: { status: 'publish', ...body } })
      t.equal(res.status, 201)
      slug = res.body.slug
    })
    // The audit entries' flush runs on its own timer and batch size: not the create's.
    return { slug, statements: statements.filter((k) => k !== 'audit flush') }
  }
  /** The slug uniquePostSlug (what the second transaction used) finds for it now. */
  const expected = async (slug: string, hierarchical = false, parent = 0): Promise<string> =>
    await uniquePostSlug(h.store, slug, { id: 0, type: hierarchical ? 'page' : 'post', parent, hierarchical })

  const title = `Same title ${++n}`
  t.same((await create({ title })).statements, ['snapshot', 'create'])
  const again = await create({ title })
  t.same(again.statements, ['snapshot', 'create'], 'taken: one statement')
  t.equal(again.slug, `same-title-${n}-2`)

  const wantReserved = await expected('embed')
  const reserved = await create({ title: 'x', slug: 'embed' })
  t.same(reserved.statements, ['snapshot', 'create'], 'reserved: one statement')
  t.equal(reserved.slug, wantReserved)
  t.match(reserved.slug, /^embed-\d+$/)

  // Suffixes taken past the first batches: the first free one, as uniquePostSlug finds it.
  const base = `crowded-${++n}`
  for (const suffix of ['', ...Array.from({ length: 18 }, (_, i) => `-${i + 2}`)]) {
    t.equal((await create({ title: 'x', slug: `${base}${suffix}` })).slug, `${base}${suffix}`)
  }
  const want = await expected(base)
  const crowded = await create({ title: 'x', slug: base })
  t.equal(crowded.slug, want, `past 18 taken suffixes: ${want}`)
  t.same(crowded.statements, ['snapshot', 'create'])

  // A slug at the length limit is cut for its suffix, never inside a %xx escape.
  for (const long of ['a'.repeat(199) + 'b', 'c'.repeat(196) + '%c3%a9', 'd'.repeat(197) + '-%c3']) {
    const first = (await create({ title: 'x', slug: long })).slug
    const want = await expected(first)
    const made = await create({ title: 'x', slug: long })
    t.equal(made.slug, want, `cut as truncateSlug cuts: ${want.slice(190)}`)
    t.same(made.statements, ['snapshot', 'create'])
  }

  // The database's cut is truncateSlug's, escapes included (the route's slugs rarely carry them).
  for (const slug of ['short', 'a'.repeat(199) + 'b', 'c'.repeat(196) + '%c3%a9', 'd'.repeat(196) + '-%c3%a9', 'e'.repeat(195) + '%c3-----', `${'f'.repeat(190)}%e2%80%94`]) {
    for (const suffix of [2, 10, 100, 12345]) {
      const [row] = await h.store.execute<{ s: string }>(sql`select cms_suffixed_slug(${slug}, ${suffix}) as s`)
      t.equal(row!.s, `${truncateSlug(slug, 200 - (String(suffix).length + 1))}-${suffix}`)
    }
  }

  // Pages: unique among siblings only; all-digit slugs are reserved.
  const parent = (await h.call('POST', '/cms/v2/pages', { as: admin, body: { title: `Parent ${++n}`, status: 'publish' } })).body.id as number
  const page = `team-${n}`
  t.equal((await create({ title: 'x', slug: page }, 'pages')).slug, page)
  t.equal((await create({ title: 'x', slug: page, parent }, 'pages')).slug, page, 'under another parent: kept')
  const sibling = await create({ title: 'x', slug: page, parent }, 'pages')
  t.equal(sibling.slug, `${page}-2`, 'a sibling has it: suffixed')
  t.same(sibling.statements, ['snapshot', 'rows', 'create'], 'the parent read, then one statement')
  const digits = await expected('2024', true)
  t.equal((await create({ title: 'x', slug: '2024' }, 'pages')).slug, digits, 'all digits: reserved')
  t.match(digits, /^2024-\d+$/)
  await h.services.audit.flush()
})

t.test('an edit page: the posts whose slug is their own found in one statement, not one a post', async (t) => {
  const page = async (): Promise<Array<{ id: number, generated_slug: string }>> => {
    const res = await h.call('GET', '/cms/v2/posts', { as: admin, query: { context: 'edit', per_page: '10', orderby: 'id', order: 'asc', nocache: String(++n) } })
    t.equal(res.status, 200)
    return res.body
  }
  const first = await page()
  // Two posts of the page share a slug (as an import can leave them), and a third has none.
  await h.store.db.execute(sql`update posts set slug = (select slug from posts where id = ${first[0]!.id}) where id = ${first[1]!.id}`)
  await h.store.db.execute(sql`update posts set slug = '' where id = ${first[2]!.id}`)
  let body: Array<{ id: number, generated_slug: string }> = []
  const kinds = await statementsOf(async () => { body = await page() })
  t.same(kinds.slice(0, 2), ['snapshot', 'page'])
  t.equal(kinds.filter((k) => k.startsWith('select i.id from unnest(')).length, 1, 'one statement for the page\'s own slugs')
  // The three others look for a free suffix (the shared slug's two: whether taken, then the candidates; the empty one: its title's).
  const searches = kinds.filter((k) => k.startsWith('select distinct "slug" from "posts"')).length
  t.ok(searches <= 5, `the seven posts with their own slug ask nothing more (${searches} searches, 12 or more before)`)
  // Each as the post's own edit answer makes it (uniquePostSlug, one post at a time).
  for (const post of body) {
    const one = await h.call('GET', `/cms/v2/posts/${post.id}`, { as: admin, query: { context: 'edit' } })
    t.equal(post.generated_slug, one.body.generated_slug, `post ${post.id}`)
  }
  t.match(body[1]!.generated_slug, /-\d+$/, 'a shared slug is suffixed')
  await h.services.audit.flush()
})
