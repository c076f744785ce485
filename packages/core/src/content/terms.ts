/**
 * `/cms/v2/categories` and `/cms/v2/tags` (with `{id}`): list, create, read,
 * update, delete. Categories nest; the default category cannot be deleted.
 */
import { eq } from 'drizzle-orm'
import { Type } from '@sinclair/typebox'
import {
  checkPage, ContextArg, endpoint, Enum, IntList, paginationHeaders, rel, restUrl, route, RestResponse, StringList,
  type JsonSchema, type Links, type RestError, type RestRequest, type RouteDecl
} from '@cms/rest'
import type { Store } from '@cms/store'
import type { Services } from '../services.js'
import { contentErrors, denied } from './errors.js'
import { canRead, restUrlWithQuery } from './post-format.js'
import { idOf, type TermRow } from './post-store.js'
import { readPostFor } from './posts.js'
import { siteSettings } from './post-types.js'
import { terms } from './schema.js'
import { sanitizeSlug } from './slugs.js'
import { deleteTerm, findByName, getTerm, listTerms, slugTaken, termLoop, uniqueTermSlug } from './term-store.js'

interface Taxonomy {
  name: 'category' | 'post_tag'
  restBase: 'categories' | 'tags'
  hierarchical: boolean
}

const CATEGORY: Taxonomy = { name: 'category', restBase: 'categories', hierarchical: true }
const TAG: Taxonomy = { name: 'post_tag', restBase: 'tags', hierarchical: false }

const ALL = ['view', 'embed', 'edit']
const VE = ['view', 'edit']

function termSchema (tax: Taxonomy): JsonSchema {
  const p: Record<string, JsonSchema> = {
    id: { description: 'Unique identifier for the term.', type: 'integer', context: ALL, readonly: true },
    count: { description: 'Number of published posts for the term.', type: 'integer', context: VE, readonly: true },
    description: { description: 'HTML description of the term.', type: 'string', context: VE },
    link: { description: 'URL of the term.', type: 'string', format: 'uri', context: ALL, readonly: true },
    name: { description: 'HTML title for the term.', type: 'string', context: ALL, required: true },
    slug: { description: 'An alphanumeric identifier for the term unique to its type.', type: 'string', context: ALL },
    taxonomy: { description: 'Type attribution for the term.', type: 'string', enum: [tax.name], context: ALL, readonly: true }
  }
  if (tax.hierarchical) p.parent = { description: 'The parent term ID.', type: 'integer', context: VE }
  p.meta = { description: 'Meta fields.', type: 'object', context: VE, properties: {} }
  return { $schema: 'http://json-schema.org/draft-04/schema#', title: tax.name, type: 'object', properties: p }
}

export function termRoutes (services: Services): RouteDecl[] {
  return [...taxonomyRoutes(services, CATEGORY), ...taxonomyRoutes(services, TAG)]
}

