/**
 * The rank tracker (seo-rollback-assistant-addons.md §1.3), behind the
 * upstream `rank-tracker` (`CMS_UPSTREAM_RANK_TRACKER_URL`), for users who
 * may `publish_posts` or `publish_pages`:
 *
 *   rank_tracker/authorization-url        where the user authorizes the site (`{base}oauth/authorize`)
 *   rank_tracker/authenticate             exchanges the code (`POST oauth/token`), keeps the tokens sealed and the website id
 *   rank_tracker/account/limit            `GET account/limit`
 *   rank_tracker/account/upgrade-campaign `GET account/upgrade-campaign`
 *   rank_tracker/keyphrases/track         within the account's limit, `POST websites/{id}/keywords`
 *   rank_tracker/keyphrases               rankings of the given keyphrases, or of every focus keyphrase of the site
 *   rank_tracker/keyphrases/untrack       `DELETE websites/{id}/keywords/{keyphraseID}`
 *
 * Not connected: `400 seo_token_empty`; unconfigured: `503
 * rest_upstream_unconfigured`; the provider failing: 502, too slow: 504.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { can, endpoint, kernelErrors, Raw, route, type RelativeRouteDecl, type RestRequest, secret } from '@cms/rest'
import type { PackageApi, UpstreamClient } from '@cms/core'
import { seoErrors } from './errors.js'
import { adminUrl } from './access.js'
import type { SeoOptions } from './state.js'
import { MASKED_TOKENS, maskedTokens, tokenStore } from './tokens.js'

export const RANK_UPSTREAM = 'rank-tracker'
const MAX_KEYPHRASES = 100

const mayUse = can(['publish_posts', 'publish_pages'], { error: seoErrors.rest_forbidden, why: '§1.3 rank tracker: publish_posts or publish_pages', probe: { body: { code: 'probe', websiteId: 1, keyphrases: ['boots'] }, query: { keyphraseID: 1 } } })

/** A keyphrase list as sent: an array or a comma list; trimmed, empty ones and repeats dropped. */
function keyphraseList (value: unknown): string[] | undefined {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined
  if (items === undefined || items.some((k) => typeof k !== 'string' || k.length > 200)) return undefined
  return [...new Set((items as string[]).map((k) => k.trim()).filter((k) => k !== ''))]
}

const KEYPHRASES = Raw<string | string[]>({ description: 'Keyphrases: an array or a comma list (at most 100, each at most 200 characters).', anyOf: [{ type: 'string', maxLength: 20_000 }, { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: MAX_KEYPHRASES }] })

