/**
 * Who may call the SEO routes: expected outcomes for anonymous and each
 * role, written from seo-rollback-assistant-addons.md §1.1 and §1.3 and
 * CONVENTIONS.md §4 (not from the code). The gateway's permission matrix
 * probes every served route against these. 'allowed' means the permission
 * check passed (a 4xx of the probe itself is fine).
 */
import type { PermissionCase, PermissionCases } from '@cms/core'

const A = 'allowed' as const
type Outcomes = Omit<PermissionCase, 'why' | 'probe'>

/** `edit_posts`: contributors and up. */
const EDIT_POSTS: Outcomes = { anonymous: 401, subscriber: 403, contributor: A, author: A, editor: A, administrator: A }

/** `manage_seo_options`: administrators. */
const MANAGE_SEO: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: A }
/** `read`: any signed-in user. */
const SIGNED_IN: Outcomes = { anonymous: 401, subscriber: A, contributor: A, author: A, editor: A, administrator: A }
/** `edit_post` on an administrator's published post: editors and administrators. */
const EDIT_OTHERS: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: A, administrator: A }
/** `publish_posts` or `publish_pages`: authors and up. */
const PUBLISH: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: A, editor: A, administrator: A }
/** A public route refusing a bad proof (401 whoever calls). */
const NO_PROOF: Outcomes = { anonymous: 401, subscriber: 401, contributor: 401, author: 401, editor: 401, administrator: 401 }
/** Public: anyone. */
const ANYONE: Outcomes = { anonymous: A, subscriber: A, contributor: A, author: A, editor: A, administrator: A }
const NOBODY: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: 403 }

const c = (why: string, outcomes: Outcomes, probe?: PermissionCase['probe']): PermissionCase => ({ why, ...outcomes, ...(probe === undefined ? {} : { probe }) })

const S = '/seo/v1'
const INDEXING = ['prepare', 'terms', 'posts', 'post-type-archives', 'general', 'indexables-complete', 'complete']

