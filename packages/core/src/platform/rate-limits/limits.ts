/**
 * Rate limits (docs/guides/rate-limits.md), with @fastify/rate-limit on a
 * store whose counts every replica shares (shared-counts.ts):
 *
 * - each request counts against its route's class (`read`, `write`,
 *   `expensive`: the endpoint's `rateClass`, else by method) for its caller:
 *   the user and application password when signed in, else the client
 *   address (the socket's, or a trusted proxy's `X-Forwarded-For`: Fastify's
 *   `request.ip` under `CMS_TRUSTED_PROXIES`; IPv6 by /64). A route-level
 *   `onRequest` hook, so it runs after the caller is known and before any
 *   body is read or any kept answer written;
 * - failed credential checks (a 401 to a request carrying credentials, or
 *   to the sign-in form) count per client address, and past the limit a
 *   request carrying credentials is refused before they are checked, so
 *   the answer says nothing about them;
 * - answers carry `RateLimit-Limit`, `RateLimit-Remaining` and
 *   `RateLimit-Reset`; a refusal is `429 rest_rate_limited` with
 *   `Retry-After` and `data.retry_after` (seconds).
 *
 * Requests a namespace service answers are limited there (it checks their
 * credentials), not by the gateway proxying them; routes configured with
 * `rateLimit: false` (health probes) are not limited.
 */
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify'
import fastifyRateLimit, { normalizeIP, type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import { declareErrors, type RateClass, type RestError } from '@cms/rest'
import type { Store } from '@cms/store'
import { SharedCounts, type Count } from './shared-counts.js'

export interface RateLimitSettings {
  /** `CMS_RATE_LIMITS`: off, nothing is counted or limited. */
  enabled: boolean
  /** Requests per window and caller in each class (0: that class is not limited). */
  read: number
  write: number
  expensive: number
  /** The window of the three classes (ms). */
  windowMs: number
  /** Failed credential checks per client address and `authWindowMs` (0: not limited). */
  authFailures: number
  authWindowMs: number
  /** Longest time a replica's counts wait before the others see them (ms). */
  syncMs: number
}

/** Defaults a site can keep: a reader well above any person's pace, a front end's server (one address) included. */
export const RATE_LIMIT_DEFAULTS: RateLimitSettings = {
  enabled: true,
  read: 3000,
  write: 300,
  expensive: 60,
  windowMs: 60_000,
  authFailures: 20,
  authWindowMs: 15 * 60_000,
  syncMs: 1000
}

export const rateLimitErrors = declareErrors({
  rest_rate_limited: { status: 429, message: 'Too many requests. Wait before trying again.' }
})

export interface RateLimitOptions {
  store: Store
  settings: RateLimitSettings & {
    /** The clock windows are counted on (tests); default `Date.now`. */
    now?: () => number
  }
}

type Limiter = (req: FastifyRequest, opts?: { increment?: boolean }) => Promise<{ isAllowed: boolean, max?: number, remaining?: number, ttlInSeconds?: number }>

/** Installs the limits on `app` (before the routes they cover are added). */
export async function rateLimits (app: FastifyInstance, opts: RateLimitOptions): Promise<void> {
  const { settings } = opts
  const counts = new SharedCounts(opts.store, { syncMs: settings.syncMs, now: settings.now, onError: warnOnce(app) })
  app.addHook('onClose', async () => { await counts.close() })

  await app.register(fastifyRateLimit, {
    global: false,
    // The IETF draft's names: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (seconds).
    enableDraftSpec: true,
    store: storeOver(counts),
    errorResponseBuilder: (_req, context) => refusal(Math.ceil(context.ttl / 1000))
  })

  const handlers = new Map<RateClass, onRequestHookHandler>()
  for (const cls of ['read', 'write', 'expensive'] as const) {
    const max = settings[cls]
    if (max > 0) handlers.set(cls, app.rateLimit({ max, timeWindow: settings.windowMs, keyGenerator: (req) => `${cls}|${callerKey(req)}` }))
  }
  app.addHook('onRoute', (route) => {
    const hook = hookFor(route, handlers)
    if (hook !== undefined) route.onRequest = [...[route.onRequest ?? []].flat(), hook]
  })

  if (settings.authFailures > 0) {
    const attempts = app.createRateLimit({ max: settings.authFailures, timeWindow: settings.authWindowMs, keyGenerator: (req) => `auth|ip:${normalizeIP(req.ip)}` }) as Limiter
    guardCredentials(app, attempts)
  }
}

/** The caller a request counts for: the user and credential, else the address. */
function callerKey (req: FastifyRequest): string {
  const principal = req.principal as { id: number, appPasswordUuid?: string } | null
  if (principal !== null && principal.id !== 0) return `u:${principal.id}:${principal.appPasswordUuid ?? ''}`
  return `ip:${normalizeIP(req.ip)}`
}

function hookFor (route: RouteOptions, handlers: Map<RateClass, onRequestHookHandler>): onRequestHookHandler | undefined {
  const config = (route.config ?? {}) as { rateLimit?: unknown, rateClass?: RateClass, remoteNamespace?: string }
  if (config.rateLimit === false || config.remoteNamespace !== undefined) return undefined
  if (config.rateClass !== undefined) return handlers.get(config.rateClass)
  const methods = [route.method].flat()
  // A plain route answering both reads and writes (none does today) counts as writes.
  return handlers.get(methods.every((m) => m === 'GET' || m === 'HEAD' || m === 'OPTIONS') ? 'read' : 'write')
}

/**
 * Failed credential checks per address: refused before the check once over
 * the limit, counted when answered 401. Only requests that carry credentials
 * (or post the sign-in form) pay anything.
 */
function guardCredentials (app: FastifyInstance, attempts: Limiter): void {
  // Before the kernel's own onRequest hook, which checks the credentials.
  app.addHook('onRequest', (request, reply, done) => {
    if (!presentsCredentials(request)) return done()
    attempts(request, { increment: false }).then((r) => {
      if (r.isAllowed || (r.remaining ?? 1) > 0) return done()
      const seconds = r.ttlInSeconds ?? 1
      void reply.header('RateLimit-Limit', r.max).header('RateLimit-Remaining', 0).header('RateLimit-Reset', seconds)
      done(refusal(seconds))
    }, done)
  })
  app.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode === 401 && presentsCredentials(request)) {
      attempts(request).catch((err: unknown) => { request.log.warn({ err }, 'could not count a failed credential check') })
    }
    done()
  })
}

