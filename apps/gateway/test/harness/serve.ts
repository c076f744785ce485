/**
 * The service in a process of its own, for tests that must time it from
 * outside (a stalled event loop would also stall a client in the same
 * process): `node --import tsx test/harness/serve.ts` builds the app with
 * `gatewayApp` (../helpers.ts; CMS_* settings from the environment, CMS_DEPLOYMENT picks the profile; PGlite, or
 * PostgreSQL with CMS_TEST_DATABASE_URL), makes an administrator, listens on
 * a loopback port and prints one JSON line: `{ base, headers, contributor }`
 * (an administrator's and a contributor's headers).
 * CMS_HARNESS_FIXTURE=quadratic adds test/fixtures/quadratic-package.ts (a
 * route slow on purpose) to the profile.
 */
import { gatewayApp, listenLoopback } from '../helpers.js'
import { createCaller } from '@cms/core/testing'
import { watchLoop } from './loop-watch.js'

// The CMS_* settings of this process's environment (the deployment, a raised URL limit) are the service's.
const settings = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('CMS_') && e[0] !== 'CMS_TEST_DATABASE_URL' && e[0] !== 'CMS_HARNESS_FIXTURE' && e[1] !== undefined))
const packages = process.env.CMS_HARNESS_FIXTURE === 'quadratic'
  ? [(await import('../fixtures/quadratic-package.js')).quadraticPackage]
  : undefined
const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', ...settings }, packages })
const admin = await createCaller(h.store, 'administrator')
// A contributor too: the stall harness sends what a contributor may send.
const contributor = await createCaller(h.store, 'contributor')
const base = await listenLoopback(h.app)
// STALL_TRACE=<file>: long macrotasks and a CPU profile of this process, from the first request on, written at SIGTERM (loop-watch.ts).
const trace = process.env.STALL_TRACE === undefined || process.env.STALL_TRACE === ''
  ? undefined
  : await watchLoop(`${process.env.STALL_TRACE}.${process.env.CMS_DEPLOYMENT ?? 'A'}.json`)

process.stdout.write(`${JSON.stringify({ base, headers: admin.headers, contributor: contributor.headers })}\n`)

const stop = (): void => { void (trace ?? (async () => {}))().then(async () => { await h.close() }).finally(() => process.exit(0)) }
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
// The test's end closes stdin: nothing is left running.
process.stdin.on('end', stop)
process.stdin.resume()
