/**
 * Create and update of posts and pages: everything the request asks for is
 * checked first (status rights, dates, author, password and sticky, parent,
 * template, media, meta, terms, empty content), and HTML is filtered for
 * callers without `unfiltered_html`; then one transaction writes
 * the post, its slug, meta, terms, term counts and revision (the usual
 * create, without meta, is one statement and needs none).
 */
import { eq, sql } from 'drizzle-orm'
import type { Principal } from '@cms/rest'
import type { Store, Tx } from '@cms/store'
import { typeCaps } from '../users/capabilities.js'
import { findUserById } from '../users/store.js'
import { nowSeconds, parseRequestDate } from '../base/dates.js'
import { contentErrors, denied, invalidParam } from './errors.js'
import { textPool } from '../text/text-pool.js'
import { MOVE_MIN_CHARS } from '../text/moved-strings.js'
import { parseMetaParam, storedValues, type MetaChanges } from '../platform/meta.js'
import {
  createsLoop, existingTermIds, getMeta, getPost, recountTerms, setMeta, setPostTerms, termIdsOfPost,
  claimPostSlug, insertNewPost, INSERT_META_KEYS, longTextsSet, type LongTextBytes, type NewPostRow, type PostRow, type PostTerm
} from './post-store.js'
import { allowedTemplates, FLOATING_STATUSES, permalink, permalinkPrefix, type PostType, type SiteSettings } from './post-types.js'
import { saveRevisionIfChanged } from './revision-store.js'
import { posts } from './schema.js'

/** A title/content/excerpt value: a string, or an object with `raw`; anything else is ignored. */
export function textParam (value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null && 'raw' in value) {
    const raw = (value as { raw: unknown }).raw
    if (typeof raw === 'string') return raw
    if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw)
  }
  return undefined
}

export interface PreparedPost {
  /** Columns to write (only what changes on update). */
  row: Partial<NewPostRow>
  meta: MetaChanges | undefined
  categories: number[] | undefined
  tags: number[] | undefined
  /** A slug the request asked for (sanitized), or undefined. */
  requestedSlug: string | undefined
  /** Long texts' UTF-8 bytes made in the text pool, with the text they are of (a new post's insert sends them). */
  utf8?: LongTextBytes
}

const has = (params: Record<string, unknown>, key: string): boolean => params[key] !== undefined

/**
 * Reads and checks the writable fields of a request against the current
 * post (none on create). Throws the first problem; writes nothing.
 */
