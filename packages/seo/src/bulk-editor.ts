/**
 * GET /seo/v1/bulk_editor/posts and POST /seo/v1/bulk_editor/update_search,
 * /update_social (seo-rollback-assistant-addons.md §1.3). The list reads
 * the indexables (newest id first, password-protected posts left out;
 * `search` in the title, keyphrase, SEO title, meta description and social
 * fields); a post the caller cannot edit shows empty SEO fields. The
 * updates check every item's shape before anything is written (the notes'
 * 400 codes), then each item's post (missing, wrong type, not editable:
 * a per-item failure), and write every accepted item in one transaction;
 * the posts' indexables are rebuilt before the answer, and the list
 * catches up on posts changed elsewhere (freshness.ts).
 * Permission: `manage_seo_options`.
 */
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { endpoint, pagingParams, Raw, route, sanitizeTextField, unvalidated, type RouteDecl } from '@cms/rest'
import { postVisibility, type PackageApi } from '@cms/core'
import { adminUrl, mayManageSeo, postLike } from './access.js'
import { seoErrors } from './errors.js'
import { INDEXABLE_TYPES } from './indexables.js'
import { catchUp, rebuild } from './freshness.js'
import { SEO } from './meta.js'

const NS = 'seo/v1'
const STATUSES = ['publish', 'draft', 'pending', 'future'] as const
const MAX_ITEMS = 20

/** The fields each update route takes, and the meta key each writes. */
const FIELDS = {
  search: { seo_title: SEO.title, meta_description: SEO.metadesc, focus_keyphrase: SEO.focuskw },
  social: { social_title: SEO.ogTitle, social_description: SEO.ogDescription, focus_keyphrase: SEO.focuskw }
} as const

