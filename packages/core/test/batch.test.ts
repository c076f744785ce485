/**
 * `POST /batch/v1` against the real cms/v2 routes and database: the limits
 * of the batch itself, pre-validation (and `require-all-validate` running
 * nothing), order and independence of the requests in normal mode, each
 * request's own permission check, and the sub-responses' own headers.
 */
import t from 'tap'
import { endpoint, everyone, Raw, RestResponse, route, type NamespaceDecl } from '@cms/rest'
import { call } from '@cms/rest/testing'
import { testApp, namespacePackage, createCaller, BASE, type TestApp, type TestUser } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const batch = async (h: TestApp, who: TestUser | undefined, body: unknown): ReturnType<typeof call> =>
  await call(h.app, 'POST', '/batch/v1', { as: who, body })

async function postCount (h: TestApp, where = "type = 'post'"): Promise<number> {
  const rows = await h.store.execute<{ n: number }>(`select count(*)::int as n from posts where ${where}`)
  return Number(rows[0]!.n)
}

async function createPost (h: TestApp, who: TestUser, fields: Record<string, unknown>): Promise<any> {
  const res = await call(h.app, 'POST', '/cms/v2/posts', { as: who, body: fields })
  if (res.status !== 201) throw new Error(`could not create a post: ${res.text}`)
  return res.body
}

/**
 * A batchable POST route that answers with a list and its totals: it reads
 * the posts list through dispatch. It shows that list headers pass through.
 */
const fixture: NamespaceDecl = {
  name: 'batch-fixture/v1',
  routes: [route({
    namespace: 'batch-fixture/v1',
    path: '/batch-fixture/v1/search',
    allowBatch: true,
    endpoints: [endpoint({
      methods: ['POST'],
      args: { per_page: Raw<number>({ type: 'integer', minimum: 1, default: 1 }) },
      permission: everyone,
      handler: async (req) => {
        const res = await req.dispatch({ method: 'GET', path: '/cms/v2/posts', query: { per_page: req.params.per_page, _fields: 'id' } })
        const headers: Record<string, string | number> = {}
        for (const name of ['X-CMS-Total', 'X-CMS-TotalPages', 'Link']) {
          const value = res.headers[name]
          if (typeof value === 'string' || typeof value === 'number') headers[name] = value
        }
        return new RestResponse(res.body, res.status, headers)
      }
    })]
  })]
}