export async function preparePost (
  store: Store,
  spec: PostType,
  params: Record<string, unknown>,
  user: Principal,
  settings: SiteSettings,
  existing: PostRow | undefined,
  now = nowSeconds()
): Promise<PreparedPost> {
  const row: Partial<NewPostRow> = {}
  const title = textParam(params.title)
  const content = textParam(params.content)
  const excerpt = textParam(params.excerpt)
  // Only callers trusted with unfiltered HTML store their markup as written.
  const trusted = user.can('unfiltered_html')
  // Filtered in the text pool: a large content is filtered off the request thread.
  if (title !== undefined) row.title = trusted ? title : await textPool.filter(title, 'title')
  // A long content's UTF-8 bytes made in the pool (with its filtering): the write sends them as they are.
  let utf8: PreparedPost['utf8']
  if (content !== undefined && content.length >= MOVE_MIN_CHARS) {
    const f = trusted ? { text: content, utf8: await textPool.utf8Of(content) } : await textPool.filterWithUtf8(content)
    row.content = f.text
    utf8 = { content: { text: f.text, bytes: f.utf8 } }
  } else if (content !== undefined) row.content = trusted ? content : await textPool.filter(content)
  if (excerpt !== undefined) row.excerpt = trusted ? excerpt : await textPool.filter(excerpt)

  // Status: rights are checked only when it changes.
  let status = existing?.status ?? 'draft'
  const publish = typeCaps(spec.type).publish
  if (typeof params.status === 'string' && params.status !== existing?.status) {
    status = params.status
    if ((status === 'publish' || status === 'future') && !user.can(publish)) {
      throw denied(contentErrors.rest_cannot_publish(), user.id)
    }
    if (status === 'private' && !user.can(publish)) {
      throw denied(contentErrors.rest_cannot_publish(undefined, 'Sorry, you are not allowed to create private posts in this post type.'), user.id)
    }
  }

  // Dates: an explicit date pins the post; null resets it to "now" (floating again for drafts).
  let explicit: Date | null = null
  if (typeof params.date === 'string') explicit = parseRequestDate(params.date, settings.timeZone)
  else if (typeof params.date_gmt === 'string') explicit = parseRequestDate(params.date_gmt, settings.timeZone, true)
  const reset = ('date' in params && params.date === null) || ('date_gmt' in params && params.date_gmt === null)
  const currentDate = existing === undefined ? undefined : (existing.dateGmt ?? existing.modifiedGmt)
  const floatingNow = FLOATING_STATUSES.has(status) ? null : now
  let dateGmt: Date | null
  if (explicit !== null && (currentDate === undefined || explicit.getTime() !== currentDate.getTime())) {
    dateGmt = explicit
  } else if (reset || existing === undefined || existing.dateGmt === null) {
    dateGmt = floatingNow
  } else {
    dateGmt = existing.dateGmt
  }
  if (dateGmt !== null) {
    const ahead = dateGmt.getTime() - now.getTime()
    if (status === 'publish' && ahead >= 60_000) status = 'future'
    else if (status === 'future' && ahead < 60_000) status = 'publish'
  }
  row.status = status
  row.dateGmt = dateGmt

  // Author.
  if (has(params, 'author') && params.author !== existing?.author) {
    const author = Number(params.author)
    if (author !== user.id && (await findUserById(store, author)) === undefined) throw contentErrors.rest_invalid_author()
    row.author = author
  } else if (existing === undefined) {
    row.author = user.id
  }

  // Password and sticky exclude each other.
  const stickyWanted = spec.hasTerms && params.sticky === true
  if (typeof params.password === 'string') {
    row.password = params.password
    if (params.password !== '') {
      if (stickyWanted) throw contentErrors.rest_invalid_field()
      if (existing?.sticky === true && params.sticky !== false) throw contentErrors.rest_invalid_field(undefined, 'A sticky post can not be password protected.')
    }
  }
  if (stickyWanted && existing !== undefined && existing.password !== '' && row.password !== '') {
    throw contentErrors.rest_invalid_field(undefined, 'A password protected post can not be set to sticky.')
  }
  if (spec.hasTerms && typeof params.sticky === 'boolean') row.sticky = params.sticky
  if (status === 'private') row.password = ''

  // Parent (pages): must exist; a loop silently resets it.
  if (spec.hierarchical && has(params, 'parent')) {
    const parent = Number(params.parent)
    if (parent !== 0 && (parent < 0 || (await getPost(store, parent)) === undefined)) {
      throw contentErrors.rest_post_invalid_id(undefined, 'Invalid post parent ID.').withStatus(400)
    }
    row.parent = parent !== 0 && existing !== undefined && await createsLoop(store, existing.id, parent) ? 0 : parent
  }
  if (spec.hierarchical && has(params, 'menu_order')) row.menuOrder = Number(params.menu_order)

  if (typeof params.comment_status === 'string') row.commentStatus = params.comment_status
  else if (existing === undefined) row.commentStatus = spec.type === 'post' ? settings.defaultCommentStatus : 'closed'
  if (typeof params.ping_status === 'string') row.pingStatus = params.ping_status
  else if (existing === undefined) row.pingStatus = spec.type === 'post' ? settings.defaultPingStatus : 'closed'

  if (typeof params.template === 'string' && params.template !== '') {
    const allowed = allowedTemplates(spec.type)
    if (!allowed.includes(params.template)) {
      throw invalidParam('template', `template is not one of ${allowed.join(', ')}.`, {
        code: 'rest_not_in_enum', message: `template is not one of ${allowed.join(', ')}.`, data: null
      })
    }
  }
  if (typeof params.template === 'string') row.template = params.template
  if (spec.hasTerms && typeof params.format === 'string') row.format = params.format

  // A featured image is an existing attachment (CONVENTIONS §5: an unknown id is refused, not dropped); 0 removes it.
  if (has(params, 'featured_media')) {
    const media = Number(params.featured_media)
    if (media !== 0 && (await getPost(store, media))?.type !== 'attachment') throw contentErrors.rest_invalid_featured_media()
    row.featuredMedia = media
  }

  const meta = params.meta === undefined ? undefined : await parseMetaParam(settings.meta, params.meta, user, existing)

  const categories = spec.hasTerms && Array.isArray(params.categories) ? await existingTermIds(store, 'category', params.categories as number[]) : undefined
  const tags = spec.hasTerms && Array.isArray(params.tags) ? await existingTermIds(store, 'post_tag', params.tags as number[]) : undefined

  const finalTitle = row.title ?? existing?.title ?? ''
  const finalContent = row.content ?? existing?.content ?? ''
  const finalExcerpt = row.excerpt ?? existing?.excerpt ?? ''
  // Pages have no excerpt, so the core lets them be empty.
  if (spec.type === 'post' && finalTitle === '' && finalContent === '' && finalExcerpt === '') throw contentErrors.empty_content()

  const requestedSlug = typeof params.slug === 'string' ? await textPool.slug(params.slug) : undefined
  return { row, meta, categories, tags, requestedSlug, ...(utf8 === undefined ? {} : { utf8 }) }
}

