/**
 * The collection controller: a post type served as `/{base}` (list, create)
 * and `/{base}/{id}` (read, update, trash or delete), in the spirit of the
 * core CMS's REST posts controller. Posts and pages (posts.ts) and
 * attachments (media/media.ts) are configurations of it; a package that
 * owns a post type may serve it the same way (`defineCollection`).
 *
 * What every such collection does the same way lives here: the two routes
 * and their endpoints, loading the item once per request (404 when it is not
 * of the type), the list's filters, paging and totals, who may list which
 * statuses and read, edit or delete an item, the fields packages registered,
 * and the answers' headers. The configuration says what its type adds:
 * its schema and arguments, its own list clauses, access rules, formatting
 * and writes.
 */
import { Type, type TProperties } from '@sinclair/typebox'
import { check, checkPage, createdAt, endpoint, pageHeaders, route, wantsField, RestResponse, type EndpointExample, type JsonSchema, type Permission, type PermissionCase, type RelativeRouteDecl, type RestError, type RestRequest, type StreamBodyOptions } from '@cms/rest'
import type { ContentServices as Services } from './services.js'
import type { FieldObjectType } from '../platform/fields.js'
import { parseRequestDate } from '../base/dates.js'
import { contentErrors, denied, invalidParam } from './errors.js'
import { canEdit, capObject, fieldsOf } from './post-format.js'
import { readRule, runListQuery, type ListQuery } from './post-query.js'
import { deletePostFully, getPost, type PostRow } from './post-store.js'
import { ANY_STATUSES, permalink, type SiteSettings } from './post-types.js'
import { answeredPages, itemLoader, pageCache, postCache, requestSettings, totalCache, type AnsweredPage, type ItemLoader } from './request-reads.js'

/** What the docs and the permission matrix say of an endpoint: its summary and who passes its check. */
export interface EndpointText {
  summary: string
  cases: readonly [PermissionCase, ...PermissionCase[]]
  /** A typical call, for the OpenAPI document. */
  example?: EndpointExample
}

/** Who may do what, beyond the rules every collection shares (see `defineCollection`). */
export interface CollectionAccess {
  /** Statuses anyone may list (`publish`; attachments add `inherit`); any other needs `edit_{caps}`, `private` also `read_private_{caps}`. */
  publicStatuses: readonly string[]
  /** Whether the caller may read each row (a list's page, or the one item read). */
  canRead: (req: RestRequest, rows: PostRow[]) => Promise<boolean[]> | boolean[]
  /** A refusal of a single read, asked before `canRead` (posts: a wrong password). */
  refuseRead?: (req: RestRequest, post: PostRow) => RestError | undefined
  /** May the caller create this item (the request's arguments as sent)? */
  create: (req: RestRequest) => Promise<true | RestError>
  /** What an edit needs besides edit rights on the item and `edit_others_{caps}` to give it another author (posts: sticky, terms). */
  update?: (req: RestRequest, post: PostRow) => Promise<true | RestError>
}

/** How stored items become answers. */
export interface CollectionView<D> {
  /** What answers need beside the rows (meta, terms...), read for many rows at once. */
  details: (rows: PostRow[]) => Promise<Map<number, D>>
  /** The list's statement brings its page's details (`runListQuery`'s extras: posts' meta, terms and revision counts). */
  detailsInPage?: boolean
  /** One item's answer in the core's key order (the schema's contexts filter it). */
  format: (req: RestRequest, post: PostRow, details: D, opts: { settings: SiteSettings, context: string, slugIsUnique?: boolean }) => Promise<Record<string, unknown>>
  /** The ids of rows whose slug is their own (`generated_slug` of an edit-context list, for a page at once). */
  ownSlugs?: (rows: PostRow[]) => Promise<Set<number>>
  /** The ETag of a read: a version of everything the answer shows (with the registered fields' values it shows). */
  tag?: (post: PostRow, details: D, fieldValues?: unknown[]) => string
}

