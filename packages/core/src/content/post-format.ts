/**
 * How a stored post becomes a response: every field in the core's order
 * (the route schema's contexts then remove what the context hides), the
 * class list, and the links.
 */
import { parseFields, rel, restUrl, wantsField, type Link, type Links, type Principal, type RestRequest } from '@cms/rest'
import type { Store } from '@cms/store'
import { formatGmt, formatLocal } from '../base/dates.js'
import { metaResponse } from '../platform/meta.js'
import { postExtras, uniquePostSlug, type AnsweredTerms, type PostRow, type RevisionStats } from './post-store.js'
import { permalink, type PostType, type SiteSettings } from './post-types.js'
import { hasBlocksSliced } from '../text/render.js'
import { keptContent, keptExcerpt, keptTitle, renderedContent, renderedExcerpt, renderedTitle } from './render-cache.js'
import { htmlClass } from '../text/slugs.js'
import { textPool } from '../text/text-pool.js'

export interface PostExtras {
  meta: Record<string, unknown>
  /** What the answer shows of the terms (a read's full rows, or a create's cms_insert_post gave). */
  terms: AnsweredTerms
  revisions: RevisionStats
}

/** Meta, terms and revision counts of many posts (one statement). */
export async function loadExtras (db: Store, rows: PostRow[]): Promise<Map<number, PostExtras>> {
  return await postExtras(db, rows.map((r) => r.id))
}

/** What a post-like capability check needs, front page and posts page included. */
export function capObject (post: PostRow, settings?: SiteSettings): { type: string, author: number, status: string, isSpecialPage: boolean } {
  const special = settings !== undefined && post.type === 'page' && (post.id === settings.pageOnFront || post.id === settings.pageForPosts)
  return { type: post.type, author: post.author, status: post.status, isSpecialPage: special }
}

/** What the read and edit checks look at: the readability rule of lists asks them of (type, status, author) triples. */
export type PostKind = Pick<PostRow, 'type' | 'author' | 'status'>

/** Whether the caller may read the post (published posts are public). */
export function canRead (user: Principal, post: PostKind): boolean {
  if (post.status === 'publish') return true
  return user.can('read_post', { type: post.type, author: post.author, status: post.status })
}

export function canEdit (user: Principal, post: PostKind): boolean {
  return user.can('edit_post', { type: post.type, author: post.author, status: post.status })
}

/** The post's effective date: its own, or its last save while floating. */
export function effectiveDate (post: PostRow): Date {
  return post.dateGmt ?? post.modifiedGmt
}

export interface FormatOptions {
  req: RestRequest
  spec: PostType
  settings: SiteSettings
  context: string
  excerptLength?: number
  store: Store
  /** The post's slug was just made unique by this request: it is its generated slug. */
  slugIsUnique?: boolean
  /**
   * The fields registered for the type (fields.ts): when `_fields` asks for
   * one, every field is computed, as its getter reads the formatted object
   * (any of its fields) before the kernel filters it.
   */
  registered?: ReadonlyArray<{ name: string }>
}

/** Whether protected content is shown: edit rights in edit context, or the right password. */
export function unlocked (post: PostRow, opts: Pick<FormatOptions, 'req' | 'context'>): boolean {
  const given = opts.req.params.password
  return textVisible(opts.req.user, post, opts.context === 'edit', typeof given === 'string' ? given : undefined)
}

function textVisible (user: Principal, post: PostKind & { password: string }, editing: boolean, password: string | undefined): boolean {
  if (post.password === '') return true
  if (editing && canEdit(user, post)) return true
  return password !== undefined && password !== '' && password === post.password
}

/** What a caller may see of one post (see {@link postVisibility}). */
export interface PostVisibility {
  /** The post at all (its status and author allow this caller to read it). */
  read: boolean
  /** Edit rights: the fields only editors see (raw values, SEO fields, edit links). */
  edit: boolean
  /**
   * Its content, excerpt and anything derived from them: the post is not
   * password-protected, or the caller may edit it, or gave its password.
   * Never true when `read` is false.
   */
  text: boolean
}

/**
 * The one answer to "may this caller see this post, and which of its
 * fields", as cms/v2 reads apply it (status and author through `read_post`
 * and `edit_post`; a password-protected post's text to its editors, in edit
 * context, or with the password): every package route that returns posts or
 * data derived from them asks it of each row. A list asks it in SQL through
 * `api.content.posts({ as: user })`, the same rule.
 */
export function postVisibility (user: Principal, post: PostKind & { password: string }, opts: { password?: string } = {}): PostVisibility {
  const read = canRead(user, post)
  const edit = read && canEdit(user, post)
  return { read, edit, text: read && textVisible(user, post, true, opts.password) }
}

