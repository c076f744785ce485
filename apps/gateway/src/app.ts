/**
 * Composes a deployment: the store, the packages the profile's namespaces
 * need (each a Fastify plugin declaring what it owns: its contributions to
 * the core in every process, its routes where they are served), their
 * migrations in dependency order, the kernel with what they declared, plus
 * health endpoints.
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { kernelErrors, kernelServerOptions, restKernel, type KernelOptions, type RestError } from '@cms/rest'
import { isStoreUnavailable, migrate, openStore, type Store } from '@cms/store'
import { auditObserver, authenticator, createServices, frontPage, mediaFiles, Platform, registerPackages, remotePagesOf, Upstreams, type CmsPackage } from '@cms/core'
import { namespacesOf, type Profile } from './profiles.js'
import { installedPackages } from './namespaces.js'
import { withPackagesUnder } from './discover.js'
import type { Settings } from './settings.js'
import { ensureFirstAdmin } from './first-admin.js'
import { loggerOptions, RequestLog } from './request-log.js'

export interface BuildOptions {
  /** An already open store (tests); otherwise one is opened from the settings and closed with the app. */
  store?: Store
  logger?: boolean | Record<string, unknown>
  /** Run background jobs (scheduled publishing). Default true. */
  jobs?: boolean
  authenticate?: KernelOptions['authenticate']
  /** Packages besides the installed ones (a test's own package); composed when the profile names their namespaces. */
  packages?: readonly CmsPackage[]
  /** A profile instead of the named one of the settings (tests composing their own). */
  profile?: Profile
  /** How the store is migrated (tests: from a migrated template); default the store's `migrate`. */
  migrate?: typeof migrate
}

/** Errors that mean the database cannot be reached right now. */
/** Store errors as REST errors: an outage is 503, a value the database refuses is 400. */
export function storeErrorToRest (error: unknown): RestError | undefined {
  if (isStoreUnavailable(error)) return kernelErrors.rest_service_unavailable()
  // SQLSTATE class 22: data exceptions (a number out of range, an invalid character...);
  // class 54: a program limit passed by a value (a text too long for an index entry, 54000).
  const state = sqlStateOf(error)
  if (state?.startsWith('22') === true || state?.startsWith('54') === true) return kernelErrors.rest_invalid_value()
  return undefined
}

function sqlStateOf (error: unknown, depth = 0): string | undefined {
  const e = error as { code?: unknown, cause?: unknown } | null
  if (e === null || typeof e !== 'object' || depth > 5) return undefined
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code
  return sqlStateOf(e.cause, depth + 1)
}

/**
 * Time limits of the HTTP server. Node checks the request and headers limits
 * only every `connectionsCheckingInterval` (30 s by default): checked at a
 * quarter of the shorter limit, so a slow client is cut off near its limit.
 */
function connectionLimits (settings: Settings): { requestTimeout: number, connectionTimeout: number, keepAliveTimeout: number, http: Record<string, number> } {
  const checkEvery = Math.max(50, Math.min(1000, Math.floor(Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs) / 4)))
  return {
    requestTimeout: settings.requestTimeoutMs,
    connectionTimeout: settings.connectionTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    http: { requestTimeout: settings.requestTimeoutMs, headersTimeout: settings.headersTimeoutMs, connectionsCheckingInterval: checkEvery }
  }
}

/**
 * The idle limit (`CMS_CONNECTION_TIMEOUT_MS`, the socket's inactivity
 * timer) is for clients, not for the service's own work: under heavy load
 * a request can take longer than it with nothing on the wire, and Node
 * would close the connection under it. It is paused once the route's
 * handler is reached and restored when the answer starts going out, so a
 * client that stops reading the answer is still cut off. Receiving stays
 * bounded by the request and headers limits, which Node checks on their
 * own (a streamed upload still arriving included).
 */
function idleLimitOutsideWork (app: FastifyInstance, idleMs: number): void {
  // An injected request's socket is a stand-in without timers.
  const idle = (request: FastifyRequest, ms: number): void => {
    const socket = request.raw.socket as { setTimeout?: unknown } | undefined
    if (typeof socket?.setTimeout === 'function') request.raw.socket.setTimeout(ms)
  }
  // Callback hooks: run for every request, they allocate no promise.
  app.addHook('preHandler', (request, _reply, done) => {
    idle(request, 0)
    done()
  })
  app.addHook('onSend', (request, _reply, payload, done) => {
    idle(request, idleMs)
    done(null, payload)
  })
}

