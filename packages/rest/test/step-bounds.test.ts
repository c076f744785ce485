/**
 * What one step of a large argument's sliced check may do (issue 27): the
 * last idle stall runs traced a 1.9 MB string's character count
 * (`codePointLength`, 24.9 ms) and the listing of a 22,500-member object's
 * members (`Object.entries`, 28 ms) as single tasks, and a large list's
 * `uniqueItems` and `enum` checks walked it whole. Each step of
 * parseValueSteps now reads at most UNIT_SLICE units of a string, checks at
 * most MEMBER_SLICE members for duplicates, and lists no object of more than
 * MEMBER_SLICE members when its keys came with the JSON thread's pieces; the
 * outcome is parseValue's. Counted (calls and their sizes, per step), never
 * timed.
 */
import t from 'tap'
import { DEFAULT_MAX_LENGTH, MAX_ARRAY_ITEMS, parseValue, parseValueSteps, validateValue, type JsonSchema } from '../src/validate.js'
import { MEMBER_SLICE, memberSliceCounts, UNIT_SLICE } from '../src/slices.js'
import { assemblePiece, piecesOf } from '../src/json-tasks.js'
import { closeListedKeys, takeListedKeys } from '../src/listed-keys.js'

/** The most work any one step did: characters read (charCodeAt), JSON.stringify calls, members listed by one call. */
interface Most { reads: number, stringified: number, listed: number, steps: number }

/** Runs parseValueSteps through, counting what each step does with spies set for that step only. */
function stepped (value: unknown, schema: JsonSchema, param: string): { result: ReturnType<typeof parseValue>, most: Most } {
  const steps = parseValueSteps(value, schema, param)
  const most: Most = { reads: 0, stringified: 0, listed: 0, steps: 0 }
  const proto = String.prototype
  const { charCodeAt } = proto
  const { stringify } = JSON
  const { keys, entries } = Object
  for (;;) {
    const step = { reads: 0, stringified: 0, listed: 0 }
    proto.charCodeAt = function (this: string, i: number) { step.reads++; return charCodeAt.call(this, i) }
    JSON.stringify = ((...args: Parameters<typeof stringify>) => { step.stringified++; return stringify(...args) }) as typeof stringify
    Object.keys = ((o: object) => { const r = keys(o); step.listed = Math.max(step.listed, r.length); return r }) as typeof keys
    Object.entries = ((o: object) => { const r = entries(o); step.listed = Math.max(step.listed, r.length); return r }) as typeof entries
    let next: IteratorResult<void, ReturnType<typeof parseValue>>
    try {
      next = steps.next()
    } finally {
      proto.charCodeAt = charCodeAt
      JSON.stringify = stringify
      Object.keys = keys
      Object.entries = entries
    }
    most.steps++
    most.reads = Math.max(most.reads, step.reads)
    most.stringified = Math.max(most.stringified, step.stringified)
    most.listed = Math.max(most.listed, step.listed)
    if (next.done === true) return { result: next.value, most }
  }
}

