/**
 * The gateway under test: the real composition (`buildApp`) for a profile on
 * a fresh, migrated database (in-memory PGlite, or the PostgreSQL server
 * named by CMS_TEST_DATABASE_URL). Every gateway test builds its app here;
 * callers come from the shared pieces (`createCaller` of @cms/core/testing,
 * `call` and `anonymous` of @cms/rest/testing).
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import type { Store } from '@cms/store'
import { openStore } from '@cms/store'
import { migrateTestStore, openTestStore, openTestStores } from '@cms/store/testing'
import type { CmsPackage } from '@cms/core'
import { buildApp, type BuildOptions } from '../src/app.js'
import { loadSettings } from '../src/settings.js'
import { injectInto, testTarget } from './harness/target.js'

export const BASE = 'http://cms.test'

export interface GatewayAppOptions {
  /** CMS_* settings over the tests' own (base URL BASE, silent log, a content directory of the app's own, rate limits off); CMS_DEPLOYMENT picks the profile. */
  env?: Record<string, string>
  /**
   * A store the test keeps (several apps on one database, or one opened its
   * own way, unmigrated or with older migrations): migrated by the app as at
   * start (one of `openTestStore({ migrate: 'later' })` made, on PostgreSQL, a
   * copy of the template of the app's migration sets by its first app), left
   * open at close. Default: a fresh store with the core's migrations, closed
   * with the app.
   */
  store?: Store
  /** Background jobs (scheduled publishing, the lifecycle-event worker...). Default off: the tests drive everything through requests. */
  jobs?: boolean
  /** A test's fixture packages, served beside the installed ones: the profile is the named one plus their namespaces. */
  packages?: readonly CmsPackage[]
  /** Fastify's logger (a test reading the log lines passes its stream). Default none. */
  logger?: BuildOptions['logger']
}

export interface GatewayApp {
  app: FastifyInstance
  store: Store
  /** The profile's name (CMS_DEPLOYMENT). */
  profile: string
  /**
   * Closes the app, then its own store (a store the test passed stays open).
   * Once, however often called. `app.close()` alone is enough with a passed
   * store; the content directory goes with the app either way.
   */
  close: () => Promise<void>
}

/**
 * With CMS_TEST_TARGET set (harness/target.ts), the app is built on the
 * target's database and its `inject` sends to the target over HTTP.
 */
export async function gatewayApp (opts: GatewayAppOptions = {}): Promise<GatewayApp> {
  const target = testTarget()
  // Uploads go to a directory of this app's own, removed when it closes.
  const content = mkdtempSync(join(tmpdir(), 'cms-test-content-'))
  const removeContent = async (): Promise<void> => { await rm(content, { recursive: true, force: true }) }
  // Rate limits off: the suites send thousands of requests from one address; a test turns them on with CMS_RATE_LIMITS=on.
  const settings = loadSettings({ CMS_BASE_URL: BASE, LOG_LEVEL: 'silent', CMS_DATA_DIR: '/nonexistent-not-used', CMS_CONTENT_DIR: content, CMS_RATE_LIMITS: 'off', ...opts.env })
  const named = settings.profile
  const profile = opts.packages === undefined ? undefined : { ...named, namespaces: [...named.namespaces, ...opts.packages.flatMap((p) => p.namespaces)] }
  const own = opts.store === undefined
  // Against a deployment, its own database (already migrated by its job; the app checks as at start).
  const store = opts.store ?? (target === undefined ? await openTestStore({ migrate: 'later' }) : await openStore({ databaseUrl: target.databaseUrl, poolSize: 5 }))
  let app: FastifyInstance | undefined
  try {
    app = await buildApp(settings, { store, logger: opts.logger ?? false, jobs: opts.jobs ?? false, packages: opts.packages, profile, migrate: target === undefined ? migrateTestStore : undefined })
    app.addHook('onClose', removeContent)
    if (target !== undefined) {
      if (settings.deployment !== target.profile) throw new Error(`a test asked for profile ${settings.deployment}; the target CMS_TEST_TARGET serves ${target.profile}`)
      injectInto(app, target.base, BASE)
    }
    await app.ready()
  } catch (err) {
    // A composition that fails to start (a test may expect it to) leaves nothing behind.
    await app?.close().catch(() => {})
    if (own) await store.close()
    await removeContent()
    throw err
  }
  const started = app
  let closed: Promise<void> | undefined
  return {
    app: started,
    store,
    profile: settings.deployment,
    close: async () => {
      closed ??= (async () => {
        await started.close()
        if (own) await store.close()
      })()
      await closed
    }
  }
}

/**
 * Two stores on one database, for two apps standing for two replicas
 * (PostgreSQL: two pools, as two processes; PGlite: the same in-memory store
 * twice), made by the first app from the template of its migrations.
 * Closed (and the database dropped) when the test ends.
 */
export async function twoStores (t: { teardown: (fn: () => Promise<void>) => void }): Promise<[Store, Store]> {
  const [one, two] = await openTestStores(2, { poolSize: 3 })
  t.teardown(async () => { await one!.close(); await two!.close() })
  return [one!, two!]
}

/** Listens on a free loopback port; returns `http://127.0.0.1:PORT`. */
export async function listenLoopback (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address() as AddressInfo
  return `http://127.0.0.1:${address.port}`
}

// The route manifest, copied into the repository from the reference (fixtures/README.md says from where).
const manifestPath = fileURLToPath(new URL('./fixtures/routes.json', import.meta.url))

export interface ManifestRoute {
  route: string
  path: string
  namespace: string
  deployments: string[]
  methods: string[]
  endpoints: Array<{ methods: string[], allow_batch: boolean, args: Record<string, any>, args_complete?: boolean }>
  deployment_variants?: Record<string, Record<string, any>>
}

export interface Manifest {
  deployments: Record<string, { namespaces: string[], not_shown_namespaces: string[], partially_shown_namespaces: Record<string, string> }>
  routes: ManifestRoute[]
}

export const manifest: Manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))

// Not @cms/rest/testing's call: GETs whole URLs (/healthz, /openapi.json, the ?rest_route= form the discovery tests check).
export async function getJson (app: FastifyInstance, url: string, headers: Record<string, string> = {}): Promise<{ status: number, headers: Record<string, any>, body: any }> {
  const res = await app.inject({ method: 'GET', url, headers })
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? null : JSON.parse(res.body) }
}
