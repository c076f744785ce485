/**
 * Public reads are reused while nothing is committed (read-cache.ts): every
 * kind of write, including one that bypasses the service, is seen by the
 * next request; signed-in callers are never served an anonymous answer;
 * totals above the exact margin are estimates, exact again near the end.
 */
import t from 'tap'
import { sql } from 'drizzle-orm'
import { setOption } from '@cms/store'
import { requestMemo, type RestRequest } from '@cms/rest'
import { EXACT_TOTAL_MARGIN } from '../src/content/post-query.js'
import { jsonWeight, ReadCache } from '../src/base/read-cache.js'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

t.test('anonymous reads see every committed write', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin } = h.users
  const created = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'First', content: 'One', status: 'publish' } })
  t.equal(created.status, 201)
  const id = created.body.id as number

  const list = async (): Promise<any[]> => (await h.call('GET', '/cms/v2/posts')).body
  const one = async (): Promise<any> => (await h.call('GET', `/cms/v2/posts/${id}`)).body
  t.same((await list()).map((p) => p.title.rendered), ['First'])
  t.equal((await one()).title.rendered, 'First')
  // Asked twice: the second answer is the reused one, and the same.
  t.same((await list()).map((p) => p.title.rendered), ['First'])

  // Through the API.
  t.equal((await h.call('POST', `/cms/v2/posts/${id}`, { as: admin, body: { title: 'Renamed' } })).status, 200)
  t.equal((await one()).title.rendered, 'Renamed')
  t.same((await list()).map((p) => p.title.rendered), ['Renamed'])

  // Straight into the database (another process, the CLI, an administrator's SQL).
  await h.store.execute(sql`update posts set title = 'Edited in SQL' where id = ${id}`)
  t.equal((await one()).title.rendered, 'Edited in SQL')
  t.same((await list()).map((p) => p.title.rendered), ['Edited in SQL'])

  // A setting the answers depend on.
  await setOption(h.store, 'timezone_string', 'Europe/Paris')
  const date = (await one()).date as string
  t.equal(date, (await h.call('GET', `/cms/v2/posts/${id}`, { as: admin })).body.date, 'anonymous and signed-in answers agree after the change')
  await setOption(h.store, 'timezone_string', 'UTC')
  t.not((await one()).date, date, 'the time zone change is undone for the next request')

  // A post leaving public view.
  await h.store.execute(sql`update posts set status = 'private' where id = ${id}`)
  t.equal((await h.call('GET', `/cms/v2/posts/${id}`)).status, 401)
  t.same(await list(), [])
  const total = await h.call('GET', '/cms/v2/posts')
  t.equal(total.headers['x-cms-total'], '0')
})

t.test('signed-in callers are answered as themselves on a cached address', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin } = h.users
  const id = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Shared', status: 'publish' } })).body.id as number
  const anonymous = await h.call('GET', `/cms/v2/posts/${id}`)
  t.equal(anonymous.headers.allow, 'GET')
  const signedIn = await h.call('GET', `/cms/v2/posts/${id}`, { as: admin })
  t.equal(signedIn.headers.allow, 'GET, POST, PUT, PATCH, DELETE')
  t.same(signedIn.body._links.self[0].targetHints.allow, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
  t.equal((await h.call('GET', `/cms/v2/posts/${id}`)).headers.allow, 'GET', 'the anonymous answer is unchanged')
  const draft = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Hidden', status: 'draft' } })).body.id as number
  t.same((await h.call('GET', '/cms/v2/posts', { query: { status: 'draft' }, as: admin })).body.map((p: any) => p.id), [draft])
  t.equal((await h.call('GET', '/cms/v2/posts', { query: { status: 'draft' } })).status, 400, 'anonymous callers may not list drafts')
})

