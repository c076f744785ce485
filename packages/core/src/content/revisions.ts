/**
 * `/cms/v2/{posts|pages}/{parent}/revisions[/{id}]`: the stored versions of
 * a post. Reading needs the right to edit the post; deleting needs `force`
 * and the right to delete the post.
 */
import { Type } from '@sinclair/typebox'
import { check, checkPage, collectionParams, contextParam, endpoint, restUrl, route, RestResponse, who, type Params, type RelativeRouteDecl, type RestError, type RestRequest, pageHeaders } from '@cms/rest'
import type { Store } from '@cms/store'
import type { ContentServices as Services } from './services.js'
import { formatGmt, formatLocal } from '../base/dates.js'
import { contentErrors, denied } from './errors.js'
import { metaResponse } from '../platform/meta.js'
import { canEdit, capObject } from './post-format.js'
import { runListQuery } from './post-query.js'
import { revisionItemSchema } from './post-schema.js'
import { deletePostFully, getMeta, getPost, idOf, type PostRow } from './post-store.js'
import { postTypeOf, siteSettings, type PostType, type SiteSettings } from './post-types.js'
import { renderedContent, renderedExcerpt, renderedTitle } from './render-cache.js'

/** The post named by a path variable, when it is of the route's type. */
export async function loadParent (store: Store, spec: PostType, value: unknown): Promise<PostRow | undefined> {
  const post = await getPost(store, idOf(value))
  return post !== undefined && post.type === spec.type ? post : undefined
}

/** A revision (or a post shown as one) in the core's key order. */
export async function formatRevision (row: PostRow, meta: Record<string, unknown>, req: RestRequest, settings: SiteSettings): Promise<Record<string, unknown>> {
  const tz = settings.timeZone
  const out: Record<string, unknown> = {
    author: row.author,
    date: row.dateGmt === null ? null : formatLocal(row.dateGmt, tz),
    date_gmt: row.dateGmt === null ? null : formatGmt(row.dateGmt),
    id: row.id,
    modified: formatLocal(row.modifiedGmt, tz),
    modified_gmt: formatGmt(row.modifiedGmt),
    parent: row.parent,
    slug: row.slug,
    guid: { rendered: row.guid, raw: row.guid },
    title: { raw: row.title, rendered: await renderedTitle(row.title) },
    content: { raw: row.content, rendered: await renderedContent(row.content) },
    excerpt: { raw: row.excerpt, rendered: await renderedExcerpt(row.excerpt, row.content) },
    meta: metaResponse(settings.meta, meta)
  }
  return out
}

/** The only link of a revision: its parent post (none when the parent is 0). */
export async function revisionLinks (store: Store, row: PostRow, baseUrl: string): Promise<Record<string, Array<{ href: string }>> | undefined> {
  if (row.parent === 0) return undefined
  const parent = await getPost(store, row.parent)
  const spec = parent === undefined ? undefined : postTypeOf(parent.type)
  const base = spec === undefined ? 'posts' : spec.restBase
  return { parent: [{ href: restUrl(baseUrl, `/cms/v2/${base}/${row.parent}`) }] }
}

export async function formatRevisions (store: Store, rows: PostRow[], req: RestRequest, settings: SiteSettings): Promise<Array<Record<string, unknown>>> {
  const meta = await getMeta(store, rows.map((r) => r.id))
  return await Promise.all(rows.map(async (row) => {
    const out = await formatRevision(row, meta.get(row.id)!, req, settings)
    const links = await revisionLinks(store, row, req.baseUrl)
    if (links !== undefined) out._links = links
    return out
  }))
}

