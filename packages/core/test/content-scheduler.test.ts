/**
 * Scheduled publishing happens with no request arriving: the content job
 * publishes due `future` posts, once each even when runs overlap, and stops
 * when asked.
 */
import t from 'tap'
import { sql } from 'drizzle-orm'
import { publishDuePosts, startContentJobs } from '../src/content/index.js'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

async function statusOf (h: Awaited<ReturnType<typeof withContentUsers>>, id: number): Promise<string> {
  const rows = await h.store.execute<{ status: string }>(sql`select status from posts where id = ${id}`)
  return rows[0]!.status
}

/** Polls `check`: the wait only ends a true hang (a loaded machine is slow; the outcome is asserted, not its time). */
async function waitFor (check: () => Promise<boolean>, ms = 120_000): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return false
}

t.test('scheduled publishing', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin } = h.users
  const schedule = async (title: string, categories?: number[]): Promise<number> => {
    const res = await h.call('POST', '/cms/v2/posts', {
      as: admin,
      body: { title, status: 'publish', date_gmt: new Date(Date.now() + 3600_000).toISOString().slice(0, 19), ...(categories === undefined ? {} : { categories }) }
    })
    t.equal(res.body.status, 'future')
    return res.body.id
  }
  // Time passes: the scheduled date is now behind us.
  const makeDue = async (id: number): Promise<void> => {
    await h.store.execute(sql`update posts set date_gmt = now() - interval '1 second' where id = ${id}`)
  }

  t.test('a due post is published by the job alone', async (t) => {
    const cat = (await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Scheduled' } })).body.id
    const id = await schedule('Due soon', [cat])
    const notYet = await schedule('Not yet')
    t.equal((await h.call('GET', `/cms/v2/categories/${cat}`)).body.count, 0)
    await makeDue(id)
    const stop = startContentJobs(h.services, { intervalMs: 30 })
    t.ok(await waitFor(async () => await statusOf(h, id) === 'publish'), 'published without any request')
    await stop()
    t.equal(await statusOf(h, notYet), 'future', 'a post whose date is ahead stays scheduled')
    t.equal((await h.call('GET', `/cms/v2/categories/${cat}`)).body.count, 1, 'term counts follow')
    const anon = await h.call('GET', `/cms/v2/posts/${id}`)
    t.equal(anon.status, 200, 'now public')

    const later = await schedule('After stop')
    await makeDue(later)
    await new Promise((resolve) => setTimeout(resolve, 200))
    t.equal(await statusOf(h, later), 'future', 'a stopped job publishes nothing')
    t.same(await publishDuePosts(h.store), [later])
  })

  t.test('overlapping runs publish each post once', async (t) => {
    const ids = [await schedule('A'), await schedule('B'), await schedule('C')]
    for (const id of ids) await makeDue(id)
    const [a, b] = await Promise.all([publishDuePosts(h.store), publishDuePosts(h.store)])
    t.same([...a!, ...b!].sort(), [...ids].sort(), 'every post exactly once')
    t.same(await publishDuePosts(h.store), [], 'nothing left')
  })
})
