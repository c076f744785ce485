/**
 * A large argument's validation and sanitizing walks are sliced (issue 27): a
 * list or an object of 22,500 members was validated, then sanitized, each in
 * one turn. parseValueSteps now yields after each MEMBER_SLICE members of a
 * list or an object at the top, with the same value and the same refusals as
 * parseValue. Counted (yields, members a slice), never timed.
 */
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { MAX_ARRAY_ITEMS, parseValue, parseValueSteps, type JsonSchema } from '../src/validate.js'
import { MEMBER_SLICE, memberSliceCounts } from '../src/slices.js'

const MEMBERS = 22_500

/** Runs the steps through, counting their yields. */
function run (value: unknown, schema: JsonSchema, param: string): { yields: number, result: ReturnType<typeof parseValue> } {
  const steps = parseValueSteps(value, schema, param)
  let yields = 0
  let step = steps.next()
  while (step.done !== true) {
    yields++
    step = steps.next()
  }
  return { yields, result: step.value }
}

function bigObjectText (bad?: number): string {
  const parts = ['"__proto__":"p"', '"constructor":"c"', '"7":"seven"']
  for (let i = 0; i < MEMBERS; i++) parts.push(`"m${i}":${i === bad ? 42 : `"v${i}"`}`)
  return `{${parts.join(',')}}`
}

const objectSchema = Type.Object({}, { additionalProperties: Type.String({ maxLength: 40 }) }) as JsonSchema
const listSchema = Type.Array(Type.Integer({ minimum: 0 }), { uniqueItems: true }) as JsonSchema

t.test('a 22,500-member object: validated and sanitized in slices, the value of the check at once', async (t) => {
  const value = JSON.parse(bigObjectText())
  const slices = memberSliceCounts.slices
  memberSliceCounts.most = 0
  const { yields, result } = run(value, objectSchema, 'data')
  const expected = parseValue(JSON.parse(bigObjectText()), objectSchema, 'data')
  t.same(result, expected)
  t.ok(result.ok)
  if (result.ok && expected.ok) {
    t.same(Object.keys(result.value as object), Object.keys(expected.value as object), 'the same keys in the same order')
    t.ok(Object.hasOwn(result.value as object, '__proto__'), '__proto__ an own member')
    t.equal(Object.getPrototypeOf(result.value), Object.prototype)
  }
  const perWalk = Math.ceil((MEMBERS + 3) / MEMBER_SLICE)
  t.equal(memberSliceCounts.slices - slices, 2 * perWalk, `${perWalk} slices for the validation, as many for the sanitizing`)
  t.ok(memberSliceCounts.most <= MEMBER_SLICE, `at most ${MEMBER_SLICE} members a slice (${memberSliceCounts.most})`)
  // Before: 2 yields between the three walks, and the guard's own (guard-slices.test.ts).
  t.ok(yields >= 2 + 2 * (perWalk - 1), `${yields} yields: between the walks and between the slices`)
})

t.test('a list of MAX_ARRAY_ITEMS items: the same value and the same refusals as the check at once', async (t) => {
  const list = Array.from({ length: MAX_ARRAY_ITEMS }, (_, i) => i)
  const ok = run(list, listSchema, 'ids')
  t.same(ok.result, parseValue(list, listSchema, 'ids'))
  t.ok(ok.yields >= 2 + 2 * (Math.ceil(MAX_ARRAY_ITEMS / MEMBER_SLICE) - 1), `${ok.yields} yields`)

  const cases: Array<[string, unknown[], JsonSchema]> = [
    ['a bad item far in', list.map((v, i) => i === 7_000 ? -1 : v), listSchema],
    ['a duplicate', list.map((v, i) => i === 9_999 ? 5 : v), listSchema],
    ['too few', list, Type.Array(Type.Integer(), { minItems: MAX_ARRAY_ITEMS + 1 }) as JsonSchema],
    ['a string coerced', list.map((v, i) => i === 9_000 ? '9000' : v), listSchema]
  ]
  for (const [name, value, schema] of cases) {
    t.same(run(value, schema, 'ids').result, parseValue(value, schema, 'ids'), name)
  }
  t.notOk(run(cases[0]![1], listSchema, 'ids').result.ok)
})

t.test('an object\'s refusals as the check at once', async (t) => {
  const bad = JSON.parse(bigObjectText(20_000))
  const r = run(bad, objectSchema, 'data')
  t.notOk(r.result.ok)
  t.same(r.result, parseValue(JSON.parse(bigObjectText(20_000)), objectSchema, 'data'))

  const closed = Type.Object({ a: Type.String() }, { additionalProperties: false }) as JsonSchema
  const value = JSON.parse(bigObjectText())
  t.same(run(value, closed, 'data').result, parseValue(value, closed, 'data'), 'a member not allowed')
  const most = Type.Object({}, { additionalProperties: Type.String(), maxProperties: 10 }) as JsonSchema
  t.same(run(value, most, 'data').result, parseValue(value, most, 'data'), 'too many members')
  const required = Type.Object({ x: Type.String() }, { additionalProperties: Type.String() }) as JsonSchema
  t.same(run(value, required, 'data').result, parseValue(value, required, 'data'), 'a required member missing')
  const small = { a: 'b' }
  t.equal(run(small, objectSchema, 'data').yields, 2, 'a small object: the walks whole')
})