export const seoPermissionCases: PermissionCases = {
  ...Object.fromEntries(INDEXING.map((step) => [`POST ${S}/indexing/${step}`, c('§1.3 indexing: edit_posts', EDIT_POSTS)])),
  [`POST ${S}/link-indexing/posts`]: c('§1.3 link indexing: edit_posts', EDIT_POSTS),
  [`POST ${S}/link-indexing/terms`]: c('§1.3 link indexing: edit_posts', EDIT_POSTS),
  [`GET ${S}/statistics`]: c('§1.3 statistics: read (any signed-in user)', SIGNED_IN),
  [`GET ${S}/seo_scores`]: c('§1.3 dashboard scores: manage_seo_options', MANAGE_SEO, { query: { contentType: 'post' } }),
  [`GET ${S}/readability_scores`]: c('§1.3 dashboard scores: manage_seo_options', MANAGE_SEO, { query: { contentType: 'post' } }),
  [`GET ${S}/bulk_editor/posts`]: c('§1.3 bulk editor: manage_seo_options', MANAGE_SEO, { query: { content_type: 'post' } }),
  [`POST ${S}/bulk_editor/update_search`]: c('§1.3 bulk editor: manage_seo_options', MANAGE_SEO, { body: { items: [{ id: 999999999, seo_title: 'Probe' }] } }),
  [`POST ${S}/bulk_editor/update_social`]: c('§1.3 bulk editor: manage_seo_options', MANAGE_SEO, { body: { items: [{ id: 999999999, social_title: 'Probe' }] } }),
  [`GET ${S}/available_posts`]: c('§1.3 available posts: manage_seo_options', MANAGE_SEO),
  [`GET ${S}/file_size`]: c('§1.3 file size: manage_options', MANAGE_SEO, { query: { url: 'http://cms.test/cms-content/uploads/none.png' } }),
  [`GET ${S}/get_head`]: c('§1.3 get_head: public (while enable_headless_rest_endpoints is on)', ANYONE, { query: { url: 'http://cms.test/' } }),
  [`POST ${S}/import/{plugin}/{type}`]: c('§1.3 import: activate_plugins (administrators)', MANAGE_SEO, { vars: { plugin: 'aioseo', type: 'posts' } }),
  ...Object.fromEntries(['site_representation', 'social_profiles', 'enable_tracking', 'save_configuration_state'].map((r) => [`POST ${S}/configuration/${r}`, c('§1.3 configuration: manage_seo_options', MANAGE_SEO)])),
  [`GET ${S}/configuration/get_configuration_state`]: c('§1.3 configuration: manage_seo_options', MANAGE_SEO),
  [`GET ${S}/configuration/check_capability`]: c('§1.3 configuration: manage_seo_options', MANAGE_SEO, { query: { user_id: 1 } }),
  [`POST ${S}/introductions/{introduction_id}/seen`]: c('§1.3 introductions: edit_posts', EDIT_POSTS, { vars: { introduction_id: 'black-friday-announcement' } }),
  [`POST ${S}/alerts/dismiss`]: c('§1.3 alerts: edit_posts', EDIT_POSTS, { body: { key: 'black-friday-promotion' } }),
  [`GET ${S}/video_embed_permission`]: c('§1.3 video embed permission: edit_posts', EDIT_POSTS),
  [`POST ${S}/video_embed_permission`]: c('§1.3 video embed permission: edit_posts', EDIT_POSTS),
  [`POST ${S}/ai_content_planner/banner_permanent_dismissal`]: c('§1.3 content planner banner: edit_posts', EDIT_POSTS),
  [`POST ${S}/new-content-type-visibility/dismiss-post-type`]: c('§1.3 new content types: edit_posts', EDIT_POSTS),
  [`POST ${S}/new-content-type-visibility/dismiss-taxonomy`]: c('§1.3 new content types: edit_posts', EDIT_POSTS),
  [`POST ${S}/integrations/set_active`]: c('§1.3 integrations: manage_seo_options', MANAGE_SEO),
  [`POST ${S}/analytics_connector_configuration_permanent_dismissal`]: c('§1.3 analytics connector: manage_seo_options', MANAGE_SEO),
  [`POST ${S}/analytics_connector_manage_consent`]: c('§1.3 analytics connector: manage_seo_options', MANAGE_SEO),
  [`POST ${S}/setup_steps_tracking`]: c('§1.3 setup steps tracking: manage_seo_options', MANAGE_SEO, { body: { setup_widget_loaded: 'yes' } }),
  [`GET ${S}/get_tasks`]: c('§1.3 task list: manage_seo_options', MANAGE_SEO),
  [`POST ${S}/complete_task`]: c('§1.3 task list: manage_seo_options', MANAGE_SEO, { body: { options: { task: 'probe' } } }),
  [`POST ${S}/action_tracking`]: c('§1.3 action tracking: manage_seo_options', MANAGE_SEO, { body: { action: 'task_list_first_opened_on' } }),
  [`GET ${S}/workouts`]: c('§1.3 workouts: edit_others_posts', EDIT_OTHERS),
  [`POST ${S}/workouts`]: c('§1.3 workouts: edit_others_posts', EDIT_OTHERS, { body: { configuration: { finishedSteps: [] } } }),
  // Public, with the stored code verifier as the proof: the probe has none, so every caller gets the notes' 401
  // (the anonymous success is in packages/seo/test/outside-services.test.ts).
  [`POST ${S}/ai_generator/callback`]: c('§1.3 AI callback: public; the probe\'s challenge matches no stored verifier', NO_PROOF, { body: { access_jwt: 'a', refresh_jwt: 'r', code_challenge: 'c', user_id: 1 } }),
  [`POST ${S}/ai_generator/refresh_callback`]: c('§1.3 AI callback: public; the probe\'s challenge matches no stored verifier', NO_PROOF, { body: { access_jwt: 'a', refresh_jwt: 'r', code_challenge: 'c', user_id: 1 } }),
  ...Object.fromEntries(['ai_generator/consent', 'ai_generator/get_suggestions', 'ai_generator/get_usage', 'ai_generator/bust_subscription_cache', 'ai/free_sparks'].map((r) => [`POST ${S}/${r}`, c('§1.3 AI generator: edit_posts', EDIT_POSTS)])),
  [`POST ${S}/ai_content_planner/get_outline`]: c('§1.3 content planner: edit_posts of the post type', EDIT_POSTS, { body: { post_type: 'post' } }),
  [`GET ${S}/ai_content_planner/get_suggestions`]: c('§1.3 content planner: edit_posts of the post type', EDIT_POSTS, { query: { post_type: 'post', language: 'en', editor: 'block' } }),
  [`POST ${S}/keyword_tool/authenticate`]: c('§1.3 keyword tool: edit_posts or edit_pages', EDIT_POSTS),
  [`POST ${S}/keyword_tool/country_code`]: c('§1.3 keyword tool: edit_posts or edit_pages', EDIT_POSTS, { body: { country_code: 'us' } }),
  [`GET ${S}/keyword_tool/related_keyphrases`]: c('§1.3 keyword tool: edit_posts or edit_pages', EDIT_POSTS, { query: { keyphrase: 'boots', country_code: 'us' } }),
  ...Object.fromEntries(['authorization-url', 'account/limit', 'account/upgrade-campaign'].map((r) => [`GET ${S}/rank_tracker/${r}`, c('§1.3 rank tracker: publish_posts or publish_pages', PUBLISH)])),
  [`POST ${S}/rank_tracker/authenticate`]: c('§1.3 rank tracker: publish_posts or publish_pages', PUBLISH, { body: { code: 'probe', websiteId: 1 } }),
  [`POST ${S}/rank_tracker/keyphrases/track`]: c('§1.3 rank tracker: publish_posts or publish_pages', PUBLISH, { body: { keyphrases: ['boots'] } }),
  [`POST ${S}/rank_tracker/keyphrases`]: c('§1.3 rank tracker: publish_posts or publish_pages', PUBLISH),
  [`DELETE ${S}/rank_tracker/keyphrases/untrack`]: c('§1.3 rank tracker: publish_posts or publish_pages', PUBLISH, { query: { keyphraseID: 1 } }),
  [`GET ${S}/time_based_seo_metrics`]: c('§1.3 time-based metrics: manage_seo_options', MANAGE_SEO, { query: { 'options[widget]': 'query' } }),
  [`GET ${S}/meta/search`]: [
    c('§1.3 meta search: no post_id is refused', NOBODY),
    c('§1.3 meta search: edit_post on the post (an administrator\'s published post)', EDIT_OTHERS, { queryVars: { post_id: 'post' } })
  ]
}
