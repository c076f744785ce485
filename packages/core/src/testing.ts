/**
 * Test helpers (`@cms/core/testing`): the one way tests build an app and make
 * a user who calls its routes. `testApp` composes packages on a fresh
 * database (in-memory PGlite, or PostgreSQL when CMS_TEST_DATABASE_URL is
 * set) as the gateway does (apps/gateway/src/app.ts: platform, packages,
 * migrations, kernel, uploaded files); `createCaller` makes a `TestCaller` of
 * `@cms/rest/testing` with an application password. `@cms/testing`
 * re-exports both; the core's own tests use them from here (they cannot
 * depend on `@cms/testing`, which depends on the core).
 *
 *   const t = await testApp({ packages: [builderPackage], namespaces: ['cms/v2', 'nps-survey/v1'] })
 *   const admin = await t.caller('administrator')
 *   const res = await t.call('POST', '/nps-survey/v1/rating', { as: admin, body: { ... } })
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { kernelServerOptions, restKernel, type NamespaceDecl } from '@cms/rest'
import { call, type Answer, type CallOptions } from '@cms/rest/testing'
import type { Store } from '@cms/store'
import { migrateTestStore, openTestStore } from '@cms/store/testing'
import type { Role } from './users/capabilities.js'
import { mediaFiles } from './content/media/files.js'
import { corePackage } from './package.js'
import { packageSettingsFromEnv } from './platform/package-settings.js'
import { definePackage, Platform, registerPackages, remotePagesOf, type CmsPackage } from './platform.js'
import { createServices, type Services } from './services.js'
import { Upstreams, upstreamConfigFromEnv } from './platform/upstream.js'
import { authenticator } from './users/index.js'
import { RATE_LIMIT_DEFAULTS, type RateLimitOptions } from './platform/rate-limits/limits.js'
import { webhookSettingsFromEnv } from './webhooks/settings.js'
import { createCaller, type TestUser, type TestUserOptions } from './probe/callers.js'
import { auditObserver, type AuditSettings } from './audit/index.js'

export type { TestCaller } from '@cms/rest/testing'
export { createCaller, type TestUser, type TestUserOptions } from './probe/callers.js'
export { checkPermissions, prober, outcomeOf, type Assertions, type CheckPermissionsOptions, type ProbedApp, type Prober, type ProbeResult } from './probe/prober.js'
export { bodyArgs, encodeParams, fillPath, inject, sampleVar, targetsOf, typesOf, urlOf, validValue, type Addressing, type HttpRequest, type HttpResponse, type Target } from './probe/requests.js'

/** The base URL test apps answer for (links, `Location`), unless `baseUrl` says otherwise. */
export const BASE = 'http://cms.test'

export interface TestApp {
  app: FastifyInstance
  store: Store
  platform: Platform
  /** The services the packages were handed (`platform.services`). */
  services: Services
  /** A new user of `role` with an application password. */
  caller: (role: Role, opts?: TestUserOptions) => Promise<TestUser>
  /** Calls a REST route (`/ns/route`) of the app. */
  call: (method: string, path: string, opts?: CallOptions) => Promise<Answer>
  /** Closes the app (and the database, unless it was given as `store`); `app.close()` does the same. */
  close: () => Promise<void>
}

export interface TestAppOptions {
  /**
   * Packages besides the core. Those serving none of `namespaces` are left
   * out, as the gateway leaves them out; a package that declares no
   * namespace at all (a fixture adding meta or fields) is always registered.
   */
  packages?: readonly CmsPackage[]
  /** Namespaces served, in the index's order (default: every namespace of the given packages and the core). */
  namespaces?: readonly string[]
  /** Per-namespace options, as a profile gives them. */
  namespaceOptions?: Record<string, Record<string, unknown>>
  /** Served namespaces another service serves (namespace -> its base URL), proxied as `CMS_REMOTE_NAMESPACES` does. */
  remote?: Record<string, string>
  /** Settings as the environment gives them (`CMS_UPSTREAM_<NAME>_URL`..., `CMS_PACKAGE_SOURCE`...): the upstreams and package source configured. */
  env?: Record<string, string>
  /** The content directory (default: one that does not exist). */
  contentDir?: string
  /** The largest upload in bytes (`CMS_UPLOAD_MAX_BYTES`; default the core's). */
  uploadMaxBytes?: number
  /** Most pixels of an image (`CMS_IMAGE_MAX_PIXELS`) and images made at once (`CMS_IMAGE_CONCURRENCY`); default the core's. */
  images?: { maxPixels?: number, concurrency?: number }
  /** What a JSON body or builder data may hold (`CMS_JSON_MAX_DEPTH`, `CMS_TEXT_MAX_STRINGS`); default the kernel's. */
  textLimits?: { maxDepth: number, maxStrings: number }
  /** The audit log's settings beside `enabled` (a test that counts statements keeps its flush timer out of the way). */
  audit?: Omit<Partial<AuditSettings>, 'enabled'>
  /** The text pool's threads and queue (`CMS_TEXT_THREADS`, `CMS_TEXT_QUEUE`); default the core's. */
  textPool?: { threads?: number, queue?: number }
  /** The deployment's environment (`CMS_ENVIRONMENT`: `local` lets the authorization page redirect to plain http). */
  environment?: string
  /** A database to share with another app (already migrated or not; closed by whoever opened it). Default: a fresh one, closed with the app. */
  store?: Store
  /** The base URL the app answers for (default `BASE`). */
  baseUrl?: string
  /** Reuse anonymous answers while nothing is committed, as the gateway does (default: off, every request computed). */
  horizon?: boolean
  /** When given, every log line (at the most verbose level) is pushed here; default: no logging. */
  logLines?: string[]
  /** Serve `/openapi.json` (and `/docs/`) with this title and version, as the gateway does; default: not served. */
  openapi?: { title: string, version: string }
  /**
   * Rate limits on, with these settings over the defaults (and a clock of the
   * test's own in `now`); default: off, as suites send thousands of requests from one address.
   */
  rateLimits?: Partial<RateLimitOptions['settings']>
}

