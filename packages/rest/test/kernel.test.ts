/**
 * Request semantics of the kernel, through HTTP, on a small namespace
 * declared here: addressing, methods, parameters, response shaping.
 */
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  check, ContextArg, endpoint, everyone, who, Enum, IntList, kernelServerOptions, paginationHeaders, RestError, RestResponse,
  restKernel, rel, route, restUrl, type Principal
} from '../src/index.js'
import { oneNamespaceApp } from './one-namespace.js'

const BASE = 'http://kernel.test'

const itemSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer', context: ['view', 'edit', 'embed'] },
    title: {
      type: 'object',
      context: ['view', 'edit', 'embed'],
      properties: {
        raw: { type: 'string', context: ['edit'] },
        rendered: { type: 'string', context: ['view', 'edit', 'embed'] }
      }
    },
    secret: { type: 'string', context: ['edit'] },
    author: { type: 'integer', context: ['view', 'edit', 'embed'] }
  }
}

const editor: Principal = { id: 7, can: (cap) => cap === 'edit' }

function thing (id: number): Record<string, unknown> {
  return {
    id,
    title: { raw: `raw ${id}`, rendered: `<b>${id}</b>` },
    secret: 's3cret',
    author: 7,
    _links: {
      self: [{ href: restUrl(BASE, `/test/v1/things/${id}`) }],
      author: [{ embeddable: true, href: restUrl(BASE, '/test/v1/people/7') }],
      [rel('term')]: [{ embeddable: true, href: restUrl(BASE, '/test/v1/people/7') }],
      replies: [{ embeddable: true, href: restUrl(BASE, '/test/v1/things') }]
    }
  }
}

let peopleCalls = 0
let thingLoads = 0
const loadThing = async (): Promise<number> => { thingLoads++; return 7 }
let cachedValue = 1
/** The store's horizon as the kernel is told it (`horizon`); undefined: none. */
let currentHorizon: string | undefined

