/**
 * The abuse guard's scan of a huge argument in slices (issue 27): the guard
 * visited every container of a 22,500-member object in one task before the
 * validation's own walks. Sliced (a body parsed in the JSON thread), it
 * yields each time it has met GUARD_SLICE members, inside a container too,
 * with the same answer and the same refusals as the scan at once. Counted
 * (containers visited between two yields), never timed.
 */
import t from 'tap'
import { GUARD_SLICE, guardCounts, parseValue, parseValueSteps, type JsonSchema } from '../src/validate.js'
import { compileArgs, validateArgs, type ArgSpec } from '../src/request-args.js'
import { RestError } from '../src/errors.js'

const MEMBERS = 22_500

const schema = { type: 'object' } as JsonSchema

function huge (last?: unknown): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  for (let i = 0; i < MEMBERS; i++) data[`m${i}`] = { v: `v${i}`, n: [i, { d: i }] }
  data.list = Array.from({ length: 9_000 }, (_, i) => ({ i }))
  data.flat = Array.from({ length: 9_000 }, (_, i) => i)
  if (last !== undefined) data.zz = last
  return data
}

/** parseValueSteps run through: its answer and the containers the guard visited between two yields, at most. */
function stepped (value: unknown): { result: unknown, most: number, steps: number } {
  const steps = parseValueSteps(value, schema, 'data')
  let most = 0
  let count = 0
  for (;;) {
    const before = guardCounts.visited
    const step = steps.next()
    most = Math.max(most, guardCounts.visited - before)
    count++
    if (step.done === true) return { result: step.value, most, steps: count }
  }
}

function nested (levels: number): unknown {
  let v: unknown = 'x'
  for (let i = 0; i < levels; i++) v = { a: v }
  return v
}

t.test('a huge argument is scanned in slices, with the answer of the scan at once', async (t) => {
  const value = huge()
  const yields = guardCounts.yields
  const { result, most, steps } = stepped(value)
  t.same(result, parseValue(value, schema, 'data'), 'the same value')
  t.ok(most <= GUARD_SLICE + 1, `at most ${most} containers visited between two yields (${GUARD_SLICE} members met at most)`)
  // 22,500 members of 3 containers each, 18,000 elements and 9,002 more members met: over 100,000.
  t.ok(guardCounts.yields - yields >= 24, `the scan yielded ${guardCounts.yields - yields} times`)
  t.ok(steps >= 27, `${steps} steps in all`)

  const small = guardCounts.yields
  stepped({ a: { b: [1, 2] } })
  t.equal(guardCounts.yields, small, 'a small argument scanned at once')
})

t.test('the refusals of a huge argument are those of the scan at once', async (t) => {
  for (const [what, last] of [
    ['nested too deeply, last', nested(40)],
    ['a list too long, last', { inner: Array.from({ length: 10_001 }, (_, i) => i) }],
    ['an index-keyed object too long, last', Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [String(i), i]))]
  ] as const) {
    const value = huge(last)
    const at = parseValue(value, schema, 'data')
    t.equal(at.ok, false, `${what}: refused at once`)
    const { result, most } = stepped(value)
    t.same(result, at, `${what}: the same refusal`)
    t.ok(most <= GUARD_SLICE + 1, `${what}: at most ${most} containers a step`)
  }
})

t.test('the request-level check, sliced, answers as the check at once', async (t) => {
  const specs: ArgSpec[] = [{ name: 'data', schema, required: true }, { name: 'title', schema: { type: 'string' }, required: false }]
  const ok = { data: huge(), title: 'T' }
  t.same(await compileArgs(specs).sliced(structuredClone(ok)), validateArgs(specs, structuredClone(ok)), 'the same arguments')
  const bad = { data: huge(nested(40)), title: 'T' }
  let expected: unknown
  try {
    validateArgs(specs, structuredClone(bad))
  } catch (err) {
    expected = err
  }
  t.ok(expected instanceof RestError, 'refused at once')
  await t.rejects(compileArgs(specs).sliced(structuredClone(bad)), expected as RestError, 'the same refusal sliced')
})
