// A create's answer reads no term count (issue 35, core migration 0021). It
// shows of its terms the ids, the taxonomies, the slugs (the class list)
// and the names (their order); `cms_insert_post` answered each term's count
// too, the pending changes summed by a scan of term_count_deltas per term,
// and no create's answer showed them. Counted by PostgreSQL's own
// statistics of the create's transaction (the scans of term_count_deltas and
// of its index), never timed; the answer stays what a read of the post
// shows.
import t from 'tap'
import { sql } from 'drizzle-orm'
import type { Tx } from '@cms/store'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { insertNewPost, type PostRow } from '../src/content/post-store.js'
import { newPostRow } from './fixtures/content/post-row.js'

const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'] }))
t.teardown(() => h.app.close())
const { admin } = h.users

const cat = (await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Zebra' } })).body.id as number
const tags = [] as number[]
for (const name of ['Beta', 'Alpha']) tags.push((await h.call('POST', '/cms/v2/tags', { as: admin, body: { name } })).body.id as number)

const row = (title: string, status: string): PostRow => newPostRow(admin.id, title, status)

/** Scans of term_count_deltas (the table's and its index's) so far in the current transaction. */
const deltaScans = sql`select (pg_stat_get_xact_numscans('term_count_deltas'::regclass)
  + pg_stat_get_xact_numscans('term_count_deltas_term_idx'::regclass))::int as n`

/** How often `work` scans term_count_deltas, in a transaction rolled back after it. */
async function scansOf<T> (work: (tx: Tx) => Promise<T>): Promise<{ scans: number, value: T }> {
  const scans = async (tx: Tx): Promise<number> => ((await tx.execute(deltaScans)) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n
  let out!: { scans: number, value: T }
  await h.store.transaction(async (tx) => {
    const before = await scans(tx)
    const value = await work(tx)
    const after = await scans(tx)
    out = { scans: after - before, value }
    throw new RolledBack()
  }).catch((err: unknown) => { if (!(err instanceof RolledBack)) throw err })
  return out
}
class RolledBack extends Error {}

const terms = { ids: [cat, ...tags], fallbackCategory: 0 }
const opts = { terms, checkSlug: true, hierarchical: false, guidPrefix: 'http://cms.test/?p=' }

t.test('a draft create reads no term count', async (t) => {
  const { scans, value } = await scansOf(async (tx) => await insertNewPost(tx, row('Draft counted', 'draft'), opts))
  t.equal(scans, 0, 'no scan of term_count_deltas (3 before 0021: one a term for the answer\'s counts)')
  t.same(value.terms, [
    { id: tags[1], taxonomy: 'post_tag', name: 'Alpha', slug: 'alpha' },
    { id: tags[0], taxonomy: 'post_tag', name: 'Beta', slug: 'beta' },
    { id: cat, taxonomy: 'category', name: 'Zebra', slug: 'zebra' }
  ], 'the id, taxonomy, name and slug of each term, by name')
})

t.test('a published create reads term_count_deltas only to count', async (t) => {
  // What adding one to each of the three counts reads alone (the holder of the count locks folds the changes pending).
  const counting = await scansOf(async (tx) => await tx.execute(sql`select cms_add_term_counts(${sql.param(terms.ids)}::int[], array[1, 1, 1])`))
  const { scans, value } = await scansOf(async (tx) => await insertNewPost(tx, row('Published counted', 'publish'), opts))
  t.equal(scans, counting.scans, `the counting's own scans (${counting.scans}), none for the answer (3 more before 0021)`)
  t.equal(value.terms.length, 3)
})

t.test('the answer shows its terms as a read of the post does', async (t) => {
  const made = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Answered terms', status: 'publish', categories: [cat], tags } })
  t.equal(made.status, 201)
  const read = await h.call('GET', `/cms/v2/posts/${made.body.id as number}`, { as: admin, query: { context: 'edit' } })
  for (const key of ['categories', 'tags', 'class_list', '_links']) t.same(made.body[key], read.body[key], key)
  t.same(made.body.categories, [cat])
  t.same(made.body.tags, [tags[1], tags[0]], 'tags by name')
  t.ok((made.body.class_list as string[]).includes('category-zebra'))
  // The counts stay the term routes': one published post each.
  for (const [route, id] of [['categories', cat], ['tags', tags[0]], ['tags', tags[1]]] as const) {
    t.equal((await h.call('GET', `/cms/v2/${route}/${id}`)).body.count, 1, `${route} ${id} counted`)
  }
})
