/**
 * The keyword tool (seo-rollback-assistant-addons.md §1.3), behind the
 * upstream `keyword-tool` (`CMS_UPSTREAM_KEYWORD_TOOL_URL`), for users who
 * may `edit_posts` or `edit_pages`:
 *
 *   keyword_tool/authenticate        exchanges an authorization code (`POST oauth/token`); tokens sealed (tokens.ts)
 *   keyword_tool/country_code        the country related keyphrases are for (local)
 *   keyword_tool/related_keyphrases  10 related keyphrases (`GET keyphrases/related`), kept a day per keyphrase and country
 *
 * Not connected: `400 seo_token_empty`; unconfigured: `503
 * rest_upstream_unconfigured`; the provider failing: 502, too slow: 504.
 */
import { Type } from '@sinclair/typebox'
import { can, endpoint, kernelErrors, route, type RelativeRouteDecl, secret } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { seoErrors } from './errors.js'
import type { SeoOptions } from './state.js'
import { MASKED_TOKENS, maskedTokens, tokenStore } from './tokens.js'

export const KEYWORD_UPSTREAM = 'keyword-tool'
const DAY_MS = 86_400_000
const COUNTRY = '^[a-z]{2}$'

const mayUse = can(['edit_posts', 'edit_pages'], { error: seoErrors.rest_forbidden, why: '§1.3 keyword tool: edit_posts or edit_pages', probe: { body: { country_code: 'us' }, query: { keyphrase: 'boots', country_code: 'us' } } })

/** Answers kept a day, at most 2,000 (the oldest go first). */
function dayCache<V> (max = 2000): { get: (k: string) => V | undefined, set: (k: string, v: V) => void, clear: () => void } {
  const entries = new Map<string, { value: V, until: number }>()
  return {
    get (k) {
      const e = entries.get(k)
      if (e === undefined) return undefined
      if (e.until > Date.now()) return e.value
      entries.delete(k)
      return undefined
    },
    set (k, value) {
      entries.delete(k)
      entries.set(k, { value, until: Date.now() + DAY_MS })
      if (entries.size > max) entries.delete(entries.keys().next().value!)
    },
    clear () { entries.clear() }
  }
}

export function keywordToolRoutes (api: PackageApi, options: SeoOptions): RelativeRouteDecl[] {
  const tokens = tokenStore(api, options.keyword_tool_tokens)
  const related = dayCache<{ columnNames: unknown[], rows: unknown[] }>()

  const authenticate = route({
    path: '/keyword_tool/authenticate',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { code: secret(Type.String({ description: 'The authorization code.', minLength: 1, maxLength: 4096 })) },
      summary: 'Connect the keyword tool',
      response: Type.Object({ tokens: MASKED_TOKENS, status: Type.Integer() }),
      permission: mayUse,
      handler: async (req) => {
        const got = await tokens.exchange(api.upstream(KEYWORD_UPSTREAM), 'oauth/token', req.params.code)
        related.clear()
        return { tokens: maskedTokens(got), status: 200 }
      }
    })]
  })

  const country = route({
    path: '/keyword_tool/country_code',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { country_code: Type.String({ description: 'Two lowercase letters.', pattern: COUNTRY }) },
      summary: 'Set the keyword tool\'s country',
      response: Type.Object({ success: Type.Boolean(), status: Type.Integer() }),
      permission: mayUse,
      handler: async (req) => {
        await options.keyword_tool_country_code.set(req.params.country_code)
        return { success: true, status: 200 }
      }
    })]
  })

  const relatedRoute = route({
    path: '/keyword_tool/related_keyphrases',
    endpoints: [endpoint({
      methods: ['GET'],
      // Each call is a request to the keyword provider (a paid lookup).
      rateClass: 'expensive',
      args: {
        keyphrase: Type.String({ description: 'The keyphrase.', minLength: 1, maxLength: 200 }),
        country_code: Type.String({ description: 'Two lowercase letters.', pattern: COUNTRY })
      },
      summary: 'Keyphrases related to a keyphrase',
      response: Type.Object({ results: Type.Object({ columnNames: Type.Array(Type.Unknown()), rows: Type.Array(Type.Unknown(), { maxItems: 10 }) }), status: Type.Integer() }),
      permission: mayUse,
      handler: async (req) => {
        const client = api.upstream(KEYWORD_UPSTREAM)
        const token = await tokens.access()
        const keyphrase = req.params.keyphrase.trim().toLowerCase()
        const key = `${req.params.country_code}\u0000${keyphrase}`
        let results = related.get(key)
        if (results === undefined) {
          const body = (await client.request('keyphrases/related', {
            headers: { authorization: `Bearer ${token}` },
            query: { phrase: keyphrase, database: req.params.country_code, export_columns: 'Ph,Nq,Td,In,Kd', display_limit: 10 }
          })).json() as Record<string, unknown> | null
          if (!Array.isArray(body?.columnNames) || !Array.isArray(body.rows)) throw kernelErrors.rest_upstream_error({ upstream: KEYWORD_UPSTREAM }, 'The keyword tool answered no rows.')
          results = { columnNames: body.columnNames, rows: body.rows.slice(0, 10) }
          related.set(key, results)
        }
        return { results, status: 200 }
      }
    })]
  })

  return [authenticate, country, relatedRoute]
}
