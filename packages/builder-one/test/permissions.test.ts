/**
 * Who may call each route of builder-one/v1: the permission prober of
 * @cms/testing against each route's own `permission:` declaration,
 * anonymously and as a user of each role (the gateway's permissions test
 * does the same over the whole of profiles A and B).
 */
import t from 'tap'
import { registryPackage } from '@cms/registry'
import { checkPermissions, scratchDir, testApp } from '@cms/testing'
import { builderOnePackage } from '../src/index.js'

const PROBED = ['builder-one/v1'].map((ns) => ` /${ns}`)

t.test('every route of builder-one/v1 answers as its declaration says', async (t) => {
  const contentDir = await scratchDir('builder-one-probe-content')
  const h = await testApp({ packages: [registryPackage, builderOnePackage], namespaces: ['cms/v2', 'builder-one/v1'], contentDir })
  t.teardown(h.close)
  const probed = await checkPermissions(t, h, { only: (target) => PROBED.some((prefix) => target.key.includes(prefix)) })
  t.equal(probed, 23, 'one case per route and method (and per declared case), the roots included')
})
