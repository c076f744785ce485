/**
 * The site options and user meta keys of the SEO package's part 2
 * (seo-rollback-assistant-addons.md §1.4), declared once here and handed to
 * the route families that read or write them. The real product's `wpseo`
 * option array becomes one option per value, prefixed `seo_`; product
 * names become the neutral ones (`site_kit_*` -> `seo_analytics_connector_*`,
 * `semrush_*` -> `seo_keyword_tool_*`, `wincher_*` -> `seo_rank_tracker_*`).
 * The site representation and the social profiles are the head's options
 * (head.ts), since the head reads them on every page.
 *
 * User meta keys are private (unregistered: not shown on cms/v2 users) and
 * each value is read and written whole, under a lock per user and key.
 */
import { sql } from 'drizzle-orm'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import type { PackageApi, PackageBase, PackageOption } from '@cms/core'

/** What the tracking options record (the real product stores its own version). */
export const SEO_VERSION = '0.1.0'

/** The integrations `integrations/set_active` may switch (the real `<name>_integration_active` options). */
export const INTEGRATIONS = ['keyword_tool', 'rank_tracker', 'analytics_connector'] as const

/** The five setup-widget values the analytics connector's tracking keeps. */
export const SETUP_TRACKING = {
  setup_widget_loaded: 'setupWidgetLoaded',
  first_interaction_stage: 'firstInteractionStage',
  last_interaction_stage: 'lastInteractionStage',
  setup_widget_temporarily_dismissed: 'setupWidgetTemporarilyDismissed',
  setup_widget_permanently_dismissed: 'setupWidgetPermanentlyDismissed'
} as const

/** Tracking-only options `action_tracking` may stamp. */
export const TRACKED_ACTIONS = ['task_list_first_opened_on', 'task_first_actioned_on', 'frontend_inspector_first_actioned_on'] as const

const Strings = (max: number) => Type.Array(Type.String({ maxLength: 200 }), { maxItems: max })
const Flags = (keys: readonly string[]) => Type.Record(Type.String({ enum: [...keys] }), Type.Boolean(), { maxProperties: keys.length })

const WORKOUTS = Type.Object({ configuration: Type.Object({ finishedSteps: Strings(50) }) }, { additionalProperties: true, maxProperties: 20 })

/** Option name -> schema and default; `seoOptions` declares each. */
const OPTIONS = {
  tracking: [Type.Boolean(), false, 'Whether the site shares usage data (configuration wizard).'],
  toggled_tracking: [Type.Boolean(), false, 'Set once tracking was switched from the wizard.'],
  configuration_finished_steps: [Strings(20), [], 'The configuration wizard\'s finished steps.'],
  first_time_install: [Type.Boolean(), true, 'True until the configuration wizard was finished (three steps).'],
  workouts_data: [WORKOUTS, { configuration: { finishedSteps: [] } }, 'The SEO workouts\' state, as the dashboard last saved it.'],
  integrations: [Flags(INTEGRATIONS), {}, 'Integrations switched on or off (integrations/set_active); absent: off.'],
  analytics_connector_configuration_permanently_dismissed: [Type.Boolean(), false, 'The analytics connector\'s setup widget was dismissed for good.'],
  analytics_connector_connected: [Type.Boolean(), false, 'The site consented to connect the analytics connector.'],
  analytics_connector_tracking: [Type.Record(Type.String({ maxLength: 60 }), Type.String({ maxLength: 60 }), { maxProperties: 10 }), {}, 'The setup widget\'s tracked steps (setup_steps_tracking).'],
  ai_free_sparks_started_on: [Type.Integer({ minimum: 0 }), 0, 'When the free AI trial started (Unix time; 0: not started).'],
  enable_llms_txt: [Type.Boolean(), false, 'Serve an llms.txt file for the site.'],
  new_post_types: [Strings(100), [], 'Post types that appeared since the content types were last reviewed.'],
  new_taxonomies: [Strings(100), [], 'Taxonomies that appeared since the content types were last reviewed.'],
  action_tracking: [Type.Record(Type.String({ maxLength: 60 }), Type.String({ maxLength: 40 }), { maxProperties: 10 }), {}, 'Tracking-only stamps (the package version when an action was first taken).'],
  keyword_tool_country_code: [Type.String({ pattern: '^[a-z]{2}$' }), 'us', 'The country the keyword tool\'s related keyphrases are for.'],
  keyword_tool_tokens: [Type.String({ maxLength: 20_000 }), '', 'The keyword tool\'s tokens, sealed (empty: not connected).'],
  rank_tracker_tokens: [Type.String({ maxLength: 20_000 }), '', 'The rank tracker\'s tokens, sealed (empty: not connected).'],
  rank_tracker_website_id: [Type.Integer({ minimum: 0 }), 0, 'The rank tracker\'s id of this site.']
} satisfies Record<string, [TSchema, unknown, string]>

type Options = typeof OPTIONS
export type SeoOptions = { [K in keyof Options]: PackageOption<Options[K][0]> }

/** Declares the options (called once from the package's register). */
export function seoOptions (api: PackageBase): SeoOptions {
  const out: Record<string, PackageOption<TSchema>> = {}
  for (const [name, [schema, def, description]] of Object.entries(OPTIONS)) {
    out[name] = api.option(`seo_${name}`, schema, { default: def as never, description })
  }
  return out as SeoOptions
}

/** The user meta keys (the real `_yoast_wpseo_*`, neutral). */
export const USER_KEYS = {
  introductions: '_seo_introductions',
  alertsDismissed: '_seo_alerts_dismissed',
  videoEmbedPermission: '_seo_video_embed_permission',
  aiConsent: '_seo_ai_consent',
  aiCodeVerifier: '_seo_ai_generator_code_verifier',
  aiTokens: '_seo_ai_generator_tokens',
  plannerBannerDismissed: '_seo_ai_content_planner_banner_permanently_dismissed'
} as const

export { userState, type UserState } from '@cms/core'

/** Reads, changes and writes one option, one writer at a time (two requests changing it at once both count). */
export async function updateOption<S extends TSchema> (api: PackageApi, option: PackageOption<S>, change: (current: Static<S>) => Static<S>): Promise<Static<S>> {
  return await api.services.store.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${option.name}))`)
    return await option.set(change(await option.get(tx)), tx)
  })
}
