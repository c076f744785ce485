/**
 * The audit log in the whole service (profile A as the gateway composes it):
 * a post create, each request of a batch of three, a package route (the
 * page builder's favorites), read back through `GET /cms/v2/audit-log` with
 * its filters; entries for the package route name its own pattern and
 * object; `CMS_AUDIT_LOG=off` records nothing.
 */
import t from 'tap'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'
import { gatewayApp } from './helpers.js'

t.test('profile A: core, batch and package writes each leave their entry', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' } })
  t.teardown(h.close)
  const admin = await createCaller(h.store, 'administrator')
  const created = await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Through the gateway', status: 'publish' } })
  t.equal(created.status, 201)
  const batch = await call(h.app, 'POST', '/batch/v1', {
    as: admin,
    body: {
      requests: [
        { path: '/cms/v2/posts', body: { title: 'One' } },
        { path: '/cms/v2/posts', body: { title: 'Two' } },
        { method: 'PATCH', path: `/cms/v2/posts/${created.body.id}`, body: { status: 'draft' } }
      ]
    }
  })
  t.same(batch.body.responses.map((r: any) => r.status), [201, 201, 200])
  const favorite = await call(h.app, 'POST', '/builder/v1/favorites/widgets', { as: admin, body: { favorite: 'heading' } })
  t.equal(favorite.status, 200)

  const log = await call(h.app, 'GET', '/cms/v2/audit-log', { as: admin, query: { per_page: 100 } })
  t.equal(log.status, 200)
  t.equal(log.headers['x-cms-total'], '5', 'one create, three batched requests, one package write; no entry for the batch itself')
  t.same(log.body.map((e: any) => [e.method, e.route, e.object_type, e.object_id, e.status]).reverse(), [
    ['POST', '/cms/v2/posts', 'post', String(created.body.id), 201],
    ['POST', '/cms/v2/posts', 'post', String(batch.body.responses[0].body.id), 201],
    ['POST', '/cms/v2/posts', 'post', String(batch.body.responses[1].body.id), 201],
    ['PATCH', '/cms/v2/posts/(?P<id>[\\d]+)', 'post', String(created.body.id), 200],
    ['POST', '/builder/v1/favorites/(?P<id>[\\w]+)', 'builder/v1:favorites', 'widgets', 200]
  ])
  for (const e of log.body) t.match(e, { user: admin.id, credential: 'app-password', credential_id: admin.uuid })
  t.same(log.body[0].fields, ['favorite'], 'the package route\'s arguments, by name')
  t.same(log.body[1].values, { status: 'draft' })

  const mine = await call(h.app, 'GET', '/cms/v2/audit-log', { as: admin, query: { object_type: 'builder/v1:favorites' } })
  t.same(mine.body.map((e: any) => e.object_id), ['widgets'], 'filtered by a package\'s object type')
})

t.test('CMS_AUDIT_LOG=off: the same write leaves nothing', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', CMS_AUDIT_LOG: 'off' } })
  t.teardown(h.close)
  const admin = await createCaller(h.store, 'administrator')
  t.equal((await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Unrecorded' } })).status, 201)
  const log = await call(h.app, 'GET', '/cms/v2/audit-log', { as: admin })
  t.same([log.status, log.headers['x-cms-total'], log.body], [200, '0', []])
})
