/**
 * The indexing figure of issue 20: 100,000 posts that existed before the
 * package indexed by repeated `POST /seo/v1/indexing/posts` calls, each
 * under one second and none growing the process's memory with the total.
 * Seeds with one insert ... select on a fresh database (PGlite, or
 * PostgreSQL with CMS_TEST_DATABASE_URL), then calls the route until
 * `next_url` is false, printing the slowest call, the 99th percentile and
 * the heap before, midway and after.
 *
 *   cd packages/seo && node --import tsx bench/indexing.ts [posts]
 */
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

const total = Number(process.argv[2] ?? 100_000)
const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
try {
  const editor = await h.caller('editor')
  const seeded = performance.now()
  await h.store.execute(`insert into posts (type, author, status, date_gmt, modified_gmt, slug, title, content)
    select 'post', ${editor.id}, 'publish', now(), now(), 'bench-' || g, 'Bench ' || g, '<p>Bench post ' || g || '</p>'
    from generate_series(1, ${total}) as g`)
  await h.store.execute('delete from cms_events')
  console.log(`seeded ${total} posts in ${Math.round(performance.now() - seeded)} ms`)
  await h.call('POST', '/seo/v1/indexing/prepare', { as: editor })
  const times: number[] = []
  const heap: number[] = []
  let next: unknown = true
  while (next !== false) {
    const started = performance.now()
    const res = await h.call('POST', '/seo/v1/indexing/posts', { as: editor })
    times.push(performance.now() - started)
    if (res.status !== 200) throw new Error(`call ${times.length}: ${res.status} ${JSON.stringify(res.body)}`)
    next = res.body.next_url
    if (times.length % 1000 === 1) heap.push(process.memoryUsage().heapUsed)
  }
  heap.push(process.memoryUsage().heapUsed)
  const sorted = [...times].sort((a, b) => a - b)
  const ms = (v: number): string => `${v.toFixed(1)} ms`
  console.log(`${times.length} calls; median ${ms(sorted[Math.floor(sorted.length / 2)]!)}, p99 ${ms(sorted[Math.floor(sorted.length * 0.99)]!)}, slowest ${ms(sorted.at(-1)!)}`)
  console.log(`heap (MB) every 1000 calls: ${heap.map((b) => (b / 1048576).toFixed(0)).join(' ')}`)
  const [row] = await h.store.execute<{ n: string }>("select count(*) as n from seo_indexables where object_type = 'post'")
  console.log(`indexables: ${row!.n}; every call under 1 s: ${sorted.at(-1)! < 1000 ? 'yes' : 'NO'}`)
} finally {
  await h.close()
}
