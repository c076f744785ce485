/**
 * Test harness of the users module: the REST kernel with cms/v2, the
 * authenticator and the admin pages, on a fresh migrated database.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { kernelServerOptions, restKernel } from '@cms/rest'
import type { Store } from '@cms/store'
import { openTestStore } from '@cms/store/testing'
import { authenticator, authorizePage, coreMigrations, createServices, cmsV2Namespace, createApplicationPassword, createUser, siteRoutes, type Role, type Services, type UserRecord } from '../src/index.js'
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

export function basic (login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`
}

export interface Account {
  user: UserRecord
  password: string
  uuid: string
  /** The Authorization header value. */
  auth: string
}

/** A user with one application password. */
export async function account (store: Store, login: string, roles: Role[], extra: { password?: string } = {}): Promise<Account> {
  const user = await createUser(store, { login, email: `${login}@example.com`, roles, password: extra.password })
  const { uuid, password } = await createApplicationPassword(store, user.id, { name: 'tests' })
  return { user, password, uuid, auth: basic(login, password) }
}

export interface JsonResponse {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: any
}

export async function call (
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  route: string,
  opts: { auth?: string, body?: unknown, query?: Record<string, string> } = {}
): Promise<JsonResponse> {
  const qs = new URLSearchParams(opts.query ?? {}).toString()
  const res = await app.inject({
    method,
    url: `/cms-json${route}${qs === '' ? '' : `?${qs}`}`,
    headers: opts.auth === undefined ? {} : { authorization: opts.auth },
    ...(opts.body === undefined ? {} : { payload: opts.body as Record<string, unknown> })
  })
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? null : JSON.parse(res.body) }
}
