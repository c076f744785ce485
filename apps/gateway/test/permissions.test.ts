/**
 * The permission matrix: every served route and method, probed anonymously
 * and as a user of each role, against the expected outcomes every composed
 * package keeps beside its routes (the core's in
 * packages/core/src/platform/permissions-table.ts), concatenated by the platform.
 * A difference fails, and so does a served route without a case.
 */
import t from 'tap'
import { casesOf, type CallerKind } from '@cms/core'
import { gatewayApp } from './helpers.js'
import { targetsOf } from './harness/routes.js'
import { prober } from './harness/permissions.js'

for (const profile of ['A', 'B'] as const) {
  t.test(`profile ${profile}`, async (t) => {
    const h = await gatewayApp({ env: { CMS_DEPLOYMENT: profile } })
    t.teardown(h.close)
    const targets = targetsOf(h.app)
    const permissionsTable = h.app.platform.permissionCases()
    const missing = targets.filter((target) => permissionsTable[target.key] === undefined).map((target) => target.key)
    t.same(missing, [], 'every served route and method has a permission case')

    const p = await prober(h)
    for (const target of targets) {
      const entry = permissionsTable[target.key]
      if (entry === undefined) continue
      for (const [i, c] of casesOf(entry).entries()) {
        const label = `${target.key}${casesOf(entry).length > 1 ? ` (case ${i + 1}: ${c.why})` : ''}`
        let results
        try {
          results = await p.probe(target, c)
        } catch (err) {
          t.fail(`${label}: ${(err as Error).message}`)
          continue
        }
        const actual = Object.fromEntries(results.map((r) => [r.kind, r.outcome])) as Record<CallerKind, unknown>
        const expected = Object.fromEntries(results.map((r) => [r.kind, c[r.kind]]))
        const details = results.filter((r) => r.outcome !== c[r.kind]).map((r) => `${r.kind}: ${r.status} ${r.body}`)
        t.same(actual, expected, label, details.length === 0 ? {} : { diagnostic: true, answers: details, rule: c.why })
      }
    }
  })
}
