/**
 * `/cms/v2/posts` and `/cms/v2/pages`: the collection controller
 * (collection.ts) configured for a post type (the type decides the
 * differences): the schema and arguments, the terms and sticky posts of
 * lists, who may create and edit, how a post is answered, and its writes.
 */
import { createHash } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { argsFromSchema, handlerChecked, who, type RelativeRouteDecl, type RestError, type RestRequest } from '@cms/rest'
import type { Store, Tx } from '@cms/store'
import type { ContentServices as Services } from './services.js'
import type { FieldObjectType } from '../platform/fields.js'
import { answeredAsWritten } from '../platform/meta.js'
import { defineCollection, editCheck } from './collection.js'
import { nowSeconds } from '../base/dates.js'
import { contentErrors, denied } from './errors.js'
import { canRead, formatPost, loadExtras, type PostExtras } from './post-format.js'
import type { ListQuery, TaxClause } from './post-query.js'
import { deleteArgs, listArgs, postItemSchema, readArgs } from './post-schema.js'
import { existingTermIds, getPost, ownSlugIds, recountTerms, setMeta, stickyPostIds, termIdsOfPost, withDescendants, type PostRow } from './post-store.js'
import type { PostType } from './post-types.js'
import { preparePost, writePost } from './post-write.js'
import type { ItemLoader } from './request-reads.js'
import { posts } from './schema.js'
import { truncateSlug } from '../text/slugs.js'
import { collectionExamples } from './examples.js'

/**
 * A version tag of everything the post's responses show, whatever the
 * context; with the values of the registered fields the answer shows (a
 * field shown in one context only makes the tag differ between contexts).
 */
