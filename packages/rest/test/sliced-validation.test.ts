/**
 * A large body's arguments are validated a walk a turn (issue 27): the
 * guard, the validation and the sanitizing of a 22,500-member object (and
 * the GC they cause) were one macrotask with the value's arrival from the
 * JSON thread and the handler. Now a body parsed in the thread is checked
 * with a turn of the event loop before each heavy argument and between its
 * walks, with the same outcome and the same refusals as the check at once.
 * Counted (turns), never timed.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { endpoint, everyone, route } from '../src/index.js'
import { guardCounts } from '../src/validate.js'
import { jsonThread } from '../src/json-thread.js'
import { argsCounts, validateArgs, type ArgSpec } from '../src/request-args.js'
import { RestError } from '../src/errors.js'
import { oneNamespaceApp } from './one-namespace.js'

const MEMBERS = 22_500

const dataSchema = Type.Object({}, { additionalProperties: Type.String({ maxLength: 40 }) })
const titleSchema = Type.Optional(Type.String())

/** The turn (a setImmediate ticker) the handler ran in, for the last request. */
let handledAt = -1
let turn = 0

async function build (): Promise<FastifyInstance> {
  const app = await oneNamespaceApp('sliced/v1', [route({
    namespace: 'sliced/v1',
    path: '/sliced/v1/data',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { data: dataSchema, title: titleSchema },
      permission: everyone.because('a test route (not probed)'),
      handler: (req) => {
        handledAt = turn
        return { members: Object.keys(req.params.data as Record<string, unknown>).length, title: req.params.title ?? null }
      }
    })]
  })], {
    baseUrl: 'http://sliced.test',
    authenticate: async () => ({ id: 1, can: () => true })
  })
  return app
}

function bigData (bad?: number): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  for (let i = 0; i < MEMBERS; i++) data[`m${i}`] = i === bad ? 42 : `v${i}`
  return data
}

/** Ticks `turn` once a turn while `run` runs, noting the turn the guard walked in. */
async function ticking<T> (run: () => Promise<T>): Promise<{ value: T, guardAt: number }> {
  let on = true
  let guardAt = -1
  let seen = guardCounts.visited
  const tick = (): void => {
    turn++
    if (guardAt < 0 && guardCounts.visited !== seen) guardAt = turn - 1
    seen = guardCounts.visited
    if (on) setImmediate(tick)
  }
  setImmediate(tick)
  try {
    return { value: await run(), guardAt }
  } finally {
    on = false
  }
}

t.test('a large body is validated a walk a turn, with the answer of the check at once', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const parsed = jsonThread.counts.parsedOff
  const turns = argsCounts.turns
  const { value: res, guardAt } = await ticking(async () => await app.inject({ method: 'POST', url: '/cms-json/sliced/v1/data', payload: { data: bigData(), title: 'T' } }))
  t.equal(res.statusCode, 200)
  t.same(res.json(), { members: MEMBERS, title: 'T' }, 'the value as sent, sanitized as before')
  t.equal(jsonThread.counts.parsedOff, parsed + 1, 'the body parsed in the thread')
  t.ok(argsCounts.turns - turns >= 3, `the check waited for ${argsCounts.turns - turns} turns (before the object, between its three walks)`)
  t.ok(guardAt >= 0 && handledAt - guardAt >= 2, `the guard (turn ${guardAt}) and the handler (turn ${handledAt}) two turns apart at least: the validation and the sanitizing in turns of their own`)

  const small = argsCounts.turns
  const few = await app.inject({ method: 'POST', url: '/cms-json/sliced/v1/data', payload: { data: { a: 'b' } } })
  t.same(few.json(), { members: 1, title: null })
  t.equal(argsCounts.turns, small, 'a small body checked at once')
})

t.test('refusals of a large body are those of the check at once', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const specs: ArgSpec[] = [{ name: 'data', schema: dataSchema as never, required: true }, { name: 'title', schema: { type: 'string' }, required: false }]
  for (const [what, body] of [
    ['a member of the wrong type', { data: bigData(17_000), title: 'T' }],
    ['two invalid arguments', { data: bigData(5), title: ['x'] }],
    ['a missing argument', { title: 'x'.repeat(70_000) }]
  ] as const) {
    let expected: RestError | undefined
    try {
      validateArgs(specs, structuredClone(body) as Record<string, unknown>)
    } catch (err) {
      expected = err as RestError
    }
    t.ok(expected instanceof RestError, `${what}: refused at once`)
    const res = await app.inject({ method: 'POST', url: '/cms-json/sliced/v1/data', payload: body })
    t.equal(res.statusCode, expected!.status, `${what}: the same status`)
    t.same(res.json(), { code: expected!.code, message: expected!.message, data: expected!.data }, `${what}: the same answer`)
  }
})
