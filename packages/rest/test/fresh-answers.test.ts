/**
 * The kernel's fast path: an anonymous GET of an endpoint declared
 * `cache: 'public'` is answered again with the same bytes, without
 * validation, permission check or handler, for as long as the store's
 * horizon (here `world.token`) reads the same.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { check, endpoint, who, RestError, RestResponse, route, type Principal } from '../src/index.js'
import { oneNamespaceApp } from './one-namespace.js'

interface World { token: string | undefined, version: number, handled: number, permitted: number }

const signedIn: Principal = { id: 3, can: () => true }
// Signed-in callers with rights tokens (what the core's authenticator gives a verified caller).
const alice: Principal = { id: 4, can: () => true, keptAs: 'user 4 e1' }
const alice2: Principal = { id: 4, can: () => true, keptAs: 'user 4 e2' }
const bob: Principal = { id: 5, can: () => true, keptAs: 'user 5 e1' }
const callers: Record<string, Principal> = { 'Bearer me': signedIn, 'Bearer alice': alice, 'Bearer alice-again': alice, 'Bearer alice-e2': alice2, 'Bearer bob': bob }

async function build (world: World, keptAnswerBytes?: number, keptSignedInBytes?: number): Promise<FastifyInstance> {
  const app = await oneNamespaceApp('fresh/v1', [route({
    namespace: 'fresh/v1',
    path: '/fresh/v1/items/{id}',
    vars: { id: '[\\d]+' },
    endpoints: [endpoint({
      methods: ['GET'],
      cache: 'public',
      args: { id: Type.Integer(), context: Type.Optional(Type.String({ enum: ['view', 'edit'] })) },
      permission: check((req) => {
        world.permitted++
        return req.params.id !== 404 ? true : new RestError('rest_forbidden', 'No.', 401)
      }, who.everyone('a test route (not probed)')),
      handler: (req) => {
        world.handled++
        const body = { id: req.params.id, version: world.version, ...(req.user.id === 0 ? {} : { caller: req.user.id }) }
        // A route's own answer made for one request: a cookie, a nonce, or marked no-store.
        if (req.params.id === 107) return new RestResponse(body, 200, { 'Set-Cookie': 'session=1' })
        if (req.params.id === 108) return new RestResponse(body, 200, { 'X-CMS-Nonce': 'n' })
        if (req.params.id === 106) return new RestResponse(body, 200, { 'Cache-Control': 'private, no-store' })
        return body
      }
    })]
  })], {
    baseUrl: 'http://fresh.test',
    authenticate: async (request) => callers[String(request.headers.authorization)] ?? { id: 0, can: () => false },
    horizon: async () => world.token,
    keptAnswerBytes,
    keptSignedInBytes
  })
  return app
}

t.test('anonymous answers are reused while the token lasts', async (t) => {
  const world: World = { token: 'h1', version: 1, handled: 0, permitted: 0 }
  const app = await build(world)
  t.teardown(() => app.close())
  const get = async (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    await app.inject({ method, url: `/cms-json/fresh/v1/items/${url}`, headers })

  const first = await get('5')
  t.equal(first.statusCode, 200)
  t.same(first.json(), { id: 5, version: 1 })
  t.equal(world.handled, 1, 'the first answer runs the handler')
  t.ok(world.permitted > 0, 'and the permission check (also for the Allow header)')
  // The token is asked from the second request on (the first had no bytes to reuse).
  const again = await get('5')
  t.equal(again.body, first.body)
  t.equal(world.handled, 2, 'the second answer runs the handler and notes the token')
  const checks = world.permitted

  const second = await get('5')
  t.equal(second.body, first.body, 'the same bytes')
  t.equal(second.headers.etag, first.headers.etag, 'the same ETag')
  t.equal(second.headers.allow, 'GET', 'the same headers')
  t.same([world.handled, world.permitted], [2, checks], 'neither the permission check nor the handler ran again')

  const notModified = await get('5', { 'if-none-match': String(first.headers.etag) })
  t.equal(notModified.statusCode, 304, 'a matching If-None-Match is still answered 304')
  const head = await get('5', {}, 'HEAD')
  t.equal(head.body, '', 'HEAD carries no body')
  t.equal(world.handled, 3, 'HEAD is kept apart from GET')

  // The data changes; until the token does, the kept answer stands (nothing was committed).
  world.version = 2
  world.token = 'h2'
  const third = await get('5')
  t.same(third.json(), { id: 5, version: 2 }, 'a new token: the handler answers again')
  t.equal(world.handled, 4, 'it ran for the new token')

  const other = await get('5?context=view')
  t.same(other.json(), { id: 5, version: 2 })
  const bad = await get('5?context=nope')
  t.equal(bad.statusCode, 400, 'another query string is validated on its own')
  t.equal(world.handled, 5)

  const denied = await get('404')
  const afterOne = world.permitted
  const deniedAgain = await get('404')
  t.same([denied.statusCode, deniedAgain.statusCode], [401, 401], 'errors are never kept')
  t.ok(world.permitted > afterOne, 'the permission check ran again for the second refused request')
})

t.test('signed-in callers without a rights token and an unknown token are never served from the fast path', async (t) => {
  const world: World = { token: 'h1', version: 1, handled: 0, permitted: 0 }
  const app = await build(world)
  t.teardown(() => app.close())
  const counts: number[] = []
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({ method: 'GET', url: '/cms-json/fresh/v1/items/9', headers: { authorization: 'Bearer me' } })
    t.equal(res.statusCode, 200)
    counts.push(world.permitted)
  }
  t.ok(counts[0]! > 0 && counts[1]! > counts[0]! && counts[2]! > counts[1]!, 'a signed-in caller is checked every time')

  world.token = undefined
  counts.length = 0
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({ method: 'GET', url: '/cms-json/fresh/v1/items/9' })
    t.same(res.json(), { id: 9, version: 1 })
    counts.push(world.permitted)
  }
  t.ok(counts[1]! > counts[0]! && counts[2]! > counts[1]!, 'without a readable token every anonymous request is checked')
})

t.test('kept answers stay within their memory budget', async (t) => {
  const world: World = { token: 'h1', version: 1, handled: 0, permitted: 0 }
  // 420 bytes: an answer of items 1 to 9 (`{"id":N,"version":1}`) weighs 40 kept (as text and
  // as bytes), of items 10 and 11 42, which is the most one answer may weigh (a tenth).
  const app = await build(world, 420)
  t.teardown(() => app.close())
  const handled = async (id: number): Promise<number> => {
    const before = world.handled
    const res = await app.inject({ method: 'GET', url: `/cms-json/fresh/v1/items/${id}` })
    t.same(res.json(), { id, version: 1 }, `item ${id} is answered right, kept or not`)
    return world.handled - before
  }
  // Two requests per address note the token; from the third on each is served from the kept bytes.
  for (let id = 1; id <= 9; id++) { await handled(id); await handled(id) }
  t.same([await handled(1), await handled(9)], [0, 0], 'nine answers (360 bytes) are all kept')
  // Items 10 and 11 bring it to 444 bytes: the oldest kept (item 1) makes room.
  for (const id of [10, 11]) { await handled(id); await handled(id) }
  t.same([await handled(10), await handled(11), await handled(2)], [0, 0, 0], 'the newest and the rest are kept')
  t.equal(await handled(1), 1, 'the oldest was evicted: its handler runs again')
})

t.test('an answer over a tenth of the budget is not kept', async (t) => {
  const world: World = { token: 'h1', version: 1, handled: 0, permitted: 0 }
  const app = await build(world, 399)
  t.teardown(() => app.close())
  for (let i = 0; i < 4; i++) {
    const res = await app.inject({ method: 'GET', url: '/cms-json/fresh/v1/items/5' })
    t.same(res.json(), { id: 5, version: 1 })
  }
  t.equal(world.handled, 4, 'every request ran the handler (40 bytes against a budget of 399)')
})

t.test('a signed-in caller with a rights token: kept apart per token, under the horizon', async (t) => {
  const world: World = { token: 'h1', version: 1, handled: 0, permitted: 0 }
  const app = await build(world)
  t.teardown(() => app.close())
  const get = async (as: string, url = '5') => await app.inject({ method: 'GET', url: `/cms-json/fresh/v1/items/${url}`, headers: { authorization: as } })
  // `permitted`: whether the permission check ran (for the answer and its Allow header).
  const ran = async (as: string, url = '5'): Promise<{ handled: number, permitted: boolean, body: unknown }> => {
    const before = { handled: world.handled, permitted: world.permitted }
    const res = await get(as, url)
    t.equal(res.statusCode, 200)
    return { handled: world.handled - before.handled, permitted: world.permitted > before.permitted, body: res.json() }
  }

  t.same(await ran('Bearer alice'), { handled: 1, permitted: true, body: { id: 5, version: 1, caller: 4 } }, 'the first answer runs everything')
  // The kernel was given a horizon, not a snapshot: a signed-in caller's is asked as an anonymous one's is.
  t.same(await ran('Bearer alice'), { handled: 1, permitted: true, body: { id: 5, version: 1, caller: 4 } }, 'the second notes the horizon')
  t.same(await ran('Bearer alice'), { handled: 0, permitted: false, body: { id: 5, version: 1, caller: 4 } }, 'the third is the kept answer: no permission check, no handler')
  t.same(await ran('Bearer alice-again'), { handled: 0, permitted: false, body: { id: 5, version: 1, caller: 4 } }, 'another credential of the same rights: the same answer')
  t.same((await ran('Bearer bob')).body, { id: 5, version: 1, caller: 5 }, 'another user is answered afresh (never the first one\'s answer)')
  t.equal((await ran('Bearer alice-e2')).handled, 1, 'the same user under another credentials epoch: afresh')
  t.equal((await ran('Bearer me')).handled, 1, 'a caller without a token: afresh')
  t.equal((await ran('Bearer me')).handled, 1, 'every time')
  const anonymous = await app.inject({ method: 'GET', url: '/cms-json/fresh/v1/items/5' })
  t.same(anonymous.json(), { id: 5, version: 1 }, 'the anonymous answer is its own')
  t.equal((await ran('Bearer alice', '5?context=edit')).handled, 1, 'another query string: its own answer')

  world.version = 2
  world.token = 'h2'
  t.same(await ran('Bearer alice'), { handled: 1, permitted: true, body: { id: 5, version: 2, caller: 4 } }, 'a new horizon: answered afresh')

  for (const id of ['106', '107', '108']) {
    await ran('Bearer alice', id)
    await ran('Bearer alice', id)
    t.equal((await ran('Bearer alice', id)).handled, 1, `item ${id}: an answer with a cookie, a nonce or no-store is never kept`)
  }
  const refused = async (): Promise<number> => {
    const before = world.permitted
    t.equal((await get('Bearer alice', '404')).statusCode, 401)
    return world.permitted - before
  }
  await refused()
  t.ok(await refused() > 0, 'a refusal is never kept: checked again')
})

t.test('signed-in answers have a budget of their own; 0 keeps none', async (t) => {
  const world: World = { token: 'h1', version: 1, handled: 0, permitted: 0 }
  const app = await build(world, undefined, 0)
  t.teardown(() => app.close())
  for (let i = 0; i < 4; i++) {
    const res = await app.inject({ method: 'GET', url: '/cms-json/fresh/v1/items/5', headers: { authorization: 'Bearer alice' } })
    t.same(res.json(), { id: 5, version: 1, caller: 4 })
  }
  t.equal(world.handled, 4, 'with no memory for them, every signed-in request ran the handler')
  for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/cms-json/fresh/v1/items/5' })
  t.equal(world.handled, 6, 'anonymous answers are still kept (the third request was served kept)')
})
