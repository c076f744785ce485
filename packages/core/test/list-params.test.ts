/**
 * A list's ids and slugs go to the database as one array parameter each
 * (issue 27): drizzle built a parameter per member of an `inArray` on the
 * request thread, 13-24 ms for the hundreds of ids a 6,000-character query
 * string names. Counted (the parameters of the statements sent), never
 * timed; the rows are those of `in (...)`.
 */
import t from 'tap'
import { statementsDuring } from '@cms/store/testing'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'

/** The largest `$n` of a statement's text: how many parameters it has. */
const paramsOf = (text: string): number => Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))

t.test('hundreds of ids and slugs: a few parameters a statement, the rows of in (...)', async (t) => {
  const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin } = h.users
  const ids: number[] = []
  for (const title of ['One', 'Two', 'Three']) {
    const made = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title, status: 'publish', slug: title.toLowerCase() } })
    ids.push(made.body.id as number)
  }
  const cat = await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Kept' } })
  await h.call('POST', `/cms/v2/posts/${ids[0]!}`, { as: admin, body: { categories: [cat.body.id as number] } })
  const many = (start: number): string => Array.from({ length: 600 }, (_, i) => start + i).join(',')
  const slugs = ['one', 'three', ...Array.from({ length: 400 }, (_, i) => `none-${i}`)].join(',')
  for (const [what, path, query, expected] of [
    ['include', '/cms/v2/posts', `include=${ids[0]!},${ids[2]!},${many(100_000)}&orderby=id&order=asc`, [ids[0], ids[2]]],
    ['exclude', '/cms/v2/posts', `exclude=${ids[1]!},${many(100_000)}&orderby=id&order=asc`, [ids[0], ids[2]]],
    ['slug', '/cms/v2/posts', `slug=${slugs}&orderby=id&order=asc`, [ids[0], ids[2]]],
    ['author', '/cms/v2/posts', `author=${admin.id},${many(100_000)}&orderby=id&order=asc`, ids],
    ['author_exclude', '/cms/v2/posts', `author_exclude=${many(100_000)}&orderby=id&order=asc`, ids],
    ['parent', '/cms/v2/pages', `parent=${many(100_000)}`, []],
    ['categories', '/cms/v2/posts', `categories=${cat.body.id as number},${many(100_000)}`, [ids[0]]],
    ['categories_exclude', '/cms/v2/posts', `categories_exclude=${cat.body.id as number},${many(100_000)}&orderby=id&order=asc`, [ids[1], ids[2]]],
    ['term include', '/cms/v2/categories', `include=${cat.body.id as number},${many(100_000)}`, [cat.body.id]],
    ['term exclude', '/cms/v2/categories', `exclude=${many(100_000)}&search=Kept`, [cat.body.id]]
  ] as const) {
    let res: Awaited<ReturnType<typeof h.call>> | undefined
    const texts = await statementsDuring(h.store, async () => { res = await h.call('GET', path, { as: admin, query }) })
    t.equal(res!.status, 200, `${what}: answered`)
    t.same((res!.body as Array<{ id: number }>).map((p) => p.id), expected, `${what}: the rows of in (...)`)
    const most = Math.max(0, ...texts.map(paramsOf))
    t.ok(most < 40, `${what}: at most ${most} parameters a statement, not one per member`)
  }
})
