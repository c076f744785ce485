/**
 * Test harness of the users module: the REST kernel with cms/v2, the
 * authenticator and the admin pages, on a fresh migrated database.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { kernelServerOptions, restKernel } from '@cms/rest'
import type { Store } from '@cms/store'
import { openTestStore } from '@cms/store/testing'
import { authenticator, authorizePage, coreMigrations, createServices, cmsV2Namespace, siteRoutes, type Services } from '../src/index.js'
import { registerPackageMeta } from './fixtures/package-meta.js'

export const BASE = 'http://cms.test'

export interface Harness {
  app: FastifyInstance
  store: Store
  services: Services
}

export async function usersApp (opts: { environment?: string, logLines?: string[], baseUrl?: string } = {}): Promise<Harness> {
  const store = await openTestStore({ migrations: [coreMigrations] })
  const services: Services = createServices({ store, settings: { profile: 'A', contentDir: '/nonexistent' } })
  registerPackageMeta(services.meta)
  const lines = opts.logLines
  const app = Fastify({
    ...kernelServerOptions(),
    // When asked, every log line (at the most verbose level) is kept for inspection.
    logger: lines === undefined ? false : { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } }
  })
  // Before the kernel, as the core package registers it: the admin pages read their own forms.
  await app.register(authorizePage, { services, environment: opts.environment ?? '' })
  await app.register(restKernel, {
    namespaces: [cmsV2Namespace(services)],
    routes: siteRoutes(services),
    authenticate: authenticator(services),
    baseUrl: opts.baseUrl ?? BASE,
    // As the gateway wires it: anonymous answers reused while nothing is committed.
    horizon: async () => await store.horizon()
  })
  app.addHook('onClose', async () => { await store.close() })
  await app.ready()
  return { app, store, services }
}