t.test('totals: exact within the margin past the page, estimated beyond, exact again at the end', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const count = EXACT_TOTAL_MARGIN + 60
  await h.store.execute(sql`
    insert into posts (type, author, status, date_gmt, modified_gmt, slug, title)
    select 'post', 1, 'publish', now() - make_interval(mins => g), now() - make_interval(mins => g), 'p-' || g,
           'P ' || g || case when g % 100 = 0 then ' rare' else '' end
    from generate_series(1, ${count}) as g`)
  await h.store.execute('analyze posts')
  const total = async (query: Record<string, string | number>): Promise<{ status: number, total: number, ids: number }> => {
    const res = await h.call('GET', '/cms/v2/posts', { query })
    return { status: res.status, total: Number(res.headers['x-cms-total']), ids: Array.isArray(res.body) ? res.body.length : 0 }
  }
  const first = await total({ per_page: 10 })
  t.equal(first.ids, 10)
  t.ok(first.total > 10 + EXACT_TOTAL_MARGIN, `an estimate above the margin (${first.total})`)
  t.ok(Math.abs(first.total - count) / count < 0.2, `close to the real count (${first.total} for ${count})`)
  const near = await total({ per_page: 10, page: 100 })
  t.equal(near.total, count, 'exact when the end is within the margin')
  t.same(await total({ per_page: 10, page: Math.ceil(count / 10) }), { status: 200, total: count, ids: count % 10 === 0 ? 10 : count % 10 })
  t.equal((await total({ per_page: 10, page: Math.ceil(count / 10) + 1 })).status, 400, 'past the last page')
  const few = await total({ per_page: 5, search: 'rare' })
  t.same(few, { status: 200, total: Math.floor(count / 100), ids: 5 }, 'a search with few matches counts them exactly')
})

t.test('a read cache keeps at most its budget, by weight', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  // One request: it asks the horizon once, so other suites committing on the same server
  // cannot invalidate what it keeps.
  const memo = requestMemo()
  const req = ({ memo, horizon: async () => await memo('horizon', async () => await h.store.horizon()) }) as unknown as RestRequest
  const ten = 'x'.repeat(10)
  const cache = new ReadCache<string>(100, (value) => value.length)
  for (const key of ['a', 'b', 'c']) await cache.put(req, key, ten)
  t.equal(await cache.peek(req, 'a'), ten)
  for (let i = 0; i < 7; i++) await cache.put(req, `k${i}`, ten)
  t.equal(await cache.peek(req, 'a'), ten, '100 of 100: all kept')
  await cache.put(req, 'd', ten)
  t.equal(await cache.peek(req, 'a'), undefined, 'the oldest made room')
  t.equal(await cache.peek(req, 'b'), ten)
  t.equal(await cache.peek(req, 'd'), ten)

  await cache.put(req, 'big', 'x'.repeat(11))
  t.equal(await cache.peek(req, 'big'), undefined, 'a value over a tenth of the budget is not kept')
  let loads = 0
  const load = async (): Promise<string> => { loads++; return 'y'.repeat(50) }
  t.equal(await cache.get(req, 'huge', load), 'y'.repeat(50))
  t.equal(await cache.get(req, 'huge', load), 'y'.repeat(50), 'it is still answered')
  t.equal(loads, 2, 'loaded each time it is asked')
  t.equal(await cache.get(req, 'b', load), ten, 'what was kept is answered without a load')
  t.equal(loads, 2)
})

t.test('the weight of a JSON value counts its strings', async (t) => {
  t.ok(jsonWeight('x'.repeat(1000)) >= 1000)
  const post = { id: 1, title: { rendered: 'T' }, content: { rendered: 'c'.repeat(1_000_000), protected: false }, tags: [1, 2, 3] }
  const weight = jsonWeight(post)
  t.ok(weight > 1_000_000 && weight < 1_001_000, `a post of a million characters weighs about a million bytes (${weight})`)
  t.ok(jsonWeight([post, post]) > 2 * 1_000_000, 'a list weighs what its items weigh')
  t.equal(jsonWeight(null), jsonWeight(7), 'every other value weighs a few bytes')
})
