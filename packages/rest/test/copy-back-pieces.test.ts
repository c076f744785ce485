/**
 * A large body's parsed value comes back from the JSON thread a bounded part a
 * turn (issue 27): deserializing the structured clone of a 22,500-member
 * object was about 20 ms in one task of the request thread. Now the thread
 * posts it in pieces of at most PIECE_WEIGHT (json-tasks.ts `piecesOf`) on a
 * port of their own, and the request thread takes one a turn. The value put
 * together is JSON.parse's, own keys, order, `__proto__` and all. Counted
 * (pieces, turns, values per piece), never timed.
 */
import t from 'tap'
import { jsonThread, OFF_THREAD_BYTES } from '../src/json-thread.js'
import { assemblePiece, piecesOf, PIECE_WEIGHT, type ParseOutcome, type Piece } from '../src/json-tasks.js'
import { DEFAULT_TEXT_LIMITS } from '../src/json-scan.js'
import { MOVE_MIN_CHARS } from '../src/moved-strings.js'

const MEMBERS = 22_500
const limits = { ...DEFAULT_TEXT_LIMITS, maxStrings: 200_000 }

/** Nested `depth` levels, objects and arrays in turn, with awkward keys at each. */
function deep (depth: number): string {
  let s = '"bottom"'
  for (let i = 0; i < depth; i++) s = i % 2 === 0 ? `[${i}, ${s}, -0]` : `{"__proto__": ${s}, "constructor": {"prototype": ${i}}, "2": "two", "1": ${i}}`
  return s
}

/** A 22,500-member object as a client writes it: prototype names, index keys, a repeated key, deep nesting, a large member holding a long string. */
function bodyText (): string {
  const members: string[] = [
    '"__proto__": {"polluted": true, "__proto__": [1, {"x": null}]}',
    '"constructor": {"prototype": {"toString": "no"}}',
    '"hasOwnProperty": 1',
    '"7": "index", "10": "ten"',
    `"deep": ${deep(300)}`,
    `"large": [${Array.from({ length: 5_000 }, (_, i) => `{"i": ${i}, "f": ${i / 7}, "__proto__": {"n": ${i}}}`).join(',')}, ${JSON.stringify('é'.repeat(MOVE_MIN_CHARS + 3))}]`,
    '"twice": 1',
    '"numbers": [1e400, -1e-400, 0.1, 12345678901234567890, -0]',
    '"text": "\\u2028 \\ud83d\\ude00 \\"q\\""'
  ]
  for (let i = 0; members.length < MEMBERS; i++) members.push(`"m${i}": ${i % 3 === 0 ? `{"v": ${i}}` : i}`)
  members.push('"twice": 2')
  return `{${members.join(',')}}`
}