export async function buildApp (settings: Settings, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const server = kernelServerOptions({ bodyLimit: settings.bodyLimit, maxUrlLength: settings.maxUrlLength })
  const limits = connectionLimits(settings)
  const app = Fastify({
    ...server,
    ...limits,
    http: { ...(server as { http?: object }).http, ...limits.http },
    logger: opts.logger ?? loggerOptions(settings),
    // One line per request, written when it is answered.
    logController: new RequestLog(),
    // `X-Forwarded-*` are believed only from the named proxies: from anyone else they
    // would choose the client address (sign-in throttle, `last_ip`), the scheme and the host.
    trustProxy: settings.trustedProxies.length > 0 ? settings.trustedProxies : false
  })
  app.server.maxConnections = settings.maxConnections
  idleLimitOutsideWork(app, settings.connectionTimeoutMs)
  const store = opts.store ?? await openStore({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    templates: settings.pgliteTemplates,
    onProgress: (message) => app.log.info(message)
  })
  if (opts.store === undefined) app.addHook('onClose', async () => { await store.close() })

  const profile = opts.profile ?? settings.profile
  const strangers = Object.keys(settings.remote).filter((ns) => !profile.namespaces.includes(ns))
  if (strangers.length > 0) throw new Error(`CMS_REMOTE_NAMESPACES names namespaces profile ${profile.name} does not expose: ${strangers.join(', ')}`)
  const services = createServices({ store, settings: { profile: profile.name, contentDir: settings.contentDir, uploadMaxBytes: settings.uploadMaxBytes, imageMaxPixels: settings.images.maxPixels, imageConcurrency: settings.images.concurrency, textLimits: settings.textLimits, textPool: settings.textPool, schedulerIntervalMs: settings.schedulerIntervalMs, environment: settings.environment, packages: settings.packages, adminUrl: settings.adminUrl, commentsAnonymous: settings.commentsAnonymous, rateLimits: settings.rateLimits, webhooks: settings.webhooks, audit: settings.audit }, upstreams: new Upstreams(settings.upstreams), events: settings.events })
  const served = namespacesOf(profile, settings.namespaces)
  // A namespace another service serves is not built here: the kernel proxies all of it.
  const local = served.filter((ns) => settings.remote[ns] === undefined)
  const platform = new Platform(services, served, profile.options, local)
  const catalog = [...await withPackagesUnder(installedPackages, settings.packagesPath), ...(opts.packages ?? [])]
  // Every package of the profile contributes to the core here (its meta, fields, capabilities...), wherever
  // its routes run; the core (the index, batch, authentication) and the packages the local namespaces need serve.
  await registerPackages(app, platform, catalog, profile.namespaces, local, ['@cms/core'])
  app.decorate('platform', platform)
  const started = performance.now()
  try {
    await (opts.migrate ?? migrate)(store, platform.migrationSets())
  } catch (err) {
    if (opts.store === undefined) await store.close()
    throw err
  }
  if (opts.store === undefined) {
    app.log.info(`${store.kind === 'pglite' ? 'embedded database' : 'database'}: migrations checked and applied in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
  if (settings.firstAdmin !== undefined) await ensureFirstAdmin(store, settings.firstAdmin, app.log)

  await app.register(restKernel, {
    namespaces: platform.namespaces(),
    routes: platform.routes(),
    authenticate: opts.authenticate ?? authenticator(services),
    baseUrl: settings.baseUrl,
    allowedHosts: settings.allowedHosts,
    siteUrl: settings.siteUrl,
    corsOrigins: settings.corsOrigins,
    remote: settings.remote,
    remoteTimeoutMs: settings.remoteTimeoutMs,
    // The pages of the packages whose namespace another service serves go there too.
    remotePages: remotePagesOf(catalog, settings.remote),
    classifyError: storeErrorToRest,
    jsonBodyLimit: settings.jsonBodyLimit,
    textLimits: settings.textLimits,
    // Anonymous answers (and the reads behind them) are reused while nothing has been committed;
    // settings, activation and the like while their epochs stay (epochs.ts).
    snapshot: async () => await store.snapshot(),
    // A signed-in caller's answers too, apart for each caller's rights (kept-answers.ts).
    keptSignedInBytes: settings.keptSignedInBytes,
    // A deactivated plugin's (or theme's) namespaces answer 404 and leave the index (platform.ts).
    activation: platform.activation(),
    // Every write answered is recorded in the core's audit log (audit/), unless CMS_AUDIT_LOG=off.
    onWrite: auditObserver(services.audit),
    openapi: { title: `CMS REST service (deployment ${profile.name})`, version: '0.1.0' }
  })

  // The site's front page, outside the REST prefix (after the kernel, as before).
  await app.register(frontPage, {
    services,
    links: [
      { path: '/docs/', label: 'API reference (OpenAPI; the document itself: /openapi.json)' },
      { path: '/healthz', label: 'Health (/healthz)' },
      { path: '/readyz', label: 'Readiness, with the database (/readyz)' }
    ]
  })
  // Uploaded files, at each attachment's source_url.
  await app.register(mediaFiles, { services })

  if (opts.jobs !== false) {
    let stopJobs: (() => Promise<void>) | undefined
    app.addHook('onReady', async () => { stopJobs = platform.startBackground() })
    app.addHook('onClose', async () => { await stopJobs?.() })
  }

  // Probes call by whatever address reaches the process: no Host check.
  // Nor are they rate limited: a balancer's checks are never refused.
  app.get('/healthz', { schema: { hide: true } as Record<string, unknown>, config: { anyHost: true, rateLimit: false } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { hide: true } as Record<string, unknown>, config: { anyHost: true, rateLimit: false } }, async (_req, reply) => {
    const ok = await store.ping(1000)
    return await reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', database: store.kind })
  })
  return app
}
