// A page's term counts read `term_count_deltas` (the changes not yet folded
// into `terms.count`, migration 0016) once a statement, not once a term
// (issue 35): with none pending, the usual case, the page reads the counts
// as it did before the change rows, and a term with changes pending adds
// its own. Counted from the plan of the page's own statement
// (EXPLAIN ANALYZE: the scans of the table and how often each ran), never
// timed; the counts stay exact with changes pending. And a rolling upgrade:
// a gateway from before 0016 writing a term's whole count while changes are
// pending is refused (migration 0019), which counted them twice before.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { statementsDuring } from '@cms/store/testing'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'

const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'], horizon: true }))
t.teardown(() => h.app.close())
const { admin } = h.users

const cat = (await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Counted' } })).body.id as number
const tags = [] as number[]
for (const name of ['Counted one', 'Counted two']) tags.push((await h.call('POST', '/cms/v2/tags', { as: admin, body: { name } })).body.id as number)
// 12 posts of 3 terms each: a page of 10 carries 30 terms (3 distinct).
for (let i = 0; i < 12; i++) {
  const made = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `Post ${i}`, status: 'publish', categories: [cat], tags } })
  if (made.status !== 201) throw new Error(`seeding: ${made.status}`)
}

interface PlanNode { 'Relation Name'?: string, 'Actual Loops'?: number, Plans?: PlanNode[] }
/** How often a scan of term_count_deltas ran in `plan` (the loops of every node that reads it). */
function deltaScans (plan: PlanNode): number {
  const own = plan['Relation Name'] === 'term_count_deltas' ? plan['Actual Loops'] ?? 0 : 0
  return own + (plan.Plans ?? []).reduce((sum, p) => sum + deltaScans(p), 0)
}

let n = 0
/** A page of 10 made afresh: the counts its statement answers (every term of every post), and how often it scans term_count_deltas. */
async function page (): Promise<{ counts: number[], scans: number }> {
  let status = 0
  const texts = await statementsDuring(h.store, async () => {
    status = (await h.call('GET', '/cms/v2/posts', { as: admin, query: { per_page: '10', nocache: String(++n) } })).status
  })
  t.equal(status, 200)
  const text = texts.find((s) => /^with "page" as/.test(s.trim()))
  if (text === undefined) throw new Error(`no page statement in ${JSON.stringify(texts)}`)
  // Run again with its parameters written in: the type, the status and the cap of the total.
  const run = text.replace(/"type" = \$\d+/g, '"type" = \'post\'').replace(/"status" in \(\$\d+\)/g, '"status" in (\'publish\')').replace(/limit \$\d+/g, 'limit 1000')
  t.notMatch(run, /\$\d/, 'every parameter of the page statement written in')
  const rows = await h.store.execute<{ terms: Array<{ count: number }> | string }>(run)
  t.equal(rows.length, 10)
  const counts = rows.flatMap((r) => (typeof r.terms === 'string' ? JSON.parse(r.terms) as Array<{ count: number }> : r.terms).map((term) => term.count))
  const [row] = await h.store.execute<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${run}`)
  const plan = row!['QUERY PLAN']
  const top = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{ Plan: PlanNode }>
  return { counts, scans: deltaScans(top[0]!.Plan) }
}

/** Each term's count as the category and tag routes answer it. */
async function routeCounts (): Promise<number[]> {
  const out = [] as number[]
  out.push((await h.call('GET', `/cms/v2/categories/${cat}`)).body.count as number)
  for (const tag of tags) out.push((await h.call('GET', `/cms/v2/tags/${tag}`)).body.count as number)
  return out
}

/** Moves one of the term's count into a change pending, as a writer that found the count taken leaves it (cms_add_term_counts). */
async function pend (term: number): Promise<void> {
  await h.store.transaction(async (tx) => {
    // Left pending: this transaction's triggers off (the fold as it commits, and the count written whole).
    await tx.execute(sql`set local session_replication_role = replica`)
    await tx.execute(sql`with d as (insert into term_count_deltas (term_id, delta) values (${term}, 1))
      update terms set count = count - 1 where id = ${term}`)
  })
}

t.test('no change pending: the page reads term_count_deltas once, not once a term', async (t) => {
  const none = await h.store.execute<{ n: number }>(sql`select count(*)::int as n from term_count_deltas`)
  t.equal(none[0]!.n, 0, 'no change pending')
  const { counts, scans } = await page()
  t.same(counts, Array(30).fill(12), 'every term of the page counted')
  // Before: a probe for every term row the statement's plan reads (30 and more: the plan may read them again).
  t.equal(scans, 1, 'one scan of term_count_deltas, for the statement')
})

t.test('changes pending: only the terms that have them read them', async (t) => {
  await pend(tags[0]!)
  const one = await page()
  t.same(one.counts, Array(30).fill(12), 'a change pending for one of the 3 terms: every count exact')
  t.same(await routeCounts(), [12, 12, 12], 'the term routes too')
  await pend(cat)
  await pend(tags[1]!)
  const all = await page()
  t.same(all.counts, Array(30).fill(12), 'changes pending for all 3: every count exact')
  t.same(await routeCounts(), [12, 12, 12], 'the term routes too')
  // Before: as many probes with one term pending as with all three.
  t.ok(one.scans - 1 <= (all.scans - 1) / 2, `probes with one term of 3 pending (${one.scans - 1}) about a third of those with all 3 (${all.scans - 1})`)
})

t.test("a rolling upgrade: a gateway from before 0016 writes a term's whole count", async (t) => {
  // Its recount, as it was (post-store's recountTerms before 0016): the published posts as its statement sees them.
  const oldRecount = async (): Promise<unknown> => await h.store.execute(sql`update terms set count = (select count(*)::int
    from term_relationships tr join posts p on p.id = tr.post_id where tr.term_id = terms.id and p.status = 'publish' and p.type = 'post')
    where id in (${cat}, ${tags[0]!}, ${tags[1]!})`)
  const pending = await h.store.execute<{ n: number }>(sql`select count(*)::int as n from term_count_deltas`)
  t.ok(pending[0]!.n >= 3, 'changes pending for the three terms')
  const refused = await oldRecount().then(() => undefined, (err: { code?: string, cause?: { code?: string } }) => err.cause?.code ?? err.code)
  t.equal(refused, '55000', 'refused while changes are pending (before migration 0019: each count 13, the changes counted twice)')
  t.same(await routeCounts(), [12, 12, 12], 'each count the published posts')
  t.same((await page()).counts, Array(30).fill(12), 'the page too')
  // This version's writer is not taken for an old one: its create adds one, and folds the changes in.
  const made = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'After the old one', status: 'publish', categories: [cat], tags } })
  t.equal(made.status, 201)
  t.same(await routeCounts(), [13, 13, 13], 'a create counted once')
  const left = await h.store.execute<{ n: number }>(sql`select count(*)::int as n from term_count_deltas`)
  t.equal(left[0]!.n, 0, 'its terms folded')
  await oldRecount()
  t.same(await routeCounts(), [13, 13, 13], 'with none pending, the old recount writes the count')
})
