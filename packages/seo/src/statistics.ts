/**
 * GET /seo/v1/statistics (seo-rollback-assistant-addons.md §1.3): the
 * classic ranks (buckets.ts) of the caller's visible published posts of
 * type `post`, from the indexables: noindexed posts count as `noindex`,
 * posts without a focus keyphrase as `na`, the others by their score.
 * Callers without `edit_others_posts` see their own posts only. Ranks with
 * no posts are left out. Kept per user while nothing is committed (the
 * store's commit horizon), so it is never stale. Permission: `read`.
 */
import { sql } from 'drizzle-orm'
import { Type } from '@sinclair/typebox'
import { endpoint, route, type RouteDecl } from '@cms/rest'
import { readCache, type PackageApi } from '@cms/core'
import { adminUrl, mayRead } from './access.js'
import type { ClassicRank } from './buckets.js'
import { catchUp } from './freshness.js'

const NS = 'seo/v1'
const RANKS: readonly ClassicRank[] = ['na', 'bad', 'ok', 'good', 'noindex']
const LABELS: Record<ClassicRank, string> = {
  na: 'Posts <strong>without</strong> a focus keyphrase',
  bad: 'Posts with the SEO score: <strong>Needs improvement</strong>',
  ok: 'Posts with the SEO score: <strong>OK</strong>',
  good: 'Posts with the SEO score: <strong>Good</strong>',
  noindex: 'Posts that should not show up in search results'
}
const HEADERS = {
  none: "You don't have any published posts, your SEO scores will appear here once you make your first post!",
  well: 'Hey, your SEO is doing pretty well! Check out the stats:',
  improve: "Below are your published posts' SEO scores. Now is as good a time as any to start improving some of your posts!"
}

export function statisticsRoutes (api: PackageApi): RouteDecl[] {
  // Per caller scope, valid while nothing is committed (the store's horizon).
  const cache = readCache<Record<string, unknown>>(api.services.store, 'seo:statistics', 1000)
  return [route({
    namespace: NS,
    path: `/${NS}/statistics`,
    endpoints: [endpoint({
      methods: ['GET'],
      // Catches up on up to 100 posts' indexables, then groups every published one.
      rateClass: 'expensive',
      args: {},
      summary: 'How the published posts score, by rank (the caller\'s own unless they edit others\' posts)',
      response: Type.Object({
        header: Type.String(),
        seo_scores: Type.Array(Type.Object({ seo_rank: Type.String(), label: Type.String(), count: Type.Integer(), link: Type.Union([Type.String(), Type.Null()], { description: 'An admin screen under CMS_ADMIN_URL; null without one.' }) }))
      }),
      permission: mayRead.because('§1.3 statistics: read (any signed-in user)'),
      handler: async (req) => {
        const own = !req.user.can('edit_others_posts')
        await catchUp(api)
        return await cache.get(req, `${req.user.id}:${own ? 'own' : 'all'}:${req.baseUrl}`, async () => {
          const rows = await api.services.store.execute<{ rank: ClassicRank, n: string | number }>(sql`
          select case when is_robots_noindex is true then 'noindex'
            when primary_focus_keyword is null or coalesce(primary_focus_keyword_score, 0) <= 0 then 'na'
            when primary_focus_keyword_score <= 40 then 'bad' when primary_focus_keyword_score <= 70 then 'ok' else 'good' end as rank,
            count(*) as n
          from seo_indexables
          where object_type = 'post' and object_sub_type = 'post' and post_status = 'publish'
            ${own ? sql`and author_id = ${req.user.id}` : sql``}
          group by 1`)
          const count = (rank: ClassicRank): number => Number(rows.find((r) => r.rank === rank)?.n ?? 0)
          const total = RANKS.reduce((sum, r) => sum + count(r), 0)
          return {
            header: total === 0 ? HEADERS.none : count('good') / total > 0.66 ? HEADERS.well : HEADERS.improve,
            seo_scores: RANKS.filter((r) => count(r) > 0).map((rank) => ({
              seo_rank: rank,
              label: LABELS[rank],
              count: count(rank),
              link: adminUrl(api, `edit.php?post_status=publish&post_type=post&seo_filter=${rank}`)
            }))
          }
        })
      }
    })]
  })]
}