const routes = [
  // A handler's own answer of status 404 with a body (as the SEO head's for an unknown URL).
  route({
    namespace: 'test/v1',
    path: '/test/v1/gone',
    endpoints: [endpoint({ methods: ['GET'], permission: everyone, handler: () => new RestResponse({ html: '<title>Not found</title>', status: 404 }, 404) })]
  }),
  route({
    namespace: 'test/v1',
    path: '/test/v1/things',
    allowBatch: true,
    schema: itemSchema,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: {
          context: ContextArg(),
          page: Type.Integer({ default: 1, minimum: 1 }),
          per_page: Type.Integer({ default: 2, minimum: 1, maximum: 100 }),
          include: Type.Optional(IntList()),
          order: Enum(['asc', 'desc'], { default: 'desc' })
        },
        permission: check((req) => req.params.context !== 'edit' || req.user.can('edit') || new RestError('rest_forbidden_context', 'Sorry, you are not allowed to edit.', req.user.id === 0 ? 401 : 403), who.everyone('a test route (not probed)')),
        handler: (req) => {
          const all = (req.params.include ?? [1, 2, 3, 4, 5]).map(thing)
          const page = req.params.page
          const perPage = req.params.per_page
          return new RestResponse(all.slice((page - 1) * perPage, page * perPage), 200,
            paginationHeaders({ total: all.length, perPage, page }, req.baseUrl, '/test/v1/things', req.query))
        }
      }),
      endpoint({
        methods: ['POST'],
        args: { title: Type.String({ minLength: 1 }), count: Type.Optional(Type.Integer({ maximum: 10 })) },
        permission: check((req) => req.user.can('edit'), who.everyone('a test route (not probed)')),
        handler: (req) => new RestResponse({ title: req.params.title, count: req.params.count ?? null }, 201, { Location: restUrl(req.baseUrl, '/test/v1/things/9') })
      })
    ]
  }),
  // Two routes that differ only in their variable's class (as builder/v1 `checklist/steps/{id}`).
  route({
    namespace: 'test/v1',
    path: '/test/v1/steps/{id}',
    vars: { id: '[\\d]+' },
    endpoints: [endpoint({ methods: ['GET'], args: {}, permission: everyone, handler: (req) => ({ by: 'number', id: req.params.id }) })]
  }),
  route({
    namespace: 'test/v1',
    path: '/test/v1/steps/{id}',
    vars: { id: '[a-z_]+' },
    endpoints: [endpoint({ methods: ['POST'], args: {}, permission: everyone, handler: (req) => ({ by: 'name', id: req.params.id }) })]
  }),
  route({
    namespace: 'test/v1',
    path: '/test/v1/things/{id}',
    vars: { id: '[\\d]+' },
    schema: itemSchema,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: { context: ContextArg(), id: Type.Optional(Type.Integer()) },
        permission: check(async (req) => (await req.memo('thing', loadThing)) === 7, who.everyone('a test route (not probed)')),
        handler: async (req) => { await req.memo('thing', loadThing); return thing(Number(req.params.id)) }
      }),
      endpoint({
        methods: ['DELETE'],
        args: { force: Type.Boolean({ default: false }) },
        permission: check(async (req) => (await req.memo('thing', loadThing)) === 7 && req.user.can('edit'), who.everyone('a test route (not probed)')),
        handler: (req) => ({ deleted: true, force: req.params.force })
      })
    ]
  }),
  route({
    namespace: 'test/v1',
    path: '/test/v1/people/{id}',
    vars: { id: '[\\d]+' },
    endpoints: [endpoint({
      methods: ['GET'],
      args: { context: ContextArg() },
      permission: everyone,
      handler: (req) => {
        peopleCalls++
        return { id: Number(req.path.split('/').pop()), name: 'Ada', context: req.params.context }
      }
    })]
  }),
  route({
    namespace: 'test/v1',
    path: '/test/v1/shout',
    endpoints: [endpoint({
      methods: ['GET'],
      args: { word: Type.String({ minLength: 2 }), format: Enum(['json', 'text'], { default: 'json' }) },
      serialize: (query, status, body) => query.format === 'text'
        ? { contentType: 'text/plain; charset=UTF-8', payload: `${status} ${JSON.stringify(body)}` }
        : undefined,
      permission: everyone,
      handler: (req) => ({ word: req.params.word.toUpperCase() })
    })]
  }),
  route({
    namespace: 'test/v1',
    path: '/test/v1/cached',
    endpoints: [endpoint({
      methods: ['GET'],
      args: {},
      cache: 'public',
      permission: everyone,
      handler: () => ({ value: cachedValue })
    })]
  }),
  route({
    namespace: 'test/v1',
    path: '/test/v1/echo',
    endpoints: [endpoint({
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      args: {},
      permission: everyone,
      handler: (req) => ({ method: req.method, params: req.params })
    })]
  }),
  route({
    namespace: 'test/v1',
    path: '/test/v1/echo/{slug}',
    vars: { slug: '[\\w-]+' },
    endpoints: [endpoint({
      methods: ['GET', 'POST'],
      args: { slug: Type.String({ pattern: '^[a-z-]+$' }) },
      permission: everyone,
      handler: (req) => ({ slug: req.params.slug })
    })]
  })
]

async function build (opts: { corsOrigins?: string[] | '*', bodyLimit?: number } = {}): Promise<FastifyInstance> {
  const app = Fastify({ ...kernelServerOptions({ bodyLimit: opts.bodyLimit }), logger: false })
  await app.register(restKernel, {
    namespaces: [{ name: 'test/v1', routes }],
    baseUrl: BASE,
    corsOrigins: opts.corsOrigins,
    horizon: async () => currentHorizon,
    authenticate: async (request) => {
      const auth = request.headers.authorization
      if (auth === undefined) return { id: 0, can: () => false }
      if (auth === 'Bearer editor') return editor
      throw new RestError('incorrect_password', 'The provided password is an invalid application password.', 401)
    }
  })
  await app.ready()
  return app
}

// Not @cms/rest/testing's call: these tests address whole URLs (?rest_route=, /cms-json/, raw payloads) and read the raw answer.
async function call (app: FastifyInstance, method: string, url: string, opts: { headers?: Record<string, string>, payload?: string } = {}) {
  const res = await app.inject({ method: method as 'GET', url, headers: opts.headers, payload: opts.payload })
  let body: any = res.body
  try { body = res.body === '' ? null : JSON.parse(res.body) } catch {}
  return { status: res.statusCode, headers: res.headers, body, raw: res.body }
}

