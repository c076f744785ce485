import { harnessApp, createCaller } from './harness/app.js'
const h = await harnessApp({ CMS_DEPLOYMENT: 'A', LOG_LEVEL: 'error' })
const admin = await createCaller(h.store, 'administrator', 'x')
const v = 'a '.repeat(500_000) + '!'
for (const payload of [{ name: 'n3', slug: '[gallery '.repeat(100000) }]) {
  const t = performance.now()
  const r = await h.app.inject({ method: 'POST', url: '/cms-json/cms/v2/categories', headers: { ...admin.headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) })
  console.log(Object.keys(payload), r.statusCode, (performance.now() - t).toFixed(0), r.body.slice(0, 300))
}
await h.close()
