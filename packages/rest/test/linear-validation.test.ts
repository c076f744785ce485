/**
 * test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a
 * process of its own, not in a batch where another file's leftovers could add to the figure).
 * Argument validation does work linear in the input, whatever it is sent:
 * declared patterns run on a linear-time engine (and a pattern it cannot
 * run is refused when the route is registered), every string has a length
 * bound, and the format checks and sanitizers scan their input once. While
 * a long argument is validated, other requests are answered.
 */
import t from 'tap'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { check, endpoint, everyone, who, kernelServerOptions, restKernel, route, type RouteDecl } from '../src/index.js'
import { DEFAULT_MAX_LENGTH, parseValue, validateValue } from '../src/validate.js'
import { cpuMs } from '../../core/test/fixtures/timing.js'

/** As the core declares an application password's name; creating one needs a signed-in caller. */
const named = route({
  namespace: 'lin/v1',
  path: '/lin/v1/users/{id}/passwords',
  vars: { id: '[\\d]+' },
  endpoints: [endpoint({
    methods: ['POST'],
    args: {
      id: Type.Integer(),
      name: Type.String({ minLength: 1, pattern: '.*\\S.*' }),
      note: Type.Optional(Type.String())
    },
    permission: check((req) => req.user.id !== 0, who.everyone('a test route (not probed)')),
    handler: (req) => ({ name: req.params.name })
  })]
})

async function build (routes: RouteDecl[]) {
  const app = Fastify({ ...kernelServerOptions({ bodyLimit: 16 * 1024 * 1024 }), logger: false })
  app.get('/healthz', async () => ({ status: 'ok' }))
  // JSON bodies as large as the upload limit: these tests reach the validator with megabytes.
  await app.register(restKernel, { namespaces: [{ name: 'lin/v1', routes }], baseUrl: 'http://lin.test', jsonBodyLimit: 16 * 1024 * 1024 })
  return app
}

t.test('a pattern the linear engine cannot run is refused when the route is registered', async (t) => {
  for (const pattern of ['^(a+)\\1$', '^(?=a)a', '(?<!x)y']) {
    const app = await build([route({
      namespace: 'lin/v1',
      path: '/lin/v1/things',
      endpoints: [endpoint({
        methods: ['GET'],
        args: { q: Type.Optional(Type.Object({ deep: Type.String({ pattern }) })) },
        permission: everyone,
        handler: () => []
      })]
    })]).catch((e: Error) => e)
    const error = app instanceof Error ? app : await app.ready().then(() => undefined, (e: Error) => e)
    t.match(error?.message, /route \/lin\/v1\/things \(GET\): argument q: the pattern .* cannot be matched in linear time/, pattern)
    if (!(app instanceof Error)) await app.close()
  }
  const keyed = await build([route({
    namespace: 'lin/v1',
    path: '/lin/v1/keyed',
    endpoints: [endpoint({
      methods: ['GET'],
      args: { m: Type.Optional(Type.Unsafe({ type: 'object', patternProperties: { '^(x)\\1$': { type: 'string' } } })) },
      permission: everyone,
      handler: () => []
    })]
  })]).then(async (app) => await app.ready(), (e: Error) => e)
  t.match((keyed as Error).message, 'route /lin/v1/keyed (GET): argument m: the pattern "^(x)\\\\1$" cannot be matched in linear time', 'patternProperties keys too')
})

t.test('a string without maxLength is bounded by the kernel default', async (t) => {
  const app = await build([named])
  t.teardown(() => app.close())
  const post = async (payload: Record<string, unknown>) => await app.inject({ method: 'POST', url: '/cms-json/lin/v1/users/1/passwords', payload, headers: { 'content-type': 'application/json' } })
  const over = await post({ name: 'ok', note: 'x'.repeat(DEFAULT_MAX_LENGTH + 1) })
  t.equal(over.statusCode, 400)
  t.same(over.json(), {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): note',
    data: {
      status: 400,
      params: { note: 'note must be at most 1,048,576 characters long.' },
      details: { note: { code: 'rest_too_long', message: 'note must be at most 1,048,576 characters long.', data: null } }
    }
  })
  const at = await post({ name: 'ok', note: 'é'.repeat(DEFAULT_MAX_LENGTH) })
  t.equal(at.statusCode, 401, 'exactly the bound passes validation (characters, not bytes); then the permission check answers')
  t.equal(validateValue('😀'.repeat(DEFAULT_MAX_LENGTH), { type: 'string' }, 'x'), null, 'astral characters count once')
  t.equal(validateValue('a'.repeat(5), { type: 'string', maxLength: 4 }, 'x')?.message, 'x must be at most 4 characters long.', 'a declared maxLength still wins')
})

t.test('declared patterns keep their meaning on the linear engine', async (t) => {
  const ok = (schema: object, value: string) => parseValue(value, schema, 'x').ok
  t.ok(ok({ type: 'string', pattern: '.*\\S.*' }, '  a  '))
  t.notOk(ok({ type: 'string', pattern: '.*\\S.*' }, '    '))
  t.ok(ok({ type: 'string', pattern: '[0-9]' }, 'abc1'), 'unanchored')
  t.ok(ok({ type: 'string', pattern: '^\\p{L}+$' }, 'héllo'), 'unicode classes')
  t.notOk(ok({ type: 'string', pattern: '^[a-z]+$' }, 'ab\n'), '$ is the end of the text')
  t.ok(ok({ type: 'string', pattern: '^(?<word>[a-z]+)$' }, 'abc'), 'named groups')
})

/** One HTTP request on a real socket; resolves with the status and when it was answered. */
function send (port: number, method: string, path: string, body?: string): Promise<{ status: number, body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { text += c })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body: text }) })
    })
    req.on('error', reject)
    req.end(body)
  })
}

t.test('100,000 spaces against .*\\S.* are refused quickly, and /healthz is answered meanwhile', async (t) => {
  const app = await build([named])
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const body = JSON.stringify({ name: ' '.repeat(100_000) })
  // The backtracking engine took about 8 s on this input (issue #11): timed here on a tenth of it. CPU time,
  // here and for the requests: other processes on a loaded machine stretch wall time, not the CPU work costs.
  const oldTenth = cpuMs(() => t.notOk(/.*\S.*/u.test(' '.repeat(10_000)), 'the old engine, on a tenth of the input'))

  const started = process.cpuUsage()
  const slow = send(port, 'POST', '/cms-json/lin/v1/users/1/passwords', body)
  const health = send(port, 'GET', '/healthz')
  const [refused, healthy] = await Promise.all([slow, health])
  const used = process.cpuUsage(started)
  const spent = (used.user + used.system) / 1000
  t.equal(refused.status, 400)
  t.match(JSON.parse(refused.body), { code: 'rest_invalid_param', data: { details: { name: { code: 'rest_invalid_pattern' } } } })
  t.equal(healthy.status, 200)
  // The stated bound is 200 ms, on an idle machine. On a shared one the
  // yardstick is the old engine measured now: on the whole input it takes at
  // least ten times what it takes on a tenth (a hundred, being quadratic).
  // Both answers (this process is client and service) cost less than that.
  const oldWhole = oldTenth * 10
  t.ok(spent < oldWhole, `refused, and /healthz answered, for ${Math.round(spent)} ms of CPU, less than the old engine alone (over ${Math.round(oldWhole)} ms)`)
})