t.test('addressing', async (t) => {
  const app = await build()
  t.teardown(() => app.close())

  const a = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/3')
  const b = await call(app, 'GET', '/cms-json/test/v1/things/3')
  t.equal(a.status, 200)
  t.same(a.body, b.body, '?rest_route= and /cms-json/ answer identically')
  t.equal(a.headers.etag, b.headers.etag)

  t.equal((await call(app, 'GET', '/index.php?rest_route=%2Ftest%2Fv1%2Fthings%2F3')).body.id, 3, 'encoded rest_route')
  t.equal((await call(app, 'GET', '/?rest_route=/test/v1/things/3/')).body.id, 3, 'trailing slash, bare /?rest_route=')
  t.equal((await call(app, 'GET', '/index.php?rest_route=/TEST/V1/THINGS/3')).body.id, 3, 'case-insensitive match')

  const missing = await call(app, 'GET', '/index.php?rest_route=/test/v1/nothing')
  t.equal(missing.status, 404)
  t.same(missing.body, { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } })

  const wrongMethod = await call(app, 'PATCH', '/index.php?rest_route=/test/v1/things')
  t.equal(wrongMethod.status, 404, 'a known route with another method is rest_no_route')
  t.equal(wrongMethod.body.code, 'rest_no_route')

  t.equal((await call(app, 'GET', '/index.php?rest_route=/test/v1/things/abc')).status, 404, 'variables keep their character class')
  t.equal((await call(app, 'GET', '/index.php?rest_route=//test/v1/things')).status, 404, 'double slash')

  const notString = await call(app, 'GET', '/index.php?rest_route[]=x', { headers: { accept: 'application/json' } })
  t.equal(notString.status, 400)
  t.equal(notString.body.code, 'rest_path_invalid_type')
  const notStringHead = await app.inject({ method: 'POST', url: '/index.php?rest_route=/test/v1/things&rest_route[a]=&_method=HEAD' })
  t.equal(notStringHead.statusCode, 400, 'the override still applies to a refused rest_route')
  t.equal(notStringHead.body, '', 'answered as a HEAD: no body')
})

t.test('methods: _method, override header, HEAD, OPTIONS', async (t) => {
  const app = await build()
  t.teardown(() => app.close())

  t.equal((await call(app, 'GET', '/index.php?rest_route=/test/v1/echo&_method=put')).body.method, 'PUT')
  // Given twice, the last wins (as PHP reads a query string), whether the first is empty or not.
  t.equal((await call(app, 'GET', '/index.php?rest_route=/test/v1/echo&_method=&x=1&_method=put')).body.method, 'PUT')
  const lastHead = await call(app, 'POST', '/index.php?rest_route=/test/v1/things&_method=&_method=HEAD')
  t.same([lastHead.status, lastHead.raw], [200, ''], 'a HEAD given last is a HEAD: no body')
  t.equal((await call(app, 'GET', '/index.php?rest_route=/test/v1/echo&_method=put&_method=')).status, 404, 'an empty method given last matches no route')
  const del = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/3&_method=DELETE')
  t.equal(del.status, 401, 'anonymous delete through _method')
  t.equal(del.body.code, 'rest_forbidden')

  const header = await call(app, 'POST', '/index.php?rest_route=/test/v1/things/3', { headers: { 'x-http-method-override': 'DELETE' } })
  t.equal(header.status, 401)
  t.equal(header.headers['cache-control'], 'no-cache, must-revalidate, max-age=0, no-store, private', 'overridden 4xx is not cached')

  const head = await call(app, 'HEAD', '/index.php?rest_route=/test/v1/things')
  t.equal(head.status, 200)
  t.equal(head.raw, '', 'HEAD has no body')
  t.equal(head.headers['x-cms-total'], '5', 'HEAD keeps the headers of GET')

  const options = await call(app, 'OPTIONS', '/index.php?rest_route=/test/v1/things')
  t.equal(options.status, 200)
  t.equal(options.headers.allow, 'GET', 'Allow lists what this caller may do')
  t.same(options.body.methods, ['GET', 'POST'])
  t.equal(options.body.namespace, 'test/v1')
  t.ok(options.body.schema, 'OPTIONS shows the item schema')
  t.same(options.body.endpoints[1].args.title, { type: 'string', minLength: 1, required: true })

  const asEditor = await call(app, 'OPTIONS', '/index.php?rest_route=/test/v1/things', { headers: { authorization: 'Bearer editor' } })
  t.equal(asEditor.headers.allow, 'GET, POST')

  const unknown = await call(app, 'OPTIONS', '/index.php?rest_route=/nope')
  t.equal(unknown.status, 200)
  t.same(unknown.body, [])
})

