// Query strings: the flat reader gives what qs gives, for any input.
import { deepStrictEqual } from 'node:assert'
import t from 'tap'
import fc from 'fast-check'
import qs from 'qs'
import { parseQuery } from '../src/params.js'

const viaQs = (search: string): unknown => qs.parse(search, { depth: 8, arrayLimit: 1000, parameterLimit: 2000, duplicates: 'last', allowPrototypes: false, strictDepth: false })

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
})
