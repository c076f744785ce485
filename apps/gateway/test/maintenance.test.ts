/**
 * Maintenance mode through the composed gateway: while a window is open,
 * anonymous content reads (cms/v2 and oEmbed, GET and HEAD, in both address
 * forms) answer 503 with `Retry-After`, kept answers included; writes,
 * signed-in callers and the other routes are not held. The check is added
 * to the content routes only (packages/core/src/platform/maintenance.ts).
 */
import t from 'tap'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'
import { gatewayApp } from './helpers.js'

t.test('a maintenance window holds anonymous content reads, and only those', async (t) => {
  const h = await gatewayApp()
  t.teardown(h.close)
  const { app } = h
  const admin = await createCaller(h.store, 'administrator')
  const created = await call(app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Held', content: 'Text.', status: 'publish' } })
  t.equal(created.status, 201)
  const single = `/cms/v2/posts/${created.body.id as number}`
  const link = created.body.link as string

  // Answered twice, so the second comes from the kept answers.
  t.equal((await call(app, 'GET', single)).status, 200)
  t.equal((await call(app, 'GET', single)).status, 200)

  const maintenance = app.platform.services.maintenance
  const enabledFrom = Date.now()
  await maintenance.enable('test:window', { seconds: 120 })

  const held = await call(app, 'GET', single)
  t.same([held.status, held.body.code, held.body.data.status], [503, 'rest_maintenance', 503], 'a kept anonymous answer is not served')
  const retry = Number(held.headers['retry-after'])
  // The window's seconds left, rounded up: all 120 within a second of the enable, and less only by the seconds
  // since (a loaded machine can take seconds between the enable and the answer).
  const passed = Date.now() - enabledFrom
  t.ok(retry <= 120 && retry >= 120 - Math.floor(passed / 1000), `Retry-After ${retry}, ${passed} ms after the enable began`)
  t.equal((await call(app, 'HEAD', single)).status, 503, 'HEAD too')
  t.equal((await call(app, 'GET', '/cms/v2/posts')).status, 503, 'the list')
  t.equal((await app.inject({ method: 'GET', url: `/index.php?rest_route=${single}` })).statusCode, 503, 'the ?rest_route= form')
  t.equal((await call(app, 'GET', '/oembed/1.0/embed', { query: { url: link } })).status, 503, 'oEmbed')

  t.equal((await call(app, 'GET', single, { as: admin })).status, 200, 'a signed-in caller reads')
  t.equal((await call(app, 'POST', '/cms/v2/posts', { body: { title: 'x' } })).status, 401, 'an anonymous write is answered as ever (not held)')
  t.equal((await call(app, 'GET', '/')).status, 200, 'the index is not a content read')
  t.equal((await call(app, 'OPTIONS', single)).status, 200, 'OPTIONS is not held')

  t.ok(await maintenance.disable('test:window'))
  t.equal((await call(app, 'GET', single)).status, 200, 'reads again once the window ends')
})