/** Composes the packages as the gateway does (platform, migrations, kernel, uploaded files) on a fresh database. */
export async function testApp (opts: TestAppOptions = {}): Promise<TestApp> {
  const catalog = [corePackage, ...(opts.packages ?? [])]
  const namespaces = opts.namespaces ?? catalog.flatMap((p) => p.namespaces)
  const remote = opts.remote ?? {}
  const local = namespaces.filter((ns) => remote[ns] === undefined)
  const always = ['@cms/core', ...catalog.filter((p) => p.namespaces.length === 0).map((p) => p.name)]
  const store = opts.store ?? await openTestStore({ migrate: 'later' })
  const lines = opts.logLines
  const app = Fastify({
    ...kernelServerOptions(),
    logger: lines === undefined ? false : { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } }
  })
  if (opts.store === undefined) app.addHook('onClose', async () => { await store.close() })
  const env = opts.env ?? {}
  const services = createServices({
    store,
    settings: { profile: 'test', contentDir: opts.contentDir ?? '/nonexistent', uploadMaxBytes: opts.uploadMaxBytes, imageMaxPixels: opts.images?.maxPixels, imageConcurrency: opts.images?.concurrency, textPool: opts.textPool, textLimits: opts.textLimits, environment: opts.environment, packages: packageSettingsFromEnv(env), commentsAnonymous: env.CMS_COMMENTS_ANONYMOUS === '1', webhooks: webhookSettingsFromEnv(env), audit: { ...opts.audit, enabled: env.CMS_AUDIT_LOG !== 'off' }, ...(opts.rateLimits === undefined ? {} : { rateLimits: { ...RATE_LIMIT_DEFAULTS, ...opts.rateLimits } }), ...(env.CMS_ADMIN_URL === undefined ? {} : { adminUrl: env.CMS_ADMIN_URL }) },
    upstreams: new Upstreams(upstreamConfigFromEnv(env))
  })
  const platform = new Platform(services, namespaces, opts.namespaceOptions, local)
  try {
    await registerPackages(app, platform, catalog, namespaces, local, always)
    app.decorate('platform', platform)
    // A store made for later (its own, or one of `openTestStores`) becomes a copy of the template of these sets.
    await migrateTestStore(store, platform.migrationSets())
    await app.register(restKernel, {
      namespaces: platform.namespaces(),
      routes: platform.routes(),
      authenticate: authenticator(services),
      baseUrl: opts.baseUrl ?? BASE,
      textLimits: opts.textLimits,
      remote: opts.remote,
      remotePages: remotePagesOf(catalog, remote),
      snapshot: opts.horizon === true ? async () => await store.snapshot() : undefined,
      openapi: opts.openapi,
      onWrite: auditObserver(services.audit)
    })
    await app.register(mediaFiles, { services })
    await app.ready()
  } catch (err) {
    await app.close().catch(() => {})
    if (opts.store === undefined) await store.close().catch(() => {})
    throw err
  }
  return {
    app,
    store,
    platform,
    services,
    caller: async (role, o) => await createCaller(store, role, o),
    call: async (method, path, o) => await call(app, method, path, o),
    close: async () => { await app.close() }
  }
}

/** A package serving one namespace a test declares (its routes as they are): for a fixture namespace beside the core's. */
export function namespacePackage (ns: NamespaceDecl): CmsPackage {
  return definePackage({
    name: `fixture:${ns.name}`,
    namespaces: [ns.name],
    serve (api) { api.namespace(ns.name, () => ns.routes) }
  })
}

/**
 * Runs `work` with JSON.stringify on this thread watched: the sizes of what
 * it wrote over 64 KiB, `except` (texts the test itself writes: request
 * bodies) aside. Issue 27: a megabyte written as JSON on the request thread
 * was one long task; tests count such calls, never time them.
 */
export async function largeStringifies<T> (except: string | readonly string[], work: () => Promise<T>): Promise<{ value: T, sizes: number[] }> {
  const own = typeof except === 'string' ? [except] : except
  const sizes: number[] = []
  const stringify = JSON.stringify
  JSON.stringify = function (this: unknown, ...args: Parameters<typeof stringify>): string {
    const out = stringify.apply(JSON, args)
    if (typeof out === 'string' && out.length > 64 * 1024 && !own.includes(out)) sizes.push(out.length)
    return out
  } as typeof JSON.stringify
  try {
    return { value: await work(), sizes }
  } finally {
    JSON.stringify = stringify
  }
}
