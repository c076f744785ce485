/**
 * A namespace served by another service, through a gateway that has none of
 * its code: both listen on real loopback ports. The service is a kernel with
 * a small `seo/v1` declared here (versioned notes with an ETag, a batchable
 * collection, a route that never answers) and the core's authenticator on the
 * gateway's database, so one application password works on both.
 */
import t from 'tap'
import { request as httpRequest } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import { request } from 'undici'
import { Type } from '@sinclair/typebox'
import { endpoint, everyone, kernelServerOptions, signedIn, restKernel, RestResponse, restUrl, route, type RestRequest } from '@cms/rest'
import { freePort, openTestStore } from '@cms/store/testing'
import type { Store } from '@cms/store'
import { authenticator, coreMigrations, definePackage, type CmsPackage } from '@cms/core'
import { createCaller } from '@cms/core/testing'
import { packageRegistry } from '@cms/registry'
import { gatewayApp, listenLoopback } from './helpers.js'

// The timeout under test, on a gateway of its own; the other gateways wait up to HANG_MS, which only a true
// hang reaches: at 800 ms for every request, a loaded machine's slow answer (a password hashed) was a 504.
const TIMEOUT_MS = 800
const HANG_MS = 60_000

interface Note { id: number, title: string, version: number }

/** The namespace service: its routes, and what it saw of each request. */
async function seoService (store: Store): Promise<{ app: FastifyInstance, port: number, release: () => void }> {
  const notes = new Map<number, Note>([[1, { id: 1, title: 'First', version: 1 }]])
  const hanging: Array<() => void> = []
  const present = (req: RestRequest, note: Note): Record<string, unknown> => ({
    id: note.id,
    title: note.title,
    version: note.version,
    _links: { self: [{ href: restUrl(req.baseUrl, `/seo/v1/notes/${note.id}`) }] }
  })
  const routes = [
    route({
      namespace: 'seo/v1',
      path: '/seo/v1/notes',
      allowBatch: true,
      endpoints: [
        endpoint({ methods: ['GET'], args: {}, permission: everyone, handler: (req) => [...notes.values()].map((n) => present(req, n)) }),
        endpoint({
          methods: ['POST'],
          args: { title: Type.String() },
          permission: signedIn,
          handler: (req) => {
            const note = { id: notes.size + 1, title: req.params.title, version: 1 }
            notes.set(note.id, note)
            return new RestResponse(present(req, note), 201)
          }
        })
      ]
    }),
    route({
      namespace: 'seo/v1',
      path: '/seo/v1/notes/{id}',
      vars: { id: '[\\d]+' },
      allowBatch: true,
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: { id: Type.Integer() },
          permission: everyone,
          handler: (req) => {
            const note = notes.get(req.params.id)!
            return new RestResponse(present(req, note), 200, { ETag: `"v${note.version}"` })
          }
        }),
        endpoint({
          methods: ['PUT'],
          args: { id: Type.Integer(), title: Type.String() },
          permission: signedIn,
          handler: (req) => {
            const note = notes.get(req.params.id)!
            note.title = req.params.title
            note.version++
            return present(req, note)
          }
        })
      ]
    }),
    route({
      namespace: 'seo/v1',
      path: '/seo/v1/settings',
      endpoints: [endpoint({ methods: ['POST'], args: {}, permission: everyone, handler: () => ({ saved: true }) })]
    }),
    route({
      namespace: 'seo/v1',
      path: '/seo/v1/whoami',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        permission: everyone,
        handler: (req) => ({
          ip: req.ip,
          base: req.baseUrl,
          user: req.user.id,
          language: req.headers['accept-language'] ?? null,
          agent: req.headers['user-agent'] ?? null,
          cookie: req.headers.cookie ?? null
        })
      })]
    }),
    route({
      namespace: 'seo/v1',
      path: '/seo/v1/slow',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        permission: everyone,
        handler: async () => await new Promise((resolve) => { hanging.push(() => { resolve({ late: true }) }) })
      })]
    })
  ]
  // The gateway (on loopback) is the one proxy this service believes.
  const app = Fastify({ ...kernelServerOptions(), trustProxy: ['127.0.0.1'] })
  await app.register(restKernel, {
    namespaces: [{ name: 'seo/v1', routes }],
    authenticate: authenticator({ store }),
    openapi: { title: 'SEO service', version: '1' }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: (app.server.address() as { port: number }).port, release: () => { for (const r of hanging.splice(0)) r() } }
}

