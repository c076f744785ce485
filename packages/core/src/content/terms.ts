/**
 * `/cms/v2/categories` and `/cms/v2/tags` (with `{id}`): list, create, read,
 * update, delete. Categories nest; the default category cannot be deleted.
 */
import { eq } from 'drizzle-orm'
import { Type } from '@sinclair/typebox'
import { argsFromSchema, check, checkPage, collectionParams, contextParam, endpoint, field, handlerChecked, itemSchema, rel, restUrl, route, RestResponse, StringList, who, type Links, type Params, type RelativeRouteDecl, type RestError, type RestRequest, pageHeaders, createdAt } from '@cms/rest'
import type { ContentServices as Services } from './services.js'
import type { FieldRegistry } from '../platform/fields.js'
import { contentErrors, denied } from './errors.js'
import { canRead, restUrlWithQuery } from './post-format.js'
import { idOf, termColumns, type TermRow } from './post-store.js'
import { readPostFor } from './request-reads.js'
import { siteSettings } from './post-types.js'
import { terms } from './schema.js'
import { textPool } from '../text/text-pool.js'
import { termExamples } from './examples.js'
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

/** A term of a taxonomy; `parent` only where terms nest (categories); then the fields packages registered on the taxonomy (fields.ts). */
function termSchema (tax: Taxonomy, registered?: FieldRegistry) {
  const fields = {
    id: field({ description: 'Unique identifier for the term.', type: 'integer', context: ALL, readonly: true }),
    count: field({ description: 'Number of published posts for the term.', type: 'integer', context: VE, readonly: true }),
    description: field({ description: 'HTML description of the term.', type: 'string', context: VE }),
    link: field({ description: 'URL of the term.', type: 'string', format: 'uri', context: ALL, readonly: true }),
    name: field({ description: 'HTML title for the term.', type: 'string', context: ALL, required: true }),
    slug: field({ description: 'An alphanumeric identifier for the term unique to its type.', type: 'string', context: ALL }),
    taxonomy: field({ description: 'Type attribution for the term.', type: 'string', enum: [tax.name], context: ALL, readonly: true }),
    parent: field({ description: 'The parent term ID.', type: 'integer', context: VE }),
    meta: field({ description: 'Meta fields.', type: 'object', context: VE, properties: {} })
  }
  if (!tax.hierarchical) delete (fields as Partial<typeof fields>).parent
  if (registered?.has(tax.name) === true) Object.assign(fields, registered.schemaProperties(tax.name, fields))
  return itemSchema(tax.name, fields)
}

export function termRoutes (services: Services): RelativeRouteDecl[] {
  return [...taxonomyRoutes(services, CATEGORY), ...taxonomyRoutes(services, TAG)]
}

