/**
 * A namespace's root in the help context (`/test/v1?context=help`: every
 * argument of every route described) is built once per base URL, as its
 * plain index is, not on each request (issue 27: the core's took 10-24 ms
 * of the request thread each time). Counted by the reads of a property's
 * description in the item schema, never timed.
 */
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { endpoint, everyone, route } from '../src/index.js'
import { oneNamespaceApp } from './one-namespace.js'

let reads = 0
const arg = Type.String({ maxLength: 10, description: 'A counted description.' })
const idSchema: Record<string, unknown> = { type: 'integer' }
Object.defineProperty(idSchema, 'description', { enumerable: true, get: () => { reads++; return 'The thing\'s id.' } })

const routes = [route({
  namespace: 'test/v1',
  path: '/test/v1/things',
  schema: { type: 'object', properties: { id: idSchema } },
  endpoints: [endpoint({ methods: ['GET'], args: { name: Type.Optional(arg) }, permission: everyone, handler: async () => [] })]
})]

t.test('the help index is built once, and says the same each time', async (t) => {
  const app = await oneNamespaceApp('test/v1', routes)
  t.teardown(() => app.close())
  const help = async (host = 'cms.test'): Promise<Record<string, any>> => {
    const res = await app.inject({ method: 'GET', url: '/index.php?rest_route=/test/v1&context=help', headers: { host } })
    t.equal(res.statusCode, 200)
    return res.json()
  }
  const first = await help()
  const described = first.routes['/test/v1/things'].endpoints[0].args.name
  t.equal(described.description, 'A counted description.')
  t.same(first.routes['/test/v1/things'].schema.properties.id, { type: 'integer', description: 'The thing\'s id.' }, 'the help context adds the item schema')
  const after = reads
  t.ok(after > 0)
  t.same(await help(), first)
  t.same(await help(), first)
  t.equal(reads, after, 'built once: the description not read again (2026-11-29, before: once a request)')
  const plain = await app.inject({ method: 'GET', url: '/index.php?rest_route=/test/v1' })
  t.notOk('schema' in plain.json().routes['/test/v1/things'], 'the plain index kept apart')
  const other = await help('other.test')
  t.match(other.routes['/test/v1/things']._links.self[0].href, /^http:\/\/other\.test\//, 'per base URL')
})