/** Profile B (plus a fixture package's namespace) with seo/v1 sent to the service, on the test's store. */
async function gatewayFor (store: Store, serviceUrl: string, pkg?: CmsPackage, timeoutMs = HANG_MS): Promise<{ app: FastifyInstance, url: string }> {
  const env = { CMS_DEPLOYMENT: 'B', CMS_REMOTE_NAMESPACES: `seo/v1=${serviceUrl}`, CMS_REMOTE_TIMEOUT_MS: String(timeoutMs) }
  const { app } = await gatewayApp({ env, store, packages: pkg === undefined ? undefined : [pkg] })
  return { app, url: await listenLoopback(app) }
}

async function get (url: string, headers: Record<string, string> = {}): Promise<{ status: number, headers: Record<string, unknown>, text: string }> {
  const res = await request(url, { headers: { host: 'cms.test', ...headers } })
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() }
}

async function send (url: string, method: 'POST' | 'PUT', body: unknown, headers: Record<string, string> = {}): Promise<{ status: number, body: any }> {
  const res = await request(url, { method, headers: { host: 'cms.test', 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: res.statusCode, body: await res.body.json() }
}

t.test('a namespace service behind the gateway', async (t) => {
  const store = await openTestStore({ migrations: [coreMigrations] })
  t.teardown(async () => { await store.close() })
  const editor = await createCaller(store, 'editor', { login: 'editor' })

  const service = await seoService(store)
  const gateway = await gatewayFor(store, `http://127.0.0.1:${service.port}`)
  t.teardown(async () => {
    service.release()
    await gateway.app.close()
    await service.app.close()
  })
  const api = `${gateway.url}/cms-json`

  t.test('answers are the service\'s bytes, shaped once', async (t) => {
    const proxied = await get(`${api}/seo/v1/notes/1`)
    // The same request straight to the service, as the gateway forwards it.
    const direct = await get(`http://127.0.0.1:${service.port}/cms-json/seo/v1/notes/1`, { 'x-forwarded-host': 'cms.test', 'x-forwarded-proto': 'http' })
    t.equal(proxied.status, 200)
    t.equal(proxied.text, direct.text, 'byte for byte')
    t.equal(proxied.headers.etag, '"v1"')
    t.equal(JSON.parse(proxied.text)._links.self[0].href, 'http://cms.test/index.php?rest_route=/seo/v1/notes/1', 'links name the gateway\'s public URL')

    const envelope = JSON.parse((await get(`${api}/seo/v1/notes/1?_envelope`)).text)
    t.equal(envelope.status, 200)
    t.equal(envelope.body.id, 1, 'one envelope: the body is the note')
    t.equal(envelope.headers.Etag, '"v1"')

    const jsonp = await get(`${api}/seo/v1/notes/1?_jsonp=cb`)
    t.match(jsonp.headers['content-type'], /^application\/javascript/)
    t.ok(jsonp.text.startsWith('/**/cb({"id":1,'), 'the callback wraps the JSON')
    t.equal(jsonp.text.split('/**/cb(').length, 2, 'once')

    t.same(JSON.parse((await get(`${api}/seo/v1/notes/1?_fields=id,title`)).text), { id: 1, title: 'First' })
    const viaRestRoute = await get(`${gateway.url}/index.php?rest_route=/seo/v1/notes/1&_fields=id`)
    t.same(JSON.parse(viaRestRoute.text), { id: 1 }, 'the ?rest_route= form is proxied too')
    t.equal((await get(`${api}/seo/v1/notes/1`, { 'if-none-match': '"v1"' })).status, 304, 'If-None-Match reaches the service')
  })

  t.test('conditional writes: a stale ETag is refused by the service', async (t) => {
    const stale = await send(`${api}/seo/v1/notes/1`, 'PUT', { title: 'Second' }, { ...editor.headers, 'if-match': '"v0"' })
    t.equal(stale.status, 412)
    t.equal(stale.body.code, 'rest_precondition_failed')
    const fresh = await send(`${api}/seo/v1/notes/1`, 'PUT', { title: 'Second' }, { ...editor.headers, 'if-match': '"v1"' })
    t.equal(fresh.status, 200)
    t.equal(fresh.body.version, 2)
    const anonymous = await send(`${api}/seo/v1/notes/1`, 'PUT', { title: 'Third' })
    t.equal(anonymous.status, 401, 'the service decides who may write')
  })

  t.test('the caller\'s headers and address are forwarded, nothing else', async (t) => {
    const res = await gateway.app.inject({
      method: 'GET',
      url: '/cms-json/seo/v1/whoami',
      remoteAddress: '203.0.113.5',
      headers: { host: 'cms.test', ...editor.headers, 'accept-language': 'fr-FR', 'user-agent': 'probe/1.0', cookie: 'cms_session=secret' }
    })
    t.equal(res.statusCode, 200)
    t.same(JSON.parse(res.body), { ip: '203.0.113.5', base: 'http://cms.test', user: editor.id, language: 'fr-FR', agent: 'probe/1.0', cookie: null })
  })

  t.test('every route of the service is in the gateway\'s index and OpenAPI document', async (t) => {
    const index = JSON.parse((await get(`${api}/`)).text)
    t.ok(index.namespaces.includes('seo/v1'))
    const entry = index.routes['/seo/v1/notes/(?P<id>[\\d]+)']
    t.same(entry?.methods, ['GET', 'PUT'])
    t.same(entry?.endpoints[1].allow_batch, { v1: true })
    t.same(index.routes['/seo/v1/whoami']._links.self, [{ href: 'http://cms.test/index.php?rest_route=/seo/v1/whoami' }])
    const keys = Object.keys(index.routes)
    t.ok(keys.indexOf('/seo/v1/notes') > keys.indexOf('/seo/v1'), 'in the namespace\'s place')
    t.ok(keys.indexOf('/builder-one/v1') > keys.indexOf('/seo/v1/slow'), 'before the namespaces that follow it in the profile')
    const root = JSON.parse((await get(`${api}/seo/v1`)).text)
    t.same(Object.keys(root.routes), ['/seo/v1', '/seo/v1/notes', '/seo/v1/notes/(?P<id>[\\d]+)', '/seo/v1/settings', '/seo/v1/whoami', '/seo/v1/slow'])
    const doc = JSON.parse((await get(`${gateway.url}/openapi.json`)).text)
    t.ok(doc.paths['/cms-json/seo/v1/notes']?.post, 'OpenAPI has the service\'s routes')
    t.ok(doc.paths['/cms-json/seo/v1/notes/{id}']?.put)
    t.ok(doc.paths['/cms-json/cms/v2/posts']?.get, 'and the gateway\'s own')
  })

  t.test('batch sub-requests go to the service with the caller\'s credentials', async (t) => {
    const batch = await send(`${api}/batch/v1`, 'POST', {
      requests: [
        { path: '/seo/v1/notes', body: { title: 'From a batch' } },
        { method: 'PUT', path: '/seo/v1/notes/1', body: { title: 'Stale' }, headers: { 'If-Match': '"v1"' } },
        { method: 'PUT', path: '/seo/v1/notes/1', body: { title: 'Third' }, headers: { 'If-Match': '"v2"' } },
        { path: '/seo/v1/settings' },
        { path: '/seo/v1/nothing' }
      ]
    }, editor.headers)
    t.equal(batch.status, 207)
    const [created, stale, updated, notBatchable, unknown] = batch.body.responses
    t.equal(created.status, 201)
    t.equal(created.body.title, 'From a batch')
    t.equal(created.body._links.self[0].href, `http://cms.test/index.php?rest_route=/seo/v1/notes/${created.body.id}`)
    t.equal(stale.status, 412, 'the sub-request\'s own If-Match reached the service')
    t.equal(updated.status, 200)
    t.equal(updated.body.version, 3)
    t.equal(notBatchable.body.code, 'rest_batch_not_allowed', 'eligibility from the service\'s route table')
    t.equal(unknown.body.code, 'rest_no_route')
    const list = JSON.parse((await get(`${api}/seo/v1/notes`)).text)
    t.ok(list.some((n: Note) => n.title === 'From a batch'), 'the note exists on the service')

    const anonymous = await send(`${api}/batch/v1`, 'POST', { requests: [{ path: '/seo/v1/notes', body: { title: 'x' } }] })
    t.equal(anonymous.body.responses[0].status, 401, 'without credentials the service refuses')
  })

  t.test('a service that does not answer in time: 504 at the timeout', async (t) => {
    const hasty = await gatewayFor(store, `http://127.0.0.1:${service.port}`, undefined, TIMEOUT_MS)
    t.teardown(async () => { await hasty.app.close() })
    const started = Date.now()
    const res = await get(`${hasty.url}/cms-json/seo/v1/slow`)
    const took = Date.now() - started
    t.equal(res.status, 504)
    t.match(JSON.parse(res.text), { code: 'rest_upstream_timeout', data: { status: 504, namespace: 'seo/v1' } })
    // The 504 is the timeout's, not an immediate failure (a timer must have fired; load only makes it later).
    // Once, in a full run, it came at 699 ms of 800 (cause not found): the lower bound is half the timeout. The
    // service never answers on its own, so any answer came without waiting for it: no upper bound on the time.
    t.ok(took >= TIMEOUT_MS / 2, `answered after ${took} ms (timeout ${TIMEOUT_MS} ms)`)
    const enveloped = JSON.parse((await get(`${hasty.url}/cms-json/seo/v1/slow?_envelope`)).text)
    t.same([enveloped.status, enveloped.body.code], [504, 'rest_upstream_timeout'], 'the gateway\'s own errors take the envelope too')
    t.equal((await get(`${hasty.url}/healthz`)).status, 200, 'the gateway itself is fine')
  })

  t.test('a path leaving the namespace is refused, not sent', async (t) => {
    // Sent as written (a URL parser would resolve the dots before sending).
    const status = await new Promise<number | undefined>((resolve, reject) => {
      httpRequest(`${gateway.url}/`, { path: '/cms-json/seo/v1/%2e%2e/%2e%2e/cms-admin/login', headers: { host: 'cms.test' } }, (res) => {
        res.resume()
        resolve(res.statusCode)
      }).on('error', reject).end()
    })
    t.equal(status, 400)
  })

  t.test('its plugin deactivated: the namespace leaves the gateway\'s index, roots and OpenAPI and answers 404 there; reactivated: back', async (t) => {
    const registry = gateway.app.platform.service(packageRegistry)!
    const seen = async (): Promise<Record<string, unknown>> => {
      const index = JSON.parse((await get(`${api}/`)).text)
      const doc = JSON.parse((await get(`${gateway.url}/openapi.json`)).text)
      const note = await get(`${api}/seo/v1/notes/1`)
      const pretty = await get(`${gateway.url}/index.php?rest_route=/seo/v1/notes/1`)
      const root = await get(`${api}/seo/v1`)
      const write = await send(`${api}/seo/v1/notes`, 'POST', { title: 'While off?' }, editor.headers)
      const options = await gateway.app.inject({ method: 'OPTIONS', url: '/cms-json/seo/v1/notes', headers: { host: 'cms.test' } })
      const batch = await send(`${api}/batch/v1`, 'POST', { requests: [{ path: '/seo/v1/notes', body: { title: 'Batched while off?' } }] }, editor.headers)
      const codeOf = (r: { status: number, text: string }): unknown => [r.status, r.status === 404 ? JSON.parse(r.text).code : 'served']
      return {
        listed: index.namespaces.includes('seo/v1'),
        indexRoutes: Object.keys(index.routes).some((r) => r.startsWith('/seo/v1')),
        openapi: Object.keys(doc.paths).some((p) => p.startsWith('/cms-json/seo/v1')),
        root: codeOf(root),
        note: codeOf(note),
        pretty: codeOf(pretty),
        write: [write.status, write.status === 404 ? write.body.code : 'served'],
        options: [options.statusCode, JSON.parse(options.body).length === 0 ? 'empty' : 'entry'],
        batch: batch.body.responses[0].body.code === 'rest_no_route' ? 'no route' : 'routed'
      }
    }
    const served = { listed: true, indexRoutes: true, openapi: true, root: [200, 'served'], note: [200, 'served'], pretty: [200, 'served'], write: [201, 'served'], options: [200, 'entry'], batch: 'routed' }
    t.same(await seen(), served, 'served before')

    // The SEO plugin is what seo/v1 is (the SEO package's activation): the gateway decides from the stored status.
    await registry.deactivate('plugin', 'seo', { actor: { userId: 0 } })
    const listed = JSON.parse((await get(`http://127.0.0.1:${service.port}/cms-json/seo/v1/notes`)).text).length
    t.same(await seen(), {
      listed: false, indexRoutes: false, openapi: false, root: [404, 'rest_no_route'], note: [404, 'rest_no_route'], pretty: [404, 'rest_no_route'], write: [404, 'rest_no_route'], options: [200, 'empty'], batch: 'no route'
    }, 'gone at the gateway')
    t.equal(JSON.parse((await get(`http://127.0.0.1:${service.port}/cms-json/seo/v1/notes`)).text).length, listed, 'no write reached the service')
    t.ok(JSON.parse((await get(`${api}/`)).text).namespaces.includes('cms/v2'), 'the gateway\'s own namespaces stay')

    await registry.activate('plugin', 'seo', { actor: { userId: 0 } })
    t.same(await seen(), served, 'back once reactivated')
  })
})

t.test('a service that refuses connections: 502, and its namespace stays listed', async (t) => {
  const store = await openTestStore({ migrations: [coreMigrations] })
  t.teardown(async () => { await store.close() })
  // A port nobody listens on, and no other test can take meanwhile (one from listen(0), closed, could be given
  // to another process's socket before the request).
  const port = await freePort()

  const gateway = await gatewayFor(store, `http://127.0.0.1:${port}`)
  t.teardown(async () => { await gateway.app.close() })
  const res = await get(`${gateway.url}/cms-json/seo/v1/notes`)
  t.equal(res.status, 502, 'refused, not timed out (that would be 504)')
  t.same(JSON.parse(res.text), { code: 'rest_upstream_error', message: 'The service of the seo/v1 namespace failed to answer.', data: { status: 502, namespace: 'seo/v1' } })
  const batch = await send(`${gateway.url}/cms-json/batch/v1`, 'POST', { requests: [{ path: '/seo/v1/notes', body: { title: 'x' } }] })
  t.equal(batch.body.responses[0].body.code, 'rest_no_route', 'routes are unknown until the service has listed them')
  const index = JSON.parse((await get(`${gateway.url}/cms-json/`)).text)
  t.ok(index.routes['/seo/v1'], 'the namespace root is listed while the service is away')
})

t.test('_embed: a local answer embeds what the remote service serves, asked as the caller', async (t) => {
  const store = await openTestStore({ migrations: [coreMigrations] })
  t.teardown(async () => { await store.close() })
  const editor = await createCaller(store, 'editor', { login: 'embedder' })

  // A package of the gateway whose answer links (embeddably) to routes of the remote seo/v1.
  const NS = 'local-embed/v1'
  const pkg = definePackage({
    name: '@cms/local-embed',
    dependencies: ['@cms/core'],
    namespaces: [NS],
    serve (api) {
      api.namespace(NS, () => [route({
        namespace: NS,
        path: `/${NS}/card`,
        endpoints: [endpoint({
          methods: ['GET'],
          args: {},
          permission: everyone,
          handler: (req) => ({
            card: 'local',
            _links: {
              note: [{ embeddable: true, href: restUrl(req.baseUrl, '/seo/v1/notes/1') }],
              who: [{ embeddable: true, href: restUrl(req.baseUrl, '/seo/v1/whoami') }],
              slow: [{ href: restUrl(req.baseUrl, '/seo/v1/slow') }]
            }
          })
        })]
      })])
    }
  })
  const service = await seoService(store)
  const gateway = await gatewayFor(store, `http://127.0.0.1:${service.port}`, pkg)
  t.teardown(async () => {
    service.release()
    await gateway.app.close()
    await service.app.close()
  })

  const signed = JSON.parse((await get(`${gateway.url}/cms-json/${NS}/card?_embed`, editor.headers)).text)
  t.equal(signed.card, 'local')
  t.match(signed._embedded.note[0], { id: 1, title: 'First', version: 1 }, 'the remote note, embedded')
  t.equal(signed._embedded.note[0]._links.self[0].href, 'http://cms.test/index.php?rest_route=/seo/v1/notes/1', 'its links name the gateway')
  t.equal(signed._embedded.who[0].user, editor.id, 'the sub-request reached the service with the caller\'s credentials')
  t.equal(signed._embedded.slow, undefined, 'a link not marked embeddable is not fetched')

  const anonymous = JSON.parse((await get(`${gateway.url}/cms-json/${NS}/card?_embed=who`)).text)
  t.same(Object.keys(anonymous._embedded), ['who'], '_embed names the links to embed')
  t.equal(anonymous._embedded.who[0].user, 0, 'without credentials the service sees nobody')
})