/** What a write does to the store; the collection answers with the item as written. */
export interface CollectionWrites<D> {
  /** The new item; `details` when the write knows them, `slugIsUnique` when its slug was just made unique. */
  create: (req: RestRequest, settings: SiteSettings) => Promise<{ post: PostRow, details?: D, slugIsUnique?: boolean }>
  update: (req: RestRequest, existing: PostRow, settings: SiteSettings) => Promise<PostRow>
  /** Moves the item to the trash (none: the type has no trash, deleting needs `force`). */
  trash?: (post: PostRow) => Promise<void>
  /** Deletes the item for good (default: the row, its meta, terms and revisions, in one transaction). */
  destroy?: (post: PostRow) => Promise<void>
}

export interface CollectionConfig<D> {
  services: Services
  /** The post type served. */
  type: string
  /** The collection's path under its namespace (`posts`: `/posts` and `/posts/{id}`). */
  base: string
  /** The plural of the type's capabilities (`edit_{caps}`, `edit_others_{caps}`): attachments use the posts'. */
  caps: string
  /** The item schema: answers are filtered by its contexts; OPTIONS and the OpenAPI document show it. */
  schema: JsonSchema
  args: { list: TProperties, create: TProperties, read: TProperties, update: TProperties, remove: TProperties }
  endpoints: {
    list: EndpointText
    /** An upload sets `streamBody` (and `allowBatch: false`: batch sends no stream). */
    create: EndpointText & { allowBatch?: boolean, streamBody?: StreamBodyOptions }
    read: EndpointText
    update: EndpointText
    remove: EndpointText
  }
  access: CollectionAccess
  /** The list clauses of the type's own arguments, over those every collection reads (posts: terms). */
  query?: (req: RestRequest, q: ListQuery) => Promise<Partial<ListQuery>> | Partial<ListQuery>
  /** The page's rows in the order answered (posts: sticky posts lead the first page). */
  arrange?: (req: RestRequest, rows: PostRow[], q: ListQuery) => Promise<PostRow[]>
  view: CollectionView<D>
  write: CollectionWrites<D>
}

/** A collection's routes, and what extra routes of the type reuse. */
export interface Collection {
  routes: RelativeRouteDecl[]
  /** The item a request's `{id}` names, once per request. */
  loader: ItemLoader
  /** The item, or `rest_post_invalid_id`. */
  mustLoad: (req: RestRequest) => Promise<PostRow>
  /** The update endpoint's permission (a route acting on the item as an edit uses it). */
  update: Permission
  /** The item's answer in `context`, with the registered fields. */
  answer: (req: RestRequest, post: PostRow, context: string) => Promise<Record<string, unknown>>
}

/** The list arguments every collection reads (`listArgs`); the others are the configuration's. */
interface ListParams {
  context: string
  page: number
  per_page: number
  offset?: number
  order: 'asc' | 'desc'
  orderby: string
  search?: string
  search_columns: string[]
  search_semantics?: string
  after?: string
  before?: string
  modified_after?: string
  modified_before?: string
  author: number[]
  author_exclude: number[]
  include: number[]
  exclude: number[]
  slug?: string[]
  status: string[]
  parent?: number[]
  parent_exclude?: number[]
  menu_order?: number
  sticky?: boolean
  format?: string[]
  tax_relation?: string
}

/**
 * The edit check: the item exists, the caller may edit it, and may give it
 * another author; then what the type adds. Autosaves of a post take it too.
 */
export function editCheck (loader: ItemLoader, caps: string, more?: CollectionAccess['update']) {
  return async (req: RestRequest): Promise<true | RestError> => {
    const post = await loader.load(req)
    if (post === undefined) return contentErrors.rest_post_invalid_id()
    const user = req.user
    if (!canEdit(user, post)) return denied(contentErrors.rest_cannot_edit(), user.id)
    if (typeof req.params.author === 'number' && req.params.author !== 0 && req.params.author !== user.id && !user.can(`edit_others_${caps}`)) {
      return denied(contentErrors.rest_cannot_edit_others(undefined, 'Sorry, you are not allowed to update posts as this user.'), user.id)
    }
    return more === undefined ? true : await more(req, post)
  }
}