function taxonomyRoutes (services: Services, tax: Taxonomy): RelativeRouteDecl[] {
  const { store } = services
  const schema = termSchema(tax, services.fields)
  const collection = `/cms/v2/${tax.restBase}`

  /** Terms as answered, with the fields packages registered (a list computes each once for the page). */
  const formatAll = async (rows: readonly TermRow[], req: RestRequest): Promise<Array<Record<string, unknown>>> => {
    const bodies = await Promise.all(rows.map(async (t) => await format(t, req)))
    if (services.fields.has(tax.name)) await services.fields.visible(await req.registry.off(req)).render(tax.name, bodies, req, typeof req.params.context === 'string' ? req.params.context : 'view')
    return bodies
  }
  const formatOne = async (term: TermRow, req: RestRequest): Promise<Record<string, unknown>> => (await formatAll([term], req))[0]!

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

  const { context, page, per_page, search, exclude, include, offset, order, orderby } = collectionParams({
    schema,
    order: 'asc',
    ids: true,
    orderby: { enum: ['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'], default: 'name', description: 'Sort collection by term attribute.' }
  })
  const args = {
    list: {
      context,
      page,
      per_page,
      search,
      exclude,
      include,
      // Categories are not paged by offset (the core's hierarchical terms).
      ...(tax.hierarchical ? {} : { offset }),
      order,
      orderby,
      hide_empty: Type.Boolean({ description: 'Whether to hide terms not assigned to any posts.', default: false }),
      ...(tax.hierarchical ? { parent: Type.Optional(Type.Integer({ description: 'Limit result set to terms assigned to a specific parent.' })) } : {}),
      post: Type.Optional(Type.Integer({ description: 'Limit result set to terms assigned to a specific post.' })),
      slug: Type.Optional(StringList({ description: 'Limit result set to terms with one or more specific slugs.' }))
    },
    // A flat taxonomy declares no parent, yet one sent is refused, as the core CMS reads it (`rest_taxonomy_not_hierarchical`).
    create: { ...argsFromSchema(schema, 'create'), ...(tax.hierarchical ? {} : { parent: handlerChecked('Refused: the taxonomy is not hierarchical.') }) },
    read: { context: contextParam(schema) },
    update: { ...argsFromSchema(schema, 'update'), ...(tax.hierarchical ? {} : { parent: handlerChecked('Refused: the taxonomy is not hierarchical.') }) },
    remove: { force: Type.Boolean({ description: 'Required to be true, as terms do not support trashing.', default: false }) }
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

  const list = async (req: RestRequest<Params<typeof args.list>>): Promise<RestResponse> => {
    const p = req.params
    const perPage = p.per_page
    const page = p.page
    const { rows, total } = await listTerms(store, {
      taxonomy: tax.name,
      search: p.search,
      include: p.include,
      exclude: p.exclude,
      slugs: p.slug,
      // Declared for one taxonomy only: for the other, a value sent is not checked and is ignored.
      parent: tax.hierarchical ? p.parent : undefined,
      post: p.post !== 0 ? p.post : undefined,
      hideEmpty: p.hide_empty,
      orderby: p.orderby,
      order: p.order,
      perPage,
      page,
      offset: tax.hierarchical ? undefined : p.offset
    })
    checkPage({ total, perPage, page }, contentErrors.rest_term_invalid_page_number)
    const body = await formatAll(rows, req)
    return new RestResponse(body, 200, pageHeaders(req, { total, perPage, page }))
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

  const read = async (req: RestRequest): Promise<unknown> => await formatOne((await load(req))!, req)

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
    const requested = typeof p.slug === 'string' && p.slug !== '' ? await textPool.slug(p.slug) : ''
    if (requested !== '' && await slugTaken(store, tax.name, requested)) {
      throw contentErrors.duplicate_term_slug(undefined, `The slug “${requested}” is already in use by another term.`)
    }
    const term = await store.transaction(async (tx) => {
      const slug = requested !== '' ? requested : await uniqueTermSlug(tx, tax.name, await textPool.slug(name, 'term'))
      const [row] = await tx.insert(terms).values({
        taxonomy: tax.name, name, slug, description: typeof p.description === 'string' ? p.description : '', parent
      }).returning()
      return row!
    })
    return createdAt(req, await formatOne(term, req), term.id)
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
      const slug = p.slug === '' ? await textPool.slug(changes.name ?? term.name, 'term') : await textPool.slug(p.slug)
      if (p.slug !== '' && await slugTaken(store, tax.name, slug, term.id)) {
        throw contentErrors.duplicate_term_slug(undefined, `The slug “${slug}” is already in use by another term.`)
      }
      changes.slug = p.slug === '' ? await uniqueTermSlug(store, tax.name, slug, term.id) : slug
    }
    let updated = term
    if (Object.keys(changes).length > 0) {
      const [row] = await store.db.update(terms).set(changes).where(eq(terms.id, term.id)).returning(termColumns)
      updated = row!
    }
    return await formatOne(updated, req)
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

  const remove = async (req: RestRequest<Params<typeof args.remove>>): Promise<unknown> => {
    const term = (await load(req))!
    if (!req.params.force) {
      throw contentErrors.rest_trash_not_supported(undefined, "Terms do not support trashing. Set 'force=true' to delete.")
    }
    const previous = await formatOne(term, req)
    const { defaultCategory } = await siteSettings(store, req, services.meta)
    await store.transaction(async (tx) => { await deleteTerm(tx, term, defaultCategory) })
    return { deleted: true, previous }
  }

  // Reading is public; changes need manage_categories (§13: edit_term, delete_term), except that a
  // flat taxonomy's new terms need only assign_terms (edit_posts), as the core allows while writing.
  const item = tax.restBase === 'categories' ? 'category' : 'tag'
  const examples = termExamples(tax.restBase === 'categories' ? 'categories' : 'tags')
  const own = { vars: { id: item } }
  const created = tax.hierarchical
    ? who.can('manage_categories', '§13 creating categories: manage_categories', { body: { name: `Probe ${item}` } })
    : who.can('edit_posts', '§13 tags: creating a flat-taxonomy term needs assign_terms (edit_posts)', { body: { name: `Probe ${item}` } })
  return [
    route({
      path: `/${tax.restBase}`,
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], summary: `List ${tax.restBase}`, example: examples.list, args: args.list, permission: check(listPermission, who.everyone('terms are public')), handler: list }),
        endpoint({ methods: ['POST'], summary: `Create a term in ${tax.restBase}`, example: examples.create, args: args.create, permission: check(createPermission, created), handler: create })
      ]
    }),
    route({
      path: `/${tax.restBase}/{id}`,
      vars: { id: '[\\d]+' },
      args: { id: Type.Optional(Type.Integer({ description: 'Unique identifier for the term.' })) },
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], summary: `Read a term of ${tax.restBase}`, example: examples.read, args: args.read, permission: check(readPermission, who.everyone('terms are public', own)), handler: read }),
        endpoint({ methods: ['POST', 'PUT', 'PATCH'], summary: `Update a term of ${tax.restBase}`, example: examples.update, args: args.update, permission: check(updatePermission, who.can('manage_categories', '§13 terms: edit_term maps to manage_categories', { ...own, body: { description: 'Probe' } })), handler: update }),
        endpoint({
          methods: ['DELETE'],
          summary: `Delete a term of ${tax.restBase}`,
          example: examples.remove,
          args: args.remove,
          permission: check(deletePermission, who.can('manage_categories', '§13 terms: delete_term maps to manage_categories', { ...own, query: { force: true } })),
          handler: remove
        })
      ]
    })
  ]
}
