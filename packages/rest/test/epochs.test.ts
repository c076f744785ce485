/**
 * `req.epoch(name)` (epochs.ts): a token per kind of data, taken from the
 * kernel's `snapshot`. A request whose authentication took a snapshot reuses
 * its epochs, a write too (no second statement); a request without one asks
 * once, at first use, and shares that with its horizon; a kind with no
 * epoch falls back to the horizon; a kernel given neither horizon nor
 * snapshot answers undefined (nothing reused).
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { endpoint, everyone, route, type KernelSnapshot, type Principal } from '../src/index.js'
import { oneNamespaceApp } from './one-namespace.js'

interface World { snapshot: KernelSnapshot, asked: number }

const signedIn: Principal = { id: 3, can: () => true }

async function build (world: World | undefined): Promise<FastifyInstance> {
  const ask = async (): Promise<KernelSnapshot> => {
    world!.asked++
    return world!.snapshot
  }
  const app = await oneNamespaceApp('ep/v1', [route({
    namespace: 'ep/v1',
    path: '/ep/v1/tokens',
    endpoints: [endpoint({
      methods: ['GET', 'POST'],
      args: {},
      permission: everyone,
      handler: async (req) => ({ settings: await req.epoch('settings') ?? null, other: await req.epoch('other') ?? null, horizon: await req.horizon() ?? null })
    })]
  })], {
    baseUrl: 'http://ep.test',
    authenticate: async (request) => {
      if (request.headers.authorization !== 'Bearer me') return { id: 0, can: () => false }
      // As the core's authenticator does: the snapshot taken for the credentials is the request's.
      request.snapshotTaken = await ask()
      return signedIn
    },
    ...(world === undefined ? {} : { snapshot: ask })
  })
  return app
}

t.test('epochs from the snapshot: taken once per request, a write reusing its authentication\'s', async (t) => {
  const world: World = { snapshot: { horizon: 'h1', epochs: { settings: '10' } }, asked: 0 }
  const app = await build(world)
  t.teardown(() => app.close())
  const send = async (method: 'GET' | 'POST', signed: boolean): Promise<unknown> =>
    (await app.inject({ method, url: '/cms-json/ep/v1/tokens', headers: signed ? { authorization: 'Bearer me' } : {} })).json()

  t.same(await send('GET', false), { settings: 'settings 10', other: 'h1', horizon: 'h1' }, 'a kind without an epoch: the horizon')
  t.equal(world.asked, 1, 'one snapshot for the epochs and the horizon')

  world.asked = 0
  t.same(await send('POST', true), { settings: 'settings 10', other: 'h1', horizon: 'h1' })
  t.equal(world.asked, 2, 'a write: its epochs from the authentication, its horizon asked afresh')

  world.asked = 0
  world.snapshot = { horizon: 'h2', epochs: { settings: '11' } }
  t.same(await send('GET', true), { settings: 'settings 11', other: 'h2', horizon: 'h2' }, 'a changed epoch is a new token')
  t.equal(world.asked, 1, 'a signed-in read: the authentication\'s snapshot only')
})

t.test('a kernel with neither horizon nor snapshot reuses nothing', async (t) => {
  const app = await build(undefined)
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/cms-json/ep/v1/tokens' })
  t.same(res.json(), { settings: null, other: null, horizon: null })
})
