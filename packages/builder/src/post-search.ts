/**
 * builder/v1 post (builder-family.md §2.3): the link picker's search.
 * Published posts of the public (viewable) types, less the four the builder
 * never links to and `excluded_post_types`, whose title contains `term` or
 * whose id is `term`; newest first, at most `max_count` (clamped to
 * 1..100). Each result is the post as a row with `post_type` replaced by
 * the type's plural label; with `post_keys_conversion_map` only the mapped
 * keys, renamed. Needs `edit_posts`; the real product also wants a browser
 * nonce, which application-password callers do not have (CONVENTIONS §4).
 * Divergence: the real product matches ids by substring (`%term%`); here a
 * digit term matches that one id.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, invalidParam, Raw, route, type RelativeRouteDecl, successObject } from '@cms/rest'
import { postVisibility, type PackageApi, type PostRow } from '@cms/core'
import { mayEditPosts } from './access.js'

const FORBIDDEN = ['b-floating-buttons', 'b-landing-page', 'builder_library', 'attachment']

/** `YYYY-MM-DD HH:MM:SS` (UTC; the site's dates are stored in UTC). */
const sqlDate = (d: Date | null): string => d === null ? '0000-00-00 00:00:00' : d.toISOString().slice(0, 19).replace('T', ' ')

/**
 * An argument given as a list, or as JSON (the product decodes a JSON
 * string). The kernel reads a string for an `array` argument as a comma
 * list (as the core does), so JSON arrives split at its commas: joined back.
 */
function listOrJson (name: string, value: unknown): unknown {
  const text = typeof value === 'string' ? value : Array.isArray(value) && value.every((v) => typeof v === 'string') && /^\s*[[{]/.test(value.join(',')) ? value.join(',') : undefined
  if (text === undefined) return value
  if (text.trim() === '') return []
  if (!/^\s*[[{]/.test(text)) return text.split(',').map((v) => v.trim())
  try { return JSON.parse(text) } catch { throw invalidParam(name, `${name} must be a list, or JSON.`) }
}

export function postSearchRoutes (api: PackageApi): RelativeRouteDecl[] {
  return [route({
    path: '/post',
    endpoints: [endpoint({
      methods: ['GET'],
      args: {
        excluded_post_types: Raw<string[] | string>({ description: 'Post types to leave out.', type: ['array', 'string'], default: [...FORBIDDEN] }),
        term: Raw<string>({ description: 'What the title (or the id) contains.', type: 'string', default: '' }),
        post_keys_conversion_map: Raw<unknown>({ description: 'Keys of each result to keep, mapped to their new names.', type: ['array', 'string'], default: [] }),
        max_count: Raw<number>({ description: 'How many results at most (1 to 100).', type: 'number', default: 100 })
      },
      summary: 'Search published content by title for a link',
      response: successObject({ data: Type.Object({ value: Type.Array(Type.Object({}, { additionalProperties: true, description: 'A post row (ID, post_title, post_type...), or only the fields the request maps.' })) }) }),
      permission: mayEditPosts.because('§2.3 link search: edit_posts (application passwords need no browser nonce, CONVENTIONS §4)').probing({ query: { term: 'probe' } }),
      handler: async (req) => {
        const term = String(req.params.term).trim()
        if (term === '') return { success: true, data: { value: [] } }
        const excluded = listOrJson('excluded_post_types', req.params.excluded_post_types)
        if (!Array.isArray(excluded) || excluded.some((v) => typeof v !== 'string')) throw invalidParam('excluded_post_types', 'excluded_post_types must be a list of post type names.')
        const map = listOrJson('post_keys_conversion_map', req.params.post_keys_conversion_map)
        // A list of keys keeps those keys under their own names.
        const pairs = Array.isArray(map) ? map.map((k) => [k, k]) : typeof map === 'object' && map !== null ? Object.entries(map) : undefined
        if (pairs === undefined || pairs.some(([k, v]) => typeof k !== 'string' || typeof v !== 'string')) throw invalidParam('post_keys_conversion_map', 'post_keys_conversion_map must map keys to new key names.')
        const limit = Math.min(100, Math.max(1, Math.trunc(Number(req.params.max_count) || 1)))
        const registry = api.services.types
        const types = [...registry.postTypes.values()].filter((t) => t.viewable && !FORBIDDEN.includes(t.slug) && !(excluded as string[]).includes(t.slug))
        if (types.length === 0) return { success: true, data: { value: [] } }
        const { posts } = await api.content.posts({ type: types.map((t) => t.slug), status: ['publish'], search: term, searchColumns: ['post_title'], perPage: limit, orderby: 'date', order: 'desc', as: req.user })
        const found: PostRow[] = [...posts]
        if (/^\d{1,10}$/.test(term)) {
          const byId = await api.content.post(Number(term))
          if (byId !== undefined && byId.post.status === 'publish' && types.some((t) => t.slug === byId.post.type) && !found.some((p) => p.id === byId.post.id)) found.unshift(byId.post)
        }
        const label = (type: string): string => registry.postTypes.get(type)?.name ?? type
        // The core's read rule for this caller, row by row: a password-protected post's text only for its editors.
        const rows = found.slice(0, limit).map((p) => ({ p, shown: postVisibility(req.user, p) })).filter(({ shown }) => shown.read).map(({ p, shown }) => {
          return {
            ID: p.id,
            post_author: String(p.author),
            post_date: sqlDate(p.dateGmt ?? p.modifiedGmt),
            post_date_gmt: sqlDate(p.dateGmt),
            post_content: shown.text ? p.content : '',
            post_title: p.title,
            post_excerpt: shown.text ? p.excerpt : '',
            post_status: p.status,
            comment_status: p.commentStatus,
            ping_status: p.pingStatus,
            // Never handed out: the link picker has no use for it.
            post_password: '',
            post_name: p.slug,
            to_ping: '',
            pinged: '',
            post_modified: sqlDate(p.modifiedGmt),
            post_modified_gmt: sqlDate(p.modifiedGmt),
            post_content_filtered: '',
            post_parent: p.parent,
            guid: p.guid,
            menu_order: p.menuOrder,
            post_type: label(p.type),
            post_mime_type: '',
            comment_count: '0',
            filter: 'raw'
          } as Record<string, unknown>
        })
        const entries = pairs as Array<[string, string]>
        const value = entries.length === 0 ? rows : rows.map((r) => Object.fromEntries(entries.filter(([from]) => Object.hasOwn(r, from)).map(([from, to]) => [to, r[from]])))
        return { success: true, data: { value } }
      }
    })]
  })]
}
