// The work of writing and folding a change to a term's count
// (term_count_deltas, issue 35), counted with PostgreSQL's own statistics of
// the transaction, never timed. A change row is written by every create
// that finds its category's count taken by another create in flight: most
// creates of a burst in one category.
import t from 'tap'
import { sql } from 'drizzle-orm'
import type { Tx } from '@cms/store'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'

const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'] }))
t.teardown(() => h.app.close())
const { admin } = h.users

const cat = (await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Changed' } })).body.id as number

class RolledBack extends Error {}

/** What `read` answers before and after `work`, in one transaction rolled back after it. */
async function around (read: (tx: Tx) => Promise<number>, work: (tx: Tx) => Promise<unknown>): Promise<number> {
  let out = 0
  await h.store.transaction(async (tx) => {
    const before = await read(tx)
    await work(tx)
    out = await read(tx) - before
    throw new RolledBack()
  }).catch((err: unknown) => { if (!(err instanceof RolledBack)) throw err })
  return out
}

const one = async (tx: Tx, query: ReturnType<typeof sql>): Promise<number> =>
  ((await tx.execute(query)) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n

/** Scans of terms (the table's and its primary key's) so far in the transaction: a foreign-key check is one. */
const termScans = async (tx: Tx): Promise<number> => await one(tx, sql`select (pg_stat_get_xact_numscans('terms'::regclass)
  + pg_stat_get_xact_numscans('terms_pkey'::regclass))::int as n`)

t.test('a change row is written without a read of its term (core migration 0022)', async (t) => {
  const scans = await around(termScans, async (tx) => await tx.execute(sql`insert into term_count_deltas (term_id, delta) values (${cat}, 1), (${cat}, 1)`))
  t.equal(scans, 0, 'no scan of terms (2 before 0022: the foreign key\'s check of each row, a lock on the category\'s row)')
})

t.test('a term\'s changes go with it, as by the key\'s cascade', async (t) => {
  const doomed = (await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Doomed' } })).body.id as number
  // In one transaction: a change committed alone is folded as it commits (migration 0019's trigger).
  const left = await around(async () => 0, async (tx) => {
    await tx.execute(sql`insert into term_count_deltas (term_id, delta) values (${doomed}, 1), (${doomed}, 2), (${cat}, 1)`)
    await tx.execute(sql`delete from terms where id = ${doomed}`)
    const rows = (await tx.execute(sql`select term_id from term_count_deltas where term_id in (${doomed}, ${cat})`)) as unknown as { rows: Array<{ term_id: number }> }
    t.same(rows.rows.map((r) => r.term_id), [cat], 'the deleted term\'s changes gone, the other term\'s kept')
  })
  t.equal(left, 0)
})

/** Index entries of term_count_deltas that scans returned so far in the transaction (a bitmap scan's too). */
const deltaEntries = async (tx: Tx): Promise<number> => await one(tx, sql`select pg_stat_get_xact_tuples_returned('term_count_deltas_term_idx'::regclass)::int as n`)

t.test('a fold walks the entries of changes folded before once, not on every fold (core migration 0023)', async (t) => {
  // 40 changes committed one at a time, each folded as it commits (migration 0019's trigger): 40 dead rows until vacuum,
  // as a burst of creates in one category leaves them.
  for (let i = 0; i < 40; i++) await h.store.execute(sql`insert into term_count_deltas (term_id, delta) values (${cat}, 1)`)
  const count = async (): Promise<number> => (await h.call('GET', `/cms/v2/categories/${cat}`)).body.count as number
  t.equal(await count(), 40, 'folded into the count')
  const fold = async (tx: Tx): Promise<unknown> => await tx.execute(sql`select cms_add_term_counts(array[${cat}]::int[], array[1])`)
  // Each fold passes the entries of the changes folded before it and marks those dead to every transaction.
  const walked = await around(deltaEntries, fold)
  t.ok(walked <= 2, `the fold walks the entries of the last changes at most (${walked}; 43 before 0023, with the rows the tests above rolled back: a bitmap scan marks no entry dead)`)
  t.equal(await count(), 40, 'the count unchanged (the fold rolled back)')
  await h.store.execute(sql`select cms_add_term_counts(array[${cat}]::int[], array[-40])`)
  t.equal(await count(), 0)
})
