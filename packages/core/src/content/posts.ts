/**
 * `/cms/v2/posts` and `/cms/v2/pages` (one factory, the type decides the
 * differences): list, create, read, update, trash and delete.
 */
import { createHash } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { Type } from '@sinclair/typebox'
import { argsFromSchema, check, endpoint, handlerChecked, checkPage, route, RestResponse, who, type Params, type RelativeRouteDecl, type RestError, type RestRequest, pageHeaders, createdAt } from '@cms/rest'
import type { Store, Tx } from '@cms/store'
import type { Services } from '../services.js'
import type { FieldObjectType } from '../platform/fields.js'
import type { MetaRegistry } from './meta.js'
import { nowSeconds, parseRequestDate } from './dates.js'
import { contentErrors, denied, invalidParam } from './errors.js'
import { capObject, canEdit, canRead, formatPost, loadExtras, type FormatOptions, type PostExtras } from './post-format.js'
import { jsonWeight, readCache, type ReadCache } from './read-cache.js'
import { readRule, runListQuery, type KnownTotal, type ListQuery, type TaxClause, type TotalCache } from './post-query.js'
import { deleteArgs, listArgs, postItemSchema, readArgs } from './post-schema.js'
import { deletePostFully, existingTermIds, getPost, idOf, recountTerms, setMeta, stickyPostIds, termIdsOfPost, withDescendants, type PostRow } from './post-store.js'
import { ANY_STATUSES, permalink, siteSettings, type PostType, type SiteSettings } from './post-types.js'
import { preparePost, writePost } from './post-write.js'
import { posts } from './schema.js'
import { truncateSlug } from './slugs.js'

/** Posts read by GET requests, reused while nothing is committed (see read-cache.ts). */
function postCache (store: Store): ReadCache<PostRow | undefined> {
  // 16 MiB of posts: a count alone would not bound them (a post's content may be megabytes).
  return readCache<PostRow | undefined>(store, 'posts', 16 * 1024 * 1024, jsonWeight)
}

/**
 * A post a GET request needs (an embedded term list checks the post it
 * names): read through the same cache as post reads, so a page's embeds
 * reuse the rows the page itself read.
 */
export async function readPostFor (store: Store, req: RestRequest, id: number): Promise<PostRow | undefined> {
  if (req.method !== 'GET') return await getPost(store, id)
  return await postCache(store).get(req, `post:${id}`, async () => await getPost(store, id))
}

/** Loads the post a request names, once per request (the Allow header asks every endpoint), through `req.memo`. */
export function postLoader (store: Store, type: string, param = 'id'): {
  load: (req: RestRequest) => Promise<PostRow | undefined>
  forget: (req: RestRequest) => void
} {
  const keyOf = (req: RestRequest): string => `post:${type}:${param}:${idOf(req.params[param])}`
  return {
    // Reads may reuse a row nothing has changed since; writes always read afresh.
    load: async (req) => await req.memo(keyOf(req), async () => {
      const p = await readPostFor(store, req, idOf(req.params[param]))
      return p !== undefined && p.type === type ? p : undefined
    }),
    forget: (req) => { req.memo.forget(keyOf(req)) }
  }
}

/** The site settings, once per request; GET requests reuse them while nothing is committed. */
export async function requestSettings (store: Store, req: RestRequest, meta: MetaRegistry): Promise<SiteSettings> {
  return await req.memo('content:settings', async () => {
    const settings = req.method !== 'GET'
      ? await siteSettings(store, req, meta)
      : await readCache<SiteSettings>(store, 'settings', 16).get(req, req.baseUrl, async () => await siteSettings(store, req, meta))
    // A deactivated package's meta keys are unregistered for this request (the activation's set, cached by the horizon).
    const shown = meta.visible(await req.registry.off(req))
    return shown === settings.meta ? settings : { ...settings, meta: shown }
  })
}