function taxonomyRoutes (services: Services, tax: Taxonomy): RouteDecl[] {
  const { store } = services
  const schema = termSchema(tax)
  const collection = `/cms/v2/${tax.restBase}`

  const format = async (term: TermRow, req: RestRequest): Promise<Record<string, unknown>> => {
    const { home } = await siteSettings(store, req, services.meta)
    const out: Record<string, unknown> = {
      id: term.id,
      count: term.count,
      description: term.description,
      link: tax.hierarchical ? `${home}/?cat=${term.id}` : `${home}/?tag=${term.slug}`,
      name: term.name,
      slug: term.slug,
      taxonomy: tax.name
    }
    if (tax.hierarchical) out.parent = term.parent
    out.meta = []
    const links: Links = {
      self: [{ href: restUrl(req.baseUrl, `${collection}/${term.id}`) }],
      collection: [{ href: restUrl(req.baseUrl, collection) }],
      about: [{ href: restUrl(req.baseUrl, `/cms/v2/taxonomies/${tax.name}`) }]
    }
    if (tax.hierarchical && term.parent !== 0) links.up = [{ embeddable: true, href: restUrl(req.baseUrl, `${collection}/${term.parent}`) }]
    links[rel('post_type')] = [{ href: restUrlWithQuery(req.baseUrl, '/cms/v2/posts', { [tax.restBase]: term.id }) }]
    out._links = links
    return out
  }

  const editCap = tax.hierarchical ? 'manage_categories' : 'manage_post_tags'
  const createCap = tax.hierarchical ? 'manage_categories' : 'assign_post_tags'

  const listPermission = async (req: RestRequest): Promise<true | RestError> => {
    if (req.params.context === 'edit' && !req.user.can(editCap)) {
      return denied(contentErrors.rest_forbidden_context(undefined, 'Sorry, you are not allowed to edit terms in this taxonomy.'), req.user.id)
    }
    if (typeof req.params.post === 'number' && req.params.post !== 0) {
      const post = await readPostFor(store, req, req.params.post)
      if (post === undefined || post.type === 'revision') return contentErrors.rest_post_invalid_id().withStatus(400)
      if (!canRead(req.user, post)) return denied(contentErrors.rest_forbidden_context(undefined, 'Sorry, you are not allowed to view terms for this post.'), req.user.id)
    }
    return true
  }

  const list = async (req: RestRequest): Promise<RestResponse> => {
    const p = req.params
    const perPage = Number(p.per_page ?? 10)
    const page = Number(p.page ?? 1)
    const { rows, total } = await listTerms(store, {
      taxonomy: tax.name,
      search: typeof p.search === 'string' ? p.search : undefined,
      include: (p.include ?? []) as number[],
      exclude: (p.exclude ?? []) as number[],
      slugs: Array.isArray(p.slug) ? p.slug as string[] : undefined,
      parent: tax.hierarchical && typeof p.parent === 'number' ? p.parent : undefined,
      post: typeof p.post === 'number' && p.post !== 0 ? p.post : undefined,
      hideEmpty: p.hide_empty === true,
      orderby: String(p.orderby ?? 'name'),
      order: p.order === 'desc' ? 'desc' : 'asc',
      perPage,
      page,
      offset: typeof p.offset === 'number' ? p.offset : undefined
    })
    checkPage({ total, perPage, page }, contentErrors.rest_term_invalid_page_number)
    const body = await Promise.all(rows.map((t) => format(t, req)))
    return new RestResponse(body, 200, paginationHeaders({ total, perPage, page }, req.baseUrl, collection, req.query))
  }

  const load = async (req: RestRequest): Promise<TermRow | undefined> => await getTerm(store, tax.name, idOf(req.params.id))

  const readPermission = async (req: RestRequest): Promise<true | RestError> => {
    const term = await load(req)
    if (term === undefined) return contentErrors.rest_term_invalid()
    if (req.params.context === 'edit' && !req.user.can(editCap)) {
      return denied(contentErrors.rest_forbidden_context(undefined, 'Sorry, you are not allowed to edit this term.'), req.user.id)
    }
    return true
  }

  const read = async (req: RestRequest): Promise<unknown> => await format((await load(req))!, req)

  const checkParent = async (value: unknown, id: number): Promise<number | undefined> => {
    if (value === undefined) return undefined
    if (!tax.hierarchical) throw contentErrors.rest_taxonomy_not_hierarchical()
    const parent = Number(value)
    if (parent === 0) return 0
    if ((await getTerm(store, tax.name, parent)) === undefined) throw contentErrors.rest_term_invalid(undefined, 'Parent term does not exist.').withStatus(400)
    return id !== 0 && await termLoop(store, id, parent) ? 0 : parent
  }

  const createPermission = (req: RestRequest): true | RestError => {
    if (req.user.can(createCap)) return true
    const message = tax.hierarchical ? 'Sorry, you are not allowed to create terms in this taxonomy.' : 'Sorry, you are not allowed to create new tags.'
    return denied(contentErrors.rest_cannot_create(undefined, message), req.user.id)
  }

  const create = async (req: RestRequest): Promise<RestResponse> => {
    const p = req.params
    const name = String(p.name ?? '').trim()
    if (name === '') throw contentErrors.empty_term_name()
    const parent = (await checkParent(p.parent, 0)) ?? 0
    const existing = await findByName(store, tax.name, name, parent)
    if (existing !== undefined) throw contentErrors.term_exists({ term_id: existing.id })
    const requested = typeof p.slug === 'string' && p.slug !== '' ? sanitizeSlug(p.slug) : ''
    if (requested !== '' && await slugTaken(store, tax.name, requested)) {
      throw contentErrors.duplicate_term_slug(undefined, `The slug “${requested}” is already in use by another term.`)
    }
    const term = await store.transaction(async (tx) => {
      const slug = requested !== '' ? requested : await uniqueTermSlug(tx, tax.name, sanitizeSlug(name, 'term'))
      const [row] = await tx.insert(terms).values({
        taxonomy: tax.name, name, slug, description: typeof p.description === 'string' ? p.description : '', parent
      }).returning()
      return row!
    })
    return new RestResponse(await format(term, req), 201, { Location: restUrl(req.baseUrl, `${collection}/${term.id}`) })
  }

  const updatePermission = async (req: RestRequest): Promise<true | RestError> => {
    if ((await load(req)) === undefined) return contentErrors.rest_term_invalid()
    if (!req.user.can('edit_term')) return denied(contentErrors.rest_cannot_update(undefined, 'Sorry, you are not allowed to edit this term.'), req.user.id)
    return true
  }

  const update = async (req: RestRequest): Promise<unknown> => {
    const p = req.params
    const term = (await load(req))!
    const changes: Partial<TermRow> = {}
    if (typeof p.name === 'string') {
      const name = p.name.trim()
      if (name === '') throw contentErrors.empty_term_name()
      changes.name = name
    }
    if (typeof p.description === 'string') changes.description = p.description
    const parent = await checkParent(p.parent, term.id)
    if (parent !== undefined) changes.parent = parent
    if (typeof p.slug === 'string') {
      const slug = p.slug === '' ? sanitizeSlug(changes.name ?? term.name, 'term') : sanitizeSlug(p.slug)
      if (p.slug !== '' && await slugTaken(store, tax.name, slug, term.id)) {
        throw contentErrors.duplicate_term_slug(undefined, `The slug “${slug}” is already in use by another term.`)
      }
      changes.slug = p.slug === '' ? await uniqueTermSlug(store, tax.name, slug, term.id) : slug
    }
    let updated = term
    if (Object.keys(changes).length > 0) {
      const [row] = await store.db.update(terms).set(changes).where(eq(terms.id, term.id)).returning()
      updated = row!
    }
    return await format(updated, req)
  }

  const deletePermission = async (req: RestRequest): Promise<true | RestError> => {
    const term = await load(req)
    if (term === undefined) return contentErrors.rest_term_invalid()
    const { defaultCategory } = await siteSettings(store, req, services.meta)
    const isDefault = tax.hierarchical && term.id === defaultCategory
    if (isDefault || !req.user.can('delete_term')) {
      return denied(contentErrors.rest_cannot_delete(undefined, 'Sorry, you are not allowed to delete this term.'), req.user.id)
    }
    return true
  }

  const remove = async (req: RestRequest): Promise<unknown> => {
    const term = (await load(req))!
    if (req.params.force !== true) {
      throw contentErrors.rest_trash_not_supported(undefined, "Terms do not support trashing. Set 'force=true' to delete.")
    }
    const previous = await format(term, req)
    const { defaultCategory } = await siteSettings(store, req, services.meta)
    await store.transaction(async (tx) => { await deleteTerm(tx, term, defaultCategory) })
    return { deleted: true, previous }
  }

  const writeArgs = (create: boolean): Record<string, ReturnType<typeof Type.Optional>> => {
    const args: Record<string, any> = {
      description: Type.Optional(Type.String({ description: 'HTML description of the term.' })),
      name: create ? Type.String({ description: 'HTML title for the term.' }) : Type.Optional(Type.String({ description: 'HTML title for the term.' })),
      slug: Type.Optional(Type.String({ description: 'An alphanumeric identifier for the term unique to its type.' }))
    }
    if (tax.hierarchical) args.parent = Type.Optional(Type.Integer({ description: 'The parent term ID.' }))
    args.meta = Type.Optional(Type.Object({}, { description: 'Meta fields.' }))
    return args
  }

  const listArgs: Record<string, any> = {
    context: ContextArg(),
    page: Type.Integer({ description: 'Current page of the collection.', default: 1, minimum: 1 }),
    per_page: Type.Integer({ description: 'Maximum number of items to be returned in result set.', default: 10, minimum: 1, maximum: 100 }),
    search: Type.Optional(Type.String({ description: 'Limit results to those matching a string.' })),
    exclude: IntList({ description: 'Ensure result set excludes specific IDs.', default: [] }),
    include: IntList({ description: 'Limit result set to specific IDs.', default: [] })
  }
  if (!tax.hierarchical) listArgs.offset = Type.Optional(Type.Integer({ description: 'Offset the result set by a specific number of items.' }))
  listArgs.order = Enum(['asc', 'desc'], { description: 'Order sort attribute ascending or descending.', default: 'asc' })
  listArgs.orderby = Enum(['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'], { description: 'Sort collection by term attribute.', default: 'name' })
  listArgs.hide_empty = Type.Boolean({ description: 'Whether to hide terms not assigned to any posts.', default: false })
  if (tax.hierarchical) listArgs.parent = Type.Optional(Type.Integer({ description: 'Limit result set to terms assigned to a specific parent.' }))
  listArgs.post = Type.Optional(Type.Integer({ description: 'Limit result set to terms assigned to a specific post.' }))
  listArgs.slug = Type.Optional(StringList({ description: 'Limit result set to terms with one or more specific slugs.' }))

  return [
    route({
      namespace: 'cms/v2',
      path: collection,
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], summary: `List ${tax.restBase}`, args: listArgs, permission: listPermission, handler: list }),
        endpoint({ methods: ['POST'], summary: `Create a term in ${tax.restBase}`, args: writeArgs(true), permission: createPermission, handler: create })
      ]
    }),
    route({
      namespace: 'cms/v2',
      path: `${collection}/{id}`,
      vars: { id: '[\\d]+' },
      args: { id: Type.Optional(Type.Integer({ description: 'Unique identifier for the term.' })) },
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], summary: `Read a term of ${tax.restBase}`, args: { context: ContextArg() }, permission: readPermission, handler: read }),
        endpoint({ methods: ['POST', 'PUT', 'PATCH'], summary: `Update a term of ${tax.restBase}`, args: writeArgs(false), permission: updatePermission, handler: update }),
        endpoint({
          methods: ['DELETE'],
          summary: `Delete a term of ${tax.restBase}`,
          args: { force: Type.Boolean({ description: 'Required to be true, as terms do not support trashing.', default: false }) },
          permission: deletePermission,
          handler: remove
        })
      ]
    })
  ]
}