/** Whether `a` and `b` are the same JSON value: same prototypes, own keys in the same order, same descriptors, `Object.is` leaves. */
function identical (a: unknown, b: unknown, at = '$'): string | undefined {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b) ? undefined : `${at}: ${String(a)} against ${String(b)}`
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${at}: prototypes differ`
  const ka = Reflect.ownKeys(a)
  const kb = Reflect.ownKeys(b)
  if (ka.join('\u0000') !== kb.join('\u0000')) return `${at}: keys differ`
  for (const k of ka) {
    const da = Object.getOwnPropertyDescriptor(a, k)!
    const db = Object.getOwnPropertyDescriptor(b, k)!
    if (da.enumerable !== db.enumerable || da.writable !== db.writable || da.configurable !== db.configurable) return `${at}.${String(k)}: descriptors differ`
    const d = identical(da.value, db.value, `${at}.${String(k)}`)
    if (d !== undefined) return d
  }
  return undefined
}

/** Values in a piece, counted here: a member 1 plus its values, a large container's placeholder 1. */
function valuesIn (piece: Piece): number {
  let n = 0
  const count = (v: unknown): void => {
    n++
    if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) count(x)
  }
  piece.v.forEach((v, i) => { if (piece.sub?.includes(i) === true) n++; else count(v) })
  return n
}

t.test('a 22,500-member body comes back in pieces, one a turn, as JSON.parse makes it', async (t) => {
  const text = bodyText()
  t.ok(Buffer.byteLength(text) > OFF_THREAD_BYTES, 'a body parsed in the thread')
  const before = { ...jsonThread.counts }
  let turns = 0
  let ticking = true
  const tick = (): void => { turns++; if (ticking) setImmediate(tick) }
  setImmediate(tick)
  let outcome: ParseOutcome
  try {
    outcome = await jsonThread.parse(Buffer.from(text), limits)
  } finally {
    ticking = false
  }
  t.ok('value' in outcome, 'parsed')
  const value = (outcome as { value: unknown }).value
  const expected: unknown = JSON.parse(text)
  t.equal(identical(value, expected), undefined, 'identical to JSON.parse: keys, order, prototypes, numbers, nesting')
  t.same(Object.keys(outcome), ['value'], 'nothing of the pieces is left on the outcome')
  const v = value as Record<string, unknown>
  t.ok(Object.hasOwn(v, '__proto__') && Object.getPrototypeOf(v) === Object.prototype, '`__proto__` an own data property')
  t.equal(JSON.stringify(value), JSON.stringify(expected))

  const pieces = jsonThread.counts.piecesBack - before.piecesBack
  t.equal(jsonThread.counts.parsedOff, before.parsedOff + 1)
  t.ok(pieces >= Math.ceil(MEMBERS / PIECE_WEIGHT), `the value came in ${pieces} pieces, not one message`)
  t.ok(jsonThread.counts.heaviestPiece <= PIECE_WEIGHT, `no piece weighs more than ${PIECE_WEIGHT} (${jsonThread.counts.heaviestPiece})`)
  t.equal(jsonThread.counts.pieceTurns - before.pieceTurns, pieces, 'a turn before each piece')
  t.ok(turns >= pieces, `the loop turned ${turns} times while they came`)
})

t.test('the pieces are bounded, counted apart from the thread\'s own weights, and put together give the value', async (t) => {
  const text = bodyText()
  const parsed: unknown = JSON.parse(text)
  const pieces = piecesOf(JSON.parse(text))!
  t.ok(pieces.length > 1)
  const heaviest = Math.max(...pieces.map(valuesIn))
  t.ok(heaviest <= PIECE_WEIGHT, `at most ${PIECE_WEIGHT} values in a piece (${heaviest})`)
  // Through a structured clone, as across the threads.
  const containers: unknown[] = [{}]
  for (const p of pieces) assemblePiece(containers, structuredClone(p))
  t.equal(identical(containers[0], parsed), undefined, 'identical to JSON.parse')
  t.equal(piecesOf(JSON.parse('{"a": [1, 2, {"__proto__": 3}]}')), undefined, 'a small value is one message, as before')
  t.equal(piecesOf(JSON.parse('"x"')), undefined)
  const array = JSON.parse(`[${Array.from({ length: 10_000 }, (_, i) => `[${i}, {"__proto__": ${i}}]`).join(',')}]`) as unknown
  const arrayPieces = piecesOf(structuredClone(array))!
  const roots: unknown[] = [[]]
  for (const p of arrayPieces) assemblePiece(roots, structuredClone(p))
  t.equal(identical(roots[0], array), undefined, 'a large array too')
})

t.test('a body just over the thread\'s size with few values is one message; refusals are unchanged', async (t) => {
  const before = { ...jsonThread.counts }
  const text = JSON.stringify({ text: 'x'.repeat(OFF_THREAD_BYTES * 2), n: [1, 2, 3] })
  const outcome = await jsonThread.parse(Buffer.from(text), limits)
  t.equal(identical((outcome as { value: unknown }).value, JSON.parse(text)), undefined)
  t.equal(jsonThread.counts.parsedOff, before.parsedOff + 1)
  t.equal(jsonThread.counts.piecesBack, before.piecesBack, 'no pieces')
  const invalid = await jsonThread.parse(Buffer.from(bodyText().slice(0, -1)), limits)
  t.same(invalid, { invalid: true })
  const refused = await jsonThread.parse(Buffer.from(bodyText()), { ...limits, maxDepth: 20 })
  t.ok('refused' in refused, 'refused by the scan')
})
