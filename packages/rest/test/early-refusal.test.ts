/**
 * Bodies checked before they are parsed (issue 27, item 2): no body is read
 * for an unknown route or for an anonymous caller an endpoint refuses
 * anyway; JSON and form bodies have their own, smaller limit; a JSON body
 * nested too deep or holding too many strings is refused by a scan before
 * JSON.parse builds anything. Work is counted (JSON.parse calls, handler
 * runs), never timed. Before the change, each refusal below was a parse:
 * `400 rest_invalid_json` for the broken bodies, a 201 for the deep and
 * string-heavy ones.
 */
import { request as httpRequest } from 'node:http'
import t from 'tap'
import Fastify from 'fastify'
import { connect } from 'node:net'
import { once } from 'node:events'
import { Type } from '@sinclair/typebox'
import { endpoint, everyone, kernelServerOptions, restKernel, route, scanJson, signedIn, type Principal } from '../src/index.js'

const member: Principal = { id: 7, can: () => true }
/** The test's own reading of answers, not counted. */
const parse = JSON.parse

/** JSON.parse calls made while `fn` runs. */
async function parses<T> (fn: () => Promise<T>): Promise<{ result: T, count: number }> {
  const original = JSON.parse
  let count = 0
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => { count++; return original(text, reviver) }) as typeof JSON.parse
  try {
    return { result: await fn(), count }
  } finally {
    JSON.parse = original
  }
}

async function kernelApp (): Promise<{ app: ReturnType<typeof Fastify>, handled: () => number }> {
  const app = Fastify(kernelServerOptions({ bodyLimit: 8 * 1024 * 1024 }))
  let handled = 0
  await app.register(restKernel, {
    jsonBodyLimit: 64 * 1024,
    textLimits: { maxDepth: 32, maxStrings: 1000 },
    namespaces: [{
      name: 't/v1',
      routes: [
        route({
          namespace: 't/v1',
          path: '/t/v1/members',
          endpoints: [endpoint({
            methods: ['POST'],
            args: { note: Type.Optional(Type.Unknown()) },
            permission: signedIn,
            handler: () => { handled++; return { ok: true } }
          })]
        }),
        route({
          namespace: 't/v1',
          path: '/t/v1/open',
          endpoints: [endpoint({
            methods: ['POST'],
            args: { note: Type.Optional(Type.Unknown()) },
            permission: everyone,
            handler: () => { handled++; return { ok: true } }
          })]
        })
      ]
    }],
    authenticate: async (req) => req.headers.authorization === 'member' ? member : { id: 0, can: () => false }
  })
  return { app, handled: () => handled }
}

t.test('no body is read for an unknown route or a refused anonymous caller', async (t) => {
  const { app, handled } = await kernelApp()
  t.teardown(() => app.close())
  const broken = '{"note": [[[[ not json'
  const post = async (url: string, headers: Record<string, string> = {}) => {
    const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: broken })
    return { status: res.statusCode, code: (parse(res.body) as { code: string }).code }
  }
  // Whatever parses once on a first request (not the body) happens before counting.
  await post('/cms-json/t/v1/open', { authorization: 'member' })
  const unknown = await parses(async () => await post('/cms-json/t/v1/nowhere'))
  t.same(unknown.result, { status: 404, code: 'rest_no_route' }, 'an unknown route: 404, not the body\'s 400')
  t.equal(unknown.count, 0, 'nothing parsed')
  const rewritten = await parses(async () => await post('/index.php?rest_route=/t/v1/nowhere'))
  t.same(rewritten.result, { status: 404, code: 'rest_no_route' }, 'the same through rest_route')

  const anonymous = await parses(async () => await post('/cms-json/t/v1/members'))
  t.same(anonymous.result, { status: 401, code: 'rest_forbidden' }, 'an anonymous caller the permission refuses: 401, not the body\'s 400')
  t.equal(anonymous.count, 0, 'nothing parsed')

  t.same(await post('/cms-json/t/v1/members', { authorization: 'member' }), { status: 400, code: 'rest_invalid_json' }, 'a member\'s body is read')
  t.same(await post('/cms-json/t/v1/open'), { status: 400, code: 'rest_invalid_json' }, 'an anonymous caller a route lets in: the body is read')
  t.equal(handled(), 0)

  const ok = await app.inject({ method: 'POST', url: '/cms-json/t/v1/members', headers: { authorization: 'member', 'content-type': 'application/json' }, payload: '{"note":1}' })
  t.equal(ok.statusCode, 200, 'a member with a valid body is served')
  const options = await app.inject({ method: 'OPTIONS', url: '/cms-json/t/v1/nowhere', headers: { 'content-type': 'application/json' }, payload: broken })
  t.same([options.statusCode, options.body], [200, '[]'], 'OPTIONS on an unknown route: the empty list, body unread')
})

