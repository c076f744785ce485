/**
 * A parsed value written as JSON on the request thread a slice of members a
 * turn (`jsonOfSliced`, issue 27: a template's content of tens of thousands
 * of members was one long task): the same text as `JSON.stringify`, the
 * turns counted, never timed.
 */
import t from 'tap'
import { jsonOfSliced, WALK_SLICE, walkCounts } from '../src/text/json-strings.js'

t.test('the same text as JSON.stringify, a slice of members a turn', async (t) => {
  const cases: Array<[string, unknown]> = [
    ['a list of mixed members', Array.from({ length: 9001 }, (_, i) => i % 3 === 0 ? { a: i, b: [i, 'x'] } : i % 3 === 1 ? `s${i}` : null)],
    ['an object with integer and other keys', Object.fromEntries(Array.from({ length: 4500 }, (_, i) => [i % 2 === 0 ? String(i) : `k${i}`, { v: i }]))],
    ['an object with a __proto__ member', JSON.parse(`{${Array.from({ length: 4100 }, (_, i) => `"${i === 7 ? '__proto__' : `m${i}`}":${i}`).join(',')}}`)],
    ['a list of empty lists', Array.from({ length: 2001 }, () => [])],
    ['a small value', { a: [1, 'b'] }],
    ['a string', 'x"y']
  ]
  for (const [name, value] of cases) {
    const before = walkCounts.written
    t.equal(await jsonOfSliced(value), JSON.stringify(value), name)
    const members = Array.isArray(value) ? value.length : typeof value === 'object' && value !== null ? Object.keys(value).length : 0
    t.equal(walkCounts.written - before, members > WALK_SLICE ? Math.ceil(members / WALK_SLICE) - 1 : 0, `${name}: turns`)
  }
})
