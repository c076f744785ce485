/**
 * What users saw or dismissed (introductions, alerts, video embed
 * permission, the planner banner, new content types) and the integrations'
 * and analytics connector's local state, through HTTP: each write read
 * back, per user where it is per user; unknown ids and keys refused with
 * the error shape; setup_steps_tracking taking both spellings; each
 * route's permission.
 */
import t, { type Test } from 'tap'
import { getUserMeta } from '@cms/core'
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

t.test('per-user and site state', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const contributor = await h.caller('contributor')
  const subscriber = await h.caller('subscriber')
  const store = h.platform.services.store
  const options = h.platform.services.options
  const errorShape = (t: Test, res: { status: number, body: any }, status: number, code: string, why: string): void => {
    t.same([res.status, res.body.code, res.body.data?.status, typeof res.body.message], [status, code, status, 'string'], why)
  }

  t.test('introductions', async (t) => {
    const res = await h.call('POST', '/seo/v1/introductions/black-friday-announcement/seen', { as: contributor, body: {} })
    t.same([res.status, res.body], [200, { json: { success: true } }])
    const seen = await getUserMeta<any>(store, contributor.id, '_seo_introductions')
    t.equal(seen['black-friday-announcement'].is_seen, true)
    t.ok(seen['black-friday-announcement'].seen_on > 0)
    await h.call('POST', '/seo/v1/introductions/black-friday-announcement/seen', { as: contributor, body: { is_seen: false } })
    t.same((await getUserMeta<any>(store, contributor.id, '_seo_introductions'))['black-friday-announcement'], { is_seen: false, seen_on: 0 })
    t.equal(await getUserMeta(store, editor.id, '_seo_introductions'), undefined, 'per user')
    errorShape(t, await h.call('POST', '/seo/v1/introductions/no-such-intro/seen', { as: contributor }), 400, 'seo_unknown_introduction', 'unknown introduction')
    errorShape(t, await h.call('POST', '/seo/v1/introductions/constructor/seen', { as: contributor }), 400, 'seo_unknown_introduction', 'an object key is no introduction')
    errorShape(t, await h.call('POST', '/seo/v1/introductions/black-friday-announcement/seen', { as: contributor, body: { is_seen: 'often' } }), 400, 'rest_invalid_param', 'is_seen is a boolean')
    errorShape(t, await h.call('POST', '/seo/v1/introductions/black-friday-announcement/seen', { as: subscriber }), 403, 'rest_forbidden', 'edit_posts')
    t.equal((await h.call('POST', '/seo/v1/introductions/black-friday-announcement/seen')).status, 401)
  })

  t.test('alerts', async (t) => {
    t.same((await h.call('POST', '/seo/v1/alerts/dismiss', { as: contributor, body: { key: 'webinar-promo-notification' } })).body, { success: true, status: 200 })
    t.same((await h.call('POST', '/seo/v1/alerts/dismiss', { as: contributor, body: { key: 'webinar-promo-notification' } })).status, 200, 'again: still success')
    t.same(await getUserMeta(store, contributor.id, '_seo_alerts_dismissed'), { 'webinar-promo-notification': true })
    errorShape(t, await h.call('POST', '/seo/v1/alerts/dismiss', { as: contributor, body: { key: 'made-up' } }), 400, 'rest_invalid_param', 'known alerts only')
    errorShape(t, await h.call('POST', '/seo/v1/alerts/dismiss', { as: contributor, body: {} }), 400, 'rest_missing_callback_param', 'key required')
    errorShape(t, await h.call('POST', '/seo/v1/alerts/dismiss', { as: subscriber, body: { key: 'webinar-promo-notification' } }), 403, 'rest_forbidden', 'edit_posts')
  })

  t.test('video embed permission and the planner banner', async (t) => {
    t.same((await h.call('GET', '/seo/v1/video_embed_permission', { as: contributor })).body, { json: { value: false } }, 'default false')
    t.same((await h.call('POST', '/seo/v1/video_embed_permission', { as: contributor })).body, { json: { success: true } }, 'value defaults to true')
    t.same((await h.call('GET', '/seo/v1/video_embed_permission', { as: contributor })).body, { json: { value: true } })
    t.same((await h.call('GET', '/seo/v1/video_embed_permission', { as: editor })).body, { json: { value: false } }, 'per user')
    await h.call('POST', '/seo/v1/video_embed_permission', { as: contributor, body: { value: false } })
    t.same((await h.call('GET', '/seo/v1/video_embed_permission', { as: contributor })).body, { json: { value: false } })
    errorShape(t, await h.call('GET', '/seo/v1/video_embed_permission', { as: subscriber }), 403, 'rest_forbidden', 'edit_posts')

    t.same((await h.call('POST', '/seo/v1/ai_content_planner/banner_permanent_dismissal', { as: contributor, body: { is_dismissed: true } })).body, { success: true })
    t.equal(await getUserMeta(store, contributor.id, '_seo_ai_content_planner_banner_permanently_dismissed'), true)
    errorShape(t, await h.call('POST', '/seo/v1/ai_content_planner/banner_permanent_dismissal', { as: contributor, body: {} }), 400, 'rest_missing_callback_param', 'is_dismissed required')
  })

  t.test('new content types', async (t) => {
    await options.write('seo_new_post_types', ['post', 'page'])
    const one = await h.call('POST', '/seo/v1/new-content-type-visibility/dismiss-post-type', { as: contributor, body: { postTypeName: 'page' } })
    t.same(one.body, { message: 'Post type is no longer new.', success: true, status: 200 })
    t.same(await options.read('seo_new_post_types'), ['post'])
    await h.call('POST', '/seo/v1/new-content-type-visibility/dismiss-post-type', { as: contributor, body: { post_type_name: 'post' } })
    t.same(await options.read('seo_new_post_types'), [], 'the snake_case name real clients send works too')
    t.equal((await h.call('POST', '/seo/v1/new-content-type-visibility/dismiss-post-type', { as: contributor, body: { postTypeName: 'page' } })).body.message, 'Post type is not new.')
    errorShape(t, await h.call('POST', '/seo/v1/new-content-type-visibility/dismiss-post-type', { as: contributor, body: { postTypeName: 'nope' } }), 400, 'seo_invalid_post_type_name', 'an existing post type')
    await options.write('seo_new_taxonomies', ['category'])
    t.equal((await h.call('POST', '/seo/v1/new-content-type-visibility/dismiss-taxonomy', { as: contributor, body: { taxonomyName: 'category' } })).status, 200)
    t.same(await options.read('seo_new_taxonomies'), [])
    errorShape(t, await h.call('POST', '/seo/v1/new-content-type-visibility/dismiss-taxonomy', { as: contributor, body: { taxonomyName: 'toString' } }), 400, 'seo_invalid_taxonomy_name', 'an object key is no taxonomy')
    errorShape(t, await h.call('POST', '/seo/v1/new-content-type-visibility/dismiss-taxonomy', { as: subscriber, body: {} }), 403, 'rest_forbidden', 'edit_posts')
  })

  t.test('integrations and the analytics connector', async (t) => {
    t.same((await h.call('POST', '/seo/v1/integrations/set_active', { as: admin, body: { integration: 'rank_tracker', active: true } })).body, { json: { success: true, status: 200 } })
    await h.call('POST', '/seo/v1/integrations/set_active', { as: admin, body: { integration: 'keyword_tool', active: false } })
    t.same(await options.read('seo_integrations'), { rank_tracker: true, keyword_tool: false })
    errorShape(t, await h.call('POST', '/seo/v1/integrations/set_active', { as: admin, body: { integration: 'constructor', active: true } }), 400, 'rest_invalid_param', 'known integrations only')
    errorShape(t, await h.call('POST', '/seo/v1/integrations/set_active', { as: editor, body: { integration: 'rank_tracker', active: true } }), 403, 'rest_forbidden', 'manage_seo_options')

    t.same((await h.call('POST', '/seo/v1/analytics_connector_configuration_permanent_dismissal', { as: admin, body: { is_dismissed: true } })).body, { success: true })
    t.same((await h.call('POST', '/seo/v1/analytics_connector_manage_consent', { as: admin, body: { consent: true } })).body, { success: true })
    t.same([await options.read('seo_analytics_connector_configuration_permanently_dismissed'), await options.read('seo_analytics_connector_connected')], [true, true])
    errorShape(t, await h.call('POST', '/seo/v1/analytics_connector_manage_consent', { as: admin, body: {} }), 400, 'rest_missing_callback_param', 'consent required')
    errorShape(t, await h.call('POST', '/seo/v1/analytics_connector_manage_consent', { as: editor, body: { consent: true } }), 403, 'rest_forbidden', 'manage_seo_options')

    t.same((await h.call('POST', '/seo/v1/setup_steps_tracking', { as: admin, body: { setup_widget_loaded: 'yes', first_interaction_stage: 'install' } })).body, { success: true })
    t.same((await h.call('POST', '/seo/v1/setup_steps_tracking', { as: admin, body: { lastInteractionStage: 'grantConsent' } })).body, { success: true }, 'camelCase as real clients send')
    t.same(await options.read('seo_analytics_connector_tracking'), { setup_widget_loaded: 'yes', first_interaction_stage: 'install', last_interaction_stage: 'grantConsent' })
    errorShape(t, await h.call('POST', '/seo/v1/setup_steps_tracking', { as: admin, body: {} }), 400, 'seo_no_valid_parameters', 'none given')
    errorShape(t, await h.call('POST', '/seo/v1/setup_steps_tracking', { as: admin, body: { setupWidgetLoaded: 'perhaps' } }), 400, 'rest_invalid_param', 'camelCase values checked too')
    errorShape(t, await h.call('POST', '/seo/v1/setup_steps_tracking', { as: admin, body: { setup_widget_loaded: 'perhaps' } }), 400, 'rest_invalid_param', 'the enum')
    errorShape(t, await h.call('POST', '/seo/v1/setup_steps_tracking', { as: editor, body: { setup_widget_loaded: 'yes' } }), 403, 'rest_forbidden', 'manage_seo_options')
  })
})