t.test('OPTIONS answers the route whose variable classes match, when two share a path shape', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const byNumber = await call(app, 'OPTIONS', '/cms-json/test/v1/steps/12')
  t.equal(byNumber.status, 200)
  t.same(byNumber.body.methods, ['GET'], 'the digits route')
  t.equal(byNumber.headers.allow, 'GET')
  const byName = await call(app, 'OPTIONS', '/cms-json/test/v1/steps/add_logo')
  t.equal(byName.status, 200)
  t.same(byName.body.methods, ['POST'], 'the named route, not a miss')
  t.equal(byName.headers.allow, 'POST')
  const neither = await call(app, 'OPTIONS', '/cms-json/test/v1/steps/Not-A-Step')
  t.same([neither.status, neither.body], [200, []], 'no route matches: as an unknown route')
  t.equal((await call(app, 'POST', '/cms-json/test/v1/steps/add_logo')).body.by, 'name')
  t.equal((await call(app, 'GET', '/cms-json/test/v1/steps/12')).body.by, 'number')
})

t.test('parameters: sources, precedence, coercion, validation', async (t) => {
  const app = await build()
  t.teardown(() => app.close())

  const brackets = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&include[]=4&include[]=2')
  t.same(brackets.body.map((x: any) => x.id), [4, 2], 'PHP bracket arrays')
  const comma = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&include=5,1')
  t.same(comma.body.map((x: any) => x.id), [5, 1], 'comma lists')

  const bad = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&per_page=500&order=up')
  t.equal(bad.status, 400)
  t.equal(bad.body.code, 'rest_invalid_param')
  t.equal(bad.body.message, 'Invalid parameter(s): per_page, order')
  t.same(bad.body.data.params, {
    per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)',
    order: 'order is not one of asc and desc.'
  })
  t.equal(bad.body.data.details.order.code, 'rest_not_in_enum')

  const missing = await call(app, 'POST', '/index.php?rest_route=/test/v1/things', { headers: { authorization: 'Bearer editor', 'content-type': 'application/json' }, payload: '{}' })
  t.equal(missing.status, 400)
  t.same(missing.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): title', data: { status: 400, params: ['title'] } })

  const created = await call(app, 'POST', '/index.php?rest_route=/test/v1/things&title=fromquery', {
    headers: { authorization: 'Bearer editor', 'content-type': 'application/json' },
    payload: JSON.stringify({ title: 'fromjson', count: '3' })
  })
  t.equal(created.status, 201)
  t.same(created.body, { title: 'fromjson', count: 3 }, 'JSON body beats the query; integers coerced')
  t.equal(created.headers.location, `${BASE}/index.php?rest_route=/test/v1/things/9`)

  const form = await call(app, 'POST', '/index.php?rest_route=/test/v1/things', {
    headers: { authorization: 'Bearer editor', 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'title=formed&count=2'
  })
  t.same(form.body, { title: 'formed', count: 2 }, 'form bodies')

  const pathWins = await call(app, 'GET', '/index.php?rest_route=/test/v1/echo/abc&slug=zzz')
  t.same(pathWins.body, { slug: 'abc' }, 'path variables win over the query')
  const patternFail = await call(app, 'GET', '/index.php?rest_route=/test/v1/echo/ABC')
  t.equal(patternFail.body.data.params.slug, 'slug does not match pattern ^[a-z-]+$.')

  const json = await call(app, 'POST', '/index.php?rest_route=/test/v1/echo', { headers: { 'content-type': 'application/json' }, payload: '{"a":' })
  t.equal(json.status, 400)
  t.same(json.body, { code: 'rest_invalid_json', message: 'Invalid JSON body passed.', data: { status: 400, json_error_code: 4, json_error_message: 'Syntax error' } })

  const deep = await call(app, 'GET', `/index.php?rest_route=/test/v1/things&include${'[a]'.repeat(40)}=1`)
  t.equal(deep.status, 400, 'bracket abuse is a clean 400')

  const unknownParams = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/2&whatever=1')
  t.equal(unknownParams.status, 200, 'unknown parameters are ignored')
})

t.test('body size limit', async (t) => {
  const app = await build({ bodyLimit: 2048 })
  t.teardown(() => app.close())
  const big = await call(app, 'POST', '/index.php?rest_route=/test/v1/echo', {
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ x: 'y'.repeat(5000) })
  })
  t.equal(big.status, 413)
  t.equal(big.body.code, 'rest_request_too_large')
  t.equal(big.body.data.status, 413)
})

t.test('authentication errors answer 401 even on public routes', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const res = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1', { headers: { authorization: 'Bearer wrong' } })
  t.equal(res.status, 401)
  t.equal(res.body.code, 'incorrect_password')
  const unknown = await call(app, 'GET', '/index.php?rest_route=/nope', { headers: { authorization: 'Bearer wrong' } })
  t.equal(unknown.status, 401)
})

