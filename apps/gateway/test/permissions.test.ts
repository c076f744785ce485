/**
 * The permission matrix: every served route and method of profiles A and B,
 * probed anonymously and as a user of each role, against the rows its own
 * declaration produces (`permission:` of each endpoint; a capability's row
 * follows the roles' grants). A difference fails, and so does a route that
 * declares no case. Each package runs the same prober over its own routes
 * (`checkPermissions` of @cms/testing).
 */
import t from 'tap'
import { checkPermissions } from '@cms/core/testing'
import { profilesUnderTest } from './harness/target.js'
import { gatewayApp } from './helpers.js'

for (const profile of profilesUnderTest()) {
  t.test(`profile ${profile}`, async (t) => {
    const h = await gatewayApp({ env: { CMS_DEPLOYMENT: profile } })
    t.teardown(h.close)
    const probed = await checkPermissions(t, h)
    t.ok(probed > 100, `${probed} cases probed`)
  })
}