/** List totals, reused by read requests while nothing is committed. */
function totalCache (store: Store): (req: RestRequest) => TotalCache | undefined {
  const totals = readCache<KnownTotal>(store, 'totals', 500)
  return (req) => req.method !== 'GET'
    ? undefined
    : { get: async (key) => await totals.peek(req, key), set: async (key, total) => { await totals.put(req, key, total) } }
}

/**
 * A version tag of everything the post's responses show, whatever the
 * context; with the values of the registered fields the answer shows (a
 * field shown in one context only makes the tag differ between contexts).
 */
function versionTag (post: PostRow, extras: PostExtras, fieldValues?: unknown[]): string {
  const hash = createHash('sha1').update(JSON.stringify(fieldValues === undefined ? [post, extras] : [post, extras, fieldValues])).digest('base64url').slice(0, 16)
  return `"${post.id}-${post.modifiedGmt.getTime()}-${hash}"`
}

export async function formatOne (
  store: Store, spec: PostType, post: PostRow, req: RestRequest, settings: SiteSettings, context: string, given?: PostExtras, slugIsUnique = false
): Promise<Record<string, unknown>> {
  const extras = given ?? (await loadExtras(store, [post])).get(post.id)!
  const excerptLength = typeof req.params.excerpt_length === 'number' ? req.params.excerpt_length : undefined
  return await formatPost(post, extras, { req, spec, settings, context, excerptLength, store, slugIsUnique })
}

function taxClauses (value: unknown, exclude: boolean): { terms: number[], children: boolean, operator: TaxClause['operator'] } | undefined {
  if (Array.isArray(value)) return value.length === 0 ? undefined : { terms: value.map(Number), children: false, operator: exclude ? 'NOT IN' : 'IN' }
  if (typeof value === 'object' && value !== null) {
    const o = value as { terms?: unknown, include_children?: unknown, operator?: unknown }
    const terms = Array.isArray(o.terms) ? o.terms.map(Number) : []
    if (terms.length === 0) return undefined
    return { terms, children: o.include_children === true, operator: exclude ? 'NOT IN' : o.operator === 'AND' ? 'AND' : 'IN' }
  }
  return undefined
}

async function buildTax (store: Store, params: Record<string, unknown>): Promise<TaxClause[]> {
  const out: TaxClause[] = []
  for (const [name, exclude] of [['categories', false], ['categories_exclude', true], ['tags', false], ['tags_exclude', true]] as const) {
    const c = taxClauses(params[name], exclude)
    if (c === undefined) continue
    if (c.operator === 'AND') {
      // Each listed term (with its children when asked) must be matched.
      for (const id of c.terms) out.push({ termIds: c.children ? await withDescendants(store, [id]) : [id], operator: 'IN' })
    } else {
      out.push({ termIds: c.children ? await withDescendants(store, c.terms) : c.terms, operator: c.operator })
    }
  }
  return out
}

/** Terms the request assigns need the assign capability (unknown ids are skipped). */
async function mayAssignTerms (store: Store, spec: PostType, req: RestRequest): Promise<boolean> {
  if (!spec.hasTerms) return true
  for (const [name, taxonomy] of [['categories', 'category'], ['tags', 'post_tag']] as const) {
    const ids = req.params[name]
    if (!Array.isArray(ids)) continue
    const existing = await existingTermIds(store, taxonomy, ids as number[])
    if (existing.length > 0 && !req.user.can(taxonomy === 'category' ? 'assign_categories' : 'assign_post_tags')) return false
  }
  return true
}