t.test('POST /batch/v1', async (t) => {
  const h = await testApp({ packages: [packageMeta, namespacePackage(fixture)], namespaces: ['oembed/1.0', 'cms/v2', fixture.name] })
  t.teardown(() => h.app.close())
  const admin = await createCaller(h.store, 'administrator', { login: 'admin' })
  const editor = await createCaller(h.store, 'editor', { login: 'editor' })
  const author = await createCaller(h.store, 'author', { login: 'author' })

  await t.test('the batch\'s own arguments', async (t) => {
    const tooMany = Array.from({ length: 26 }, (_, i) => ({ path: '/cms/v2/posts', body: { title: `p${i}` } }))
    const res = await batch(h, admin, { requests: tooMany })
    t.equal(res.status, 400, '26 requests')
    t.same(res.body, {
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): requests',
      data: {
        status: 400,
        params: { requests: 'requests must contain at most 25 items.' },
        details: { requests: { code: 'rest_too_many_items', message: 'requests must contain at most 25 items.', data: null } }
      }
    })
    t.equal(await postCount(h), 0, 'nothing was created')

    const get = await batch(h, admin, { requests: [{ method: 'GET', path: '/cms/v2/posts' }] })
    t.equal(get.status, 400, 'a GET inside')
    t.equal(get.body.code, 'rest_invalid_param')
    t.equal(get.body.data.params.requests, 'requests[0][method] is not one of POST, PUT, PATCH, and DELETE.')
    t.equal(get.body.data.details.requests.code, 'rest_not_in_enum')

    const noPath = await batch(h, admin, { requests: [{ path: '/cms/v2/posts' }, { method: 'POST' }] })
    t.equal(noPath.status, 400)
    t.equal(noPath.body.data.params.requests, 'path is a required property of requests[1].')
    t.equal(noPath.body.data.details.requests.code, 'rest_property_required')

    const none = await batch(h, admin, {})
    t.equal(none.status, 400)
    t.same(none.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): requests', data: { status: 400, params: ['requests'] } })

    const mode = await batch(h, admin, { validation: 'all', requests: [] })
    t.equal(mode.status, 400)
    t.equal(mode.body.data.params.validation, 'validation is not one of require-all-validate and normal.')

    const empty = await batch(h, admin, { requests: [] })
    t.equal(empty.status, 207)
    t.same(empty.body, { responses: [] })
  })

  await t.test('25 requests run, in order', async (t) => {
    const requests = Array.from({ length: 25 }, (_, i) => ({ path: '/cms/v2/posts', body: { title: `Post ${i}`, status: 'draft' } }))
    const res = await batch(h, admin, { requests })
    t.equal(res.status, 207)
    t.equal(res.body.responses.length, 25)
    t.ok(res.body.responses.every((r: any) => r.status === 201), 'every request created its post')
    const ids = res.body.responses.map((r: any) => r.body.id)
    t.same(ids, [...ids].sort((a: number, b: number) => a - b), 'created in the order given')
    t.same(res.body.responses.map((r: any) => r.body.title.raw), requests.map((r) => r.body.title), 'edit-context bodies')
    t.equal(await postCount(h), 25)
    await h.store.execute('delete from posts')
  })

  await t.test('routes that do not exist or do not allow batch', async (t) => {
    const users = await h.store.execute<{ n: number }>('select count(*)::int as n from users')
    const res = await batch(h, admin, {
      requests: [
        { path: '/cms/v2/users', body: { username: 'newbie', email: 'newbie@example.com', password: 'pw-123456789' } },
        { path: '/cms/v2/nothing-here' },
        { path: '/batch/v1', body: { requests: [] } },
        { path: '/cms/v2/posts', body: { title: 'kept' } }
      ]
    })
    t.equal(res.status, 207)
    const [notBatchable, noRoute, nested, created] = res.body.responses
    t.same(notBatchable.body, { code: 'rest_batch_not_allowed', message: 'The requested route does not support batch requests.', data: { status: 400 } })
    t.equal(notBatchable.status, 400)
    t.match(notBatchable.headers.Allow, /POST/, 'the error carries the route\'s Allow header')
    t.same(noRoute, {
      body: { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } },
      status: 404,
      headers: []
    })
    t.equal(nested.body.code, 'rest_batch_not_allowed', 'a batch cannot contain a batch')
    t.equal(created.status, 201, 'the valid request still ran')
    const after = await h.store.execute<{ n: number }>('select count(*)::int as n from users')
    t.equal(Number(after[0]!.n), Number(users[0]!.n), 'no user was created')

    // A NUL in a path is refused by the kernel's validation of the batch itself.
    const bad = await batch(h, admin, { requests: [{ path: '/cms/v2/posts\u0000' }] })
    t.equal(bad.status, 400)
    t.equal(bad.body.data.details.requests.code, 'rest_invalid_characters')
    const unparsable = await batch(h, admin, { requests: [{ path: 'http://[' }] })
    t.same(unparsable.body.responses[0].body, { code: 'parse_path_failed', message: 'Could not parse the path.', data: { status: 400 } })
    await h.store.execute('delete from posts')
  })

  await t.test('require-all-validate runs nothing when one request is invalid', async (t) => {
    const requests = [
      { path: '/cms/v2/posts', body: { title: 'first', status: 'publish' } },
      { path: '/cms/v2/posts', body: { title: 'second', status: 'bogus' } },
      { path: '/cms/v2/posts', body: { title: 'third' } }
    ]
    const res = await batch(h, admin, { validation: 'require-all-validate', requests })
    t.equal(res.status, 207)
    t.equal(res.body.failed, 'validation')
    t.equal(res.body.responses.length, 3)
    t.equal(res.body.responses[0], null, 'a valid request has no response')
    t.equal(res.body.responses[2], null)
    const invalid = res.body.responses[1]
    t.equal(invalid.status, 400)
    t.same(invalid.headers, [], 'error envelopes have no headers')
    t.equal(invalid.body.code, 'rest_invalid_param')
    t.match(invalid.body.data.params.status, /^status is not one of /)
    t.equal(await postCount(h), 0, 'nothing was created')

    const unknown = await batch(h, admin, { validation: 'require-all-validate', requests: [requests[0], { path: '/cms/v2/nope' }] })
    t.same(unknown.body.responses[1].body.code, 'rest_no_route')
    t.equal(await postCount(h), 0, 'still nothing')

    const allValid = await batch(h, admin, { validation: 'require-all-validate', requests: [requests[0], requests[2]] })
    t.notOk('failed' in allValid.body, 'when all are valid they run')
    t.same(allValid.body.responses.map((r: any) => r.status), [201, 201])
    t.equal(await postCount(h), 2)
    await h.store.execute('delete from posts')
  })

  await t.test('normal mode keeps the valid results', async (t) => {
    const res = await batch(h, admin, {
      requests: [
        { path: '/cms/v2/posts', body: { title: 'first', status: 'publish' } },
        { path: '/cms/v2/posts', body: { title: 'second', status: 'bogus' } },
        { path: '/cms/v2/posts', body: { title: 'third' } }
      ]
    })
    t.equal(res.status, 207)
    t.notOk('failed' in res.body)
    t.same(res.body.responses.map((r: any) => r.status), [201, 400, 201])
    t.match(res.body.responses[1].headers, { Allow: /POST/ }, 'a pre-validation error carries the route\'s Allow header')
    const titles = await h.store.execute<{ title: string, status: string }>("select title, status from posts where type = 'post' order by id")
    t.same(titles, [{ title: 'first', status: 'publish' }, { title: 'third', status: 'draft' }])
  })

  await t.test('sub-responses carry their own headers', async (t) => {
    const res = await batch(h, admin, {
      requests: [
        { path: '/cms/v2/posts', body: { title: 'with a location', status: 'publish' } },
        { path: '/batch-fixture/v1/search?per_page=1' }
      ]
    })
    t.equal(res.status, 207)
    const [created, search] = res.body.responses
    t.equal(created.status, 201)
    t.equal(created.headers.Location, `${BASE}/index.php?rest_route=/cms/v2/posts/${created.body.id}`)
    t.notOk('ETag' in created.headers || 'Etag' in created.headers, 'no server-level ETag')
    t.notOk('Link' in created.headers, 'no discovery Link')
    t.ok(created.body._links, 'bodies keep their links')
    t.notOk('_embedded' in created.body)
    t.equal(search.status, 200)
    const published = await postCount(h, "type = 'post' and status = 'publish'")
    t.equal(published, 2)
    t.equal(search.headers['X-CMS-Total'], published, 'totals are numbers')
    t.equal(search.headers['X-CMS-TotalPages'], published)
    t.match(search.headers.Link, /rel="next"/, 'the pagination Link is kept')
    t.equal(search.body.length, 1, 'the query string of the path was used')
  })

  await t.test('delete with ?force=true in the path', async (t) => {
    const trash = await createPost(h, admin, { title: 'to trash', status: 'publish' })
    const gone = await createPost(h, admin, { title: 'to delete', status: 'publish' })
    const res = await batch(h, admin, {
      requests: [
        { method: 'DELETE', path: `/cms/v2/posts/${gone.id}?force=true` },
        { method: 'DELETE', path: `/cms/v2/posts/${trash.id}` }
      ]
    })
    t.equal(res.status, 207)
    const [deleted, trashed] = res.body.responses
    t.equal(deleted.status, 200)
    t.equal(deleted.body.deleted, true)
    t.equal(deleted.body.previous.id, gone.id)
    t.equal(await postCount(h, `id = ${gone.id}`), 0, 'the row is gone')
    t.equal(trashed.status, 200)
    t.equal(trashed.body.status, 'trash')
    t.equal(await postCount(h, `id = ${trash.id} and status = 'trash'`), 1, 'without force the post is trashed')
  })

  await t.test('each request checks its own permissions', async (t) => {
    const others = await createPost(h, editor, { title: 'editor\'s', status: 'publish' })
    const own = await createPost(h, author, { title: 'author\'s', status: 'draft' })
    const res = await batch(h, author, {
      requests: [
        { method: 'PUT', path: `/cms/v2/posts/${own.id}`, body: { title: 'author\'s, edited' } },
        { method: 'PATCH', path: `/cms/v2/posts/${others.id}`, body: { title: 'hijacked' } },
        { method: 'DELETE', path: `/cms/v2/posts/${others.id}?force=true` },
        { path: '/cms/v2/posts', body: { title: 'author\'s second' } }
      ]
    })
    t.equal(res.status, 207)
    t.same(res.body.responses.map((r: any) => r.status), [200, 403, 403, 201])
    t.equal(res.body.responses[1].body.code, 'rest_cannot_edit')
    t.equal(res.body.responses[2].body.code, 'rest_cannot_delete')
    const rows = await h.store.execute<{ id: number, title: string }>(`select id, title from posts where id in (${own.id}, ${others.id}) order by id`)
    t.same(rows.map((r) => r.title), ['editor\'s', 'author\'s, edited'], 'only the author\'s own post changed')

    const anonymous = await batch(h, undefined, { requests: [{ path: '/cms/v2/posts', body: { title: 'anonymous' } }] })
    t.equal(anonymous.status, 207, 'anyone may send a batch')
    t.equal(anonymous.body.responses[0].status, 401)
    t.equal(anonymous.body.responses[0].body.code, 'rest_cannot_create')
    t.equal(await postCount(h, "title = 'anonymous'"), 0)
  })

  await t.test('sub-request headers', async (t) => {
    const post = await createPost(h, admin, { title: 'guarded', status: 'draft' })
    const res = await batch(h, admin, {
      requests: [
        { method: 'PATCH', path: `/cms/v2/posts/${post.id}`, body: { title: 'stale write' }, headers: { 'If-Match': '"not-the-current-tag"' } },
        { method: 'PATCH', path: `/cms/v2/posts/${post.id}`, body: { title: 'not a delete' }, headers: { 'X-HTTP-Method-Override': 'DELETE' } }
      ]
    })
    t.equal(res.body.responses[0].status, 412, 'If-Match is honoured')
    t.equal(res.body.responses[0].body.code, 'rest_precondition_failed')
    t.equal(res.body.responses[1].status, 200, 'a method override header does not change the request')
    const rows = await h.store.execute<{ title: string }>(`select title from posts where id = ${post.id}`)
    t.same(rows, [{ title: 'not a delete' }])
  })
})

