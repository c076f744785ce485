// test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a process of its own,
// not in a batch where another file's leftovers could move the figure).
// Query strings: the flat reader gives what qs gives, for any input; reading
// is bounded as PHP bounds it and linear in the input.
import { deepStrictEqual } from 'node:assert'
import t from 'tap'
import fc from 'fast-check'
import qs from 'qs'
import { MAX_INPUT_NESTING, MAX_INPUT_VARS, parseQuery } from '../src/params.js'
import { cpuMs } from '../../core/test/fixtures/timing.js'

const viaQs = (search: string): unknown => qs.parse(search, { depth: 64, arrayLimit: 1000, parameterLimit: 1000, duplicates: 'last', allowPrototypes: false, strictDepth: false })

t.test('flat query strings read as qs reads them', async (t) => {
  const cases = [
    'per_page=10', 'per_page=10&page=2', 'a=1&a=2', 'a', 'a=', '=x', '&&a=1&', 'a=b=c', 'q=hello+world', 'q=%20%2B',
    'q=%E2%82%AC', 'q=%E2%82', 'q=%zz', '%61=1', 'toString=1&x=2', '__proto__=1', 'constructor=1&hasOwnProperty=2',
    'a.b=1', 'search=caf%C3%A9&orderby=title', 'x=1,2,3'
  ]
  for (const search of cases) t.same(parseQuery(search), viaQs(search), search)
  t.equal(Object.getPrototypeOf(parseQuery('__proto__=1')), Object.prototype, 'no prototype pollution')
})

t.test('any query string of flat-ish parts: same result', async (t) => {
  const piece = fc.oneof(
    fc.constantFrom('a', 'b', 'per_page', 'toString', '__proto__', '', '=', '&', '+', '%', '%2', '%20', '%3D', '%26', '%C3%A9', '%E2%82', '.', ','),
    fc.string({ maxLength: 4 })
  )
  t.doesNotThrow(() => {
    fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
      const search = pieces.join('')
      deepStrictEqual(parseQuery(search), viaQs(search), search)
    }), { numRuns: 3000, seed: 42 })
  }, '3,000 generated query strings')
})

t.test('nested names still go to qs', async (t) => {
  t.same(parseQuery('a[]=1&a[]=2&c[terms][]=3'), { a: ['1', '2'], c: { terms: ['3'] } })
  t.same(parseQuery('a%5B%5D=1'), { a: ['1'] })
  t.same(parseQuery('a[b]=%5Bx%5D&a[c]=%2B+y&d[]&e=%5B'), { a: { b: '[x]', c: '+ y' }, d: [''], e: '[' }, 'values decoded as qs decodes them')
  t.same(parseQuery('a[]=1&a[]=2&a[5]=3'), qs.parse('a[]=1&a[]=2&a[5]=3'))
  t.same(parseQuery('a=x%5D=y&b[]=1'), { a: 'x]=y', b: ['1'] }, 'an encoded bracket in a value stays in the value (as PHP reads it; qs would move the name)')
})

t.test('any query string of bracketed parts: same result as qs (names read apart by their parent)', async (t) => {
  const part = fc.tuple(
    fc.constantFrom('a', 'b', 'include', 'toString', '__proto__', 'constructor', '5', '', 'a+b', 'c%20d'),
    fc.constantFrom('', '[]', '[0]', '[1]', '[2]', '[999]', '[1000]', '[01]', '[x]', '[][]', '[0][a]', '%5B%5D', '%5b1%5d', '[', ']', '[]]', '[%5D', '[ 1]'),
    fc.constantFrom('=', ''),
    fc.constantFrom('1', 'x', '', 'a+b', '%20', '%zz')
  ).map(([name, suffix, eq, value]) => eq === '' ? name + suffix : name + suffix + eq + value)
  t.doesNotThrow(() => {
    fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 10 }), (parts) => {
      const search = parts.join('&')
      const read = parseQuery(search)
      const expected = viaQs(search)
      deepStrictEqual(read, expected, search)
      deepStrictEqual(JSON.stringify(read), JSON.stringify(expected), `${search}: in qs's order`)
    }), { numRuns: 3000, seed: 7 })
  }, '3,000 generated query strings')
})

