/**
 * Who may call each route of addons-a/v1, addons-b/v1: the permission prober of
 * @cms/testing against each route's own `permission:` declaration,
 * anonymously and as a user of each role (the gateway's permissions test
 * does the same over the whole of profiles A and B).
 */
import t from 'tap'
import { checkPermissions, testApp } from '@cms/testing'
import { builderPackage } from '@cms/builder'
import { addonsPackage } from '../src/index.js'

const PROBED = ['addons-a/v1', 'addons-b/v1'].map((ns) => ` /${ns}`)

t.test('every route of addons-a/v1, addons-b/v1 answers as its declaration says', async (t) => {
  const h = await testApp({ packages: [builderPackage, addonsPackage], namespaces: ['cms/v2', 'builder/v1', 'addons-a/v1', 'addons-b/v1'] })
  t.teardown(h.close)
  const probed = await checkPermissions(t, h, { only: (target) => PROBED.some((prefix) => target.key.includes(prefix)) })
  t.equal(probed, 9, 'one case per route and method (and per declared case), the roots included')
})
