/**
 * The index of each profile against routes.json, the reference as data.
 * Every route a profile serves must match its manifest entry method by
 * method and argument by argument; a namespace is either not started (root
 * route only) or complete; routes outside the manifest are allowed only in
 * namespaces the reference does not show in full, or does not list at all (a
 * namespace a profile's file adds).
 */
import t, { type Test } from 'tap'
import { profilesUnderTest } from './harness/target.js'
import { gatewayApp, getJson, manifest, type ManifestRoute } from './helpers.js'

/**
 * Namespaces served in parts: the reference routes of each that are not
 * served yet, with where they are to come from. The list is exact: a listed
 * route that is served fails (take it off), and every other route of the
 * namespace must be served. The routes still to come are reported as a
 * comment on each run.
 */
const NOT_YET_SERVED: Record<string, { why: string, routes: readonly string[] }> = {
}

const COMPARED = ['type', 'enum', 'default', 'minimum', 'maximum', 'pattern', 'items', 'format', 'maxItems', 'maxLength', 'uniqueItems', 'properties', 'additionalProperties', 'oneOf'] as const
const SKIPPED = new Set(['note', 'notes', 'section', 'type_as_written', 'enum_unknown', 'path_variable'])

/** Compares the keys the manifest states; nested schemas recursively. */
function compareSchema (t: Test, where: string, expected: any, actual: any): void {
  if (typeof expected !== 'object' || expected === null) {
    t.same(actual, expected, where)
    return
  }
  if (Array.isArray(expected)) {
    t.same(actual, expected, where)
    return
  }
  if (typeof actual !== 'object' || actual === null) {
    t.fail(`${where}: expected an object, got ${JSON.stringify(actual)}`)
    return
  }
  for (const [key, value] of Object.entries(expected)) {
    if (SKIPPED.has(key)) continue
    compareSchema(t, `${where}.${key}`, value, actual[key])
  }
}

function argsFor (route: ManifestRoute, index: number, deployment: string): Record<string, any> {
  return index === 0 && route.deployment_variants?.[deployment] !== undefined
    ? route.deployment_variants[deployment]!
    : route.endpoints[index]!.args
}

for (const deployment of profilesUnderTest()) {
  t.test(`deployment ${deployment}: the index conforms to routes.json`, async (t) => {
    const { app, close } = await gatewayApp({ env: { CMS_DEPLOYMENT: deployment } })
    t.teardown(close)
    const { body } = await getJson(app, '/index.php?rest_route=/')
    const live: Record<string, any> = body.routes
    const info = manifest.deployments[deployment]!
    const expected = manifest.routes.filter((r) => r.deployments.includes(deployment))
    const byKey = new Map(expected.map((r) => [r.route, r]))
    let compared = 0

    for (const [key, entry] of Object.entries(live)) {
      const m = byKey.get(key)
      if (m === undefined) {
        // A namespace the reference does not list is the profile's own (a package added to its
        // file): its routes answer to their own declarations (permissions.test.ts, openapi.test.ts).
        const own = !info.namespaces.includes(entry.namespace)
        const open = own || info.not_shown_namespaces.includes(entry.namespace) || entry.namespace in info.partially_shown_namespaces
        t.ok(open, `${key}: served but not in routes.json, in a namespace the reference shows in full`)
        continue
      }
      compared++
      t.equal(entry.namespace, m.namespace, `${key} namespace`)
      t.same([...entry.methods].sort(), [...m.methods].sort(), `${key} methods`)
      m.endpoints.forEach((mEndpoint, i) => {
        for (const method of mEndpoint.methods) {
          const ep = entry.endpoints.find((e: any) => e.methods.includes(method))
          if (ep === undefined) {
            t.fail(`${key} ${method}: no endpoint`)
            continue
          }
          t.equal(ep.allow_batch?.v1 === true, mEndpoint.allow_batch, `${key} ${method} allow_batch`)
          const mArgs = argsFor(m, i, deployment)
          const liveArgs = Array.isArray(ep.args) ? {} : ep.args
          // The index lists every path variable in each endpoint (as the core's route-level args);
          // the manifest lists one only where the reference names it as a parameter (routes.md, decision 16).
          const vars = [...key.matchAll(/\(\?P<(\w+)>/g)].map((v) => v[1]!)
          for (const v of vars) t.ok(liveArgs[v] !== undefined, `${key} ${method}: path variable ${v} listed`)
          if (mEndpoint.args_complete !== false) {
            const names = Object.keys(liveArgs).filter((n) => !vars.includes(n) || n in mArgs)
            t.same(names.sort(), Object.keys(mArgs).sort(), `${key} ${method} argument names`)
          }
          for (const [name, mArg] of Object.entries(mArgs)) {
            const arg = liveArgs[name]
            if (arg === undefined) {
              t.fail(`${key} ${method}: argument ${name} missing`)
              continue
            }
            t.equal(arg.required, mArg.required === true, `${key} ${method} ${name}.required`)
            for (const k of COMPARED) {
              if (k in mArg) compareSchema(t, `${key} ${method} ${name}.${k}`, mArg[k], arg[k])
            }
          }
        }
      })
    }

    // A namespace is either not started (root only), complete, or served in parts with the rest listed exactly.
    for (const ns of info.namespaces) {
      const served = Object.values(live).filter((e: any) => e.namespace === ns).length
      if (served <= 1) continue
      const later = NOT_YET_SERVED[ns]
      for (const m of expected.filter((r) => r.namespace === ns)) {
        if (later?.routes.includes(m.route) === true) t.notOk(live[m.route], `${m.route} is served: take it off NOT_YET_SERVED`)
        else t.ok(live[m.route], `${ns} is started, so ${m.route} must be served`)
      }
      if (later !== undefined) {
        for (const r of later.routes) t.ok(expected.some((m) => m.route === r), `NOT_YET_SERVED names ${r}, a route of the reference`)
        t.comment(`${ns}: ${later.routes.length} reference routes not served yet (${later.why})`)
      }
    }
    for (const m of expected.filter((r) => r.namespace === '')) t.ok(live[m.route], `${m.route} served`)
    t.ok(compared >= info.namespaces.length, `compared ${compared} routes`)
  })
}
