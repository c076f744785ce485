/**
 * @cms/seo: the SEO extension (`seo/v1`, profile B), part 1 of the
 * reference's routes (seo-rollback-assistant-addons.md §1). One file per
 * route family; the rest:
 *
 *   meta.ts              the per-post SEO data (`_seo_*` post meta on cms/v2, edit context)
 *   analysis.ts          scores computed on the server, off the request thread
 *   analysis-worker.mjs  the `yoastseo` analysis one worker thread runs
 *   cli.ts               `cms seo analyze`
 *   indexables.ts        the indexables and internal links, kept current from the lifecycle events
 *   indexing.ts          indexing/* and link-indexing/*: building what is missing in bounded batches
 *   statistics.ts        statistics (classic ranks)
 *   scores.ts            seo_scores, readability_scores (dashboard groups; buckets.ts)
 *   bulk-editor.ts       bulk_editor/posts, update_search, update_social
 *   lookups.ts           available_posts, meta/search
 *   file-size.ts         file_size (a media file's size from its URL)
 *   head.ts              get_head (the SEO head of any URL of the site; `postHead` for one post)
 *   head-fields.ts       seo_head / seo_head_json on cms/v2 posts and pages (option seo_head_fields, off by default)
 *   templates.ts         title and description templates and their variables
 *   import.ts            import/{plugin}/{type} (another SEO plugin's meta and settings, in batches)
 *   import-source.ts     that plugin's data as a migrated site keeps it (registered meta, options)
 *   freshness.ts         reads reflect writes: indexables rebuilt by the writes, caught up by the reads
 *   configuration.ts     configuration/* (the first-time configuration wizard: site representation, social profiles...)
 *   introductions.ts     introductions, alerts, video embed permission, banners, new content types (what a user saw or dismissed)
 *   integrations.ts      integrations/set_active and the analytics connector's local state
 *   tasks.ts             get_tasks, complete_task, action_tracking, workouts
 *   ai-generator.ts      ai_generator/* and ai/free_sparks (upstream ai-generator; the users' tokens sealed)
 *   content-planner.ts   ai_content_planner/get_outline, get_suggestions (upstream content-planner)
 *   keyword-tool.ts      keyword_tool/* (upstream keyword-tool)
 *   rank-tracker.ts      rank_tracker/* (upstream rank-tracker)
 *   analytics.ts         time_based_seo_metrics (upstream analytics)
 *   tokens.ts            the providers' OAuth tokens, sealed in options
 *   state.ts             the options and user meta keys of the routes above
 *   access.ts            the shared permissions (who passes each, for the matrix)
 *   errors.ts            the error catalogue
 *
 * `analytics-connector/v1` (profile B) is this package's too: the
 * connector's state lives in the SEO options (integrations.ts) and the
 * reference shows only the namespace's root route, which the kernel serves
 * for a declared namespace (CONVENTIONS.md §8).
 *
 * The capability `manage_seo_options` (the real product's
 * `wpseo_manage_options`) is granted to administrators.
 */
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { definePackage, serviceKey, type Platform } from '@cms/core'
import { MANAGE_SEO } from './access.js'
import { ANALYSED_TYPES, createAnalyser, type Analyser } from './analysis.js'
import { seoCommands } from './cli.js'
import { deleteIndexables, homeUrl, INDEXABLE_TYPES, indexLinks, postIndexable, upsertIndexables } from './indexables.js'
import { indexingRoutes } from './indexing.js'
import { bulkEditorRoutes } from './bulk-editor.js'
import { lookupRoutes } from './lookups.js'
import { fileSizeRoutes } from './file-size.js'
import { HEAD_SERVICE, headRoutes, registerHead } from './head.js'
import { registerHeadFields } from './head-fields.js'
import { importRoutes } from './import.js'
import { registerSourceMeta, sourceOptions } from './import-source.js'
import { INDEX_LISTENERS } from './freshness.js'
import { scoreRoutes } from './scores.js'
import { statisticsRoutes } from './statistics.js'
import { registerSeoMeta } from './meta.js'
import { seoOptions, userState } from './state.js'
import { configurationRoutes } from './configuration.js'
import { introductionRoutes } from './introductions.js'
import { integrationRoutes } from './integrations.js'
import { taskRoutes } from './tasks.js'
import { aiAccess, aiGeneratorRoutes } from './ai-generator.js'
import { contentPlannerRoutes } from './content-planner.js'
import { keywordToolRoutes } from './keyword-tool.js'
import { rankTrackerRoutes } from './rank-tracker.js'
import { analyticsRoutes } from './analytics.js'

