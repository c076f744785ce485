/**
 * GET /seo/v1/seo_scores and /seo/v1/readability_scores
 * (seo-rollback-assistant-addons.md §1.3): the dashboard's good / ok / bad
 * / notAnalyzed groups (buckets.ts rules, in that order) over the published
 * indexables of one content type, optionally of one category. SEO scores
 * leave noindexed posts out; readability does not. Answers are kept 60
 * seconds per type and term unless `troubleshooting` is set, which also
 * lists each group's post ids; a kept answer is used only while the
 * type's indexables are unchanged (their count and last update), so a
 * write shows at once. Permission: `manage_seo_options`. The
 * validation failures the real product answers as `{"error": ...}` are
 * 400s in the error shape.
 */
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { endpoint, Raw, route, type RouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { adminUrl, mayManageSeo } from './access.js'
import { SCORE_GROUPS } from './buckets.js'
import { seoErrors } from './errors.js'
import { catchUp } from './freshness.js'

const NS = 'seo/v1'
const CACHE_MS = 60_000
/** Content types with a dashboard, and the taxonomy each may be filtered by. */
const FILTER_TAXONOMY: Record<string, string | undefined> = { post: 'category', page: undefined }

/** The SQL group of a row: the same boundaries as buckets.ts (seoGroup / readabilityGroup). */
const SEO_GROUP = sql.raw(`case when primary_focus_keyword_score is null or primary_focus_keyword_score <= 0 then 'notAnalyzed'
  when primary_focus_keyword_score <= 40 then 'bad' when primary_focus_keyword_score <= 70 then 'ok' else 'good' end`)
const READABILITY_GROUP = sql.raw(`case when readability_score <= 0 then (case when estimated_reading_time_minutes is not null then 'bad' else 'notAnalyzed' end)
  when readability_score <= 40 then 'bad' when readability_score <= 70 then 'ok' else 'good' end`)

export function scoreRoutes (api: PackageApi): RouteDecl[] {
  const cache = new Map<string, { at: number, under: string, body: Record<string, unknown> }>()
  const make = (kind: 'seo' | 'readability'): RouteDecl => route({
    namespace: NS,
    path: `/${NS}/${kind}_scores`,
    endpoints: [endpoint({
      methods: ['GET'],
      // Catches up on up to 100 posts' indexables, then groups every published one.
      rateClass: 'expensive',
      summary: `How many published posts of a type fall in each ${kind} score group`,
      response: Type.Object({
        scores: Type.Array(Type.Object({ name: Type.String({ description: 'good, ok, bad or notAnalyzed.' }), amount: Type.Integer(), links: Type.Object({ view: Type.Union([Type.String(), Type.Null()], { description: 'An admin screen under CMS_ADMIN_URL; null without one.' }) }), ids: Type.Optional(Type.String({ description: 'With troubleshooting: the ids, comma-separated.' })) })),
        queryTime: Type.Number({ description: 'Seconds.' }),
        cacheUsed: Type.Boolean()
      }),
      args: {
        contentType: Type.String({ description: 'The content type (post type) to score.' }),
        taxonomy: Type.String({ description: 'The filtering taxonomy of the content type.', default: '' }),
        term: Raw<number | null>({ type: 'integer', description: 'A term of that taxonomy to filter by.', default: null }),
        troubleshooting: Raw<boolean | null>({ type: 'boolean', description: 'Bypass the cache and list the ids of each group.', default: null })
      },
      permission: mayManageSeo.because('§1.3 dashboard scores: manage_seo_options').probing({ query: { contentType: 'post' } }),
      handler: async (req) => {
        const { contentType, taxonomy } = req.params
        const term = req.params.term ?? null
        const troubleshooting = req.params.troubleshooting === true
        if (!Object.hasOwn(FILTER_TAXONOMY, contentType)) throw seoErrors.seo_invalid_content_type()
        if (taxonomy !== '' && taxonomy !== FILTER_TAXONOMY[contentType]) throw seoErrors.seo_invalid_taxonomy()
        if (term !== null && taxonomy === '') throw seoErrors.seo_term_needs_taxonomy()
        if (taxonomy !== '' && term === null) throw seoErrors.seo_taxonomy_needs_term()
        let slug = ''
        if (term !== null) {
          const [found] = await api.content.terms({ taxonomy, include: [term] })
          if (found === undefined) throw seoErrors.seo_invalid_term()
          slug = found.slug
        }
        const key = `${kind}:${contentType}:${term ?? ''}`
        await catchUp(api)
        // The type's indexables as they stand: any rebuild, addition or removal changes it.
        const [stamp] = await api.services.store.execute<{ n: string | number, at: string | Date | null }>(sql`select count(*) as n, max(updated_at) as at
          from seo_indexables where object_type = 'post' and object_sub_type = ${contentType}`)
        const under = `${String(stamp?.n)}:${stamp?.at instanceof Date ? stamp.at.toISOString() : String(stamp?.at)}`
        const hit = cache.get(key)
        if (!troubleshooting && hit !== undefined && hit.under === under && Date.now() - hit.at < CACHE_MS) return { ...hit.body, queryTime: 0, cacheUsed: true }
        const started = performance.now()
        const rows = await api.services.store.execute<{ grp: string, amount: string | number, ids: string | null }>(sql`
          select ${kind === 'seo' ? SEO_GROUP : READABILITY_GROUP} as grp, count(*) as amount, string_agg(object_id::text, ',' order by object_id) as ids
          from seo_indexables
          where object_type = 'post' and object_sub_type = ${contentType} and (post_status = 'publish' or post_status is null)
            ${kind === 'seo' ? sql`and is_robots_noindex is not true` : sql``}
            ${term === null ? sql`` : sql`and ${term}::bigint = any(term_ids)`}
          group by 1`)
        const queryTime = (performance.now() - started) / 1000
        const filter = kind === 'seo' ? 'seo_filter' : 'readability_filter'
        const scores = SCORE_GROUPS.map((name) => {
          const row = rows.find((r) => r.grp === name)
          const view = adminUrl(api, `edit.php?post_status=publish&post_type=${encodeURIComponent(contentType)}&${filter}=${name === 'notAnalyzed' ? 'na' : name}${slug === '' ? '' : `&category_name=${encodeURIComponent(slug)}`}`)
          return { name, amount: Number(row?.amount ?? 0), links: { view }, ...(troubleshooting ? { ids: row?.ids ?? '' } : {}) }
        })
        const body = { scores, queryTime, cacheUsed: false }
        if (!troubleshooting) {
          cache.set(key, { at: Date.now(), under, body })
          // Bounded: one entry per type and term asked; the oldest go first.
          if (cache.size > 1000) cache.delete(cache.keys().next().value!)
        }
        return body
      }
    })]
  })
  return [make('seo'), make('readability')]
}
