/**
 * @cms/testing: an app composed of a list of packages on a fresh database
 * (in-memory PGlite, or PostgreSQL when CMS_TEST_DATABASE_URL is set), users
 * of each role with an application password, and a call helper. The builder
 * lives in `@cms/core/testing` (the core's own tests use it there); this
 * package re-exports it for the other packages, with `standIn`.
 *
 *   const t = await testApp({ packages: [builderPackage], namespaces: ['cms/v2', 'nps-survey/v1'] })
 *   const admin = await t.caller('administrator')
 *   const res = await t.call('POST', '/nps-survey/v1/rating', { as: admin, body: { ... } })
 *   await checkPermissions(tap, t)   // every route probed as anonymous and each role against its `permission:`
 */
export { standIn, type StandIn, type Received } from './standin.js'
export { scratchDir } from './scratch.js'
export { BASE, largeStringifies, testApp, type TestApp, type TestAppOptions, type TestCaller } from '@cms/core/testing'
// The permission prober: every route of an app against the rows its declarations produce.
export { checkPermissions, type CheckPermissionsOptions } from '@cms/core/testing'
