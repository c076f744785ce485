/**
 * GET /seo/v1/time_based_seo_metrics (seo-rollback-assistant-addons.md
 * §1.3), `manage_seo_options`: search and traffic figures of the 28 days
 * ending yesterday (UTC) and the 28 before, from the upstream `analytics`
 * (`CMS_UPSTREAM_ANALYTICS_URL`: `GET metrics/{widget}` with `limit`,
 * `start`, `end`, `compare_start`, `compare_end`), answered in the notes'
 * shapes. An unknown widget is a 404 (before anything else is asked); no
 * analytics upstream, or the site not connected to it
 * (`analytics_connector_manage_consent`), is the notes' 400 "not available
 * yet". The `page` rows get the page's dashboard score group.
 */
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { endpoint, kernelErrors, route, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { adminUrl, mayManageSeo } from './access.js'
import { seoErrors } from './errors.js'
import type { SeoOptions } from './state.js'

export const ANALYTICS_UPSTREAM = 'analytics'
const WIDGETS = { query: 'Search queries', page: 'Pages', organicSessionsDaily: 'Organic sessions', organicSessionsCompare: 'Organic sessions', searchRankingCompare: 'Search ranking' } as const
const DAY_MS = 86_400_000

const ymd = (d: Date): string => d.toISOString().slice(0, 10)

/** The dashboard group of an SEO score (buckets.ts's rules on the indexable). */
const groupOf = (score: number | null): string => score === null || score === 0 ? 'notAnalyzed' : score > 70 ? 'good' : score > 40 ? 'ok' : 'bad'

export function analyticsRoutes (api: PackageApi, options: SeoOptions): RelativeRouteDecl[] {
  return [route({
    path: '/time_based_seo_metrics',
    endpoints: [endpoint({
      methods: ['GET'],
      // Each call is a query to the analytics provider.
      rateClass: 'expensive',
      args: {
        limit: Type.Integer({ description: 'Rows of the query and page widgets.', default: 5, minimum: 1, maximum: 100 }),
        options: Type.Object({ widget: Type.String({ maxLength: 60 }) }, { description: 'The data set: query, page, organicSessionsDaily, organicSessionsCompare, searchRankingCompare.' })
      },
      summary: 'Search and traffic figures of the last 28 days',
      response: Type.Union([Type.Array(Type.Object({}, { additionalProperties: true, description: 'A row of the analytics service; a page row adds seoScore and links.edit.' })), Type.Object({}, { additionalProperties: true, description: 'The comparison figures (organicSessionsCompare, searchRankingCompare).' })]),
      permission: mayManageSeo.probing({ query: { 'options[widget]': 'query' } }),
      handler: async (req) => {
        const widget = req.params.options.widget
        if (!Object.hasOwn(WIDGETS, widget)) throw seoErrors.seo_repository_not_found()
        const name = WIDGETS[widget as keyof typeof WIDGETS]
        if (!api.services.upstreams.configured(ANALYTICS_UPSTREAM) || !await options.analytics_connector_connected.get()) {
          throw seoErrors.seo_repository_not_available({ widget }, `${name} repository is not available yet. Not all prerequisites have been met.`)
        }
        const today = new Date(`${ymd(new Date())}T00:00:00Z`).getTime()
        const day = (n: number): string => ymd(new Date(today - n * DAY_MS))
        const body = (await api.upstream(ANALYTICS_UPSTREAM).request(`metrics/${widget}`, {
          query: { limit: req.params.limit, start: day(28), end: day(1), compare_start: day(56), compare_end: day(29) }
        })).json()
        const rows = widget === 'query' || widget === 'page' || widget === 'organicSessionsDaily'
        if (rows ? !Array.isArray(body) : typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw kernelErrors.rest_upstream_error({ upstream: ANALYTICS_UPSTREAM }, `The analytics service answered no ${name.toLowerCase()}.`)
        }
        if (widget !== 'page') return rows ? (body as unknown[]).slice(0, req.params.limit) : body
        // Pages: each one's score group, from its indexable (one read for the page).
        const pages = (body as Array<Record<string, unknown>>).slice(0, req.params.limit)
        const urls = pages.map((p) => String(p.subject ?? ''))
        const found = await api.services.store.execute<{ permalink: string, object_id: number, score: number | null }>(sql`select permalink, object_id, primary_focus_keyword_score as score
          from seo_indexables where object_type = 'post' and post_status = 'publish' and permalink = any(${sql.param(urls)}::text[])`)
        const byUrl = new Map(found.map((r) => [r.permalink, r]))
        return pages.map((p) => {
          const row = byUrl.get(String(p.subject ?? ''))
          return { ...p, seoScore: groupOf(row === undefined ? null : row.score === null ? null : Number(row.score)), ...(row === undefined ? {} : { links: { edit: adminUrl(api, `post.php?post=${String(row.object_id)}&action=edit`) } }) }
        })
      }
    })]
  })]
}
