/**
 * addons-a/v1 ajaxselect2/{action} (seo-rollback-assistant-addons.md §4.1):
 * the lookups behind the page builder's searchable select boxes. Each
 * answers `{"results": [{"id", "text"}], "pagination": {"more": bool}}`
 * (`get_custom_meta_keys_data` groups keys by post type instead). Query
 * parameters, undeclared as in the reference: `s` (search), `ids`
 * (comma-separated ids to show saved selections), `query_slug` (the post
 * type or taxonomy), `page` (from 1).
 *
 * Where the product answers 200 `null` to a caller without `edit_posts`, a
 * PHP fatal for an unknown action and lets any public method be called by
 * name, this answers 401/403, a 404 `invalid_action` and knows only the
 * actions below (CONVENTIONS.md §3). Posts are read as the caller (the
 * core's read rule): published ones only, and a password-protected one only
 * for whoever may edit it; users are listed as the core's users list does
 * for the caller (without `list_users`: authors of published content,
 * matched on their names, no e-mail address shown).
 */
import { Type } from '@sinclair/typebox'
import { check, denied, endpoint, handlerChecked, invalidParam, route, who, type RelativeRouteDecl, type RestError, type RestRequest } from '@cms/rest'
import { listUsers, type MetaClause, type PackageApi, type PostRow } from '@cms/core'
import { LIBRARY_TYPE } from '@cms/builder'
import { addonsErrors } from './errors.js'
import type { Menus } from './menus.js'

interface Item { id: number | string, text: string }
interface Lookup { s: string, ids: number[] | undefined, slug: string | undefined, page: number }
type Answer = { results: Item[], pagination: { more: boolean } } | { results: Record<string, string[]> }
type Action = (req: RestRequest<any>, q: Lookup) => Promise<Answer>

const SEARCH_MAX = 1000
const IDS_MAX = 100
const PAGE_MAX = 10_000
const TEMPLATE_TYPES = ['page', 'section', 'container']
/** Types a select box never offers: internal records. */
const HIDDEN_TYPES = new Set(['revision', 'autosave', LIBRARY_TYPE])

function lookupOf (req: RestRequest<any>): Lookup {
  const p = req.params as Record<string, unknown>
  const s = p.s ?? ''
  if (typeof s !== 'string' || s.length > SEARCH_MAX) throw invalidParam('s', `s must be a string of at most ${SEARCH_MAX} characters.`)
  // `ids` given, even empty, is a lookup of those ids only: an empty list (`ids=`, as the builder's
  // control sends for a field with nothing saved) matches nothing, as in the product.
  let ids: number[] | undefined
  if (p.ids !== undefined) {
    const parts = (Array.isArray(p.ids) ? p.ids : typeof p.ids === 'string' ? p.ids.split(',') : [p.ids])
      .filter((v: unknown) => !(typeof v === 'string' && v.trim() === ''))
    if (parts.length > IDS_MAX) throw invalidParam('ids', `ids names at most ${IDS_MAX} items.`)
    ids = parts.map((v) => {
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d{1,10}\s*$/.test(v) ? Number(v) : NaN
      if (!Number.isInteger(n) || n < 1 || n > 2_147_483_647) throw invalidParam('ids', 'ids must be a comma-separated list of ids.')
      return n
    })
  }
  const slug = p.query_slug
  if (slug !== undefined && (typeof slug !== 'string' || slug.length > 200)) throw invalidParam('query_slug', 'query_slug must be a type name.')
  const rawPage = p.page ?? 1
  const page = typeof rawPage === 'number' ? rawPage : typeof rawPage === 'string' && /^\d{1,6}$/.test(rawPage) ? Number(rawPage) : NaN
  if (!Number.isInteger(page) || page < 1 || page > PAGE_MAX) throw invalidParam('page', `page must be an integer from 1 to ${PAGE_MAX}.`)
  return { s: s.trim(), ids, slug: slug === '' ? undefined : slug as string | undefined, page }
}