t.test('requests to a namespace served by another service go to it over HTTP', async (t) => {
  // Writes that reach the service over HTTP (the gateway's), not its own in-process ones
  // (the gateway also reads the service's route table with GETs).
  let served = 0
  const service = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] })
  service.app.server.on('request', (req: { method?: string }) => { if (req.method !== 'GET') served++ })
  const origin = await service.app.listen({ port: 0, host: '127.0.0.1' })
  const gateway = await testApp({ packages: [packageMeta], namespaces: ['oembed/1.0', 'cms/v2'], store: service.store, remote: { 'cms/v2': origin } })
  t.teardown(async () => {
    await gateway.app.close()
    await service.app.close()
  })
  const editor = await createCaller(service.store, 'editor', { login: 'editor' })
  const author = await createCaller(service.store, 'author', { login: 'author' })
  const others = await createPost(service, editor, { title: 'editor\'s', status: 'publish' })

  const res = await batch(gateway, author, {
    requests: [
      { path: '/cms/v2/posts', body: { title: 'created remotely' } },
      { method: 'PATCH', path: `/cms/v2/posts/${others.id}`, body: { title: 'hijacked' } },
      { path: '/cms/v2/posts', body: { status: 'bogus' } }
    ]
  })
  t.equal(res.status, 207)
  t.same(res.body.responses.map((r: any) => r.status), [201, 403, 400])
  t.equal(res.body.responses[0].headers.Location, `${BASE}/index.php?rest_route=/cms/v2/posts/${res.body.responses[0].body.id}`)
  t.equal(res.body.responses[1].body.code, 'rest_cannot_edit', 'the caller\'s credentials went along')
  t.equal(res.body.responses[2].body.code, 'rest_invalid_param', 'the service validates the requests of its namespace')
  t.equal(served, 3, 'the three requests were sent to the other service')
  t.equal(await postCount(service, "title = 'created remotely'"), 1)
})