function versionTag (post: PostRow, extras: PostExtras, fieldValues?: unknown[]): string {
  const hash = createHash('sha1').update(JSON.stringify(fieldValues === undefined ? [post, extras] : [post, extras, fieldValues])).digest('base64url').slice(0, 16)
  return `"${post.id}-${post.modifiedGmt.getTime()}-${hash}"`
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

/** Posts only: a sticky post needs `edit_others` or `publish`; assigned terms need their assign capability. */
function stickyAndTerms (store: Store, spec: PostType) {
  const plural = spec.restBase
  return async (req: RestRequest): Promise<true | RestError> => {
    const user = req.user
    if (spec.hasTerms && req.params.sticky === true && !user.can(`edit_others_${plural}`) && !user.can(`publish_${plural}`)) {
      return denied(contentErrors.rest_cannot_assign_sticky(), user.id)
    }
    if (!(await mayAssignTerms(store, spec, req))) return denied(contentErrors.rest_cannot_assign_term(), user.id)
    return true
  }
}

/** The permission to update a post (also that of saving an autosave of it). */
export function updatePermissionFor (store: Store, spec: PostType, loader: ItemLoader): (req: RestRequest) => Promise<true | RestError> {
  return editCheck(loader, spec.restBase, stickyAndTerms(store, spec))
}

/** Sticky posts lead the first page of a plain listing, including those the page did not reach. */
async function withStickyFirst (store: Store, spec: PostType, req: RestRequest, rows: PostRow[], q: ListQuery): Promise<PostRow[]> {
  const plainListing = q.include.length === 0 && (q.search ?? '') === '' && q.slugs === undefined && q.author.length === 0 && q.tax.length === 0 && q.sticky === undefined
  if (req.params.ignore_sticky !== false || q.page !== 1 || q.offset !== undefined || !plainListing) return rows
  const stickyIds = (await stickyPostIds(store, spec.type)).filter((id) => !q.exclude.includes(id))
  const onPage = new Map(rows.map((r) => [r.id, r]))
  const lead: PostRow[] = []
  for (const id of stickyIds) {
    const row = onPage.get(id) ?? await getPost(store, id)
    if (row !== undefined && (onPage.has(id) || row.status === 'publish')) lead.push(row)
  }
  return [...lead, ...rows.filter((r) => !stickyIds.includes(r.id))]
}

export function postRoutes (services: Services, spec: PostType): RelativeRouteDecl[] {
  const { store, fields } = services
  const schema = postItemSchema(spec, services.meta, services.fields)
  const plural = spec.restBase
  const objectType = spec.type as FieldObjectType
  // What the request writes to registered fields (fields.ts), in the post's transaction.
  const fieldWrites = async (req: RestRequest): Promise<((tx: Tx, post: PostRow) => Promise<void>) | undefined> => {
    if (!fields.has(objectType)) return undefined
    const writes = fields.visible(await req.registry.off(req)).writes(objectType, req.params)
    if (writes.length === 0) return undefined
    return async (tx, post) => {
      for (const { field, value } of writes) await field.update!(value, { id: post.id, type: post.type }, { req, tx, objectType })
    }
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

  // Who passes (cms-core.md §13): posts and pages share the rules, each with its type's capabilities.
  const item = spec.type
  const own = { vars: { id: item } }
  const isPost = spec.type === 'post'
  const othersCap = isPost ? 'posts' : 'pages'
  const examples = collectionExamples(isPost ? 'post' : 'page')
  const collection = defineCollection<PostExtras>({
    services,
    type: spec.type,
    base: plural,
    caps: plural,
    schema,
    args: {
      list: listArgs(spec, schema),
      // `id` is no create argument; the core still refuses a create that names one (rest_post_exists).
      create: { ...argsFromSchema(schema, 'create'), id: handlerChecked('Refused: a create names no existing post.') },
      read: readArgs(schema),
      update: argsFromSchema(schema, 'update'),
      remove: deleteArgs()
    },
    endpoints: {
      list: { summary: `List ${plural}`, example: examples.list, cases: [who.everyone('§13 list published: nobody needs anything')] },
      create: {
        summary: `Create a ${spec.type}`,
        example: examples.create,
        cases: isPost
          ? [
              who.can('edit_posts', '§13 create: edit_posts', { body: { title: 'Probe', status: 'draft' } }),
              who.can('publish_posts', '§13 create published: publish_posts', { body: { title: 'Probe', status: 'publish' } })
            ]
          : [who.can('edit_pages', '§13 pages: create needs edit_pages', { body: { title: 'Probe', status: 'draft' } })]
      },
      read: { summary: `Read a ${spec.type}`, example: examples.read, cases: [who.everyone('§13 read published: nobody needs anything', own)] },
      update: {
        summary: `Update a ${spec.type}`,
        example: examples.update,
        cases: [who.can(`edit_others_${othersCap}`, `§13 edit_post on another's published ${item}: edit_others + edit_published`, { ...own, body: { title: 'Probe edit' } })]
      },
      remove: {
        summary: `Trash or delete a ${spec.type}`,
        example: examples.remove,
        cases: [who.can(`delete_others_${othersCap}`, `§13 delete_post on another's published ${item}: delete_others + delete_published`, own)]
      }
    },
    access: {
      publicStatuses: ['publish'],
      canRead: (req, rows) => rows.map((post) => canRead(req.user, post)),
      refuseRead: (req, post) => {
        const given = req.query.password
        return typeof given === 'string' && given !== '' && given !== post.password ? contentErrors.rest_post_incorrect_password() : undefined
      },
      create: createPermission,
      update: stickyAndTerms(store, spec)
    },
    query: async (req) => spec.hasTerms ? { tax: await buildTax(store, req.params) } : {},
    arrange: spec.hasTerms ? async (req, rows, q) => await withStickyFirst(store, spec, req, rows, q) : undefined,
    view: {
      details: async (rows) => await loadExtras(store, rows),
      detailsInPage: true,
      ownSlugs: async (rows) => await ownSlugIds(store, rows, spec.hierarchical),
      format: async (req, post, extras, { settings, context, slugIsUnique }) => {
        const excerptLength = typeof req.params.excerpt_length === 'number' ? req.params.excerpt_length : undefined
        return await formatPost(post, extras, { req, spec, settings, context, excerptLength, store, slugIsUnique, registered: fields.of(objectType) })
      },
      tag: versionTag
    },
    write: {
      create: async (req, settings) => {
        const prepared = await preparePost(store, spec, req.params, req.user, settings, undefined)
        // The row as written: its slug was made unique in the same transaction. What a read of its
        // extras would answer is known: no meta, or the request's as written (unless registered
        // fields wrote more, or a value would read back otherwise: read then).
        const also = await fieldWrites(req)
        const { post, newTerms } = await writePost(store, spec, prepared, req.user, settings, undefined, { revision: false, also })
        const meta = prepared.meta === undefined ? {} : also === undefined && answeredAsWritten(prepared.meta.set) ? prepared.meta.set : undefined
        const details: PostExtras | undefined = meta !== undefined && (newTerms !== undefined || !spec.hasTerms)
          ? {
              meta,
              terms: { category: (newTerms ?? []).filter((t) => t.taxonomy === 'category'), post_tag: (newTerms ?? []).filter((t) => t.taxonomy === 'post_tag') },
              revisions: { count: 0, latestId: 0 }
            }
          : undefined
        return { post, details, slugIsUnique: true }
      },
      update: async (req, existing, settings) => {
        const prepared = await preparePost(store, spec, req.params, req.user, settings, existing)
        return (await writePost(store, spec, prepared, req.user, settings, existing, { revision: true, also: await fieldWrites(req) })).post
      },
      trash: async (post) => {
        await store.transaction(async (tx) => {
          const now = nowSeconds()
          await setMeta(tx, post.id, { _trash_meta_status: post.status, _trash_meta_time: Math.floor(now.getTime() / 1000), _desired_slug: post.slug })
          const slug = post.slug.endsWith('__trashed') ? post.slug : `${truncateSlug(post.slug, 191)}__trashed`
          await tx.update(posts).set({ status: 'trash', slug, dateGmt: post.dateGmt ?? now, modifiedGmt: now }).where(and(eq(posts.id, post.id), eq(posts.type, spec.type)))
          await recountTerms(tx, await termIdsOfPost(tx, post.id))
        })
      }
    }
  })
  return collection.routes
}
