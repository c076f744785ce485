// PostgreSQL only (PGlite has one connection): writers of a term's count do
// not wait for one another (issue 35). A transaction in flight that created
// a published post in a category holds that category's count; before
// migration 0016 every other create in it (and every update, trash or
// delete that recounted it) waited on the term row's lock until that
// transaction ended, so creates in one category committed one at a time.
// Now they add a change (term_count_deltas) and go on; every count a route
// answers stays the number of published posts. Whether a request waits is
// read from pg_blocking_pids, not from a clock.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { testDatabaseUrl } from '@cms/store/testing'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { insertNewPost, type PostRow } from '../src/content/post-store.js'
import { newPostRow } from './fixtures/content/post-row.js'

if (testDatabaseUrl() === undefined) {
  t.pass('PostgreSQL only (CMS_TEST_DATABASE_URL): PGlite has one connection, so nothing is ever in flight beside a write')
} else {
  const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin } = h.users
  const call = h.call

  const cat = (await call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Busy' } })).body.id as number
  const tag = (await call('POST', '/cms/v2/tags', { as: admin, body: { name: 'Busy tag' } })).body.id as number

  const row = (title: string): PostRow => newPostRow(admin.id, title)

  /** Backends of this database waiting for a lock some other backend holds. */
  const blocked = async (): Promise<number> => {
    const rows = await h.store.execute<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and cardinality(pg_blocking_pids(pid)) > 0`)
    return rows[0]!.n
  }

  /**
   * Runs `work` while a transaction that created a published post in the
   * category and the tag is open; answers whether `work` finished while it
   * was open ('done') or was seen waiting on a lock ('waited', then it
   * finishes once the transaction ends).
   */
  const besideOpenCreate = async <T>(title: string, work: () => Promise<T>): Promise<{ outcome: 'done' | 'waited', value: T }> => {
    let release!: () => void
    const released = new Promise<void>((resolve) => { release = resolve })
    let opened!: () => void
    const isOpen = new Promise<void>((resolve) => { opened = resolve })
    const open = h.store.transaction(async (tx) => {
      await insertNewPost(tx, row(title), { terms: { ids: [cat, tag], fallbackCategory: 0 }, checkSlug: true, hierarchical: false, guidPrefix: 'http://cms.test/?p=' })
      opened()
      await released
    })
    await isOpen
    const running = work()
    let outcome: 'done' | 'waited' | undefined
    void running.then(() => { outcome ??= 'done' }, () => { outcome ??= 'done' })
    while (outcome === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      if (outcome === undefined && await blocked() > 0) outcome = 'waited'
    }
    release()
    await open
    return { outcome, value: await running }
  }

  const countOf = async (path: string): Promise<number> => (await call('GET', path)).body.count as number
  const published = async (): Promise<number> => {
    const rows = await h.store.execute<{ n: number }>(sql`select count(*)::int as n from term_relationships tr join posts p on p.id = tr.post_id
      where tr.term_id = ${cat} and p.status = 'publish' and p.type = 'post'`)
    return rows[0]!.n
  }

  t.test('a create in the category beside a create in flight in it: does not wait', async (t) => {
    const { outcome, value } = await besideOpenCreate('Open one', async () =>
      await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Beside one', status: 'publish', categories: [cat], tags: [tag] } }))
    t.equal(outcome, 'done', 'completed while the other create held the category')
    t.equal(value.status, 201)
    t.equal(await countOf(`/cms/v2/categories/${cat}`), 2, 'both counted')
    t.equal(await countOf(`/cms/v2/tags/${tag}`), 2)
  })

  t.test('an update, a trash and a delete that recount the category beside a create in flight: do not wait', async (t) => {
    const made = await Promise.all([1, 2, 3].map(async (i) =>
      (await call('POST', '/cms/v2/posts', { as: admin, body: { title: `To change ${i}`, status: 'publish', categories: [cat] } })).body.id as number))
    const draft = await besideOpenCreate('Open two', async () => await call('POST', `/cms/v2/posts/${made[0]!}`, { as: admin, body: { status: 'draft' } }))
    t.equal(draft.outcome, 'done', 'a status change')
    t.equal(draft.value.status, 200)
    const trash = await besideOpenCreate('Open three', async () => await call('DELETE', `/cms/v2/posts/${made[1]!}`, { as: admin }))
    t.equal(trash.outcome, 'done', 'a trash')
    t.equal(trash.value.status, 200)
    const gone = await besideOpenCreate('Open four', async () => await call('DELETE', `/cms/v2/posts/${made[2]!}`, { as: admin, query: { force: true } }))
    t.equal(gone.outcome, 'done', 'a delete')
    t.equal(gone.value.status, 200)
    t.equal(await countOf(`/cms/v2/categories/${cat}`), await published(), 'the count is the published posts')
  })

  t.test('creates at once in one category: each counted once, in every answer', async (t) => {
    // Creates beside one in flight leave changes not yet folded in: every count read adds them. (Three:
    // with the transaction and the probe, the test pool's five connections, so that before the change
    // they waited on the lock instead of for a connection.)
    const { value } = await besideOpenCreate('Open five', async () => await Promise.all(Array.from({ length: 3 }, async (_, i) =>
      await call('POST', '/cms/v2/posts', { as: admin, body: { title: `At once ${i}`, status: 'publish', categories: [cat] } }))))
    t.same(value.map((r) => r.status), Array(3).fill(201))
    const pending = await h.store.execute<{ n: number }>(sql`select count(*)::int as n from term_count_deltas where term_id = ${cat}`)
    t.ok(pending[0]!.n > 0, 'changes wait to be folded in')
    const n = await published()
    t.equal(await countOf(`/cms/v2/categories/${cat}`), n, 'the term route')
    const listed = await call('GET', '/cms/v2/categories', { query: { orderby: 'count', order: 'desc', hide_empty: 'true', per_page: '100' } })
    t.equal(listed.body[0].id, cat, 'orderby=count sees the changes')
    t.equal(listed.body[0].count, n, 'the list')
    const search = await call('GET', '/cms/v2/categories', { query: { search: 'Busy' } })
    t.equal(search.body.find((term: { id: number }) => term.id === cat)?.count, n, 'a search')
    // The next create that gets the category's count folds them in; its answer counts itself.
    const next = await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'After', status: 'publish', categories: [cat] } })
    t.equal(next.status, 201)
    const folded = await h.store.execute<{ n: number, count: number }>(sql`select (select count(*)::int from term_count_deltas where term_id = ${cat}) as n,
      (select count from terms where id = ${cat}) as count`)
    t.same(folded[0], { n: 0, count: n + 1 }, 'folded into the row')
    t.equal(await countOf(`/cms/v2/categories/${cat}`), n + 1)
  })
  t.test('a create that left a change while the count was taken folds it as it commits, the holder gone (migration 0019)', async (t) => {
    const terms = { terms: { ids: [cat], fallbackCategory: 0 }, checkSlug: true, hierarchical: false, guidPrefix: 'http://cms.test/?p=' }
    /** A transaction that creates a published post in the category and stays open until `close()`. */
    const open = async (title: string): Promise<{ close: () => Promise<void> }> => {
      let release!: () => void
      const released = new Promise<void>((resolve) => { release = resolve })
      let opened!: () => void
      const isOpen = new Promise<void>((resolve) => { opened = resolve })
      const done = h.store.transaction(async (tx) => {
        await insertNewPost(tx, row(title), terms)
        opened()
        await released
      })
      await isOpen
      return { close: async () => { release(); await done } }
    }
    const holder = await open('Holder')
    const beside = await open('Beside the holder') // finds the count taken: leaves a change
    await holder.close()
    await beside.close() // gets the count as it commits: folds its change
    const left = await h.store.execute<{ n: number }>(sql`select count(*)::int as n from term_count_deltas where term_id = ${cat}`)
    t.equal(left[0]!.n, 0, 'no change left pending (before: one, until the next writer)')
    t.equal(await countOf(`/cms/v2/categories/${cat}`), await published(), 'the count is the published posts')
  })
}
