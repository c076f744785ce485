/**
 * @cms/testing: an app composed of a list of packages on a fresh database
 * (in-memory PGlite, or PostgreSQL when CMS_TEST_DATABASE_URL is set), users
 * of each role with an application password, and a call helper.
 *
 *   const t = await testApp({ packages: [builderPackage], namespaces: ['cms/v2', 'nps-survey/v1'] })
 *   const admin = await t.caller('administrator')
 *   const res = await t.call('POST', '/nps-survey/v1/rating', { as: admin, body: { ... } })
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { kernelServerOptions, restKernel } from '@cms/rest'
import { migrate, type Store } from '@cms/store'
import { openTestStore } from '@cms/store/testing'
import { call, type Answer, type CallOptions } from '@cms/rest/testing'
import { createCaller, type TestUser, type TestUserOptions } from '@cms/core/testing'
import {
  authenticator, corePackage, createServices, packageSettingsFromEnv, packagesFor, Platform,
  Upstreams, upstreamConfigFromEnv, type CmsPackage, type Role
} from '@cms/core'

export { standIn, type StandIn, type Received } from './standin.js'

export const BASE = 'http://cms.test'

export type { TestCaller } from '@cms/rest/testing'

export interface TestApp {
  app: FastifyInstance
  store: Store
  platform: Platform
  /** A new user of `role` with an application password. */
  caller: (role: Role, opts?: TestUserOptions) => Promise<TestUser>
  /** Calls a REST route (`/ns/route`) of the app. */
  call: (method: string, path: string, opts?: CallOptions) => Promise<Answer>
  close: () => Promise<void>
}

export interface TestAppOptions {
  /** Packages besides the core. */
  packages?: readonly CmsPackage[]
  /** Namespaces served (default: every namespace of the given packages and the core). */
  namespaces?: readonly string[]
  /** Per-namespace options, as a profile gives them. */
  namespaceOptions?: Record<string, Record<string, unknown>>
  /** Settings as the environment gives them (`CMS_UPSTREAM_<NAME>_URL`..., `CMS_PACKAGE_SOURCE`...): the upstreams and package source configured. */
  env?: Record<string, string>
  /** The content directory (default: one that does not exist). */
  contentDir?: string
}

/** Composes the packages as the gateway does (platform, migrations, kernel) on a fresh database. */
export async function testApp (opts: TestAppOptions = {}): Promise<TestApp> {
  const catalog = [corePackage, ...(opts.packages ?? [])]
  const namespaces = opts.namespaces ?? catalog.flatMap((p) => p.namespaces)
  const store = await openTestStore({ migrate: false })
  const app = Fastify({ ...kernelServerOptions(), logger: false })
  const services = createServices({
    store,
    settings: { profile: 'test', contentDir: opts.contentDir ?? '/nonexistent', packages: packageSettingsFromEnv(opts.env ?? {}) },
    upstreams: new Upstreams(upstreamConfigFromEnv(opts.env ?? {}))
  })
  const platform = new Platform(services, namespaces, opts.namespaceOptions)
  try {
    for (const pkg of packagesFor(catalog, namespaces, ['@cms/core'])) await app.register(pkg.plugin, { platform })
    app.decorate('platform', platform)
    await migrate(store, platform.migrationSets())
    await app.register(restKernel, { namespaces: platform.namespaces(), routes: platform.routes(), authenticate: authenticator(services), baseUrl: BASE })
    await app.ready()
  } catch (err) {
    await app.close().catch(() => {})
    await store.close()
    throw err
  }
  return {
    app,
    store,
    platform,
    caller: async (role, o) => await createCaller(store, role, o),
    call: async (method, path, o) => await call(app, method, path, o),
    close: async () => {
      await app.close()
      await store.close()
    }
  }
}
