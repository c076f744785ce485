/**
 * Composes a deployment: the store, the kernel, the core routes and the
 * namespaces of the profile, plus health endpoints.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { kernelServerOptions, restKernel, type KernelOptions, type NamespaceDecl } from '@cms/rest'
import { migrate, openStore, type Store } from '@cms/store'
import { authenticator, batchRoutes, siteRoutes, startContentJobs, type Services } from '@cms/core'
import { namespacesOf, profiles } from './profiles.js'
import { buildNamespace } from './namespaces.js'
import type { Settings } from './settings.js'

export interface BuildOptions {
  /** An already open store (tests); otherwise one is opened from the settings and closed with the app. */
  store?: Store
  logger?: boolean | Record<string, unknown>
  /** Run background jobs (scheduled publishing). Default true. */
  jobs?: boolean
  authenticate?: KernelOptions['authenticate']
}

/** Errors that mean the database cannot be reached right now. */
export function isStoreUnavailable (error: unknown): boolean {
  const e = error as { code?: string, message?: string } | null
  if (e === null || typeof e !== 'object') return false
  const codes = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']
  if (e.code !== undefined && codes.includes(e.code)) return true
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message ?? '')
}

export async function buildApp (settings: Settings, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...kernelServerOptions({ bodyLimit: settings.bodyLimit }),
    logger: opts.logger ?? {
      level: settings.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'password'], censor: '[redacted]' }
    },
    trustProxy: true
  })
  const store = opts.store ?? await openStore({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir })
  if (opts.store === undefined) {
    await migrate(store)
    app.addHook('onClose', async () => { await store.close() })
  }

  const profile = profiles[settings.deployment]!
  const services: Services = { store, settings: { profile: profile.name, contentDir: settings.contentDir } }
  const namespaces: NamespaceDecl[] = namespacesOf(profile, settings.namespaces)
    .map((name) => buildNamespace(name, services, profile.options?.[name]))

  await app.register(restKernel, {
    namespaces,
    routes: [...siteRoutes(services), ...batchRoutes(services)],
    authenticate: opts.authenticate ?? authenticator(services),
    baseUrl: settings.baseUrl,
    corsOrigins: settings.corsOrigins,
    remote: settings.remote,
    isUnavailable: isStoreUnavailable,
    openapi: { title: `CMS REST service (deployment ${profile.name})`, version: '0.1.0' }
  })

  if (opts.jobs !== false) {
    const stopJobs = startContentJobs(services)
    app.addHook('onClose', async () => { await stopJobs() })
  }

  app.get('/healthz', { schema: { hide: true } as Record<string, unknown> }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { hide: true } as Record<string, unknown> }, async (_req, reply) => {
    const ok = await store.ping(1000)
    return await reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', database: store.kind })
  })
  return app
}
