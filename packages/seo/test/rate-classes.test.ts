/**
 * The SEO routes that do heavy work count in the expensive rate-limit class
 * (docs/guides/rate-limits.md, "Expensive endpoints today"): the indexing
 * steps that build a batch, link indexing, and the dashboard's scores and
 * statistics (each catches up on indexables, then groups every published
 * post). The steps that only move the run's state stay writes. Each class
 * has a limit of its own here, so the `RateLimit-Limit` header names the
 * class a request was counted in.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

const LIMITS = { read: 500, write: 400, expensive: 7 }

t.test('heavy SEO routes are expensive', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'], rateLimits: LIMITS })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const limitOf = async (method: string, path: string, query?: Record<string, string>): Promise<[number, string | undefined]> => {
    const res = await h.call(method, path, { as: admin, ...(query === undefined ? {} : { query }) })
    return [res.status, res.headers['ratelimit-limit'] as string | undefined]
  }

  const expensive = String(LIMITS.expensive)
  t.same(await limitOf('POST', '/seo/v1/indexing/prepare'), [200, String(LIMITS.write)], 'starting a run is a plain write')
  t.same(await limitOf('POST', '/seo/v1/indexing/posts'), [200, expensive], 'indexing a batch of posts')
  t.same(await limitOf('POST', '/seo/v1/indexing/terms'), [200, expensive])
  t.same(await limitOf('POST', '/seo/v1/link-indexing/posts'), [200, expensive], 'link indexing')
  t.same(await limitOf('GET', '/seo/v1/seo_scores', { contentType: 'post' }), [200, expensive], 'the dashboard\'s scores')
  t.same(await limitOf('GET', '/seo/v1/statistics'), [200, expensive])
  t.same(await limitOf('POST', '/seo/v1/indexing/complete'), [200, String(LIMITS.write)], 'finishing a run is a plain write')
  t.same(await limitOf('GET', '/seo/v1/get_head', { url: 'http://example.invalid/nowhere' }).then(([, limit]) => limit), String(LIMITS.read), 'a plain read')

  // One count for the class: five expensive requests made, two left, then refused.
  t.same(await limitOf('POST', '/seo/v1/link-indexing/terms'), [200, expensive])
  t.same(await limitOf('GET', '/seo/v1/readability_scores', { contentType: 'post' }), [200, expensive])
  const refused = await h.call('POST', '/seo/v1/indexing/general', { as: admin })
  t.same([refused.status, refused.body.code, refused.headers['ratelimit-remaining']], [429, 'rest_rate_limited', '0'], 'the eighth expensive request is refused')
})
