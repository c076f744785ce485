// Page links: the query string is built directly for flat queries, and must
// be byte for byte what qs's stringify gave (the links clients follow, and
// the answers' ETags, stay the same), for any query.
import { deepStrictEqual } from 'node:assert'
import t from 'tap'
import fc from 'fast-check'
import qs from 'qs'
import { paginationHeaders } from '../src/pagination.js'

const BASE = 'http://cms.test'

/** The links as they were built before: every query through qs. */
function viaQs (page: number, pages: number, route: string, query: Record<string, unknown>): string | undefined {
  const link = (p: number): string => {
    const params: Record<string, unknown> = { rest_route: route }
    for (const [k, v] of Object.entries(query)) {
      if (k === 'rest_route') continue
      params[k] = k === 'page' ? p : v
    }
    if (!('page' in query)) params.page = p
    return `${BASE}/index.php?${qs.stringify(params, { arrayFormat: 'brackets', encodeValuesOnly: false, format: 'RFC1738' })}`
  }
  const links: string[] = []
  if (page > 1) links.push(`<${link(Math.max(0, Math.min(page - 1, pages)))}>; rel="prev"`)
  if (pages > page) links.push(`<${link(page + 1)}>; rel="next"`)
  return links.length === 0 ? undefined : links.join(', ')
}

const linkOf = (page: number, query: Record<string, unknown>, route = '/cms/v2/posts'): unknown =>
  paginationHeaders({ total: 100, perPage: 10, page }, BASE, route, query).Link

t.test('flat queries: the links qs gave', async (t) => {
  const cases: Array<Record<string, unknown>> = [
    {},
    { per_page: '10' },
    { per_page: 10, page: '3', orderby: 'title' },
    { search: 'hello world', x: "it's (a) *star*!", y: '~a-b_c.d' },
    { search: 'café € 𝄞', 'ké y': 'a&b=c+d%20', '': 'empty key', e: '' },
    { flag: true, other: false, n: 1.5e21 },
    { rest_route: '/ignored', page: 2 }
  ]
  for (const query of cases) {
    t.equal(linkOf(5, query), viaQs(5, 10, '/cms/v2/posts', query), JSON.stringify(query))
  }
  t.equal(linkOf(2, { search: 'a b' }), '<http://cms.test/index.php?rest_route=%2Fcms%2Fv2%2Fposts&search=a+b&page=1>; rel="prev", <http://cms.test/index.php?rest_route=%2Fcms%2Fv2%2Fposts&search=a+b&page=3>; rel="next"', 'spaces as +, slashes encoded')
})

t.test('queries the direct path leaves to qs: the same links', async (t) => {
  const cases: Array<Record<string, unknown>> = [
    { categories: ['1', '2'], per_page: '10' },
    { filter: { a: '1', b: ['x y'] } },
    { lone: '\ud800x' },
    { nothing: null, missing: undefined, after: 'x' }
  ]
  for (const query of cases) t.equal(linkOf(5, query), viaQs(5, 10, '/cms/v2/posts', query), JSON.stringify(query))
})

t.test('any query: the same links as qs gave', async (t) => {
  const text = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ maxLength: 6, unit: 'grapheme' }), fc.constantFrom('!', "'", '*', '(', ')', '~', ' ', '+', '%20', '&', '=', '\ud83d', 'page'))
  const value = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.array(text, { maxLength: 3 }), fc.constant(null))
  t.doesNotThrow(() => {
    fc.assert(fc.property(fc.dictionary(text, value, { maxKeys: 6 }), fc.integer({ min: 1, max: 12 }), text, (query, page, route) => {
      deepStrictEqual(linkOf(page, query, route), viaQs(page, 10, route, query))
    }), { numRuns: 3000, seed: 35 })
  }, '3,000 generated queries')
})