t.test('over a real port the answer comes before the body is sent', async (t) => {
  const { app } = await kernelApp()
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  for (const [path, status] of [['/cms-json/t/v1/nowhere', 404], ['/cms-json/t/v1/members', 401]] as const) {
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    // More than 4 times the 8 MiB body limit announced, twenty bytes sent: the answer cannot wait for the rest.
    socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${33 * 1024 * 1024}\r\n\r\n{"note": [[[[[[[[[[`)
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => { text += chunk })
    const closed = once(socket, 'close')
    await closed
    t.match(text, new RegExp(`^HTTP/1.1 ${status} `), `${path}: ${status} with the body unsent`)
    t.match(text, /connection: close/i, 'a large unread body closes the connection')
  }
})

t.test('a refused body within 4 times the body limit is read and discarded: a client still sending gets the answer', async (t) => {
  const { app } = await kernelApp()
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  // Node's own client, as a real one: writing 3 MiB (over the JSON limit) to a route that refuses
  // anonymous callers; a socket closed under it would lose the answer with EPIPE.
  const payload = Buffer.alloc(3 * 1024 * 1024, 0x20)
  const answer = await new Promise<{ status: number, connection: string | undefined }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/cms-json/t/v1/members', headers: { 'content-type': 'application/json', 'content-length': payload.length } }, (res) => {
      res.resume()
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }) })
    })
    req.on('error', reject)
    req.end(payload)
  })
  t.equal(answer.status, 401)
  t.not(answer.connection, 'close', 'the connection stays usable')
})

t.test('JSON bodies: their own limit, and a scan before the parse', async (t) => {
  const { app, handled } = await kernelApp()
  t.teardown(() => app.close())
  const post = async (payload: string, type = 'application/json') => {
    const res = await app.inject({ method: 'POST', url: '/cms-json/t/v1/members', headers: { authorization: 'member', 'content-type': type }, payload })
    return { status: res.statusCode, body: parse(res.body) as { code: string, data: Record<string, unknown> } }
  }
  const big = JSON.stringify({ note: 'x'.repeat(100 * 1024) })
  t.equal((await post(big)).body.code, 'rest_request_too_large', 'JSON over its own limit (64 KiB here), far under the body limit')
  t.equal((await post(`note=${'x'.repeat(100 * 1024)}`, 'application/x-www-form-urlencoded')).body.code, 'rest_request_too_large', 'a form too')
  t.equal((await post('x'.repeat(100 * 1024), 'application/octet-stream')).status, 200, 'a body that is not parsed keeps the body limit')

  const deep = await parses(async () => await post(`{"note":${'['.repeat(33)}${']'.repeat(33)}}`))
  t.same(deep.result, { status: 413, body: { code: 'rest_too_much_text', message: 'The request holds too much text to process: more than 32 levels of nesting.', data: { status: 413, limit: 'maxDepth', max: 32 } } }, 'too deep: 413 naming the limit')
  t.equal(deep.count, 0, 'refused before JSON.parse')
  const strings = await parses(async () => await post(JSON.stringify({ note: Array.from({ length: 1000 }, () => 'a') })))
  t.same(strings.result.body.data, { status: 413, limit: 'maxStrings', max: 1000 }, 'too many strings (keys count): 413 naming the limit')
  t.equal(strings.count, 0, 'refused before JSON.parse')
  const before = handled()
  t.equal((await post(`{"note":${'['.repeat(31)}${']'.repeat(31)}}`)).status, 200, 'within the limits: served')
  t.equal(handled(), before + 1)
})

t.test('the scan is one pass: escaped quotes, strings with brackets', async (t) => {
  t.same(scanJson('{"a\\"[[[":"]]]{{","b":[1,[2]]}'), { depth: 3, strings: 3, stringChars: 12 })
  t.same(scanJson('"\\\\"'), { depth: 0, strings: 1, stringChars: 2 })
  const shape = scanJson('['.repeat(600))
  t.equal((shape as Error).message, 'The request holds too much text to process: more than 512 levels of nesting.', 'the default depth')
})

t.test('a streamed upload refused before it is read: drained within bounds, so a client still sending gets the answer', async (t) => {
  const app = Fastify(kernelServerOptions({ bodyLimit: 1024 * 1024 }))
  t.teardown(() => app.close())
  const maxBytes = 2 * 1024 * 1024
  await app.register(restKernel, {
    namespaces: [{
      name: 't/v1',
      routes: [route({
        namespace: 't/v1',
        path: '/t/v1/files',
        endpoints: [endpoint({
          methods: ['POST'],
          args: {},
          streamBody: { maxBytes: () => maxBytes, tooLarge: () => new Error('too large') as never },
          permission: signedIn,
          handler: () => ({ ok: true })
        })]
      })]
    }],
    authenticate: async () => ({ id: 0, can: () => false })
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  // Node's own client writing 3 MiB (over the server's body limit, within 4 times the upload's):
  // before, the connection was closed under it and the answer lost as EPIPE.
  const send = async (bytes: number) => await new Promise<{ status: number, connection: string | undefined, code: string } | { error: string }>((resolve) => {
    const payload = Buffer.alloc(bytes, 0x61)
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/cms-json/t/v1/files', headers: { 'content-type': 'image/png', 'content-length': payload.length } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { text += c })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, code: (parse(text) as { code: string }).code }) })
    })
    req.on('error', (err: NodeJS.ErrnoException) => { resolve({ error: err.code ?? err.message }) })
    req.end(payload)
  })
  const answer = await send(3 * 1024 * 1024)
  t.match(answer, { status: 401, code: 'rest_forbidden' }, 'the refusal reaches the client')
  t.not((answer as { connection?: string }).connection, 'close', 'the body was drained: the connection stays usable')
  // Announced over 4 times the upload limit: answered and closed without reading it.
  const socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  socket.write(`POST /cms-json/t/v1/files HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/png\r\nContent-Length: ${9 * 1024 * 1024}\r\n\r\nabc`)
  let text = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => { text += chunk })
  await once(socket, 'close')
  t.match(text, /^HTTP\/1.1 401 /, 'a body too large to drain: the answer, then the connection closed')
  t.match(text, /connection: close/i)
})
