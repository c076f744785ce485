import { harnessApp } from './harness/app.js'
const h = await harnessApp({ CMS_DEPLOYMENT: 'A' })
const N = 1_000_000
for (let i = 0; i < 3; i++) await h.app.inject({ url: '/cms-json/cms/v2/posts' })
for (const [k, q] of Object.entries({ '[': '['.repeat(N), 'a=': 'a='.repeat(N/2), 'a[': 'a['.repeat(N/2), '%5B': '%5B'.repeat(N / 3)})) {
  for (let i = 0; i < 2; i++) {
  const t = performance.now()
  const r = await h.app.inject({ url: '/cms-json/cms/v2/posts?' + q + '&i=' + i })
  console.log(k, r.statusCode, (performance.now() - t).toFixed(0), r.body.slice(0, 100))
  }
}
await h.close()
