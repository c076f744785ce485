/**
 * Test harness: a gateway for a profile on a fresh, migrated database
 * (in-memory PGlite, or the PostgreSQL server named by CMS_TEST_DATABASE_URL).
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { openTestStore } from '@cms/store/testing'
import { coreMigrations } from '@cms/core'
import { buildApp } from '../src/app.js'
import { loadSettings } from '../src/settings.js'

export const BASE = 'http://cms.test'

export async function testApp (env: Record<string, string> = {}): Promise<FastifyInstance> {
  const store = await openTestStore({ migrations: [coreMigrations] })
  const settings = loadSettings({ CMS_BASE_URL: BASE, LOG_LEVEL: 'silent', CMS_DATA_DIR: '/nonexistent-not-used', ...env })
  const app = await buildApp(settings, { store, logger: false })
  app.addHook('onClose', async () => { await store.close() })
  await app.ready()
  return app
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