t.test('responses: context, _fields, _envelope, _embed, _pretty, _jsonp', async (t) => {
  const app = await build()
  t.teardown(() => app.close())

  const view = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1')
  t.same(view.body.title, { rendered: '<b>1</b>' }, 'view hides raw')
  t.notOk('secret' in view.body)
  t.same(Object.keys(view.body._links), ['self', 'author', 'cms:term', 'replies', 'curies'], 'links compacted with a curie')
  t.same(view.body._links.curies, [{ name: 'cms', href: 'https://api.cms.invalid/{rel}', templated: true }])

  const editAnon = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&context=edit')
  t.equal(editAnon.status, 401)
  t.equal(editAnon.body.code, 'rest_forbidden_context')
  const edit = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&context=edit', { headers: { authorization: 'Bearer editor' } })
  t.equal(edit.body[0].title.raw, 'raw 1')
  t.equal(edit.body[0].secret, 's3cret')

  const embed = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&context=embed')
  t.same(Object.keys(embed.body).filter((k) => k !== '_links'), ['id', 'title', 'author'])

  const fields = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_fields=title.rendered,id')
  t.same(fields.body, { id: 1, title: { rendered: '<b>1</b>' } }, '_fields with dot paths, the data key order')
  const whole = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_fields=title,title.rendered,author')
  t.same(whole.body, { title: { rendered: '<b>1</b>' }, author: 7 }, 'a parent listed whole wins; the rest of the list still applies')
  const list = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&_fields=id')
  t.same(list.body.map((x: any) => Object.keys(x)), [['id'], ['id']], '_fields applies to every item')

  const env = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&_envelope&_fields=id')
  t.equal(env.status, 200)
  t.equal(env.body.status, 200)
  t.equal(env.body.headers['X-CMS-Total'], 5, 'totals are numbers in the envelope')
  t.equal(env.body.headers['X-CMS-TotalPages'], 3)
  t.equal(env.body.headers.Allow, 'GET')
  t.equal(env.headers['x-cms-total'], undefined, 'inner headers are not sent as HTTP headers')
  const envError = await call(app, 'GET', '/index.php?rest_route=/nope&_envelope=1')
  t.equal(envError.status, 200)
  t.same(envError.body, { body: { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } }, status: 404, headers: [] })

  peopleCalls = 0
  const embedded = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_embed')
  t.same(embedded.body._embedded.author, [{ id: 7, name: 'Ada', context: 'embed' }], 'embedded in embed context')
  t.same(embedded.body._embedded['cms:term'], [{ id: 7, name: 'Ada', context: 'embed' }])
  t.equal(peopleCalls, 1, 'the same href is fetched once per response')
  t.equal(embedded.body._embedded.replies[0].length, 5, 'a collection is embedded with its largest page, not its default')
  t.same(Object.keys(embedded.body._embedded.replies[0][0]).filter((k) => k !== '_links'), ['id', 'title', 'author'], 'in embed context')
  t.notOk(embedded.body._links.self[0].embeddable)
  const onlyAuthor = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_embed=author')
  t.same(Object.keys(onlyAuthor.body._embedded), ['author'])
  const fieldsEmbed = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_embed&_fields=id')
  t.same(fieldsEmbed.body, { id: 1 }, '_fields=id&_embed: no _links, no _embedded')
  const inside = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_embed&_fields=id,_embedded.author.name')
  t.same(inside.body._embedded, { author: [{ name: 'Ada' }] }, '_fields reaches inside _embedded')
  t.same(Object.keys(inside.body), ['id', '_links', '_embedded'], 'asking for _embedded brings _links along')
  const withLinks = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_fields=id,_links')
  t.same(Object.keys(withLinks.body), ['id', '_links'])

  const pretty = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_pretty&_fields=id')
  t.equal(pretty.raw, '{\n    "id": 1\n}')

  const jsonp = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_jsonp=cb.x&_fields=id')
  t.equal(jsonp.raw, '/**/cb.x({"id":1})')
  t.match(jsonp.headers['content-type'], 'application/javascript')
  const badJsonp = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_jsonp=alert(1)')
  t.equal(badJsonp.status, 400)
  t.same(badJsonp.body, { code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.', data: { status: 400 } }, 'with data.status, as every error here (the core leaves it out)')
})

t.test('_fields leaves an answer of status 400 or more whole, as the core does', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const res = await call(app, 'GET', '/index.php?rest_route=/test/v1/gone&_fields=id,constructor')
  t.same([res.status, res.body], [404, { html: '<title>Not found</title>', status: 404 }])
  const ok = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_fields=id')
  t.same(ok.body, { id: 1 }, 'a success is still filtered')
})