/** The permission to update a post (also that of saving an autosave of it). */
export function updatePermissionFor (store: Store, spec: PostType, loader: ReturnType<typeof postLoader>) {
  const plural = spec.restBase
  return async (req: RestRequest): Promise<true | RestError> => {
    const post = await loader.load(req)
    if (post === undefined) return contentErrors.rest_post_invalid_id()
    const user = req.user
    if (!canEdit(user, post)) return denied(contentErrors.rest_cannot_edit(), user.id)
    if (typeof req.params.author === 'number' && req.params.author !== 0 && req.params.author !== user.id && !user.can(`edit_others_${plural}`)) {
      return denied(contentErrors.rest_cannot_edit_others(undefined, 'Sorry, you are not allowed to update posts as this user.'), user.id)
    }
    if (spec.hasTerms && req.params.sticky === true && !user.can(`edit_others_${plural}`) && !user.can(`publish_${plural}`)) {
      return denied(contentErrors.rest_cannot_assign_sticky(), user.id)
    }
    if (!(await mayAssignTerms(store, spec, req))) return denied(contentErrors.rest_cannot_assign_term(), user.id)
    return true
  }
}

export function postRoutes (services: Services, spec: PostType): RelativeRouteDecl[] {
  const { store } = services
  const totalsFor = totalCache(store)
  const schema = postItemSchema(spec, services.meta, services.fields)
  const { fields } = services
  const objectType = spec.type as FieldObjectType
  // Registered fields (fields.ts): rendered answers get theirs; none registered, nothing is done.
  // A deactivated package's fields are left out (the activation's set, asked only when the type has fields).
  const addFields = async (bodies: Array<Record<string, unknown>>, req: RestRequest, context: string): Promise<string[]> =>
    fields.has(objectType) ? await fields.visible(await req.registry.off(req)).render(objectType, bodies, req, context) : []
  const fieldWrites = async (req: RestRequest): Promise<((tx: Tx, post: PostRow) => Promise<void>) | undefined> => {
    if (!fields.has(objectType)) return undefined
    const writes = fields.visible(await req.registry.off(req)).writes(objectType, req.params)
    if (writes.length === 0) return undefined
    return async (tx, post) => {
      for (const { field, value } of writes) await field.update!(value, { id: post.id, type: post.type }, { req, tx, objectType })
    }
  }
  const args = {
    list: listArgs(spec, schema),
    // `id` is no create argument; the core still refuses a create that names one (rest_post_exists).
    create: { ...argsFromSchema(schema, 'create'), id: handlerChecked('Refused: a create names no existing post.') },
    read: readArgs(schema),
    update: argsFromSchema(schema, 'update'),
    remove: deleteArgs()
  }
  type ListRequest = RestRequest<Params<typeof args.list>>
  const loader = postLoader(store, spec.type)
  const plural = spec.restBase

  const mustLoad = async (req: RestRequest): Promise<PostRow> => {
    const post = await loader.load(req)
    if (post === undefined) throw contentErrors.rest_post_invalid_id()
    return post
  }

  // Untyped: the Allow header of any endpoint of the route calls it with that endpoint's arguments.
  const listPermission = (req: RestRequest): true | RestError => {
    const statuses = (req.params.status ?? []) as string[]
    for (const status of statuses) {
      if (status === 'publish') continue
      if (req.user.can(`edit_${plural}`) || (status === 'private' && req.user.can(`read_private_${plural}`))) continue
      const code = req.user.id === 0 ? 401 : 403
      return invalidParam('status', 'Status is forbidden.', { code: 'rest_forbidden_status', message: 'Status is forbidden.', data: { status: code } })
    }
    if (req.params.context === 'edit' && !req.user.can(`edit_${plural}`)) return denied(contentErrors.rest_forbidden_context(), req.user.id)
    return true
  }

  const list = async (req: ListRequest): Promise<RestResponse> => {
    const p = req.params
    const settings = await requestSettings(store, req, services.meta)
    const search = p.search
    const include = p.include
    if (p.orderby === 'relevance' && (search === undefined || search === '')) throw contentErrors.rest_no_search_term_defined()
    if (p.orderby === 'include' && include.length === 0) throw contentErrors.rest_orderby_include_missing_include()
    let statuses = [...new Set(p.status)]
    if (statuses.includes('any')) statuses = [...new Set([...statuses.filter((s) => s !== 'any'), ...ANY_STATUSES])]
    const tz = settings.timeZone
    const date = (v: unknown): Date | undefined => typeof v === 'string' ? parseRequestDate(v, tz) ?? undefined : undefined
    const slugs = p.slug?.map((s) => s.trim()).filter((s) => s !== '')
    const context = p.context
    const q: ListQuery = {
      type: spec.type,
      statuses,
      search,
      searchColumns: p.search_columns,
      exact: p.search_semantics === 'exact',
      hideProtected: req.user.id === 0,
      // Only readable rows (editable ones in the edit context) are counted, paged and ordered.
      readable: readRule(req.user, spec.type, context === 'edit' ? 'edit' : 'read'),
      searchable: readRule(req.user, spec.type, 'edit'),
      after: date(p.after),
      before: date(p.before),
      modifiedAfter: date(p.modified_after),
      modifiedBefore: date(p.modified_before),
      author: p.author,
      authorExclude: p.author_exclude,
      include,
      exclude: p.exclude,
      slugs,
      // Arguments of one type only are absent for the other.
      menuOrder: spec.hierarchical ? p.menu_order : undefined,
      parent: spec.hierarchical ? p.parent : [],
      parentExclude: spec.hierarchical ? p.parent_exclude : [],
      sticky: spec.hasTerms ? p.sticky : undefined,
      formats: spec.hasTerms ? p.format : undefined,
      tax: spec.hasTerms ? await buildTax(store, p) : [],
      taxRelation: p.tax_relation === 'OR' ? 'OR' : 'AND',
      orderby: p.orderby,
      order: p.order,
      perPage: p.per_page,
      page: p.page,
      offset: p.offset
    }
    const { rows, total, extras: pageExtras } = await runListQuery(store, q, totalsFor(req), true)
    // Kept for what this page's embeds (term lists naming each post) and later reads ask for.
    if (req.method === 'GET') for (const row of rows) await postCache(store).put(req, `post:${row.id}`, row)
    const info = { total, perPage: p.per_page, page: q.page }
    checkPage(info, contentErrors.rest_post_invalid_page_number)

    let items = rows
    const plainListing = include.length === 0 && (search ?? '') === '' && slugs === undefined && q.author.length === 0 && q.tax.length === 0 && q.sticky === undefined
    if (spec.hasTerms && p.ignore_sticky === false && q.page === 1 && q.offset === undefined && plainListing) {
      // Sticky posts lead the first page, including those the page did not reach.
      const stickyIds = (await stickyPostIds(store, spec.type)).filter((id) => !q.exclude.includes(id))
      const onPage = new Map(rows.map((r) => [r.id, r]))
      const lead: PostRow[] = []
      for (const id of stickyIds) {
        const row = onPage.get(id) ?? await getPost(store, id)
        if (row !== undefined && (onPage.has(id) || row.status === 'publish')) lead.push(row)
      }
      items = [...lead, ...rows.filter((r) => !stickyIds.includes(r.id))]
    }

    // The rule is in the query; the sticky posts leading the first page come from outside it.
    items = items.filter((post) => canRead(req.user, post) && (context !== 'edit' || canEdit(req.user, post)))
    // The page's statement brought its rows' extras when it could; sticky posts from outside it need theirs.
    const missing = pageExtras === undefined ? items : items.filter((post) => !pageExtras.has(post.id))
    const extras = missing.length === 0 ? pageExtras! : new Map([...(pageExtras ?? []), ...await loadExtras(store, missing)])
    const opts: FormatOptions = { req, spec, settings, context, store }
    const body = await Promise.all(items.map((post) => formatPost(post, extras.get(post.id)!, opts)))
    await addFields(body, req, context)
    return new RestResponse(body, 200, pageHeaders(req, info))
  }

  const createPermission = async (req: RestRequest): Promise<true | RestError> => {
    const p = req.params
    const user = req.user
    if (p.id !== undefined && p.id !== null && p.id !== '' && p.id !== 0 && p.id !== '0') return contentErrors.rest_post_exists()
    if (typeof p.author === 'number' && p.author !== user.id && !user.can(`edit_others_${plural}`)) {
      return denied(contentErrors.rest_cannot_edit_others(), user.id)
    }
    if (spec.hasTerms && p.sticky === true && !user.can(`edit_others_${plural}`) && !user.can(`publish_${plural}`)) {
      return denied(contentErrors.rest_cannot_assign_sticky(), user.id)
    }
    if (!user.can(`edit_${plural}`)) return denied(contentErrors.rest_cannot_create(), user.id)
    if (!(await mayAssignTerms(store, spec, req))) return denied(contentErrors.rest_cannot_assign_term(), user.id)
    return true
  }

  const create = async (req: RestRequest): Promise<RestResponse> => {
    const settings = await requestSettings(store, req, services.meta)
    const prepared = await preparePost(store, spec, req.params, req.user, settings, undefined)
    // The row as written: its slug was made unique in the same transaction. Without meta
    // in the request, what a read of its extras would answer is known.
    const { post, newTerms } = await writePost(store, spec, prepared, req.user, settings, undefined, { revision: false, also: await fieldWrites(req) })
    const known: PostExtras | undefined = prepared.meta === undefined && (newTerms !== undefined || !spec.hasTerms)
      ? {
          meta: {},
          terms: { category: (newTerms ?? []).filter((t) => t.taxonomy === 'category'), post_tag: (newTerms ?? []).filter((t) => t.taxonomy === 'post_tag') },
          revisions: { count: 0, latestId: 0 }
        }
      : undefined
    const body = await formatOne(store, spec, post, req, settings, 'edit', known, true)
    await addFields([body], req, 'edit')
    return createdAt(req, body, post.id)
  }

  const readPermission = async (req: RestRequest): Promise<true | false | RestError> => {
    const post = await loader.load(req)
    if (post === undefined) return contentErrors.rest_post_invalid_id()
    if (req.params.context === 'edit' && !canEdit(req.user, post)) {
      return denied(contentErrors.rest_forbidden_context(undefined, 'Sorry, you are not allowed to edit this post.'), req.user.id)
    }
    const given = req.query.password
    if (typeof given === 'string' && given !== '' && given !== post.password) return contentErrors.rest_post_incorrect_password()
    return canRead(req.user, post)
  }

  type ReadRequest = RestRequest<Params<typeof args.read>>
  const read = async (req: ReadRequest): Promise<RestResponse> => {
    const post = await mustLoad(req)
    const settings = await requestSettings(store, req, services.meta)
    const extras = (await loadExtras(store, [post])).get(post.id)!
    const body = await formatOne(store, spec, post, req, settings, req.params.context, extras)
    const added = await addFields([body], req, req.params.context)
    return new RestResponse(body, 200, {
      ETag: versionTag(post, extras, added.length === 0 ? undefined : added.map((name) => body[name])),
      'Last-Modified': post.modifiedGmt.toUTCString(),
      Link: `<${permalink(settings.home, spec.type, post.id)}>; rel="alternate"; type=text/html`
    })
  }

  const updatePermission = updatePermissionFor(store, spec, loader)

  const update = async (req: RestRequest): Promise<unknown> => {
    const existing = await mustLoad(req)
    const settings = await requestSettings(store, req, services.meta)
    const prepared = await preparePost(store, spec, req.params, req.user, settings, existing)
    const { post } = await writePost(store, spec, prepared, req.user, settings, existing, { revision: true, also: await fieldWrites(req) })
    loader.forget(req)
    const body = await formatOne(store, spec, post, req, settings, 'edit')
    await addFields([body], req, 'edit')
    return body
  }

  const deletePermission = async (req: RestRequest): Promise<true | RestError> => {
    const post = await loader.load(req)
    if (post === undefined) return contentErrors.rest_post_invalid_id()
    const settings = await requestSettings(store, req, services.meta)
    if (!req.user.can('delete_post', capObject(post, settings))) return denied(contentErrors.rest_cannot_delete(), req.user.id)
    return true
  }

  const remove = async (req: RestRequest<Params<typeof args.remove>>): Promise<unknown> => {
    const post = await mustLoad(req)
    const settings = await requestSettings(store, req, services.meta)
    loader.forget(req)
    if (req.params.force) {
      const previous = await formatOne(store, spec, post, req, settings, 'edit')
      await addFields([previous], req, 'edit')
      await store.transaction(async (tx) => { await deletePostFully(tx, post) })
      return { deleted: true, previous }
    }
    if (post.status === 'trash') throw contentErrors.rest_already_trashed()
    await store.transaction(async (tx) => {
      const now = nowSeconds()
      await setMeta(tx, post.id, { _trash_meta_status: post.status, _trash_meta_time: Math.floor(now.getTime() / 1000), _desired_slug: post.slug })
      const slug = post.slug.endsWith('__trashed') ? post.slug : `${truncateSlug(post.slug, 191)}__trashed`
      await tx.update(posts).set({ status: 'trash', slug, dateGmt: post.dateGmt ?? now, modifiedGmt: now }).where(and(eq(posts.id, post.id), eq(posts.type, spec.type)))
      await recountTerms(tx, await termIdsOfPost(tx, post.id))
    })
    const trashed = (await getPost(store, post.id))!
    const body = await formatOne(store, spec, trashed, req, settings, 'edit')
    await addFields([body], req, 'edit')
    return body
  }

  // Who passes (cms-core.md §13): posts and pages share the rules, each with its type's capabilities.
  const item = spec.type
  const own = { vars: { id: item } }
  const isPost = spec.type === 'post'
  const created = isPost
    ? [
        who.can('edit_posts', '§13 create: edit_posts', { body: { title: 'Probe', status: 'draft' } }),
        who.can('publish_posts', '§13 create published: publish_posts', { body: { title: 'Probe', status: 'publish' } })
      ]
    : [who.can('edit_pages', '§13 pages: create needs edit_pages', { body: { title: 'Probe', status: 'draft' } })]
  const othersCap = isPost ? 'posts' : 'pages'
  return [
    route({
      path: `/${plural}`,
      allowBatch: true,
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], args: args.list, summary: `List ${plural}`, cache: 'public', permission: check(listPermission, who.everyone('§13 list published: nobody needs anything')), handler: list }),
        endpoint({ methods: ['POST'], args: args.create, summary: `Create a ${spec.type}`, permission: check(createPermission, ...created), handler: create })
      ]
    }),
    route({
      path: `/${plural}/{id}`,
      vars: { id: '[\\d]+' },
      args: { id: Type.Optional(Type.Integer({ description: 'Unique identifier for the post.' })) },
      allowBatch: true,
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], args: args.read, summary: `Read a ${spec.type}`, cache: 'public', permission: check(readPermission, who.everyone('§13 read published: nobody needs anything', own)), handler: read }),
        endpoint({
          methods: ['POST', 'PUT', 'PATCH'],
          args: args.update,
          summary: `Update a ${spec.type}`,
          permission: check(updatePermission, who.can(`edit_others_${othersCap}`, `§13 edit_post on another's published ${item}: edit_others + edit_published`, { ...own, body: { title: 'Probe edit' } })),
          handler: update
        }),
        endpoint({
          methods: ['DELETE'],
          args: args.remove,
          summary: `Trash or delete a ${spec.type}`,
          permission: check(deletePermission, who.can(`delete_others_${othersCap}`, `§13 delete_post on another's published ${item}: delete_others + delete_published`, own)),
          handler: remove
        })
      ]
    })
  ]
}