export function postRoute (spec: PostType, id?: number): string {
  return id === undefined ? `/cms/v2/${spec.restBase}` : `/cms/v2/${spec.restBase}/${id}`
}

/** A REST URL with query arguments, its `rest_route` percent-encoded as the core writes it. */
export function restUrlWithQuery (baseUrl: string, route: string, query: Record<string, string | number>): string {
  let url = `${baseUrl}/index.php?rest_route=${encoded(route)}`
  for (const [k, v] of Object.entries(query)) {
    // An integer's digits (and sign) are what encodeURIComponent leaves as they are.
    url += `&${encoded(k)}=${typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : encodeURIComponent(String(v))}`
  }
  return url
}

/**
 * Routes and argument names percent-encoded, kept: a page's links encode the
 * same few constant ones for every post (four links a post); bounded, as a
 * caller's own values could be passed.
 */
const encodings = new Map<string, string>()
function encoded (text: string): string {
  let out = encodings.get(text)
  if (out === undefined) {
    out = encodeURIComponent(text)
    if (encodings.size < 256) encodings.set(text, out)
  }
  return out
}

function classList (post: PostRow, extras: PostExtras, spec: PostType, isUnlocked: boolean): string[] {
  const classes = [`post-${post.id}`, post.type, `type-${post.type}`, `status-${post.status}`]
  if (spec.hasTerms) classes.push(`format-${post.format === '' ? 'standard' : htmlClass(post.format)}`)
  if (post.password !== '') classes.push(isUnlocked ? 'post-password-protected' : 'post-password-required')
  if (post.featuredMedia !== 0 && isUnlocked) classes.push('has-post-thumbnail')
  classes.push('hentry')
  if (spec.hasTerms) {
    for (const term of extras.terms.category) classes.push(`category-${termClass(term.slug, term.id)}`)
    for (const term of extras.terms.post_tag) classes.push(`tag-${termClass(term.slug, term.id)}`)
    if (post.format !== 'standard' && post.format !== '') classes.push(`post_format-post-format-${htmlClass(post.format)}`)
  }
  return classes
}

function termClass (slug: string, id: number): string {
  const cls = htmlClass(slug)
  return /^\d+$/.test(cls) || cls.replace(/^-+|-+$/g, '') === '' ? String(id) : cls
}

/** Methods the caller may use on the post's own URL. */
export function allowedMethods (user: Principal, post: PostRow, settings: SiteSettings): string[] {
  const methods = ['GET']
  if (canEdit(user, post)) methods.push('POST', 'PUT', 'PATCH')
  if (user.can('delete_post', capObject(post, settings))) methods.push('DELETE')
  return methods
}

export function postLinks (post: PostRow, extras: PostExtras, opts: FormatOptions): Links {
  const { req, spec, settings } = opts
  const base = req.baseUrl
  const self = restUrl(base, postRoute(spec, post.id))
  const links: Links = {
    self: [{ href: self, targetHints: { allow: allowedMethods(req.user, post, settings) } }],
    collection: [{ href: restUrl(base, postRoute(spec)) }],
    about: [{ href: restUrl(base, `/cms/v2/types/${spec.type}`) }]
  }
  if (post.author !== 0) links.author = [{ embeddable: true, href: restUrl(base, `/cms/v2/users/${post.author}`) }]
  // Posts and pages take comments (the comments routes, under the same namespace).
  if (spec.type === 'post' || spec.type === 'page') links.replies = [{ embeddable: true, href: restUrlWithQuery(base, '/cms/v2/comments', { post: post.id }) }]
  const { count, latestId } = extras.revisions
  links['version-history'] = [{ count, href: restUrl(base, `${postRoute(spec, post.id)}/revisions`) }]
  if (count > 0) links['predecessor-version'] = [{ id: latestId, href: restUrl(base, `${postRoute(spec, post.id)}/revisions/${latestId}`) }]
  if (spec.hierarchical && post.parent !== 0) links.up = [{ embeddable: true, href: restUrl(base, `/cms/v2/${spec.restBase}/${post.parent}`) }]
  if (post.featuredMedia !== 0) links[rel('featuredmedia')] = [{ embeddable: true, href: restUrl(base, `/cms/v2/media/${post.featuredMedia}`) }]
  links[rel('attachment')] = [{ href: restUrlWithQuery(base, '/cms/v2/media', { parent: post.id }) }]
  if (spec.hasTerms) {
    links[rel('term')] = [
      { taxonomy: 'category', embeddable: true, href: restUrlWithQuery(base, '/cms/v2/categories', { post: post.id }) },
      { taxonomy: 'post_tag', embeddable: true, href: restUrlWithQuery(base, '/cms/v2/tags', { post: post.id }) }
    ]
  }
  if (opts.context === 'edit') {
    const action = (name: string): void => { links[rel(`action-${name}`)] = [{ href: self } as Link] }
    const user = req.user
    const plural = spec.restBase
    if (user.can(`publish_${plural}`)) action('publish')
    if (user.can('unfiltered_html')) action('unfiltered-html')
    if (spec.hasTerms && user.can(`edit_others_${plural}`) && user.can(`publish_${plural}`)) action('sticky')
    if (user.can(`edit_others_${plural}`)) action('assign-author')
    if (spec.hasTerms) {
      if (user.can('manage_categories')) action('create-categories')
      if (user.can('assign_categories')) action('assign-categories')
      if (user.can('assign_post_tags')) action('create-tags')
      if (user.can('assign_post_tags')) action('assign-tags')
    }
  }
  return links
}