t.test('pagination headers and links', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const res = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&page=2&_fields=id')
  t.equal(res.headers['x-cms-total'], '5')
  t.equal(res.headers['x-cms-totalpages'], '3')
  t.equal(res.headers.link,
    `<${BASE}/index.php?rest_route=%2Ftest%2Fv1%2Fthings&page=1&_fields=id>; rel="prev", ` +
    `<${BASE}/index.php?rest_route=%2Ftest%2Fv1%2Fthings&page=3&_fields=id>; rel="next"`)
  const first = await call(app, 'GET', '/index.php?rest_route=/test/v1/things')
  t.equal(first.headers.link, `<${BASE}/index.php?rest_route=%2Ftest%2Fv1%2Fthings&page=2>; rel="next"`, 'page appended last')
})

t.test('ETag and 304', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const first = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1')
  t.match(first.headers.etag, /^W\/".+"$/)
  const again = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1', { headers: { 'if-none-match': first.headers.etag as string } })
  t.equal(again.status, 304)
  t.equal(again.raw, '')
  const other = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/2', { headers: { 'if-none-match': first.headers.etag as string } })
  t.equal(other.status, 200)
  const stale = await call(app, 'DELETE', '/index.php?rest_route=/test/v1/things/1', { headers: { authorization: 'Bearer editor', 'if-match': '"nope"' } })
  t.equal(stale.status, 412)
  t.equal(stale.body.code, 'rest_precondition_failed')
})

t.test('CORS', async (t) => {
  const open = await build()
  t.teardown(() => open.close())
  const res = await call(open, 'GET', '/index.php?rest_route=/test/v1/things/1', { headers: { origin: 'https://app.example' } })
  t.equal(res.headers['access-control-allow-origin'], 'https://app.example')
  t.equal(res.headers['access-control-allow-credentials'], 'true')
  t.equal(res.headers['access-control-expose-headers'], 'X-CMS-Total, X-CMS-TotalPages, Link, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After')

  const closed = await build({ corsOrigins: ['https://ok.example'] })
  t.teardown(() => closed.close())
  const refused = await call(closed, 'GET', '/index.php?rest_route=/test/v1/things/1', { headers: { origin: 'https://evil.example' } })
  t.equal(refused.headers['access-control-allow-origin'], undefined)
  const allowed = await call(closed, 'GET', '/index.php?rest_route=/test/v1/things/1', { headers: { origin: 'https://ok.example' } })
  t.equal(allowed.headers['access-control-allow-origin'], 'https://ok.example')
})

t.test('discovery entries from the declarations', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const ns = await call(app, 'GET', '/index.php?rest_route=/test/v1')
  const things = ns.body.routes['/test/v1/things']
  t.same(Object.keys(things), ['namespace', 'methods', 'endpoints', '_links'])
  t.same(things.endpoints[0].allow_batch, { v1: true })
  t.same(things.endpoints[0].args.per_page, { default: 2, type: 'integer', minimum: 1, maximum: 100, required: false })
  t.same(things.endpoints[0].args.include, { type: 'array', items: { type: 'integer' }, required: false })
  const item = ns.body.routes['/test/v1/things/(?P<id>[\\d]+)']
  t.notOk('_links' in item, 'routes with variables have no self link')
  t.same(ns.body.routes['/test/v1/echo'].endpoints[0].args, [], 'no args is an empty array')
})

t.test('a public answer is rendered once per horizon', async (t) => {
  const app = await build()
  t.teardown(async () => { currentHorizon = undefined; await app.close() })
  cachedValue = 1
  currentHorizon = 'h1'
  t.same((await call(app, 'GET', '/index.php?rest_route=/test/v1/cached')).body, { value: 1 })
  t.same((await call(app, 'GET', '/index.php?rest_route=/test/v1/cached')).body, { value: 1 }, 'kept bytes: the horizon is noted')
  cachedValue = 2
  t.same((await call(app, 'GET', '/index.php?rest_route=/test/v1/cached')).body, { value: 1 }, 'same horizon: the rendered bytes are reused')
  t.same((await call(app, 'GET', '/index.php?rest_route=/test/v1/cached&_fields=value')).body, { value: 2 }, 'another URL is rendered on its own')
  t.same((await call(app, 'GET', '/index.php?rest_route=/test/v1/cached', { headers: { authorization: 'Bearer editor' } })).body, { value: 2 }, 'a signed-in caller is answered afresh')
  currentHorizon = 'h2'
  t.same((await call(app, 'GET', '/index.php?rest_route=/test/v1/cached')).body, { value: 2 }, 'a new horizon renders again')
})

