/**
 * A package's pages outside the REST prefix follow its namespace to its
 * service: a gateway that sends builder-one/v1 elsewhere (and so does not
 * run the package) forwards the connect service's return page there, query
 * string and all, and still answers 404 for paths no package declared.
 */
import t from 'tap'
import { request } from 'undici'
import type { FastifyInstance } from 'fastify'
import { coreMigrations } from '@cms/core'
import { openTestStore } from '@cms/store/testing'
import type { Store } from '@cms/store'
import { buildApp } from '../src/app.js'
import { loadSettings } from '../src/settings.js'

async function listening (store: Store, env: Record<string, string>): Promise<{ app: FastifyInstance, url: string }> {
  const settings = loadSettings({ CMS_DEPLOYMENT: 'B', CMS_BASE_URL: 'http://cms.test', LOG_LEVEL: 'silent', CMS_DATA_DIR: '/nonexistent-not-used', ...env })
  const app = await buildApp(settings, { store, logger: false, jobs: false })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` }
}

async function get (url: string): Promise<{ status: number, type: unknown, text: string }> {
  const res = await request(url, { headers: { host: 'cms.test' } })
  return { status: res.statusCode, type: res.headers['content-type'], text: await res.body.text() }
}

t.test('the connect return page of a remote builder-one/v1', async (t) => {
  const store = await openTestStore({ migrations: [coreMigrations] })
  t.teardown(async () => { await store.close() })
  const service = await listening(store, { CMS_TRUSTED_PROXIES: '127.0.0.1' })
  t.teardown(async () => { await service.app.close() })
  const gateway = await listening(store, { CMS_REMOTE_NAMESPACES: `builder-one/v1=${service.url}` })
  t.teardown(async () => { await gateway.app.close() })

  const page = '/cms-admin/builder-one/connect'
  const direct = await get(`${service.url}${page}`)
  t.same([direct.status, direct.text.includes('The connect service sent no code.')], [400, true], 'the service answers its page')
  const through = await get(`${gateway.url}${page}`)
  t.same([through.status, through.type, through.text], [direct.status, direct.type, direct.text], 'the gateway forwards it as the service answered')

  const stale = await get(`${gateway.url}${page}?code=abc&state=${'s'.repeat(20)}`)
  t.equal(stale.status, 400)
  t.match(stale.text, /does not match a pending authorization/, 'the query string reached the service')

  t.equal((await get(`${gateway.url}/cms-admin/builder-one/other`)).status, 404, 'only the declared pages are forwarded')
  const local = await listening(store, {})
  t.teardown(async () => { await local.app.close() })
  t.equal((await get(`${local.url}${page}`)).status, 400, 'a gateway that runs the package answers the page itself')
})
