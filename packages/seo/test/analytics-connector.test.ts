/**
 * analytics-connector/v1 (profile B) is the SEO package's: its root route
 * (the only one the reference shows) answers from the package, listed in
 * the index, public as every namespace root; with the package's namespaces
 * left out it is not served.
 */
import t from 'tap'
import { checkPermissions, testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

t.test('analytics-connector/v1', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1', 'analytics-connector/v1'] })
  t.teardown(h.close)
  const root = await h.call('GET', '/analytics-connector/v1')
  t.equal(root.status, 200)
  t.match(root.body, { namespace: 'analytics-connector/v1', routes: { '/analytics-connector/v1': { namespace: 'analytics-connector/v1', methods: ['GET'] } } })
  t.same(Object.keys(root.body.routes), ['/analytics-connector/v1'], 'the root only, as the reference shows')
  const index = await h.call('GET', '/')
  t.ok(index.body.namespaces.includes('analytics-connector/v1'), 'in the index')
  t.equal(await checkPermissions(t, h, { only: (target) => target.key.includes('/analytics-connector/v1') }), 1)

  const without = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
  t.teardown(without.close)
  t.equal((await without.call('GET', '/analytics-connector/v1')).status, 404, 'not served where the deployment leaves it out')
})