t.test('errors of a matched route carry its Allow header and its representation', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const denied = await call(app, 'DELETE', '/index.php?rest_route=/test/v1/things/1')
  t.equal(denied.status, 401)
  t.equal(denied.headers.allow, 'GET', 'the methods this caller may use')
  const invalid = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&per_page=0')
  t.equal(invalid.status, 400)
  t.equal(invalid.headers.allow, 'GET')
  const text = await call(app, 'GET', '/index.php?rest_route=/test/v1/shout&word=hi&format=text')
  t.equal(text.raw, '200 {"word":"HI"}')
  t.match(text.headers['content-type'], 'text/plain')
  t.ok(text.headers.etag, 'other representations get a tag too')
  const textError = await call(app, 'GET', '/index.php?rest_route=/test/v1/shout&word=h&format=text')
  t.equal(textError.status, 400)
  t.match(textError.raw, /^400 \{"code":"rest_invalid_param"/, 'errors use the representation as well')
  const json = await call(app, 'GET', '/index.php?rest_route=/test/v1/shout&word=hi')
  t.same(json.body, { word: 'HI' })
})

t.test('a record loaded by the permission check is loaded once per request', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  thingLoads = 0
  const res = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1', { headers: { authorization: 'Bearer editor' } })
  t.equal(res.headers.allow, 'GET, DELETE')
  t.equal(thingLoads, 1, 'permission, handler and the Allow checks share one load')
})

t.test('malformed requests answered in the error shape before any route runs', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const bogus = await call(app, 'GET', '/index.php?rest_route=/test/v1/things&_method=BOGUS')
  t.equal(bogus.status, 404, 'an unknown override method matches no route')
  t.equal(bogus.body.code, 'rest_no_route')
  const bogusHeader = await call(app, 'GET', '/cms-json/test/v1/things', { headers: { 'x-http-method-override': 'BOGUS' } })
  t.equal(bogusHeader.body.code, 'rest_no_route')
  const badUrl = await call(app, 'GET', '/cms-json/test/v1/echo/%zz')
  t.equal(badUrl.status, 400)
  t.same(badUrl.body, { code: 'rest_invalid_url', message: 'The request URL could not be decoded.', data: { status: 400 } })
  const headBad = await call(app, 'POST', '/cms-json/test/v1/echo/%zz?_method=HEAD')
  t.equal(headBad.status, 400)
  t.equal(headBad.raw, '', 'HEAD answers carry no body, errors included')
  const long = await call(app, 'GET', `/cms-json/test/v1/things/${'1'.repeat(600)}`)
  t.equal(long.status, 414)
  t.equal(long.body.data.status, 414)
  const jsonp = await call(app, 'GET', '/index.php?rest_route=/test/v1/things/1&_jsonp=a%0D%0Ab')
  t.same(jsonp.body, { code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.', data: { status: 400 } })
  t.match(jsonp.headers['content-type'], 'application/json', 'a refused callback is plain JSON, not a script')
  t.notOk(Object.values(jsonp.headers).some((v) => String(v).includes('\n')), 'nothing of the callback reaches a header')
  const nul = await call(app, 'POST', '/index.php?rest_route=/test/v1/things', { headers: { authorization: 'Bearer editor', 'content-type': 'application/json' }, payload: JSON.stringify({ title: 'a\u0000b' }) })
  t.equal(nul.status, 400)
  t.equal(nul.body.data.details.title.code, 'rest_invalid_characters')
})

t.test('errors the kernel does not know are classified by the deployment, else 500 without details', async (t) => {
  const app = await oneNamespaceApp('fail/v1', [route({
    namespace: 'fail/v1',
    path: '/fail/v1/{kind}',
    vars: { kind: '[a-z]+' },
    endpoints: [endpoint({
      methods: ['GET'],
      args: {},
      permission: everyone,
      handler: (req) => { throw Object.assign(new Error('relation "secret_table" violates SELECT * FROM x'), { code: req.params.kind }) }
    })]
  })], {
    classifyError: (error) => (error as { code?: string }).code === 'range' ? new RestError('rest_invalid_value', 'Out of range.', 400) : undefined
  })
  t.teardown(() => app.close())
  const classified = await call(app, 'GET', '/cms-json/fail/v1/range')
  t.same(classified.body, { code: 'rest_invalid_value', message: 'Out of range.', data: { status: 400 } })
  const unknown = await call(app, 'GET', '/cms-json/fail/v1/other')
  t.equal(unknown.status, 500)
  t.same(unknown.body, { code: 'rest_internal_error', message: 'An internal error occurred.', data: { status: 500 } }, 'no SQL, no stack')
})

t.test('an endpoint declared responseContext answers in that context without its handler changing params', async (t) => {
  const seen: unknown[] = []
  const app = await oneNamespaceApp('test/v1', [route({
    namespace: 'test/v1',
    path: '/test/v1/edited/{id}',
    vars: { id: '[\\d]+' },
    schema: itemSchema,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: { context: ContextArg() },
        permission: check((req) => req.params.context !== 'edit' || req.user.can('edit'), who.everyone('a test route (not probed)')),
        handler: (req) => thing(Number(req.params.id))
      }),
      endpoint({
        methods: ['POST'],
        args: { context: ContextArg() },
        responseContext: 'edit',
        permission: everyone,
        handler: (req) => { seen.push(req.params.context); return thing(Number(req.params.id)) }
      })
    ]
  })], {
    baseUrl: BASE,
    authenticate: async (request) => request.headers.authorization === 'Bearer editor' ? editor : { id: 0, can: () => false }
  })
  t.teardown(() => app.close())

  const read = await call(app, 'GET', '/cms-json/test/v1/edited/4?context=view')
  t.notOk('secret' in read.body, 'a read answers in the context asked')
  const written = await call(app, 'POST', '/cms-json/test/v1/edited/4?context=view', { headers: { authorization: 'Bearer editor' } })
  t.equal(written.status, 200)
  t.equal(written.body.secret, 's3cret', 'edit-only fields are kept')
  t.same(written.body.title, { raw: 'raw 4', rendered: '<b>4</b>' })
  t.same(seen, ['view'], 'the handler sees the context as sent')
  t.equal(written.headers.allow, 'GET, POST', 'the Allow header is computed in the answer context')
  const anon = await call(app, 'POST', '/cms-json/test/v1/edited/4')
  t.equal(anon.headers.allow, 'POST', 'GET in edit context is not allowed to an anonymous caller')
  t.equal(anon.body.secret, 's3cret')
})