/** The slug to store: requested (made unique even for drafts), kept, or made from the title once published. */
async function resolveSlug (tx: Tx, spec: PostType, post: PostRow, requested: string | undefined): Promise<string> {
  const where = { id: post.id, type: post.type, parent: post.parent, hierarchical: spec.hierarchical }
  if (requested !== undefined && requested !== '') {
    return await claimPostSlug(tx, requested, where)
  }
  const current = requested === '' ? '' : post.slug
  if (FLOATING_STATUSES.has(post.status)) return current
  if (current !== '') return await claimPostSlug(tx, current, where)
  return await claimPostSlug(tx, await textPool.slug(post.title, String(post.id)), where)
}

export interface SaveOptions {
  /** Store a revision when the content changed (updates; never autosaves). */
  revision: boolean
  /** More writes of the same request (registered fields), in the transaction after the row and its meta. */
  also?: (tx: Tx, post: PostRow) => Promise<void>
}

/** Writes a prepared create or update in one transaction; returns the post id. */
export async function savePost (
  store: Store,
  spec: PostType,
  prepared: PreparedPost,
  user: Principal,
  settings: SiteSettings,
  existing: PostRow | undefined,
  opts: SaveOptions,
  now = nowSeconds()
): Promise<number> {
  return (await writePost(store, spec, prepared, user, settings, existing, opts, now)).post.id
}

/** The id the next new post gets (taken from the table's sequence). */
async function nextPostId (tx: Tx): Promise<number> {
  const [row] = await tx.select({ id: sql<number>`nextval(pg_get_serial_sequence('posts', 'id'))::int`.mapWith(Number) }).from(sql`(values (1)) as one (x)`)
  return row!.id
}

/** Every column of a new post: what the request set, else the column's default (id and guid come with the insert). */
function newPostRow (spec: PostType, prepared: PreparedPost, slug: string, now: Date): PostRow {
  const r = prepared.row
  return {
    id: 0,
    type: spec.type,
    author: r.author ?? 0,
    status: r.status ?? 'draft',
    dateGmt: r.dateGmt ?? null,
    modifiedGmt: r.dateGmt ?? now,
    slug,
    title: r.title ?? '',
    content: r.content ?? '',
    excerpt: r.excerpt ?? '',
    password: r.password ?? '',
    parent: r.parent ?? 0,
    menuOrder: r.menuOrder ?? 0,
    commentStatus: r.commentStatus ?? 'open',
    pingStatus: r.pingStatus ?? 'open',
    format: r.format ?? 'standard',
    sticky: r.sticky ?? false,
    template: r.template ?? '',
    featuredMedia: r.featuredMedia ?? 0,
    guid: ''
  }
}

/**
 * A new post's slug when it is known before its id (asked for, or from the
 * title once not a floating draft); else ''. Reserved or taken, it is made
 * unique by the insert itself (`checkSlug`).
 */
async function knownSlug (spec: PostType, prepared: PreparedPost): Promise<string> {
  const requested = prepared.requestedSlug
  const known = requested !== undefined && requested !== ''
    ? requested
    : FLOATING_STATUSES.has(prepared.row.status ?? 'draft') ? '' : await textPool.slug(prepared.row.title ?? '')
  return known
}

/**
 * Writes a new post with insertNewPost (on the store: a statement of its own;
 * in `tx`: part of the transaction). Its terms are the default category
 * unless categories were given. With `checkSlug` the slug written is the
 * row's, or its first free suffix when taken or reserved.
 */
async function insertPost (
  db: Store | Tx, spec: PostType, prepared: PreparedPost, settings: SiteSettings, row: PostRow, checkSlug: boolean, meta: Record<string, unknown> | undefined
): Promise<Written> {
  const terms = spec.hasTerms
    ? { ids: [...new Set([...(prepared.categories ?? []), ...(prepared.tags ?? [])])], fallbackCategory: prepared.categories === undefined ? settings.defaultCategory : 0 }
    : undefined
  const written = await insertNewPost(db, row, { terms, checkSlug, hierarchical: spec.hierarchical, guidPrefix: permalinkPrefix(settings.storedHome, spec.type), utf8: prepared.utf8, meta })
  const post = { ...row, id: written.id, slug: written.slug, guid: permalink(settings.storedHome, spec.type, written.id) }
  return { post, newTerms: terms === undefined ? undefined : written.terms }
}

