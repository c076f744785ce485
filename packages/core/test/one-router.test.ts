/**
 * One router: a path names the same route whether it comes over HTTP (as
 * `/cms-json/...` or `?rest_route=`), through in-process dispatch, as an
 * `_embed`ded link or as a batch request. The fixture declares a route with
 * a variable before a static route that the variable's class also matches:
 * HTTP routing takes the static one, and so must everything else.
 */
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { defineNamespace, endpoint, everyone, restUrl, route, type NamespaceDecl, type RestRequest } from '@cms/rest'
import { call } from '@cms/rest/testing'
import { testApp, namespacePackage } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const NS = 'router-fixture/v1'

/** What served a request: the route's pattern and its variables. */
const served = (req: RestRequest): Record<string, unknown> => ({ route: req.route, slug: req.params.slug ?? null, id: req.params.id ?? null })

const both = (handler: (req: RestRequest) => unknown): ReturnType<typeof endpoint> =>
  endpoint({ methods: ['GET', 'POST'], args: {}, permission: everyone, handler })

const fixture: NamespaceDecl = defineNamespace(NS, [
  // Declared first, and its class matches `new` too.
  route({ path: '/things/{slug}', vars: { slug: '[\\w-]+' }, allowBatch: true, endpoints: [both(served)] }),
  route({ path: '/things/new', allowBatch: true, endpoints: [both(served)] }),
  // The index's form of a variable.
  route({ path: '/parts/(?P<id>[\\d]+)', allowBatch: true, endpoints: [both(served)] }),
  route({
    path: '/via',
    endpoints: [endpoint({
      methods: ['GET'],
      args: { path: Type.String() },
      permission: everyone,
      handler: async (req) => {
        const res = await req.dispatch({ method: 'GET', path: req.params.path })
        return {
          dispatched: res.body,
          _links: { item: [{ embeddable: true, href: restUrl(req.baseUrl, req.params.path) }] }
        }
      }
    })]
  })
])

/** The route that served an answer, or its error code. */
function what (status: number, body: any): string {
  if (status >= 400 || typeof body?.code === 'string') return `${status} ${String(body?.code)}`
  return `${String(body.route)} slug=${String(body.slug)} id=${String(body.id)}`
}

t.test('batch, _embed, dispatch and HTTP resolve a path to the same route', async (t) => {
  const h = await testApp({ packages: [packageMeta, namespacePackage(fixture)], namespaces: ['oembed/1.0', 'cms/v2', fixture.name] })
  t.teardown(() => h.app.close())

  const cases: Array<[string, string]> = [
    [`/${NS}/things/new`, `/${NS}/things/new slug=null id=null`],
    [`/${NS}/things/new/`, `/${NS}/things/new slug=null id=null`],
    [`/${NS}/THINGS/New`, `/${NS}/things/new slug=null id=null`],
    [`/${NS}/things/some-thing`, `/${NS}/things/(?P<slug>[\\w-]+) slug=some-thing id=null`],
    [`/${NS}/parts/12`, `/${NS}/parts/(?P<id>[\\d]+) slug=null id=12`],
    [`/${NS}/parts/12/`, `/${NS}/parts/(?P<id>[\\d]+) slug=null id=12`],
    [`/${NS}/parts/x1`, '404 rest_no_route'],
    [`/${NS}/nothing`, '404 rest_no_route']
  ]
  for (const [path, expected] of cases) {
    const pretty = await h.app.inject({ method: 'GET', url: `/cms-json${path}` })
    const viaQuery = await call(h.app, 'GET', path)
    const via = await call(h.app, 'GET', `/${NS}/via`, { query: { path, _embed: 'item' } })
    t.equal(via.status, 200, `${path}: the dispatching route answers`)
    const batch = await call(h.app, 'POST', '/batch/v1', { body: { requests: [{ method: 'POST', path }] } })
    const slot = batch.body.responses[0]
    const embedded = via.body._embedded?.item?.[0]
    t.same({
      http: what(pretty.statusCode, JSON.parse(pretty.body)),
      restRoute: what(viaQuery.status, viaQuery.body),
      dispatch: what(typeof via.body.dispatched?.code === 'string' ? 404 : 200, via.body.dispatched),
      embed: what(typeof embedded?.code === 'string' ? 404 : 200, embedded),
      batch: what(slot.status, slot.body)
    }, { http: expected, restRoute: expected, dispatch: expected, embed: expected, batch: expected }, path)
  }
})