function presentsCredentials (request: FastifyRequest): boolean {
  const config = request.routeOptions.config as { signIn?: boolean, remoteNamespace?: string } | undefined
  // A namespace service checks (and counts) the credentials of what is proxied to it.
  if (config?.remoteNamespace !== undefined) return false
  const header = request.headers.authorization
  return (header !== undefined && header.trim() !== '') || (config?.signIn === true && request.method === 'POST')
}

function refusal (seconds: number): RestError {
  return rateLimitErrors.rest_rate_limited({ retry_after: Math.max(1, seconds) })
}

/** @fastify/rate-limit's store interface over the shared counts (a Redis store would take its place: the guide says how). */
function storeOver (counts: SharedCounts): FastifyRateLimitStoreCtor {
  return class SharedStore implements FastifyRateLimitStore {
    incr (key: string, cb: (err: Error | null, res?: Count) => void, timeWindow: number, max: number): void { cb(null, counts.count(key, timeWindow, 1, max)) }
    read (key: string, cb: (err: Error | null, res?: Count) => void, timeWindow: number, max: number): void { cb(null, counts.count(key, timeWindow, 0, max)) }
    // Keys carry their class: every route shares the one store.
    child (): FastifyRateLimitStore { return this }
  }
}

/** A failed send is logged once until one succeeds again. */
function warnOnce (app: FastifyInstance): (err: unknown) => void {
  let last = 0
  return (err) => {
    const now = Date.now()
    if (now - last < 60_000) return
    last = now
    app.log.warn({ err }, 'rate limits: could not share counts with the database (counting locally meanwhile)')
  }
}