t.test('a long string\'s characters are counted UNIT_SLICE units a step', async (t) => {
  // Over the default bound in units, under it in characters: the count decides. A pair in every 1,000 units.
  const text = ('a'.repeat(998) + '\u{1F600}').repeat(1_200)
  t.ok(text.length > DEFAULT_MAX_LENGTH && text.length / 2 < DEFAULT_MAX_LENGTH, 'undecided by its units')
  const schema = { type: 'string' } as JsonSchema
  const slices = memberSliceCounts.unitSlices
  const { result, most } = stepped(text, schema, 'content')
  t.same(result, parseValue(text, schema, 'content'))
  t.notOk(result.ok, 'over the bound: 1,198,800 characters')
  t.ok(most.reads <= UNIT_SLICE + 1, `at most ${UNIT_SLICE + 1} characters read a step (${most.reads}; before: ${text.length} in one)`)
  t.equal(memberSliceCounts.unitSlices - slices, Math.ceil(text.length / UNIT_SLICE), 'a slice a step')
  t.ok(memberSliceCounts.mostUnits <= UNIT_SLICE)

  // Under the bound in characters (pairs all along): the same answer as the count at once.
  const pairs = ('a'.repeat(10) + '\u{1F600}'.repeat(45)).repeat(11_000)
  t.ok(pairs.length > DEFAULT_MAX_LENGTH && pairs.length / 2 < DEFAULT_MAX_LENGTH)
  const under = stepped(pairs, schema, 'content')
  t.same(under.result, parseValue(pairs, schema, 'content'))
  t.ok(under.result.ok, '605,000 characters')
  t.ok(under.most.reads <= UNIT_SLICE + 1, `${under.most.reads} characters read a step at most`)

  // A pair across two slices is one character.
  const across = 'a'.repeat(UNIT_SLICE - 1) + '\u{1F600}' + 'b'.repeat(DEFAULT_MAX_LENGTH - UNIT_SLICE)
  const exact = { type: 'string', maxLength: DEFAULT_MAX_LENGTH } as JsonSchema
  t.same(stepped(across, exact, 'x').result, { ok: true, value: across }, `${DEFAULT_MAX_LENGTH} characters in ${across.length} units`)
  t.same(stepped(across + 'c', exact, 'x').result, parseValue(across + 'c', exact, 'x'))
})

t.test('a string without surrogate pairs is not read a character at a time', async (t) => {
  const text = '<p>x</p>'.repeat(200_000)
  const { result, most } = stepped(text, { type: 'string' } as JsonSchema, 'content')
  t.equal(most.reads, 0, 'no character read one by one (before: 1,600,000)')
  t.same(result, parseValue(text, { type: 'string' } as JsonSchema, 'content'))
  t.equal(validateValue('é'.repeat(1_500_000), { type: 'string', maxLength: 1_400_000 } as JsonSchema, 'x')?.message, 'x must be at most 1,400,000 characters long.')
})

/** A 22,500-member object put together as the JSON thread's pieces bring it, and the same one parsed at once. */
function bigObject (): { assembled: Record<string, unknown>, parsed: Record<string, unknown> } {
  const parts = ['"__proto__":"p"', '"constructor":"c"', '"7":"seven"']
  for (let i = 0; i < 22_500; i++) parts.push(`"m${i}":"v${i}"`)
  const text = `{${parts.join(',')}}`
  const assembled: Record<string, unknown> = {}
  const containers: unknown[] = [assembled]
  for (const piece of piecesOf(JSON.parse(text))!) assemblePiece(containers, piece)
  return { assembled, parsed: JSON.parse(text) }
}

t.test('an object from the JSON thread\'s pieces is not listed at once', async (t) => {
  const schema = { type: 'object', additionalProperties: { type: 'string', maxLength: 40 } } as JsonSchema
  const { assembled, parsed } = bigObject()
  const { result, most } = stepped(assembled, schema, 'meta')
  const expected = parseValue(parsed, schema, 'meta')
  t.same(result, expected)
  if (result.ok && expected.ok) t.same(Object.keys(result.value as object), Object.keys(expected.value as object), 'the same keys in the same order')
  t.ok(most.listed <= MEMBER_SLICE, `no call listed more than ${MEMBER_SLICE} members (${most.listed}; before: 22,503 by Object.entries)`)

  // Not from pieces: listed at once, the same outcome.
  const again = stepped(bigObject().parsed, schema, 'meta')
  t.same(again.result, expected)
  t.equal(again.most.listed, 22_503, 'listed once (Object.keys)')

  // Refusals as parseValue's, the keys from the pieces.
  const closed = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } as JsonSchema
  t.same(stepped(bigObject().assembled, closed, 'meta').result, parseValue(parsed, closed, 'meta'))
  const required = { type: 'object', required: ['zz'], additionalProperties: { type: 'string' } } as JsonSchema
  t.same(stepped(bigObject().assembled, required, 'meta').result, parseValue(parsed, required, 'meta'))
  const fewer = { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 22_502 } as JsonSchema
  t.same(stepped(bigObject().assembled, fewer, 'meta').result, parseValue(parsed, fewer, 'meta'))
})

