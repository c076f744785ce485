// A list query differing from an earlier one only in its values (another
// excluded id, another author, another search word) runs the statement
// built for the earlier one, with its own values (issue 35, `list-unseen`):
// the statements are kept by their shape, the values are placeholders.
// Before, each new value had drizzle build the page statement again (more
// of the gateway's CPU than PostgreSQL's execution). Counted: the dialect's
// walks (sqlToQuery) while lists run, and the texts sent (one text, so one
// name and one prepared statement a connection on PostgreSQL), never timed;
// and each answer is the one of its own values (rows and X-CMS-Total).
import t from 'tap'
import { statementsDuring } from '@cms/store/testing'
import { withContentUsers } from './fixtures/content/harness.js'
import { dialectWalks } from './fixtures/dialect-walks.js'
import { testApp } from '../src/testing.js'

const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'] }))
t.teardown(() => h.app.close())
const { admin } = h.users

const ids: number[] = []
for (const title of ['Alpha shape', 'Beta shape', 'Gamma shape']) {
  const made = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title, status: 'publish' } })
  if (made.status !== 201) throw new Error(`seeding: ${made.status}`)
  ids.push(made.body.id as number)
}

/** The texts drizzle's dialect walked (built statements, and the shapes' keys) while `work` ran, and the statements sent. */
async function walked (work: () => Promise<void>): Promise<{ walks: string[], sent: string[] }> {
  const { texts, value } = await dialectWalks(async () => await statementsDuring(h.store, work))
  return { walks: texts, sent: value }
}
/** A statement's text (a select, or a page with its CTE), not a shape's key (a filter and its ordering). */
const statements = (texts: string[]): string[] => texts.filter((s) => /^\s*(select|with)\b/i.test(s))
const lists = (texts: string[]): string[] => statements(texts).filter((s) => /from "posts"/.test(s))

const list = async (query: Record<string, string>): Promise<{ ids: number[], total: string | undefined }> => {
  const res = await h.call('GET', '/cms/v2/posts', { query: { per_page: '10', ...query } })
  t.equal(res.status, 200)
  return { ids: (res.body as Array<{ id: number }>).map((p) => p.id), total: res.headers['x-cms-total'] as string | undefined }
}

t.test('new excluded ids: the page statement built once, each page its own rows and total', async (t) => {
  t.same(await list({ exclude: String(ids[0]) }), { ids: [ids[2], ids[1]], total: '2' }, 'the first of the shape')
  const answers: Array<{ ids: number[], total: string | undefined }> = []
  const { walks, sent } = await walked(async () => {
    for (const id of [ids[1]!, ids[2]!, 1_000_000_001, 1_000_000_002, 1_000_000_003]) answers.push(await list({ exclude: String(id) }))
  })
  t.same(lists(walks), [], 'no list statement built for 5 new values (5 before: one each)')
  t.equal(walks.filter((s) => /^\("posts"\."type" = \$1 and .* order by /.test(s)).length, 5, 'the shape of each new query walked (its filter and ordering)')
  t.same(answers, [
    { ids: [ids[2], ids[0]], total: '2' },
    { ids: [ids[1], ids[0]], total: '2' },
    { ids: [ids[2], ids[1], ids[0]], total: '3' },
    { ids: [ids[2], ids[1], ids[0]], total: '3' },
    { ids: [ids[2], ids[1], ids[0]], total: '3' }
  ], 'each its own values')
  t.equal(new Set(lists(sent)).size, 1, 'one text sent for every value: one name, one prepared statement a connection')
  t.equal(lists(sent).length, 5, 'a statement a page')
})

t.test('other filters and a search: built once per shape, answered with their own values', async (t) => {
  t.same(await list({ include: String(ids[0]) }), { ids: [ids[0]], total: '1' })
  t.same(await list({ search: 'alpha' }), { ids: [ids[0]], total: '1' })
  const { walks } = await walked(async () => {
    t.same(await list({ include: String(ids[1]) }), { ids: [ids[1]], total: '1' })
    t.same(await list({ include: `${ids[2]!},${ids[0]!}` }), { ids: [ids[2], ids[0]], total: '2' })
    t.same(await list({ search: 'beta' }), { ids: [ids[1]], total: '1' })
    t.same(await list({ search: 'shape' }), { ids: [ids[2], ids[1], ids[0]], total: '3' })
    t.same(await list({ search: 'nowhere' }), { ids: [], total: '0' })
  })
  t.same(lists(walks), [], 'no list statement built (a search\'s count and page included)')
})

t.test('a telling value (an author, a term) is written into the text: a statement planned for it', async (t) => {
  const { sent } = await walked(async () => {
    t.same(await list({ author: String(admin.id) }), { ids: [ids[2], ids[1], ids[0]], total: '3' })
    t.same(await list({ author: '999999' }), { ids: [], total: '0' })
  })
  const texts = lists(sent)
  t.equal(texts.length, 2)
  t.match(texts[1], /"posts"\."author" = any\('\{999999\}'::int\[\]\)/, 'the author in the text, not a parameter')
  t.not(texts[0], texts[1], 'a text (a name, a plan) for each author')
})