/**
 * A new post in a transaction (with meta, or when the statement of its own
 * did not apply). A slug known before the id is checked under its lock and,
 * when taken or reserved, given the next free suffix by the insert; any
 * other slug is resolved with the post's id, as resolveSlug does.
 */
async function insertPostInTransaction (
  tx: Tx, spec: PostType, prepared: PreparedPost, settings: SiteSettings, now: Date, meta: Record<string, unknown> | undefined
): Promise<Written> {
  const known = await knownSlug(spec, prepared)
  if (known !== '') return await insertPost(tx, spec, prepared, settings, newPostRow(spec, prepared, known, now), true, meta)
  const row = { ...newPostRow(spec, prepared, '', now), id: await nextPostId(tx) }
  const slug = await resolveSlug(tx, spec, row, prepared.requestedSlug)
  return await insertPost(tx, spec, prepared, settings, { ...row, slug }, false, meta)
}

/**
 * A new post's meta as its insert writes it (in the same statement), or
 * undefined when it has more keys than one statement takes (then setMeta).
 * Builder data's JSON text, made in the text pool, is written as it is
 * (storedValues).
 */
function insertedMeta (prepared: PreparedPost): Record<string, unknown> | undefined {
  if (prepared.meta === undefined) return {}
  const values = storedValues(prepared.meta.set, prepared.meta.stored)
  return Object.keys(values).length <= INSERT_META_KEYS ? values : undefined
}

export interface Written {
  post: PostRow
  /** A new post's terms as its answer shows them (cms_insert_post's id, taxonomy, slug and name); undefined on update, or without terms. */
  newTerms: PostTerm[] | undefined
}

/** As savePost; returns the post as written. */
export async function writePost (
  store: Store,
  spec: PostType,
  prepared: PreparedPost,
  user: Principal,
  settings: SiteSettings,
  existing: PostRow | undefined,
  opts: SaveOptions,
  now = nowSeconds()
): Promise<Written> {
  // A new post's meta goes in its insert's statement (up to INSERT_META_KEYS keys).
  const meta = existing === undefined ? insertedMeta(prepared) : undefined
  // The usual create (slug known before the id, its meta if any) is one statement of its own.
  const known = existing === undefined && meta !== undefined && opts.also === undefined ? await knownSlug(spec, prepared) : ''
  if (known !== '') return await insertPost(store, spec, prepared, settings, newPostRow(spec, prepared, known, now), true, meta)
  return await store.transaction(async (tx) => {
    let post: PostRow
    let newTerms: PostTerm[] | undefined
    if (existing === undefined) {
      ({ post, newTerms } = await insertPostInTransaction(tx, spec, prepared, settings, now, meta))
    } else {
      const [updated] = await tx.update(posts).set({ ...prepared.row, ...longTextsSet(prepared.row, prepared.utf8), modifiedGmt: now }).where(eq(posts.id, existing.id)).returning()
      post = updated!
      // A post leaving the trash takes its old slug back.
      let requested = prepared.requestedSlug
      if (existing.status === 'trash' && post.status !== 'trash' && requested === undefined) {
        const desired = (await getMeta(tx, [post.id])).get(post.id)?._desired_slug
        if (typeof desired === 'string') requested = desired
        await setMeta(tx, post.id, {}, ['_desired_slug', '_trash_meta_status', '_trash_meta_time'])
      }
      const slug = await resolveSlug(tx, spec, post, requested)
      if (slug !== post.slug) {
        const [renamed] = await tx.update(posts).set({ slug }).where(eq(posts.id, post.id)).returning()
        post = renamed!
      }
    }

    // Builder data's JSON text, made in the text pool, is written as it is (storedValues).
    if (prepared.meta !== undefined && (existing !== undefined || meta === undefined)) await setMeta(tx, post.id, storedValues(prepared.meta.set, prepared.meta.stored), prepared.meta.remove)
    if (opts.also !== undefined) await opts.also(tx, post)

    if (spec.hasTerms && existing !== undefined) {
      const before = await termIdsOfPost(tx, post.id)
      let categories = prepared.categories
      if (categories === undefined) {
        const current = await existingTermIds(tx, 'category', before)
        // A post always has a category unless one was explicitly removed.
        if (current.length === 0) categories = await existingTermIds(tx, 'category', [settings.defaultCategory])
      }
      const after: number[] = []
      if (categories !== undefined) after.push(...await setPostTerms(tx, post.id, 'category', categories))
      if (prepared.tags !== undefined) after.push(...await setPostTerms(tx, post.id, 'post_tag', prepared.tags))
      await recountTerms(tx, [...before, ...after])
    }

    if (opts.revision && existing !== undefined) await saveRevisionIfChanged(tx, post, user.id, settings)
    return { post, newTerms }
  })
}
