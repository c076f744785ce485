/**
 * Who may call each route of builder/v1 (its documents and feedback
 * included), builder-ai/v1 and nps-survey/v1: the permission prober of
 * @cms/testing against each route's own `permission:` declaration,
 * anonymously and as a user of each role (the gateway's permissions test
 * does the same over the whole of profiles A and B).
 */
import t from 'tap'
import { checkPermissions, testApp } from '@cms/testing'
import { builderPackage } from '../src/index.js'

const PROBED = ['builder/v1', 'builder-ai/v1', 'nps-survey/v1'].map((ns) => ` /${ns}`)

t.test('every route of builder/v1, builder-ai/v1, nps-survey/v1 answers as its declaration says', async (t) => {
  const h = await testApp({ packages: [builderPackage], namespaces: ['cms/v2', 'builder/v1', 'builder/v1/documents', 'builder-ai/v1', 'nps-survey/v1', 'builder/v1/feedback'] })
  t.teardown(h.close)
  const probed = await checkPermissions(t, h, { only: (target) => PROBED.some((prefix) => target.key.includes(prefix)) })
  t.equal(probed, 53, 'one case per route and method (and per declared case), the roots included')
})