t.test('lists of `name[]` or `name[i]` parts are read without qs (its merge counted the array at every part)', async (t) => {
  const mixed = viaQs('a[1]=x&a[]=y')
  const parse = qs.parse
  let calls = 0
  qs.parse = ((...args: Parameters<typeof parse>) => { calls++; return parse(...args) }) as typeof parse
  t.teardown(() => { qs.parse = parse })
  const ids = Array.from({ length: 999 }, (_, i) => i + 7)
  t.same(parseQuery(ids.map((id) => `include[]=${id}`).join('&') + '&per_page=10'), { include: ids.map(String), per_page: '10' })
  t.same(parseQuery(ids.map((id, i) => `exclude%5B${998 - i}%5D=${id}`).join('&')), { exclude: ids.map(String).reverse() })
  t.same(parseQuery('a[1]=x&a[1]=y&a[0]=z&a[0]=w'), { a: ['w', 'y'] }, 'a repeated index keeps its last value')
  t.same(parseQuery('a[1]=x&a[]=y'), mixed, 'pushes beside indexes go to qs')
  t.equal(calls, 1, 'qs read only the mixed list')
})

t.test('PHP limits: the first 1000 parts are read, the rest ignored; names nested past 64 levels dropped', async (t) => {
  t.equal(MAX_INPUT_VARS, 1000)
  t.equal(MAX_INPUT_NESTING, 64)
  const many = Array.from({ length: 1500 }, (_, i) => `v${i}=${i}`).join('&')
  const flat = parseQuery(many)
  t.equal(Object.keys(flat).length, 1000, 'max_input_vars: 1000 read')
  t.equal(flat.v999, '999')
  t.equal(flat.v1000, undefined, 'the 1001st ignored')
  t.same(Object.keys(parseQuery('&&&' + many)).length, 1000, 'empty parts do not count (as PHP skips them)')
  const nestedMany = Array.from({ length: 1500 }, (_, i) => `a[]=${i}`).join('&')
  t.equal((parseQuery(nestedMany).a as string[]).length, 1000, 'bracketed parts count too')
  t.same(parseQuery('a[]=1&' + Array.from({ length: 1200 }, () => '').join('&') + 'b=2'), { a: ['1'], b: '2' })

  const deep = (levels: number): string => 'x' + '[k]'.repeat(levels) + '=1'
  let at64: unknown = parseQuery(deep(64)).x
  for (let i = 0; i < 64; i++) at64 = (at64 as Record<string, unknown>).k
  t.equal(at64, '1', '64 levels read whole')
  t.same(parseQuery(deep(65) + '&y=2'), { y: '2' }, '65 levels: the name is dropped, the others kept')
  t.same(parseQuery('x' + '%5Bk%5D'.repeat(65) + '=1&y=2'), { y: '2' }, 'percent-encoded brackets count')
  t.same(parseQuery('a[[[b]=1'), qs.parse('a[[[b]=1', { depth: 64 }), 'unbalanced brackets read as qs reads them')
})

/** Median of three runs of `fn`, in ms of the process's CPU (a loaded machine stretches the wall time, not this). */
function timed (fn: () => void): number {
  const runs = [0, 1, 2].map(() => cpuMs(fn))
  return runs.sort((a, b) => a - b)[1]!
}

t.test('reading is linear: a megabyte of brackets, escapes or separators costs about what a megabyte of plain text does', async (t) => {
  const MB = 1_000_000
  // The baseline: one plain value of the same size, read in the same run (the machine is shared and loaded).
  const baseline = timed(() => parseQuery('q=' + 'a'.repeat(MB)))
  const bound = Math.max(200, 25 * baseline)
  const inputs: Record<string, string> = {
    '[': '['.repeat(MB),
    ']': ']'.repeat(MB),
    '%5B': '%5B'.repeat(MB / 3),
    'a[': 'a['.repeat(MB / 2),
    'a[b] (one name, 333,333 levels)': 'a' + '[b]'.repeat(MB / 3) + '=1',
    'x[]=1&': 'x[]=1&'.repeat(MB / 6),
    '&': '&'.repeat(MB),
    'a=1&': 'a=1&'.repeat(MB / 4),
    'a[]=%5B…': `a[]=${'%5B'.repeat(MB / 3)}`,
    'a=%5B…': `a=${'%5B'.repeat(MB / 3)}`,
    'x[i]=1 (distinct indexes)': Array.from({ length: MB / 10 }, (_, i) => `x[${i}]=1`).join('&'),
    '[=': '[='.repeat(MB / 2),
    '%': '%'.repeat(MB),
    'a=-+… (a space every other character)': `a=${'-+'.repeat(MB / 2)}`,
    'a=+…': `a=${'+'.repeat(MB)}`,
    'a[]=-+…': `a[]=${'-+'.repeat(MB / 2)}`
  }
  for (const [label, input] of Object.entries(inputs)) {
    const ms = timed(() => parseQuery(input))
    t.ok(ms < bound, `${label}: ${ms.toFixed(1)} ms (plain text of the same size: ${baseline.toFixed(1)} ms; bound ${bound.toFixed(0)} ms)`)
  }
})
