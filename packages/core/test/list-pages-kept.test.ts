// A list's page is kept by the query its arguments made (request-reads.ts
// `pageCache`, issue 35), not by its address: an argument the route ignores
// (a cache-busting `nocache=<n>`) or the arguments in another order find the
// page that query read while nothing is committed. Only callers who would
// read the same rows share a page, and every commit (through the API or
// straight into the database) is seen by the next request. Counted with
// statementsDuring on either database, never timed.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { statementsDuring } from '@cms/store/testing'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'

const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'], horizon: true, audit: { flushMs: 3_600_000, moveEveryMs: 3_600_000 } }))
t.teardown(() => h.app.close())
const { admin, author, author2, editor } = h.users

for (let i = 0; i < 12; i++) {
  const made = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `Post ${i}`, content: `Content ${i}`, status: 'publish' } })
  if (made.status !== 201) throw new Error(`seeding: ${made.status}`)
}
await h.services.audit.flush()

let n = 0
const fresh = (): string => String(++n)

/** Whether `run` sent the page statement. */
async function sentPage (run: () => Promise<unknown>): Promise<boolean> {
  return (await statementsDuring(h.store, run)).some((text) => /^with "page" as/.test(text.replace(/\s+/g, ' ').trim()))
}

/**
 * Runs `first` then `second` until the commit horizon stayed from before the
 * first to after the second (on a PostgreSQL server other test files share,
 * their commits move it); the second's statements, or undefined when no try
 * found such a window.
 */
async function underOneHorizon (first: () => Promise<unknown>, second: () => Promise<unknown>): Promise<boolean | undefined> {
  for (let i = 0; i < 40; i++) {
    const before = await h.store.horizon()
    await first()
    const sent = await sentPage(second)
    if (await h.store.horizon() === before) return sent
  }
  return undefined
}

const list = async (query: Record<string, string>, as?: typeof admin): Promise<{ status: number, ids: number[], text: string, total: string | undefined }> => {
  const res = await h.call('GET', '/cms/v2/posts', { as, query })
  return { status: res.status, ids: Array.isArray(res.body) ? res.body.map((p: any) => p.id as number) : [], text: res.text, total: res.headers['x-cms-total'] as string | undefined }
}

t.test('a parameter that never repeats finds the page its query read', async (t) => {
  const sent = await underOneHorizon(
    async () => await list({ per_page: '5', nocache: fresh() }),
    async () => await list({ per_page: '5', nocache: fresh() })
  )
  if (sent === undefined) t.comment('the horizon moved in every try (other files committing on the server): the reuse was not observed')
  else t.equal(sent, false, 'the second address sent no page statement')

  // The arguments in another order, spelled with defaults: the same query.
  const spelled = await underOneHorizon(
    async () => await list({ per_page: '5', page: '1', nocache: fresh() }),
    async () => await list({ order: 'desc', orderby: 'date', page: '1', per_page: '5', other: fresh() })
  )
  if (spelled !== undefined) t.equal(spelled, false, 'the same query spelled otherwise sent no page statement')

  // Another query is read.
  const other = await underOneHorizon(
    async () => await list({ per_page: '5', nocache: fresh() }),
    async () => await list({ per_page: '4', nocache: fresh() })
  )
  if (other !== undefined) t.equal(other, true, 'another page size is another query')

  // The answers are the page made afresh, byte for byte.
  const kept = await list({ per_page: '5', nocache: fresh() })
  await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Draft elsewhere', status: 'draft' } })
  const made = await list({ per_page: '5', nocache: fresh() })
  t.equal(made.text, kept.text, 'a commit that changes nothing shown: the page read afresh is the same bytes')
})

t.test('every commit is seen by the next request', async (t) => {
  const before = await list({ per_page: '3', nocache: fresh() })
  t.equal(before.ids.length, 3)
  await list({ per_page: '3', nocache: fresh() })

  // Through the API.
  const id = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Newest', status: 'publish' } })).body.id as number
  const after = await list({ per_page: '3', nocache: fresh() })
  t.equal(after.ids[0], id, 'a new post leads the page at once')
  t.equal(Number(after.total), Number(before.total) + 1)

  // Straight into the database (another replica, the CLI, an administrator's SQL).
  await h.store.execute(sql`update posts set status = 'private' where id = ${id}`)
  t.notOk((await list({ per_page: '3', nocache: fresh() })).ids.includes(id), 'a post made private leaves the anonymous page at once')
  await h.store.execute(sql`update posts set title = 'Renamed in SQL', status = 'publish' where id = ${id}`)
  const renamed = await h.call('GET', '/cms/v2/posts', { query: { per_page: '3', nocache: fresh() } })
  t.equal(renamed.body[0].title.rendered, 'Renamed in SQL')
})

t.test('only callers who would read the same rows share a page', async (t) => {
  const mine = (await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Author draft', status: 'draft' } })).body.id as number
  const theirs = (await h.call('POST', '/cms/v2/posts', { as: author2, body: { title: 'Author 2 draft', status: 'draft' } })).body.id as number
  const drafts = async (as: typeof admin): Promise<number[]> => {
    const res = await list({ status: 'draft', per_page: '100', nocache: fresh() }, as)
    t.equal(res.status, 200)
    return res.ids
  }
  // Each asked twice, one after the other, under the same horizon where nothing commits between.
  for (let i = 0; i < 2; i++) {
    t.same(await drafts(author), [mine], 'an author lists their own drafts only')
    t.same(await drafts(author2), [theirs], 'another author the same query: their own')
    const all = await drafts(editor)
    t.ok(all.includes(mine) && all.includes(theirs), 'an editor lists every draft')
    t.ok((await drafts(admin)).includes(mine))
  }
  t.equal((await list({ status: 'draft', nocache: fresh() })).status, 400, 'anonymous callers may not list drafts')

  // A password-protected post: its content is held back from anonymous callers who share the rows.
  const locked = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Locked', content: 'Secret words', password: 'pw', status: 'publish' } })).body.id as number
  for (let i = 0; i < 2; i++) {
    const anonymous = await h.call('GET', '/cms/v2/posts', { query: { per_page: '1', nocache: fresh() } })
    t.equal(anonymous.body[0].id, locked)
    t.equal(anonymous.body[0].content.rendered, '', 'anonymous: the protected content is not shown')
    const signedIn = await h.call('GET', '/cms/v2/posts', { as: admin, query: { per_page: '1', context: 'edit', nocache: fresh() } })
    t.equal(signedIn.body[0].content.raw, 'Secret words', 'an administrator in the edit context: shown')
  }
})