t.test('the pieces\' keys are taken once, and not once the body is checked', async (t) => {
  const { assembled } = bigObject()
  closeListedKeys(assembled)
  t.equal(takeListedKeys(assembled), undefined, 'the body checked: its lists no longer hold')
  const fresh = bigObject().assembled
  t.equal(takeListedKeys(fresh)?.length, 22_503)
  t.equal(takeListedKeys(fresh), undefined, 'taken once')
})

t.test('uniqueItems and enum of a large list: MEMBER_SLICE items a step', async (t) => {
  const list = Array.from({ length: 10_000 }, (_, i) => `s${i}`)
  const unique = { type: 'array', items: { type: 'string' }, uniqueItems: true } as JsonSchema
  const ok = stepped(list, unique, 'ids')
  t.same(ok.result, parseValue(list, unique, 'ids'))
  t.ok(ok.result.ok)
  // stableKey encodes each string item once (JSON.stringify): a step encodes at most a slice's.
  t.ok(ok.most.stringified <= MEMBER_SLICE, `at most ${MEMBER_SLICE} items keyed a step (${ok.most.stringified}; before: 10,000)`)

  const dup = list.map((v, i) => i === 9_999 ? 's5' : v)
  t.same(stepped(dup, unique, 'ids').result, parseValue(dup, unique, 'ids'), 'a duplicate at the end')
  t.notOk(stepped(dup, unique, 'ids').result.ok)

  const inEnum = { ...unique, enum: [['a'], list] } as JsonSchema
  const e = stepped(list, inEnum, 'ids')
  t.same(e.result, parseValue(list, inEnum, 'ids'))
  t.ok(e.result.ok, 'one of the enum')
  t.ok(e.most.stringified <= MEMBER_SLICE, `the enum's sanitizing a slice a step too (${e.most.stringified})`)
  const notIn = { ...unique, enum: [['a'], ['b', 'c']] } as JsonSchema
  t.same(stepped(list, notIn, 'ids').result, parseValue(list, notIn, 'ids'))
  t.notOk(stepped(list, notIn, 'ids').result.ok)
})

t.test('a long string read as a list is split no further than past MAX_ARRAY_ITEMS', async (t) => {
  const text = '<p><b>x</b> &amp; <a href="https://example.com/">y</a></p>'.repeat(15_000) // 45,001 parts, 870,000 characters
  const schema = { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] } as JsonSchema
  const proto = String.prototype
  const { split } = proto
  let most = 0
  proto.split = function (this: string, ...args: Parameters<typeof split>) {
    const r = split.apply(this, args)
    most = Math.max(most, r.length)
    return r
  } as typeof split
  let result: ReturnType<typeof parseValue>
  try {
    result = parseValue(text, schema, 'include')
  } finally {
    proto.split = split
  }
  t.same(result, { ok: true, value: text }, 'a string, as the second branch says')
  t.ok(most <= MAX_ARRAY_ITEMS + 3, `at most ${MAX_ARRAY_ITEMS + 3} parts made (${most}; before: 45,001, twice)`)
  t.equal(validateValue(text, { type: 'array' } as JsonSchema, 'include')?.message, `include must contain at most ${MAX_ARRAY_ITEMS.toLocaleString('en-US')} items.`)
  const exactly = Array.from({ length: MAX_ARRAY_ITEMS }, (_, i) => `p${i}`)
  for (const s of [exactly.join(' '), ` ${exactly.join(',')} `, `,${exactly.join(', ')},,`]) {
    t.same(parseValue(s, { type: 'array' } as JsonSchema, 'include'), { ok: true, value: exactly }, 'a list of exactly the bound, whole')
  }
  t.notOk(validateValue(` ${exactly.join(' ')} extra `, { type: 'array' } as JsonSchema, 'include') === null, 'one past the bound')
})