const paged = (results: Item[], more: boolean): Answer => ({ results, pagination: { more } })

export function ajaxSelect2Routes (api: PackageApi, menuStore: Menus): RelativeRouteDecl[] {
  const types = (): PackageApi['services']['types'] => api.services.types

  /** Posts of some types as the caller may read them, a page of `perPage`. */
  async function postsLookup (req: RestRequest<any>, q: Lookup, type: string, perPage: number, extra: { status?: string[], meta?: MetaClause[] } = {}): Promise<Answer> {
    if (q.ids?.length === 0) return paged([], false)
    const { posts, total } = await api.content.posts({
      type,
      status: extra.status ?? ['publish'],
      as: req.user,
      ...(extra.meta === undefined ? {} : { meta: extra.meta }),
      ...(q.ids !== undefined ? { include: q.ids, orderby: 'include' as const } : { orderby: 'title' as const, order: 'asc' as const }),
      ...(q.s !== '' && q.ids === undefined ? { search: q.s, searchColumns: ['post_title' as const] } : {}),
      perPage,
      page: q.page
    })
    // A protected post only for whoever may edit it: its readers need its password.
    const shown = posts.filter((p: PostRow) => p.password === '' || req.user.can('edit_post', { type: p.type, author: p.author, status: p.status }))
    return paged(shown.map((p) => ({ id: p.id, text: p.title })), q.page * perPage < total)
  }

  const actions: Record<string, Action> = {
    get_builder_templates: async (req, q) => {
      const answer = await postsLookup(req, q, LIBRARY_TYPE, 15, { meta: [{ key: '_builder_template_type', notEquals: 'kit' }] })
      if (!('pagination' in answer)) return answer
      // Page, section and container templates only (the kit and other documents are not inserted).
      const details = await api.content.postsWithDetails(answer.results.map((r) => Number(r.id)))
      const keep = new Set(details.filter((d) => TEMPLATE_TYPES.includes(String(d.meta._builder_template_type))).map((d) => d.post.id))
      return paged(answer.results.filter((r) => keep.has(Number(r.id))), answer.pagination.more)
    },
    get_posts_by_post_type: async (req, q) => {
      const slug = q.slug ?? 'post'
      const info = types().postTypes.get(slug)
      if (info === undefined || HIDDEN_TYPES.has(slug)) throw addonsErrors.invalid_query_slug()
      return await postsLookup(req, q, slug, 15, slug === 'attachment' ? { status: ['inherit'] } : {})
    },
    get_taxonomies: async (_req, q) => {
      const slug = q.slug ?? 'category'
      if (!types().taxonomies.has(slug)) throw addonsErrors.invalid_query_slug()
      if (q.ids?.length === 0) return paged([], false)
      const perPage = 10
      const rows = await api.content.terms({
        taxonomy: slug,
        ...(q.ids !== undefined ? { include: q.ids } : {}),
        ...(q.s !== '' && q.ids === undefined ? { search: q.s } : {}),
        hideEmpty: true,
        // By name, as the product's term query sorts by default (saved selections too).
        orderby: 'name',
        perPage: perPage + 1,
        offset: (q.page - 1) * perPage
      })
      return paged(rows.slice(0, perPage).map((t) => ({ id: t.id, text: t.name })), rows.length > perPage)
    },
    get_users: async (req, q) => {
      if (q.ids?.length === 0) return paged([], false)
      const perPage = 15
      const full = req.user.can('list_users')
      const { users, total } = await listUsers(api.services.store, {
        ...(q.s !== '' && q.ids === undefined ? { search: q.s } : {}),
        ...(q.ids !== undefined ? { include: q.ids, orderby: 'include' as const } : { orderby: 'name' as const }),
        // As the core's users list: without list_users, authors of published content matched on their names.
        searchScope: full ? 'all' : 'public',
        ...(full ? {} : { publishedIn: ['post', 'page'] }),
        limit: perPage,
        offset: (q.page - 1) * perPage
      })
      return paged(users.map((u) => ({ id: u.id, text: full ? `${u.displayName} (${u.email})` : u.displayName })), q.page * perPage < total)
    },
    get_post_type_taxonomies: async (_req, q) => {
      const slug = q.slug ?? 'post'
      const registry = types()
      const info = registry.postTypes.get(slug)
      if (info === undefined) throw addonsErrors.invalid_query_slug()
      const taxonomies = [...registry.taxonomies.values()].filter((t) => t.types.includes(slug) || info.taxonomies.includes(t.slug))
      const matched = taxonomies.filter((t) => q.s === '' || t.name.toLowerCase().includes(q.s.toLowerCase()))
      return paged(matched.map((t) => ({ id: t.slug, text: t.name })), false)
    },
    get_custom_meta_keys: async (_req, q) => paged(customKeys(q).map((k) => ({ id: k, text: k })), false),
    // The product adds its shop's attribute names; this service has no shop, so the keys are the same.
    get_custom_meta_keys_product: async (_req, q) => paged(customKeys(q).map((k) => ({ id: k, text: k })), false),
    get_custom_meta_keys_data: async (_req, q) => {
      const keys = customKeys(q)
      return { results: { post: keys, page: keys } }
    },
    get_menus: async (_req, q) => {
      if (q.ids?.length === 0) return paged([], false)
      const perPage = 15
      const rows = await menuStore.list({ ...(q.ids !== undefined ? { include: q.ids } : { search: q.s }), limit: perPage + 1, offset: (q.page - 1) * perPage })
      return paged(rows.slice(0, perPage).map((m) => ({ id: m.id, text: m.name })), rows.length > perPage)
    }
  }

  /** Custom fields of posts and pages a select box may offer: registered keys not starting with `_`. */
  function customKeys (q: Lookup): string[] {
    const out: string[] = []
    for (const [key] of api.services.meta.entries()) {
      if (!key.startsWith('_') && (q.s === '' || key.toLowerCase().includes(q.s.toLowerCase()))) out.push(key)
    }
    return out.sort()
  }

  const actionOf = (req: RestRequest<any>): Action | undefined => {
    const name = String(req.params.action)
    return Object.hasOwn(actions, name) ? actions[name] : undefined
  }

  return [route({
    path: '/ajaxselect2/{action}',
    vars: { action: '[\\w]+' },
    endpoints: [endpoint({
      methods: ['GET'],
      args: {
        s: handlerChecked('Text the titles contain.'),
        ids: handlerChecked('Ids of the items to show (a list or comma-separated).'),
        query_slug: handlerChecked('The post type or taxonomy to search.'),
        page: handlerChecked('The page of results.')
      },
      summary: 'Search items for the page builder\'s select boxes',
      response: Type.Union([Type.Object({ results: Type.Array(Type.Object({ id: Type.Union([Type.Integer(), Type.String()]), text: Type.String() })), pagination: Type.Object({ more: Type.Boolean() }) }), Type.Object({ results: Type.Record(Type.String(), Type.Array(Type.String())) }, { description: 'The post types and their keys (one action).' })]),
      permission: check((req): true | RestError => {
        if (actionOf(req) === undefined) return addonsErrors.invalid_action()
        return req.user.can('edit_posts') || denied(addonsErrors.rest_forbidden(), req.user.id)
      },
      who.can('edit_posts', '§4.1 select-box lookups: edit_posts (the product answers null without it)', { vars: { action: 'get_posts_by_post_type' }, query: { query_slug: 'post' } }),
      who.can('edit_posts', '§4.1 user lookup: edit_posts (e-mail addresses only with list_users)', { vars: { action: 'get_users' } })),
      handler: async (req) => await actionOf(req)!(req, lookupOf(req))
    })]
  })]
}