export function rankTrackerRoutes (api: PackageApi, options: SeoOptions): RelativeRouteDecl[] {
  const tokens = tokenStore(api, options.rank_tracker_tokens)
  /** The client and the headers of a connected site. */
  const connected = async (): Promise<{ client: UpstreamClient, headers: Record<string, string>, website: number }> => {
    const client = api.upstream(RANK_UPSTREAM)
    return { client, headers: { authorization: `Bearer ${await tokens.access()}` }, website: await options.rank_tracker_website_id.get() }
  }
  const object = (body: unknown, what: string): Record<string, unknown> => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw kernelErrors.rest_upstream_error({ upstream: RANK_UPSTREAM }, `The rank tracker answered no ${what}.`)
    return body as Record<string, unknown>
  }
  const limitOf = async (): Promise<{ canTrack: boolean, limit: number, usage: number, historyDays: number }> => {
    const { client, headers } = await connected()
    const a = object((await client.request('account/limit', { headers })).json(), 'account limit')
    const num = (v: unknown): number => typeof v === 'number' && Number.isFinite(v) ? v : 0
    const limit = num(a.limit)
    const usage = num(a.usage)
    return { canTrack: typeof a.canTrack === 'boolean' ? a.canTrack : usage < limit, limit, usage, historyDays: num(a.historyDays) }
  }
  const get = (path: string, summary: string, response: TSchema, handler: (req: RestRequest) => Promise<unknown>): RelativeRouteDecl => route({
    path,
    endpoints: [endpoint({ methods: ['GET'], args: {}, summary, response, permission: mayUse, handler })]
  })

  return [
    get('/rank_tracker/authorization-url', 'Where the user authorizes the rank tracker', Type.Object({ status: Type.Integer(), url: Type.String() }), async () => {
      const client = api.upstream(RANK_UPSTREAM)
      const url = new URL('oauth/authorize', client.baseUrl)
      url.searchParams.set('response_type', 'code')
      // Back to the SEO dashboard of the deployer's admin front end, which takes the code to
      // rank_tracker/authenticate; without one (CMS_ADMIN_URL) no page of this service could, and the
      // parameter is left out: the provider uses the redirect URI registered for the client (RFC 6749 §3.1.2.3).
      const back = adminUrl(api, 'admin.php?page=seo_dashboard')
      if (back !== null) url.searchParams.set('redirect_uri', back)
      return { status: 200, url: url.href }
    }),
    route({
      path: '/rank_tracker/authenticate',
      endpoints: [endpoint({
        methods: ['POST'],
        args: {
          code: secret(Type.String({ description: 'The authorization code.', minLength: 1, maxLength: 4096 })),
          websiteId: Type.Integer({ description: 'The rank tracker\'s id of this site.', minimum: 1 })
        },
        summary: 'Connect the rank tracker',
        response: Type.Object({ tokens: MASKED_TOKENS, status: Type.Integer() }),
        permission: mayUse,
        handler: async (req) => {
          const got = await tokens.exchange(api.upstream(RANK_UPSTREAM), 'oauth/token', req.params.code)
          await options.rank_tracker_website_id.set(req.params.websiteId)
          return { tokens: maskedTokens(got), status: 200 }
        }
      })]
    }),
    get('/rank_tracker/account/limit', 'The rank tracker account\'s limit', Type.Object({ canTrack: Type.Boolean(), limit: Type.Number(), usage: Type.Number(), historyDays: Type.Number(), status: Type.Integer() }), async () => ({ ...await limitOf(), status: 200 })),
    get('/rank_tracker/account/upgrade-campaign', 'The rank tracker\'s upgrade offer', Type.Object({ discount: Type.Union([Type.Number(), Type.Null()]), months: Type.Union([Type.Number(), Type.Null()]), status: Type.Integer() }), async () => {
      const { client, headers } = await connected()
      const a = object((await client.request('account/upgrade-campaign', { headers })).json(), 'campaign')
      return { discount: typeof a.discount === 'number' ? a.discount : null, months: typeof a.months === 'number' ? a.months : null, status: 200 }
    }),
    route({
      path: '/rank_tracker/keyphrases/track',
      endpoints: [endpoint({
        methods: ['POST'],
        args: { keyphrases: KEYPHRASES },
        summary: 'Track keyphrases',
        response: Type.Object({ results: Type.Record(Type.String(), Type.Object({ id: Type.Unknown(), keyword: Type.String() }), { description: 'Keyphrase -> the tracked keyword.' }), status: Type.Integer() }),
        permission: mayUse,
        handler: async (req) => {
          const list = keyphraseList(req.params.keyphrases)
          if (list === undefined || list.length === 0 || list.length > MAX_KEYPHRASES) throw seoErrors.rest_invalid_param({ params: { keyphrases: 'One to 100 keyphrases.' } })
          const limit = await limitOf()
          if (limit.usage + list.length > limit.limit) throw seoErrors.seo_account_limit_exceeded({ limit: limit.limit })
          const { client, headers, website } = await connected()
          const added = (await client.request(`websites/${website}/keywords`, { method: 'POST', headers, json: list.map((keyword) => ({ keyword })) })).json()
          if (!Array.isArray(added)) throw kernelErrors.rest_upstream_error({ upstream: RANK_UPSTREAM }, 'The rank tracker answered no keywords.')
          const results: Record<string, { id: unknown, keyword: string }> = {}
          for (const k of added as Array<Record<string, unknown>>) if (typeof k?.keyword === 'string') results[k.keyword] = { id: k.id, keyword: k.keyword }
          return { results, status: 200 }
        }
      })]
    }),
    route({
      path: '/rank_tracker/keyphrases',
      endpoints: [endpoint({
        methods: ['POST'],
        args: {
          keyphrases: Type.Optional(KEYPHRASES),
          permalink: Type.Optional(Type.String({ description: 'Rankings of this URL only.', maxLength: 2048 })),
          startAt: Type.Optional(Type.String({ description: 'Rankings since this date.', maxLength: 40 }))
        },
        summary: 'Rankings of keyphrases',
        response: Type.Object({ results: Type.Record(Type.String(), Type.Unknown(), { description: 'Keyphrase -> its rankings.' }), status: Type.Integer() }),
        permission: mayUse,
        handler: async (req) => {
          let list = req.params.keyphrases === undefined ? undefined : keyphraseList(req.params.keyphrases)
          if (list === undefined && req.params.keyphrases !== undefined) throw seoErrors.rest_invalid_param({ params: { keyphrases: 'Keyphrases as an array or a comma list.' } })
          const { client, headers, website } = await connected()
          // None given: every focus keyphrase of the site's published content.
          list ??= (await api.services.store.execute<{ k: string }>(sql`select distinct primary_focus_keyword as k from seo_indexables
            where object_type = 'post' and post_status = 'publish' and is_protected = false and coalesce(primary_focus_keyword, '') <> ''
            order by k limit ${MAX_KEYPHRASES}`)).map((r) => r.k)
          if (list.length === 0) return { results: {}, status: 200 }
          const body = object((await client.request(`websites/${website}/keywords/rankings`, {
            method: 'POST',
            headers,
            json: { keywords: list, ...(req.params.permalink === undefined ? {} : { url: req.params.permalink }), ...(req.params.startAt === undefined ? {} : { start_at: req.params.startAt }) }
          })).json(), 'rankings')
          const results: Record<string, unknown> = {}
          for (const k of list) if (Object.hasOwn(body, k)) results[k] = body[k]
          return { results, status: 200 }
        }
      })]
    }),
    route({
      path: '/rank_tracker/keyphrases/untrack',
      endpoints: [endpoint({
        methods: ['DELETE'],
        args: {},
        summary: 'Stop tracking a keyphrase (keyphraseID)',
        response: Type.Object({ status: Type.Integer() }),
        permission: mayUse,
        handler: async (req) => {
          const sent = typeof req.sentBody === 'object' && req.sentBody !== null ? (req.sentBody as Record<string, unknown>).keyphraseID : undefined
          const id = String(req.query.keyphraseID ?? sent ?? '')
          if (!/^\d{1,18}$/.test(id)) throw seoErrors.seo_keyphrase_id_missing()
          const { client, headers, website } = await connected()
          await client.request(`websites/${website}/keywords/${id}`, { method: 'DELETE', headers })
          return { status: 200 }
        }
      })]
    })
  ]
}