export const seoPackage = definePackage({
  name: '@cms/seo',
  dependencies: ['@cms/core'],
  namespaces: ['seo/v1', 'analytics-connector/v1'],
  // Served while the plugin `seo` is active (the registry's status), its meta and fields shown with it;
  // the connector's root while `analytics-connector` is.
  activation: [{ type: 'plugin', slug: 'seo', namespaces: ['seo/v1'], contributions: true }, { type: 'plugin', slug: 'analytics-connector', namespaces: ['analytics-connector/v1'] }],
  options: Type.Object({}, { additionalProperties: false }),
  commands: seoCommands,
  // Run where seo/v1 is served (once per event across its replicas); declared everywhere.
  listeners: {
    'analyse-created': 'post.created',
    'analyse-updated': 'post.updated',
    'forget-analysis': 'post.deleted',
    [INDEX_LISTENERS.created]: 'post.created',
    [INDEX_LISTENERS.updated]: 'post.updated',
    [INDEX_LISTENERS.deleted]: 'post.deleted'
  },
  // In every process: a post written through a gateway whose seo/v1 runs elsewhere keeps its SEO meta.
  contribute (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    api.capability(MANAGE_SEO, ['administrator'])
    registerSeoMeta(api)
    registerSourceMeta(api)
    const source = sourceOptions(api)
    const head = registerHead(api)
    api.provide(HEAD_SERVICE, head)
    registerHeadFields(api, head)
    const threads = api.option('seo_analysis_threads', Type.Integer({ minimum: 1, maximum: 8 }), {
      default: 1,
      description: 'Worker threads the SEO analysis runs in (each analyses one post at a time).'
    })
    return { head, options: seoOptions(api), threads, source }
  },
  serve (api, _options, app, { head, options, threads, source }) {
    const users = userState(api.services.store)
    const ai = aiAccess(api, users)
    // A post's indexable follows its events and its computed scores; its links are indexed once published.
    const reindex = async (id: number): Promise<void> => {
      const found = await api.content.post(id)
      if (found === undefined || !INDEXABLE_TYPES.includes(found.post.type)) return
      const home = await homeUrl(api.services.store)
      await upsertIndexables(api.services.store, [postIndexable(found, home)])
      if (found.post.status === 'publish') await indexLinks(api.services.store, api.content, id, found.post.content, home)
    }
    const analyser = createAnalyser({ store: () => api.services.store, content: api.content, threads: async () => await threads.get(), afterAnalysis: reindex })
    const due = async (e: { objectId: number, payload: Record<string, unknown> }): Promise<void> => {
      if (ANALYSED_TYPES.includes(String(e.payload.type))) await analyser.enqueue([e.objectId])
    }
    api.on('analyse-created', due)
    api.on('analyse-updated', due)
    api.on('forget-analysis', async (e) => { await analyser.forget([e.objectId]) })
    api.on(INDEX_LISTENERS.created, async (e) => { await reindex(e.objectId) })
    api.on(INDEX_LISTENERS.updated, async (e) => { await reindex(e.objectId) })
    api.on(INDEX_LISTENERS.deleted, async (e) => { await deleteIndexables(api.services.store, [`post:${e.objectId}`]) })
    api.background('seo analysis', () => analyser.start((message, err) => { app.log.error({ err }, message) }))
    app.addHook('onClose', async () => { await analyser.close() })
    api.provide(ANALYSER_SERVICE, analyser)
    api.namespace('analytics-connector/v1', () => [])
    api.namespace('seo/v1', () => [...indexingRoutes(api), ...statisticsRoutes(api), ...scoreRoutes(api), ...bulkEditorRoutes(api), ...lookupRoutes(api), ...fileSizeRoutes(api), ...importRoutes(api, head, source), ...headRoutes(head),
      ...configurationRoutes(api, head, options), ...introductionRoutes(api, users, options), ...integrationRoutes(api, options), ...taskRoutes(api, options, head),
      ...aiGeneratorRoutes(api, users, options, ai), ...contentPlannerRoutes(api, ai), ...keywordToolRoutes(api, options), ...rankTrackerRoutes(api, options), ...analyticsRoutes(api, options)])
  }
})

export { postHead, preloadPostHeads, HEAD_SERVICE, type HeadService, type SeoHead, type HeadJson } from './head.js'

/** The analysis queue, provided where the package serves (its worker runs there). */
export const ANALYSER_SERVICE = serviceKey<Analyser>('@cms/seo/analyser')

/** The analysis queue of a composed app (tests run it directly: `seoAnalyserOf(h.platform).runDue()`). */
export function seoAnalyserOf (platform: Pick<Platform, 'service'>): Analyser {
  const found = platform.service(ANALYSER_SERVICE)
  if (found === undefined) throw new Error('the SEO package is not registered (served) on this platform')
  return found
}