export function defineCollection<D> (config: CollectionConfig<D>): Collection {
  const { services, type, caps, view, write, access } = config
  const { store, fields } = services
  const totalsFor = totalCache(store)
  const pageFor = pageCache(store)
  const answeredFor = answeredPages(store)
  const loader = itemLoader(store, type)
  const settingsOf = async (req: RestRequest): Promise<SiteSettings> => await requestSettings(store, req, services.meta)

  const mustLoad = async (req: RestRequest): Promise<PostRow> => {
    const post = await loader.load(req)
    if (post === undefined) throw contentErrors.rest_post_invalid_id()
    return post
  }

  // Registered fields (fields.ts): rendered answers get theirs; none registered, nothing is done.
  // A deactivated package's fields are left out (the activation's set, asked only when the type has fields).
  const objectType = type as FieldObjectType
  const addFields = async (bodies: Array<Record<string, unknown>>, req: RestRequest, context: string): Promise<string[]> =>
    fields.has(objectType) ? await fields.visible(await req.registry.off(req)).render(objectType, bodies, req, context) : []

  const formatted = async (req: RestRequest, post: PostRow, context: string, given?: { details?: D, slugIsUnique?: boolean }): Promise<{ body: Record<string, unknown>, details: D, added: string[] }> => {
    const settings = await settingsOf(req)
    const details = given?.details ?? (await view.details([post])).get(post.id)!
    const body = await view.format(req, post, details, { settings, context, slugIsUnique: given?.slugIsUnique })
    const added = await addFields([body], req, context)
    return { body, details, added }
  }
  const answer = async (req: RestRequest, post: PostRow, context: string): Promise<Record<string, unknown>> => (await formatted(req, post, context)).body

  // Untyped: the Allow header of any endpoint of the route calls it with that endpoint's arguments.
  const listPermission = (req: RestRequest): true | RestError => {
    for (const status of (req.params.status ?? []) as string[]) {
      if (access.publicStatuses.includes(status)) continue
      if (req.user.can(`edit_${caps}`) || (status === 'private' && req.user.can(`read_private_${caps}`))) continue
      const code = req.user.id === 0 ? 401 : 403
      return invalidParam('status', 'Status is forbidden.', { code: 'rest_forbidden_status', message: 'Status is forbidden.', data: { status: code } })
    }
    if (req.params.context === 'edit' && !req.user.can(`edit_${caps}`)) return denied(contentErrors.rest_forbidden_context(), req.user.id)
    return true
  }

  const list = async (req: RestRequest): Promise<RestResponse> => {
    const p = req.params as unknown as ListParams
    const settings = await settingsOf(req)
    const { search, include } = p
    if (p.orderby === 'relevance' && (search === undefined || search === '')) throw contentErrors.rest_no_search_term_defined()
    if (p.orderby === 'include' && include.length === 0) throw contentErrors.rest_orderby_include_missing_include()
    const page = await answeredFor(req, async () => await listPage(req, p, settings))
    return new RestResponse(page.body, 200, pageHeaders(req, page.info))
  }

  /** A list's items as answered: the page's rows, readable by the caller, formatted with the registered fields. */
  const listPage = async (req: RestRequest, p: ListParams, settings: SiteSettings): Promise<AnsweredPage> => {
    const { search, include, context } = p
    let statuses = [...new Set(p.status)]
    if (statuses.includes('any')) statuses = [...new Set([...statuses.filter((s) => s !== 'any'), ...ANY_STATUSES])]
    const date = (v: unknown): Date | undefined => typeof v === 'string' ? parseRequestDate(v, settings.timeZone) ?? undefined : undefined
    // Arguments a type does not declare are absent (pages have no terms, posts no parent).
    const common: ListQuery = {
      type,
      statuses,
      search,
      searchColumns: p.search_columns,
      exact: p.search_semantics === 'exact',
      hideProtected: req.user.id === 0,
      // Only readable rows (editable ones in the edit context) are counted, paged and ordered.
      readable: readRule(req.user, type, context === 'edit' ? 'edit' : 'read'),
      searchable: readRule(req.user, type, 'edit'),
      after: date(p.after),
      before: date(p.before),
      modifiedAfter: date(p.modified_after),
      modifiedBefore: date(p.modified_before),
      author: p.author,
      authorExclude: p.author_exclude,
      include,
      exclude: p.exclude,
      slugs: p.slug?.map((s) => s.trim()).filter((s) => s !== ''),
      menuOrder: p.menu_order,
      parent: p.parent ?? [],
      parentExclude: p.parent_exclude ?? [],
      sticky: p.sticky,
      formats: p.format,
      tax: [],
      taxRelation: p.tax_relation === 'OR' ? 'OR' : 'AND',
      orderby: p.orderby,
      order: p.order,
      perPage: p.per_page,
      page: p.page,
      offset: p.offset
    }
    const q: ListQuery = config.query === undefined ? common : { ...common, ...await config.query(req, common) }
    const withExtras = view.detailsInPage === true
    const { rows, total, extras } = await pageFor(req, q, withExtras, async () => await runListQuery(store, q, totalsFor(req), withExtras))
    // Kept for what this page's embeds (term lists naming each post) and later reads ask for.
    if (req.method === 'GET') for (const row of rows) await postCache(store).keepRead(req, `post:${row.id}`, row)
    const info = { total, perPage: p.per_page, page: q.page }
    checkPage(info, contentErrors.rest_post_invalid_page_number)

    let items = config.arrange === undefined ? rows : await config.arrange(req, rows, q)
    // The rule is in the query; rows from outside it (posts' sticky ones) and rules it cannot hold are checked here.
    const readable = await access.canRead(req, items)
    items = items.filter((post, i) => readable[i] === true && (context !== 'edit' || canEdit(req.user, post)))
    // The page's statement brought its rows' details when it could; rows from outside it need theirs.
    const pageDetails = extras as Map<number, D> | undefined
    const missing = pageDetails === undefined ? items : items.filter((post) => !pageDetails.has(post.id))
    const details = missing.length === 0 ? pageDetails! : new Map([...(pageDetails ?? []), ...await view.details(missing)])
    // An edit page's generated slugs: the posts whose slug is their own found in one statement, not one a post.
    const own = context === 'edit' && view.ownSlugs !== undefined && wantsField(fieldsOf(req), 'generated_slug')
      ? await view.ownSlugs(items)
      : undefined
    const body = await Promise.all(items.map(async (post) => await view.format(req, post, details.get(post.id)!, { settings, context, slugIsUnique: own?.has(post.id) })))
    await addFields(body, req, context)
    // What keeping it holds: the items and the bytes the kernel makes of them, about three times the rows' text.
    let weight = 0
    for (const post of items) weight += 1024 + 3 * ((post.title?.length ?? 0) + (post.content?.length ?? 0) + (post.excerpt?.length ?? 0))
    return { body, info, weight }
  }

  const create = async (req: RestRequest): Promise<RestResponse> => {
    const settings = await settingsOf(req)
    const { post, details, slugIsUnique } = await write.create(req, settings)
    const { body } = await formatted(req, post, 'edit', { details, slugIsUnique })
    return createdAt(req, body, post.id)
  }

  const readPermission = async (req: RestRequest): Promise<boolean | RestError> => {
    const post = await loader.load(req)
    if (post === undefined) return contentErrors.rest_post_invalid_id()
    if (req.params.context === 'edit' && !canEdit(req.user, post)) {
      return denied(contentErrors.rest_forbidden_context(undefined, 'Sorry, you are not allowed to edit this post.'), req.user.id)
    }
    const refused = access.refuseRead?.(req, post)
    if (refused !== undefined) return refused
    return (await access.canRead(req, [post]))[0] === true
  }

  const read = async (req: RestRequest): Promise<RestResponse> => {
    const post = await mustLoad(req)
    const settings = await settingsOf(req)
    const { body, details, added } = await formatted(req, post, typeof req.params.context === 'string' ? req.params.context : 'view')
    const headers: Record<string, string> = {}
    if (view.tag !== undefined) headers.ETag = view.tag(post, details, added.length === 0 ? undefined : added.map((name) => body[name]))
    headers['Last-Modified'] = post.modifiedGmt.toUTCString()
    headers.Link = `<${permalink(settings.home, post.type, post.id)}>; rel="alternate"; type=text/html`
    return new RestResponse(body, 200, headers)
  }

  const updatePermission = editCheck(loader, caps, access.update)

  const update = async (req: RestRequest): Promise<unknown> => {
    const existing = await mustLoad(req)
    const post = await write.update(req, existing, await settingsOf(req))
    loader.forget(req)
    return await answer(req, post, 'edit')
  }

  const deletePermission = async (req: RestRequest): Promise<true | RestError> => {
    const post = await loader.load(req)
    if (post === undefined) return contentErrors.rest_post_invalid_id()
    if (!req.user.can('delete_post', capObject(post, await settingsOf(req)))) return denied(contentErrors.rest_cannot_delete(), req.user.id)
    return true
  }

  const destroy = write.destroy ?? (async (post: PostRow): Promise<void> => { await store.transaction(async (tx) => { await deletePostFully(tx, post) }) })
  const remove = async (req: RestRequest): Promise<unknown> => {
    const post = await mustLoad(req)
    loader.forget(req)
    if (req.params.force === true) {
      const previous = await answer(req, post, 'edit')
      await destroy(post)
      return { deleted: true, previous }
    }
    if (write.trash === undefined) throw contentErrors.rest_trash_not_supported()
    if (post.status === 'trash') throw contentErrors.rest_already_trashed()
    await write.trash(post)
    return await answer(req, (await getPost(store, post.id))!, 'edit')
  }

  const { endpoints: text, args, schema, base } = config
  const mayUpdate = check(updatePermission, ...text.update.cases)
  // A batch's write joins its one transaction (rows only); an attachment's has files too and commits alone.
  const joins = config.type === 'attachment' ? {} : { batchTransaction: true }
  const routes = [
    route({
      path: `/${base}`,
      allowBatch: true,
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], args: args.list, summary: text.list.summary, example: text.list.example, cache: 'public', permission: check(listPermission, ...text.list.cases), handler: list }),
        endpoint({
          methods: ['POST'],
          args: args.create,
          summary: text.create.summary,
          example: text.create.example,
          ...(text.create.allowBatch === undefined ? {} : { allowBatch: text.create.allowBatch }),
          ...(text.create.streamBody === undefined ? {} : { streamBody: text.create.streamBody }),
          permission: check(access.create, ...text.create.cases),
          handler: create,
          ...joins
        })
      ]
    }),
    route({
      path: `/${base}/{id}`,
      vars: { id: '[\\d]+' },
      // An item is a post: the index describes its id as the posts' is.
      args: { id: Type.Optional(Type.Integer({ description: 'Unique identifier for the post.' })) },
      allowBatch: true,
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], args: args.read, summary: text.read.summary, example: text.read.example, cache: 'public', permission: check(readPermission, ...text.read.cases), handler: read }),
        endpoint({ methods: ['POST', 'PUT', 'PATCH'], args: args.update, summary: text.update.summary, example: text.update.example, permission: mayUpdate, handler: update, ...joins }),
        endpoint({ methods: ['DELETE'], args: args.remove, summary: text.remove.summary, example: text.remove.example, permission: check(deletePermission, ...text.remove.cases), handler: remove, ...joins })
      ]
    })
  ]
  return { routes, loader, mustLoad, update: mayUpdate, answer }
}