t.test('handlers and permission checks see only the declared arguments (issue 27)', async (t) => {
  // An argument the endpoint does not declare (a profile declares `orderby` on one deployment
  // only) reached the handler as sent and failed there with a 500.
  const seen: Array<Record<string, unknown>> = []
  const app = await oneNamespaceApp('test/v1', [route({
    namespace: 'test/v1',
    path: '/test/v1/sorted/{id}',
    vars: { id: '[\\d]+' },
    endpoints: [endpoint({
      methods: ['GET', 'POST'],
      args: { page: Type.Integer({ default: 1, minimum: 1 }), type: Type.Optional(Enum(['a', 'b'])) },
      permission: check((req) => { seen.push({ ...req.params }); return true }, who.everyone('a test route (not probed)')),
      handler: (req) => {
        const p = req.params as Record<string, unknown>
        seen.push({ ...p })
        const columns: Record<string, string> = { name: 'name' }
        // What the handler would have done with an undeclared value.
        if (p.orderby !== undefined) return { column: columns[String(p.orderby)]!.toUpperCase() }
        return { keys: Object.keys(p).sort() }
      }
    })]
  })], {
    baseUrl: BASE
  })
  t.teardown(() => app.close())
  const read = await call(app, 'GET', '/cms-json/test/v1/sorted/3?orderby=bogus&type=a&__proto__[x]=1&constructor=1')
  t.equal(read.status, 200, 'an undeclared argument is ignored')
  t.same(read.body, { keys: ['id', 'page', 'type'] }, 'the declared arguments and the path variable, defaults applied')
  const write = await call(app, 'POST', '/cms-json/test/v1/sorted/3', { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ orderby: 'bogus', page: 2, extra: { a: 1 } }) })
  t.equal(write.status, 200)
  t.same(write.body, { keys: ['id', 'page'] }, 'from a body too')
  t.ok(seen.every((p) => !Object.hasOwn(p, 'orderby') && !Object.hasOwn(p, 'extra') && !Object.hasOwn(p, 'constructor')), 'the permission check saw no undeclared argument either')
})