export function revisionRoutes (services: Services, spec: PostType): RelativeRouteDecl[] {
  const { store } = services
  const schema = revisionItemSchema(spec, services.meta)
  const plural = spec.restBase

  const deleteArgs = { force: Type.Boolean({ description: 'Required to be true, as revisions do not support trashing.', default: false }) }

  /** Parent of the right type and the right to edit it. */
  const readPermission = async (req: RestRequest): Promise<true | RestError> => {
    const parent = await loadParent(store, spec, req.params.parent)
    if (parent === undefined) return contentErrors.rest_post_invalid_parent()
    if (!canEdit(req.user, parent)) return denied(contentErrors.rest_cannot_read(), req.user.id)
    return true
  }

  const listArgs = collectionParams({
    schema,
    perPage: { optional: true },
    ids: true,
    orderby: { enum: ['date', 'id', 'include', 'relevance', 'slug', 'include_slugs', 'title'], default: 'date', description: 'Sort collection by object attribute.' }
  })

  const list = async (req: RestRequest<Params<typeof listArgs>>): Promise<RestResponse> => {
    const p = req.params
    const parent = (await loadParent(store, spec, p.parent))!
    const settings = await siteSettings(store, req, services.meta)
    const perPage = p.per_page
    const page = p.page
    // Without per_page every revision is answered: an offset alone means nothing.
    const offset = perPage !== undefined ? p.offset : undefined
    const include = p.include
    if (p.orderby === 'relevance' && (p.search === undefined || p.search === '')) throw contentErrors.rest_no_search_term_defined()
    if (p.orderby === 'include' && include.length === 0) throw contentErrors.rest_orderby_include_missing_include()
    const { rows, total } = await runListQuery(store, {
      type: 'revision',
      parentOf: parent.id,
      statuses: [],
      search: p.search,
      searchColumns: [],
      exact: false,
      hideProtected: false,
      // The permission admitted the caller as an editor of the parent: every revision of it is readable.
      readable: null,
      searchable: null,
      author: [],
      authorExclude: [],
      include,
      exclude: p.exclude,
      slugs: undefined,
      parent: [],
      parentExclude: [],
      tax: [],
      taxRelation: 'AND',
      orderby: p.orderby,
      order: p.order,
      perPage,
      page,
      offset
    })
    if (total > 0) {
      if (offset !== undefined && offset >= total) throw contentErrors.rest_revision_invalid_offset_number()
      if (offset === undefined || offset === 0) checkPage({ total, perPage: perPage ?? 0, page }, contentErrors.rest_revision_invalid_page_number)
    }
    const body = await formatRevisions(store, rows, req, settings)
    return new RestResponse(body, 200, pageHeaders(req, { total, perPage: perPage ?? 0, page }))
  }

  const loadRevision = async (req: RestRequest, parent: PostRow): Promise<PostRow> => {
    const revision = await getPost(store, idOf(req.params.id))
    if (revision === undefined || revision.type !== 'revision') throw contentErrors.rest_post_invalid_id(undefined, 'Invalid revision ID.')
    if (revision.parent !== parent.id) {
      throw contentErrors.rest_revision_parent_id_mismatch(undefined, `The revision does not belong to the specified parent with id of "${parent.id}"`)
    }
    return revision
  }

  const read = async (req: RestRequest): Promise<unknown> => {
    const parent = (await loadParent(store, spec, req.params.parent))!
    const revision = await loadRevision(req, parent)
    const settings = await siteSettings(store, req, services.meta)
    return (await formatRevisions(store, [revision], req, settings))[0]
  }

  const deletePermission = async (req: RestRequest): Promise<true | RestError> => {
    const parent = await loadParent(store, spec, req.params.parent)
    if (parent === undefined) return contentErrors.rest_post_invalid_parent()
    const settings = await siteSettings(store, req, services.meta)
    if (!req.user.can('delete_post', capObject(parent, settings))) {
      return denied(contentErrors.rest_cannot_delete(undefined, 'Sorry, you are not allowed to delete revisions of this post.'), req.user.id)
    }
    if (!canEdit(req.user, parent)) return denied(contentErrors.rest_cannot_read(), req.user.id)
    return true
  }

  const remove = async (req: RestRequest<Params<typeof deleteArgs>>): Promise<unknown> => {
    const parent = (await loadParent(store, spec, req.params.parent))!
    const revision = await loadRevision(req, parent)
    // Revisions cannot be trashed; with force they are deleted (a decision of this service, see CONVENTIONS §5).
    if (!req.params.force) {
      throw contentErrors.rest_trash_not_supported(undefined, "Revisions do not support trashing. Set 'force=true' to delete.")
    }
    const settings = await siteSettings(store, req, services.meta)
    const previous = (await formatRevisions(store, [revision], req, settings))[0]
    await store.transaction(async (tx) => { await deletePostFully(tx, revision) })
    return { deleted: true, previous }
  }

  const base = `/${plural}/{parent}/revisions`
  const parentArg = Type.Optional(Type.Integer({ description: 'The ID for the parent of the revision.' }))
  // §9: revisions need edit_post on the parent (an administrator's published post or page here).
  const item = spec.type
  const edit = `edit_others_${plural === 'pages' ? 'pages' : 'posts'}`
  const revision = { vars: { parent: item, id: `${item}.revision` } }
  return [
    route({
      path: base,
      vars: { parent: '[\\d]+' },
      args: { parent: parentArg },
      schema,
      endpoints: [endpoint({
        methods: ['GET'],
        summary: `List revisions of a ${spec.type}`,
        args: listArgs,
        permission: check(readPermission, who.can(edit, '§9 revisions need edit_post on the parent', { vars: { parent: item } })),
        handler: list
      })]
    }),
    route({
      path: `${base}/{id}`,
      vars: { parent: '[\\d]+', id: '[\\d]+' },
      args: { parent: parentArg, id: Type.Optional(Type.Integer({ description: 'Unique identifier for the revision.' })) },
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], summary: `Read a revision of a ${spec.type}`, args: { context: contextParam(schema) }, permission: check(readPermission, who.can(edit, '§9 revisions need edit_post on the parent', revision)), handler: read }),
        endpoint({
          methods: ['DELETE'],
          summary: `Delete a revision of a ${spec.type}`,
          args: deleteArgs,
          permission: check(deletePermission, who.can(edit, 'CONVENTIONS §5: with force=true whoever may delete the parent deletes its revision', { ...revision, query: { force: true } })),
          handler: remove
        })
      ]
    })
  ]
}
