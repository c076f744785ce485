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

// Each of these is a call to a paid outside service (AI provider, keyword tool, analytics): counted as expensive
// whatever the provider answers (here none is configured: each answers 503 naming the setting).
t.test('routes that call an outside service are expensive', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'], rateLimits: LIMITS })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  // The analytics route answers 400 before asking: no site is connected to the analytics service here.
  const calls: Array<[string, string, Record<string, unknown>, [number, string]?]> = [
    ['POST', '/seo/v1/ai_generator/get_suggestions', { body: { type: 'seo-title', prompt_content: 'Text', focus_keyphrase: 'text', language: 'en', platform: 'search_engine', editor: 'classic' } }],
    ['POST', '/seo/v1/ai_content_planner/get_outline', { body: { post_type: 'post', language: 'en', title: 'A plan', intent: 'informational', explanation: 'Why', keyphrase: 'plan', meta_description: 'A plan.', editor: 'classic', category: { name: '', id: -1 }, recent_content: [] } }],
    ['GET', '/seo/v1/ai_content_planner/get_suggestions', { query: { post_type: 'post', language: 'en', editor: 'classic' } }],
    ['GET', '/seo/v1/keyword_tool/related_keyphrases', { query: { keyphrase: 'garden', country_code: 'us' } }],
    ['GET', '/seo/v1/time_based_seo_metrics', { query: { 'options[widget]': 'query' } }, [400, 'seo_repository_not_available']]
  ]
  for (const [method, path, opts, answer = [503, 'rest_upstream_unconfigured']] of calls) {
    const res = await h.call(method, path, { as: admin, ...opts })
    t.same([res.headers['ratelimit-limit'], res.status, res.body?.code], [String(LIMITS.expensive), ...answer], `${method} ${path}: counted as expensive`)
  }
})