const decode = (s: string): string => s.replace(/&(amp|lt|gt|quot|#039|#39|apos);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#039': "'", '#39': "'", apos: "'" })[e]!)

export function bulkEditorRoutes (api: PackageApi): RouteDecl[] {
  // Worded as the real route words them, per_page first.
  const paging = pagingParams({ perPage: { default: 20, description: 'Posts per page.' }, page: { description: 'The page.' } })
  const list = route({
    namespace: NS,
    path: `/${NS}/bulk_editor/posts`,
    endpoints: [endpoint({
      methods: ['GET'],
      summary: 'The SEO fields of the posts of a type, a page at a time',
      response: Type.Object({
        posts: Type.Array(Type.Object({
          id: Type.Integer(),
          title: Type.String(),
          status: Type.Unknown(),
          edit_link: Type.String({ description: 'Empty when the caller may not edit the post or no admin front end is configured (CMS_ADMIN_URL).' }),
          focus_keyphrase: Type.String(),
          seo_title: Type.String(),
          meta_description: Type.String(),
          social_title: Type.String(),
          social_description: Type.String(),
          editable: Type.Boolean()
        })),
        total: Type.Integer(),
        total_pages: Type.Integer(),
        page: Type.Integer(),
        per_page: Type.Integer()
      }),
      args: {
        content_type: Type.String({ description: 'The post type to list.' }),
        per_page: paging.per_page,
        page: paging.page,
        search: Type.String({ description: 'Text in the title or the SEO fields.', default: '' }),
        status: Raw<string[]>({ type: 'array', description: 'Statuses to list (empty: all four).', default: [...STATUSES], items: { type: 'string', enum: [...STATUSES] } })
      },
      permission: mayManageSeo.because('§1.3 bulk editor: manage_seo_options').probing({ query: { content_type: 'post' } }),
      handler: async (req) => {
        const { content_type: type, per_page: perPage, page, search } = req.params
        if (!INDEXABLE_TYPES.includes(type) || !req.user.can(type === 'page' ? 'edit_pages' : 'edit_posts')) throw seoErrors.rest_invalid_content_type()
        await catchUp(api)
        const statuses = req.params.status.length === 0 ? [...STATUSES] : req.params.status
        const own = !req.user.can(type === 'page' ? 'edit_others_pages' : 'edit_others_posts')
        const like = `%${search.slice(0, 200).replace(/[\\%_]/g, (c) => `\\${c}`)}%`
        const where = sql`object_type = 'post' and object_sub_type = ${type} and post_status = any(${sql.param(statuses)}::text[]) and is_protected = false
          ${own ? sql`and author_id = ${req.user.id}` : sql``}
          ${search === ''
? sql``
: sql`and (breadcrumb_title ilike ${like} or primary_focus_keyword ilike ${like} or title ilike ${like} or description ilike ${like}
            or open_graph_title ilike ${like} or open_graph_description ilike ${like})`}`
        const [rows, [count]] = await Promise.all([
          api.services.store.execute<Record<string, any>>(sql`select object_id, breadcrumb_title, post_status, author_id, primary_focus_keyword, title, description,
            open_graph_title, open_graph_description from seo_indexables where ${where} order by object_id desc limit ${perPage} offset ${(page - 1) * perPage}`),
          api.services.store.execute<{ n: string | number }>(sql`select count(*) as n from seo_indexables where ${where}`)
        ])
        const total = Number(count?.n ?? 0)
        return {
          posts: rows.map((r) => {
            const id = Number(r.object_id)
            const editable = postVisibility(req.user, { type, author: Number(r.author_id), status: String(r.post_status), password: '' }).edit
            const field = (v: unknown): string => editable && typeof v === 'string' ? v : ''
            const title = decode(String(r.breadcrumb_title ?? ''))
            return {
              id,
              title: title === '' ? '(no title)' : title,
              status: r.post_status,
              edit_link: editable ? adminUrl(api, `post.php?post=${id}&action=edit`) ?? '' : '',
              focus_keyphrase: field(r.primary_focus_keyword),
              seo_title: field(r.title),
              meta_description: field(r.description),
              social_title: field(r.open_graph_title),
              social_description: field(r.open_graph_description),
              editable
            }
          }),
          total,
          total_pages: Math.ceil(total / perPage),
          page,
          per_page: perPage
        }
      }
    })]
  })

  const update = (kind: 'search' | 'social'): RouteDecl => route({
    namespace: NS,
    path: `/${NS}/bulk_editor/update_${kind}`,
    endpoints: [endpoint({
      methods: ['POST'],
      summary: `Update the ${kind} fields of several posts (each item succeeds or fails on its own)`,
      response: Type.Object({ results: Type.Array(Type.Object({ id: Type.Integer(), success: Type.Boolean(), error: Type.Optional(Type.String()) })) }),
      // Checked by the handler with the notes' own codes (rest_invalid_items...), not the kernel's.
      args: { items: unvalidated(Raw<unknown>({ type: 'array', description: `Per-post updates: {id, ${Object.keys(FIELDS[kind]).join(', ')}}.` })) },
      permission: mayManageSeo.because('§1.3 bulk editor: manage_seo_options').probing({ body: { items: [{ id: 999999999, [kind === 'search' ? 'seo_title' : 'social_title']: 'Probe' }] } }),
      handler: async (req) => {
        const items = req.params.items
        const fields = FIELDS[kind]
        // Every item's shape first: a bad one refuses the whole request, nothing written.
        if (!Array.isArray(items)) throw seoErrors.rest_invalid_items()
        if (items.length === 0) throw seoErrors.rest_no_items()
        if (items.length > MAX_ITEMS) throw seoErrors.rest_too_many_items()
        for (const item of items) {
          if (typeof item !== 'object' || item === null || Array.isArray(item)) throw seoErrors.rest_invalid_item()
          const id = (item as Record<string, unknown>).id
          if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw seoErrors.rest_invalid_item_id()
          const present = Object.keys(fields).filter((f) => f in item)
          if (present.length === 0) throw seoErrors.rest_no_fields_to_update()
          if (present.some((f) => typeof (item as Record<string, unknown>)[f] !== 'string')) throw seoErrors.rest_invalid_item_field()
        }
        const results: Array<{ id: number, success: boolean, error?: string }> = []
        const changes: Array<{ id: number, set: Record<string, unknown> }> = []
        for (const item of items as Array<Record<string, unknown>>) {
          const id = item.id as number
          const found = await api.content.post(id)
          if (found === undefined || found.post.type === 'revision') { results.push({ id, success: false, error: 'not_found' }); continue }
          if (!INDEXABLE_TYPES.includes(found.post.type)) { results.push({ id, success: false, error: 'invalid_post_type' }); continue }
          if (!req.user.can('edit_post', postLike(found.post))) { results.push({ id, success: false, error: 'forbidden' }); continue }
          const set: Record<string, unknown> = {}
          for (const [f, key] of Object.entries(fields)) if (typeof item[f] === 'string') set[key] = sanitizeTextField(item[f])
          changes.push({ id, set })
          results.push({ id, success: true })
        }
        let written: number[] = []
        try {
          written = await api.content.updateMetas(changes)
        } catch {
          for (const r of results) if (r.success) Object.assign(r, { success: false, error: 'save_failed' })
        }
        // A post deleted between the check and the write.
        for (const r of results) if (r.success && !written.includes(r.id)) Object.assign(r, { success: false, error: 'not_found' })
        // The list shows the new values in the very next request (freshness.ts).
        await rebuild(api, written)
        return { results }
      }
    })]
  })
  return [list, update('search'), update('social')]
}
