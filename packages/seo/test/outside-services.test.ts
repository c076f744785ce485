/**
 * The outside services through HTTP, each against a local stand-in server
 * (127.0.0.1) or unconfigured: the AI generator's token callbacks (a wrong
 * challenge, a wrong user, an expired verifier refused; tokens sealed,
 * absent from every answer and from the captured log), suggestions and
 * the planner's outline (validation first, even unconfigured), the keyword
 * tool (tokens, the day cache, not connected), the rank tracker (the
 * account limit before tracking), the metrics (unknown widget, not
 * available, a provider too slow: 504), provider failures (502 with the
 * provider's status), and 503 naming the setting when unconfigured.
 */
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { getUserMeta, setUserMeta } from '@cms/core'
import { standIn, testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex')
const ACCESS = 'access-SECRET-token-0123456789'
const REFRESH = 'refresh-SECRET-token-9876543210'

t.test('outside services', async (t) => {
  const provider = await standIn()
  t.teardown(provider.close)
  // A provider that never answers (the timeout case).
  const silent = createServer(() => {})
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { silent.closeAllConnections(); silent.close() })
  const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`
  const logLines: string[] = []
  const h = await testApp({
    packages: [seoPackage],
    namespaces: ['cms/v2', 'seo/v1'],
    logLines,
    env: {
      CMS_UPSTREAM_AI_GENERATOR_URL: provider.url,
      CMS_UPSTREAM_CONTENT_PLANNER_URL: provider.url,
      CMS_UPSTREAM_KEYWORD_TOOL_URL: provider.url,
      CMS_UPSTREAM_RANK_TRACKER_URL: provider.url,
      CMS_UPSTREAM_ANALYTICS_URL: silentUrl,
      CMS_UPSTREAM_ANALYTICS_TIMEOUT_MS: '300'
    }
  })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const author = await h.caller('author')
  const contributor = await h.caller('contributor')
  const subscriber = await h.caller('subscriber')
  const store = h.platform.services.store
  const answers: Array<{ body: unknown }> = []
  const seen = async (res: { status: number, body: any }): Promise<{ status: number, body: any }> => { answers.push(res); return res }

  t.test('AI generator: the token callbacks', async (t) => {
    await setUserMeta(store, author.id, '_seo_ai_generator_code_verifier', { code: 'verifier-1', created_at: Math.floor(Date.now() / 1000) })
    const body = { access_jwt: ACCESS, refresh_jwt: REFRESH, code_challenge: sha256('verifier-1'), user_id: author.id }
    const wrong = await seen(await h.call('POST', '/seo/v1/ai_generator/callback', { body: { ...body, code_challenge: sha256('another') } }))
    t.same([wrong.status, wrong.body.code, wrong.body.message], [401, 'seo_ai_unauthorized', 'Unauthorized.'], 'a wrong challenge')
    const otherUser = await seen(await h.call('POST', '/seo/v1/ai_generator/callback', { body: { ...body, user_id: contributor.id } }))
    t.equal(otherUser.status, 401, 'the right challenge for another user')
    t.equal(await getUserMeta(store, author.id, '_seo_ai_generator_tokens'), undefined, 'nothing stored')
    t.equal((await h.call('POST', '/seo/v1/ai_generator/callback', { body: { ...body, user_id: 'x' } })).status, 400, 'user_id an integer')

    const ok = await seen(await h.call('POST', '/seo/v1/ai_generator/callback', { body }))
    t.same([ok.status, ok.body], [200, { message: 'Tokens successfully stored.', code_verifier: 'verifier-1' }], 'public: no credentials needed')
    const sealed = await getUserMeta<string>(store, author.id, '_seo_ai_generator_tokens')
    t.ok(typeof sealed === 'string' && sealed.startsWith('v1.') && !sealed.includes(ACCESS), 'sealed at rest')
    t.equal(await getUserMeta(store, author.id, '_seo_ai_generator_code_verifier'), undefined, 'the verifier is used once')
    t.equal((await h.call('POST', '/seo/v1/ai_generator/refresh_callback', { body })).status, 401, 'a used verifier is refused')

    await setUserMeta(store, contributor.id, '_seo_ai_generator_code_verifier', { code: 'old', created_at: Math.floor(Date.now() / 1000) - 301 })
    t.equal((await h.call('POST', '/seo/v1/ai_generator/refresh_callback', { body: { ...body, code_challenge: sha256('old'), user_id: contributor.id } })).status, 401, 'older than 5 minutes')
  })

  t.test('AI generator: suggestions, usage, consent', async (t) => {
    provider.answers['/api/openai/suggestions/seo-title'] = { status: 200, body: { choices: [{ text: ' Boots for winter ' }, { text: 'Warm boots' }] } }
    const args = { type: 'seo-title', prompt_content: 'About boots', focus_keyphrase: 'boots', language: 'en', platform: 'search_engine', editor: 'block' }
    const res = await seen(await h.call('POST', '/seo/v1/ai_generator/get_suggestions', { as: author, body: args }))
    t.same([res.status, res.body], [200, ['Boots for winter', 'Warm boots']])
    const sent = provider.received.at(-1)!
    t.same([sent.method, sent.path, sent.auth], ['POST', '/api/openai/suggestions/seo-title', `Bearer ${ACCESS}`], 'the user\'s own access token')
    t.match(sent.body, { subject: { content: 'About boots', platform: 'search_engine', editor: 'block' } })

    for (const [name, value] of [['type', 'poem'], ['platform', 'fax'], ['editor', 'vim']] as const) {
      const bad = await h.call('POST', '/seo/v1/ai_generator/get_suggestions', { as: author, body: { ...args, [name]: value } })
      t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'], `${name}: the enum`)
    }
    provider.answers['/api/openai/suggestions/meta-description'] = { status: 429, body: { message: 'Too many' } }
    const failed = await h.call('POST', '/seo/v1/ai_generator/get_suggestions', { as: author, body: { ...args, type: 'meta-description' } })
    t.same([failed.status, failed.body.code, failed.body.data.upstream_status], [502, 'rest_upstream_error', 429], 'the provider\'s status in data')

    // A user without tokens: the service is asked for them with the SHA-256 of a fresh verifier.
    provider.answers['/api/token/request'] = { status: 200, body: {} }
    const none = await h.call('POST', '/seo/v1/ai_generator/get_suggestions', { as: contributor, body: args })
    t.equal(none.status, 502, 'no callback came: no tokens')
    const request = provider.received.find((r) => r.path === '/api/token/request')!
    const verifier = await getUserMeta<{ code: string }>(store, contributor.id, '_seo_ai_generator_code_verifier')
    t.equal(request.body.code_challenge, sha256(verifier!.code), 'the challenge of the stored verifier')
    t.match(request.body.callback_url, /rest_route=\/seo\/v1\/ai_generator\/callback$/)

    provider.answers['/api/usage/free-usages'] = { status: 200, body: { usage: 3, limit: 10 } }
    t.same((await seen(await h.call('POST', '/seo/v1/ai_generator/get_usage', { as: author }))).body, { usage: 3, limit: 10 }, 'the service\'s answer unchanged')

    provider.answers['/api/user/consent'] = { status: 204, body: null }
    t.same((await h.call('POST', '/seo/v1/ai_generator/consent', { as: author, body: { consent: true } })).body, 'Consent successfully given.')
    t.equal(await getUserMeta(store, author.id, '_seo_ai_consent'), true)
    t.same((await h.call('POST', '/seo/v1/ai_generator/consent', { as: author, body: { consent: false } })).body, 'Consent successfully revoked.')
    t.same([await getUserMeta(store, author.id, '_seo_ai_consent'), await getUserMeta(store, author.id, '_seo_ai_generator_tokens')], [undefined, undefined], 'consent and tokens gone')
    t.equal(provider.received.at(-1)!.method, 'DELETE', 'the service is told')

    t.same((await h.call('POST', '/seo/v1/ai/free_sparks', { as: contributor })).body, 'Free sparks successfully started.')
    t.ok(Number(await h.platform.services.options.read('seo_ai_free_sparks_started_on')) > 0)
    t.same((await h.call('POST', '/seo/v1/ai_generator/bust_subscription_cache', { as: contributor })).body, 'Subscription cache successfully busted.')
    t.equal((await h.call('POST', '/seo/v1/ai/free_sparks', { as: subscriber })).status, 403)
  })

  t.test('content planner', async (t) => {
    await setUserMeta(store, author.id, '_seo_ai_generator_code_verifier', { code: 'verifier-2', created_at: Math.floor(Date.now() / 1000) })
    await h.call('POST', '/seo/v1/ai_generator/callback', { body: { access_jwt: ACCESS, refresh_jwt: REFRESH, code_challenge: sha256('verifier-2'), user_id: author.id } })
    const outline = { post_type: 'post', language: 'en', title: 'Boots', intent: 'informational', explanation: 'Why', keyphrase: 'boots', meta_description: 'All about boots', editor: 'classic', category: { name: '', id: -1 }, recent_content: [{ title: 'Old', description: 'An old post' }] }
    provider.answers['/api/content-planner/next-post-outline'] = { status: 200, body: { outline: [{ subheading_text: 'Why boots matter', content_notes: ['Warmth'] }] } }
    const res = await seen(await h.call('POST', '/seo/v1/ai_content_planner/get_outline', { as: author, body: outline }))
    t.same([res.status, res.body], [200, { outline: [{ subheading_text: 'Why boots matter', content_notes: ['Warmth'] }] }])
    t.match(provider.received.at(-1)!.body, { post: { title: 'Boots', category: { id: -1 } }, recent_content: [{ title: 'Old' }] })

    await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Published boots', status: 'publish', meta: { _seo_metadesc: 'Boots we sell' } } })
    await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Draft idea', status: 'draft' } })
    await h.platform.services.events.drain()
    provider.answers['/api/content-planner/next-post-suggestions'] = { status: 200, body: { suggestions: [{ title: 'Next', intent: 'x', explanation: 'y', keyphrase: 'z', meta_description: 'm', category: { name: '', id: -1 } }] } }
    const ideas = await h.call('GET', '/seo/v1/ai_content_planner/get_suggestions', { as: author, query: { post_type: 'post', language: 'en', editor: 'block' } })
    t.equal(ideas.status, 200)
    t.same(ideas.body.recent_content, [{ title: 'Published boots', description: 'Boots we sell' }], 'published posts only')
    t.equal(ideas.body.suggestions[0].title, 'Next')

    const tooLong = await h.call('POST', '/seo/v1/ai_content_planner/get_outline', { as: author, body: { ...outline, recent_content: [{ title: 'x'.repeat(501), description: '' }] } })
    t.same([tooLong.status, tooLong.body.code], [400, 'rest_invalid_param'], 'a title over 500')
    const extra = await h.call('POST', '/seo/v1/ai_content_planner/get_outline', { as: author, body: { ...outline, recent_content: [{ title: 'a', description: 'b', url: 'c' }] } })
    t.equal(extra.status, 400, 'exactly title and description')
    const many = await h.call('POST', '/seo/v1/ai_content_planner/get_outline', { as: author, body: { ...outline, recent_content: Array.from({ length: 101 }, () => ({ title: 'a', description: 'b' })) } })
    t.equal(many.status, 400, 'at most 100 items')
    t.equal((await h.call('POST', '/seo/v1/ai_content_planner/get_outline', { as: author, body: { ...outline, post_type: 'nope' } })).status, 403, 'an unknown post type is refused')
    t.equal((await h.call('POST', '/seo/v1/ai_content_planner/get_outline', { as: subscriber, body: outline })).status, 403)
  })

  t.test('keyword tool', async (t) => {
    const notConnected = await h.call('GET', '/seo/v1/keyword_tool/related_keyphrases', { as: contributor, query: { keyphrase: 'boots', country_code: 'us' } })
    t.same([notConnected.status, notConnected.body.code, notConnected.body.message], [400, 'seo_token_empty', 'Token usage failed. Token is empty.'])
    provider.answers['/api/oauth/token'] = { status: 200, body: { access_token: ACCESS, refresh_token: REFRESH, expires_in: 3600 } }
    const auth = await seen(await h.call('POST', '/seo/v1/keyword_tool/authenticate', { as: contributor, body: { code: 'the-code' } }))
    t.equal(auth.status, 200)
    t.match(auth.body, { tokens: { access_token: '…6789', refresh_token: '…3210', has_expired: false, error_count: 0 }, status: 200 }, 'tokens shown masked')
    t.equal(provider.received.at(-1)!.body.code, 'the-code')
    t.notOk(String(await h.platform.services.options.read('seo_keyword_tool_tokens')).includes(ACCESS), 'sealed at rest')

    t.same((await h.call('POST', '/seo/v1/keyword_tool/country_code', { as: contributor, body: { country_code: 'de' } })).body, { success: true, status: 200 })
    t.equal((await h.call('POST', '/seo/v1/keyword_tool/country_code', { as: contributor, body: { country_code: 'DEU' } })).status, 400, 'two lowercase letters')

    provider.answers['/api/keyphrases/related'] = { status: 200, body: { columnNames: ['Ph', 'Nq', 'Td', 'In', 'Kd'], rows: [['winter boots', 1000, '0.5', '1', 40]] } }
    const before = provider.received.length
    const first = await seen(await h.call('GET', '/seo/v1/keyword_tool/related_keyphrases', { as: contributor, query: { keyphrase: 'Boots', country_code: 'de' } }))
    t.same(first.body, { results: { columnNames: ['Ph', 'Nq', 'Td', 'In', 'Kd'], rows: [['winter boots', 1000, '0.5', '1', 40]] }, status: 200 })
    t.equal(provider.received.at(-1)!.auth, `Bearer ${ACCESS}`)
    await h.call('GET', '/seo/v1/keyword_tool/related_keyphrases', { as: contributor, query: { keyphrase: 'boots', country_code: 'de' } })
    t.equal(provider.received.length, before + 1, 'the second ask is served from the day cache')
    await h.call('GET', '/seo/v1/keyword_tool/related_keyphrases', { as: contributor, query: { keyphrase: 'boots', country_code: 'fr' } })
    t.equal(provider.received.length, before + 2, 'per country')
    provider.answers['/api/keyphrases/related'] = { status: 500, body: {} }
    const failed = await h.call('GET', '/seo/v1/keyword_tool/related_keyphrases', { as: contributor, query: { keyphrase: 'shoes', country_code: 'de' } })
    t.same([failed.status, failed.body.data.upstream_status], [502, 500])
    t.equal((await h.call('POST', '/seo/v1/keyword_tool/authenticate', { as: contributor, body: { code: '' } })).status, 400, 'the code must not be empty')
    t.equal((await h.call('POST', '/seo/v1/keyword_tool/country_code', { as: subscriber, body: { country_code: 'us' } })).status, 403)
  })

  t.test('rank tracker', async (t) => {
    t.equal((await h.call('GET', '/seo/v1/rank_tracker/account/limit', { as: author })).body.code, 'seo_token_empty', 'not connected')
    const url = await h.call('GET', '/seo/v1/rank_tracker/authorization-url', { as: author })
    t.equal(url.status, 200)
    t.match(url.body.url, new RegExp(`^${provider.url}/oauth/authorize\\?`))
    t.notOk(new URL(url.body.url).searchParams.has('redirect_uri'), 'no admin front end configured: no redirect URI of this service (the client\'s registered one)')
    provider.answers['/api/oauth/token'] = { status: 200, body: { access_token: ACCESS, refresh_token: REFRESH } }
    const auth = await seen(await h.call('POST', '/seo/v1/rank_tracker/authenticate', { as: author, body: { code: 'c', websiteId: 42 } }))
    t.match(auth.body, { tokens: { access_token: '…6789' }, status: 200 })
    t.equal(await h.platform.services.options.read('seo_rank_tracker_website_id'), 42)
    provider.answers['/api/oauth/token'] = { status: 200, body: { error: 'bad code' } }
    t.same((await h.call('POST', '/seo/v1/rank_tracker/authenticate', { as: author, body: { code: 'c', websiteId: 42 } })).status, 401, 'no access token: authentication failed')

    provider.answers['/api/account/limit'] = { status: 200, body: { canTrack: true, limit: 3, usage: 2, historyDays: 31 } }
    t.same((await h.call('GET', '/seo/v1/rank_tracker/account/limit', { as: author })).body, { canTrack: true, limit: 3, usage: 2, historyDays: 31, status: 200 })
    provider.answers['/api/account/upgrade-campaign'] = { status: 200, body: {} }
    t.same((await h.call('GET', '/seo/v1/rank_tracker/account/upgrade-campaign', { as: author })).body, { discount: null, months: null, status: 200 })

    const over = await h.call('POST', '/seo/v1/rank_tracker/keyphrases/track', { as: author, body: { keyphrases: ['boots', 'shoes'] } })
    t.same([over.status, over.body.code, over.body.data.limit], [400, 'seo_account_limit_exceeded', 3], 'two more would pass the limit')
    provider.answers['/api/websites/42/keywords'] = { status: 201, body: [{ id: 7, keyword: 'boots' }] }
    const tracked = await h.call('POST', '/seo/v1/rank_tracker/keyphrases/track', { as: author, body: { keyphrases: 'boots' } })
    t.same(tracked.body, { results: { boots: { id: 7, keyword: 'boots' } }, status: 200 })

    provider.answers['/api/websites/42/keywords/rankings'] = { status: 200, body: { boots: { position: 3 }, constructor: 'x' } }
    t.same((await h.call('POST', '/seo/v1/rank_tracker/keyphrases', { as: author, body: { keyphrases: ['boots', 'constructor'] } })).body, { results: { boots: { position: 3 }, constructor: 'x' }, status: 200 })
    t.same(provider.received.at(-1)!.body, { keywords: ['boots', 'constructor'] })

    provider.answers['/api/websites/42/keywords/7'] = { status: 204, body: null }
    t.same((await h.call('DELETE', '/seo/v1/rank_tracker/keyphrases/untrack', { as: author, query: { keyphraseID: 7 } })).body, { status: 200 })
    t.equal(provider.received.at(-1)!.method, 'DELETE')
    t.equal((await h.call('DELETE', '/seo/v1/rank_tracker/keyphrases/untrack', { as: author, query: { keyphraseID: '../x' } })).status, 400, 'an id, not a path')
    t.equal((await h.call('GET', '/seo/v1/rank_tracker/account/limit', { as: contributor })).status, 403, 'publish_posts')
  })

  t.test('time-based metrics', async (t) => {
    const q = (widget: string): string => `options[widget]=${widget}`
    t.same((await h.call('GET', '/seo/v1/time_based_seo_metrics', { as: admin, query: q('nope') })).body.code, 'seo_repository_not_found')
    t.same((await h.call('GET', '/seo/v1/time_based_seo_metrics', { as: admin, query: q('constructor') })).status, 404, 'an object key is no widget')
    const early = await h.call('GET', '/seo/v1/time_based_seo_metrics', { as: admin, query: q('query') })
    t.same([early.status, early.body.code, early.body.message], [400, 'seo_repository_not_available', 'Search queries repository is not available yet. Not all prerequisites have been met.'], 'not connected yet')
    await h.call('POST', '/seo/v1/analytics_connector_manage_consent', { as: admin, body: { consent: true } })
    const slow = await h.call('GET', '/seo/v1/time_based_seo_metrics', { as: admin, query: q('query') })
    t.same([slow.status, slow.body.code], [504, 'rest_upstream_timeout'], 'a provider that does not answer')
    t.equal((await h.call('GET', '/seo/v1/time_based_seo_metrics', { as: admin })).status, 400, 'options required')
    t.equal((await h.call('GET', '/seo/v1/time_based_seo_metrics', { as: author, query: q('query') })).status, 403)
  })

  t.test('tokens are in no answer and no log line', async (t) => {
    t.ok(answers.length > 5)
    for (const res of answers) {
      const text = JSON.stringify(res.body)
      t.notOk(text.includes(ACCESS) || text.includes(REFRESH), 'an answer without the tokens')
    }
    t.ok(logLines.length > 0, 'the log was captured')
    t.notOk(logLines.some((l) => l.includes(ACCESS) || l.includes(REFRESH) || l.includes('SECRET')), 'no log line holds a token')
  })
})

t.test('unconfigured: 503 naming the setting, after validation', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    ['POST', '/seo/v1/ai_generator/get_suggestions', { type: 'seo-title', prompt_content: 'x', focus_keyphrase: 'x', language: 'en', platform: 'social_a', editor: 'builder' }, 'CMS_UPSTREAM_AI_GENERATOR_URL'],
    ['POST', '/seo/v1/ai_generator/get_usage', {}, 'CMS_UPSTREAM_AI_GENERATOR_URL'],
    ['POST', '/seo/v1/ai_generator/consent', { consent: true }, 'CMS_UPSTREAM_AI_GENERATOR_URL'],
    ['GET', '/seo/v1/ai_content_planner/get_suggestions', { post_type: 'post', language: 'en', editor: 'block' }, 'CMS_UPSTREAM_CONTENT_PLANNER_URL'],
    ['POST', '/seo/v1/keyword_tool/authenticate', { code: 'c' }, 'CMS_UPSTREAM_KEYWORD_TOOL_URL'],
    ['GET', '/seo/v1/keyword_tool/related_keyphrases', { keyphrase: 'a', country_code: 'us' }, 'CMS_UPSTREAM_KEYWORD_TOOL_URL'],
    ['GET', '/seo/v1/rank_tracker/authorization-url', {}, 'CMS_UPSTREAM_RANK_TRACKER_URL'],
    ['POST', '/seo/v1/rank_tracker/authenticate', { code: 'c', websiteId: 1 }, 'CMS_UPSTREAM_RANK_TRACKER_URL'],
    ['GET', '/seo/v1/rank_tracker/account/limit', {}, 'CMS_UPSTREAM_RANK_TRACKER_URL']
  ]
  for (const [method, path, args, setting] of cases) {
    const res = await h.call(method, path, { as: admin, ...(method === 'GET' ? { query: args as Record<string, string> } : { body: args }) })
    t.same([res.status, res.body.code, res.body.data?.setting], [503, 'rest_upstream_unconfigured', setting], path)
  }
  const outline = await h.call('POST', '/seo/v1/ai_content_planner/get_outline', { as: admin, body: { post_type: 'post', editor: 'vim' } })
  t.same([outline.status, outline.body.code], [400, 'rest_missing_callback_param'], 'an invalid outline request is a 400 while unconfigured')
  const editor = await h.call('POST', '/seo/v1/ai_content_planner/get_outline', { as: admin, body: { post_type: 'post', language: 'en', title: 't', intent: 'i', explanation: 'e', keyphrase: 'k', meta_description: 'm', editor: 'vim', category: { name: '', id: -1 }, recent_content: [] } })
  t.same([editor.status, editor.body.code], [400, 'rest_invalid_param'], 'the editor enum before the upstream')
  t.same((await h.call('POST', '/seo/v1/ai_generator/consent', { as: admin, body: { consent: false } })).body, 'Consent successfully revoked.', 'revoking needs no service')
  t.equal((await h.call('GET', '/seo/v1/time_based_seo_metrics', { as: admin, query: 'options[widget]=page' })).body.code, 'seo_repository_not_available')
})