/** The `_fields` a request names (undefined: every field), parsed once per request. */
const fieldLists = new WeakMap<object, string[] | undefined>()
export function fieldsOf (req: RestRequest): string[] | undefined {
  const query = req.query
  if (fieldLists.has(query)) return fieldLists.get(query)
  const fields = query._fields === undefined ? undefined : parseFields(query._fields)
  fieldLists.set(query, fields)
  return fields
}

/**
 * The post in the core's key order; the route schema filters it by context.
 * What `_fields` leaves out is not computed (rendered text, meta, the links,
 * the class list, an edit context's generated slug): the answer is the same,
 * since the kernel would drop it (`_links` is kept when `_links` or
 * `_embedded` is asked, as the kernel keeps it); all of it where fields are
 * registered for the type and asked (`registered`).
 */
export async function formatPost (post: PostRow, extras: PostExtras, opts: FormatOptions): Promise<Record<string, unknown>> {
  const { spec, settings, context } = opts
  const asked = fieldsOf(opts.req)
  // No closure per post here: this runs for every post of every page.
  const fields = asked === undefined || opts.registered === undefined || opts.registered.length === 0 || !opts.registered.some((f) => wantsField(asked, f.name)) ? asked : undefined
  const tz = settings.timeZone
  const date = effectiveDate(post)
  const open = unlocked(post, opts)
  const link = permalink(settings.home, post.type, post.id)
  const out: Record<string, unknown> = {
    id: post.id,
    date: formatLocal(date, tz),
    date_gmt: formatGmt(date),
    guid: { rendered: post.guid, raw: post.guid },
    modified: formatLocal(post.modifiedGmt, tz),
    modified_gmt: formatGmt(post.modifiedGmt),
    password: post.password,
    slug: post.slug,
    status: post.status,
    type: post.type,
    link
  }
  if (wantsField(fields, 'title')) out.title = { raw: post.title, rendered: keptTitle(post.title) ?? await renderedTitle(post.title) }
  if (context !== 'embed' && wantsField(fields, 'content')) {
    out.content = {
      raw: post.content,
      rendered: open ? keptContent(post.content, opts.settings.useSmilies) ?? await renderedContent(post.content, opts.settings.useSmilies) : '',
      protected: post.password !== '',
      block_version: await hasBlocksSliced(post.content) ? 1 : 0
    }
  }
  if (wantsField(fields, 'excerpt')) {
    out.excerpt = {
      raw: post.excerpt,
      rendered: open ? keptExcerpt(post.excerpt, post.content, opts.excerptLength, opts.settings.useSmilies) ?? await renderedExcerpt(post.excerpt, post.content, opts.excerptLength, opts.settings.useSmilies) : '',
      protected: post.password !== ''
    }
  }
  out.author = post.author
  out.featured_media = post.featuredMedia
  if (spec.hierarchical) {
    out.parent = post.parent
    out.menu_order = post.menuOrder
  }
  out.comment_status = post.commentStatus
  out.ping_status = post.pingStatus
  if (spec.hasTerms) out.sticky = post.sticky
  out.template = post.template
  if (spec.hasTerms) out.format = post.format
  if (wantsField(fields, 'meta')) out.meta = metaResponse(opts.settings.meta, extras.meta)
  if (spec.hasTerms) {
    out.categories = extras.terms.category.map((t) => t.id)
    out.tags = extras.terms.post_tag.map((t) => t.id)
  }
  if (context === 'edit') {
    out.permalink_template = link
    if (wantsField(fields, 'generated_slug')) {
      out.generated_slug = opts.slugIsUnique === true && post.slug !== ''
        ? post.slug
        : await uniquePostSlug(opts.store, post.slug !== '' ? post.slug : await textPool.slug(post.title, String(post.id)), {
          id: post.id, type: post.type, parent: post.parent, hierarchical: spec.hierarchical
        })
    }
  }
  if (wantsField(fields, 'class_list')) out.class_list = classList(post, extras, spec, open)
  if (wantsField(fields, '_links') || wantsField(fields, '_embedded')) out._links = postLinks(post, extras, opts)
  return out
}
