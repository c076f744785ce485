/**
 * `/cms/v2/comments` and `/cms/v2/comments/{id}`: the core CMS's comments
 * resource. Lists show what the caller may read (filtered in SQL); creating
 * needs a signed-in caller unless the site takes anonymous comments
 * (`CMS_COMMENTS_ANONYMOUS=1`), a post that is open, readable and not a
 * draft, and passes the duplicate, flood and moderation rules
 * (moderation.ts); editing and deleting need `moderate_comments` or the
 * right to edit the post (the core's `edit_comment`). Where the core's
 * behaviour is a bug this follows docs/guides/comments.md.
 */
import { sql } from 'drizzle-orm'
import { Type } from '@sinclair/typebox'
import {
  collectionParams, check, contextParam, handlerChecked, denied, endpoint, Enum, field, IntList, invalidParam, itemSchema, pageHeaders, createdAt, restUrl, route, RestResponse, who,
  RestError, secret, type EndpointExample, type Links, type Params, type Principal, type RelativeRouteDecl, type RestRequest
} from '@cms/rest'
import { getOptions } from '@cms/store'
import { keptBySettings } from '../base/read-cache.js'
import type { ContentServices as Services } from '../content/services.js'
import {
  canEdit, canRead, formatGmt, formatLocal, metaResponse, parseRequestDate, permalink, readPostFor, requestSettings, textParam, type PostRow
} from '../content/index.js'
import { metaSchema, parseMetaParam } from '../platform/meta.js'
import { textPool } from '../text/text-pool.js'
import { postVisibility, restUrlWithQuery } from '../content/post-format.js'
import { idOf } from '../content/post-store.js'
import { findUserById, isEmail } from '../users/store.js'
import { avatarUrls } from '../users/users-routes.js'
import { commentErrors } from './errors.js'
import { discussionSettings, initialStatus, linkCount, refuseDuplicate, refuseFlood, type Candidate } from './moderation.js'
import { comments } from './schema.js'
import {
  COMMENT_STATUSES, deleteComment, depthOf, getComment, getCommentMeta, listComments, statusesOf, withChildren, writeCommentMeta,
  type CommentRow, type CommentStatus, type Viewer
} from './store.js'

const ALL = ['view', 'edit', 'embed']
const VE = ['view', 'edit']
const EDIT = ['edit']

/** The core's column limits (`wp_check_comment_data_max_lengths`), each refused with its own code. */
const MAX_LENGTHS = [
  ['authorName', 245, 'comment_author_column_length'],
  ['authorEmail', 100, 'comment_author_email_column_length'],
  ['authorUrl', 200, 'comment_author_url_column_length'],
  ['content', 65525, 'comment_content_column_length']
] as const

/** The statuses an update may ask for, as the core's `handle_status_param` reads them. */
const STATUS_CHANGES = ['approved', 'approve', '1', 'hold', '0', 'spam', 'unspam', 'trash', 'untrash'] as const

function commentSchema (services: Services) {
  return itemSchema('comment', {
    id: field({ description: 'Unique identifier for the comment.', type: 'integer', context: ALL, readonly: true }),
    author: field({ description: 'The ID of the user object, if author was a user.', type: 'integer', context: ALL }),
    author_email: field({ description: 'Email address for the comment author.', type: 'string', format: 'email', context: EDIT }),
    author_ip: field({ description: 'IP address for the comment author.', type: 'string', format: 'ip', context: EDIT }),
    author_name: field({ description: 'Display name for the comment author.', type: 'string', context: ALL }),
    author_url: field({ description: 'URL for the comment author.', type: 'string', format: 'uri', context: ALL }),
    author_user_agent: field({ description: 'User agent for the comment author.', type: 'string', context: EDIT }),
    content: field({
      description: 'The content for the comment.',
      type: 'object',
      context: ALL,
      properties: {
        raw: { description: 'Content for the comment, as it exists in the database.', type: 'string', context: EDIT },
        rendered: { description: 'HTML content for the comment, transformed for display.', type: 'string', context: ALL, readonly: true }
      }
    }),
    date: field({ description: "The date the comment was published, in the site's timezone.", type: 'string', format: 'date-time', context: ALL }),
    date_gmt: field({ description: 'The date the comment was published, as GMT.', type: 'string', format: 'date-time', context: VE }),
    link: field({ description: 'URL to the comment.', type: 'string', format: 'uri', context: ALL, readonly: true }),
    parent: field({ description: 'The ID for the parent of the comment.', type: 'integer', context: ALL, default: 0 }),
    post: field({ description: 'The ID of the associated post object.', type: 'integer', context: VE, default: 0 }),
    status: field({ description: 'State of the comment.', type: 'string', context: VE }),
    type: field({ description: 'Type of the comment.', type: 'string', context: ALL, readonly: true }),
    author_avatar_urls: field({
      description: 'Avatar URLs for the comment author.',
      type: 'object',
      context: ALL,
      readonly: true,
      properties: {
        24: { description: 'Avatar URL with image size of 24 pixels.', type: 'string', format: 'uri', context: ALL },
        48: { description: 'Avatar URL with image size of 48 pixels.', type: 'string', format: 'uri', context: ALL },
        96: { description: 'Avatar URL with image size of 96 pixels.', type: 'string', format: 'uri', context: ALL }
      }
    }),
    meta: field({ description: 'Meta fields.', type: 'object', context: VE, properties: metaSchema(services.commentMeta) })
  })
}

/** `true` when a caller moderates comments. */
const moderates = (user: Principal): boolean => user.id !== 0 && user.can('moderate_comments')

/**
 * Whether the caller may read the post for a comment (the core's
 * `check_read_post_permission`): the core's visibility rule for its text,
 * so a password-protected post needs its password or edit rights.
 */
function mayReadPost (user: Principal, post: PostRow, password: string | undefined): boolean {
  return postVisibility(user, post, password === undefined ? {} : { password }).text
}

/** The core's `edit_comment`: moderators, or whoever may edit the comment's post. */
function mayEditComment (user: Principal, post: PostRow | undefined): boolean {
  if (user.id === 0) return false
  if (moderates(user)) return true
  return post !== undefined && canEdit(user, post)
}

export function commentRoutes (services: Services): RelativeRouteDecl[] {
  const { store } = services
  const schema = commentSchema(services)
  const collection = '/cms/v2/comments'

  const { context, page, per_page, search, exclude, include, offset, order } = collectionParams({
    schema,
    ids: true,
    orderby: { enum: ['date_gmt'], default: 'date_gmt', description: '' }
  })
  const listArgs = {
    context,
    page,
    per_page,
    search,
    after: Type.Optional(Type.String({ description: 'Limit response to comments published after a given ISO8601 compliant date.', format: 'date-time' })),
    author: Type.Optional(IntList({ description: 'Limit result set to comments assigned to specific user IDs. Requires authorization.' })),
    author_exclude: Type.Optional(IntList({ description: 'Ensure result set excludes comments assigned to specific user IDs. Requires authorization.' })),
    author_email: Type.Optional(Type.String({ description: 'Limit result set to that from a specific author email. Requires authorization.', format: 'email' })),
    before: Type.Optional(Type.String({ description: 'Limit response to comments published before a given ISO8601 compliant date.', format: 'date-time' })),
    exclude,
    include,
    offset,
    order,
    orderby: Enum(['date', 'date_gmt', 'id', 'include', 'post', 'parent', 'type'] as const, { description: 'Sort collection by comment attribute.', default: 'date_gmt' }),
    parent: IntList({ description: 'Limit result set to comments of specific parent IDs.', default: [] }),
    parent_exclude: IntList({ description: 'Ensure result set excludes specific parent IDs.', default: [] }),
    post: IntList({ description: 'Limit result set to comments assigned to specific post IDs.', default: [] }),
    status: Type.String({ description: 'Limit result set to comments assigned a specific status. Requires authorization.', default: 'approve' }),
    type: Type.String({ description: 'Limit result set to comments assigned a specific type. Requires authorization.', default: 'comment' }),
    password: Type.Optional(Type.String({ description: 'The password for the post if it is password protected.' }))
  }
  const writable = {
    author: Type.Optional(Type.Integer({ description: 'The ID of the user object, if author was a user.' })),
    author_email: Type.Optional(Type.String({ description: 'Email address for the comment author.', format: 'email' })),
    author_ip: Type.Optional(Type.String({ description: 'IP address for the comment author.', format: 'ip' })),
    author_name: Type.Optional(Type.String({ description: 'Display name for the comment author.' })),
    author_url: Type.Optional(Type.String({ description: 'URL for the comment author.', format: 'uri' })),
    author_user_agent: Type.Optional(Type.String({ description: 'User agent for the comment author.' })),
    content: Type.Optional(Type.Unsafe<unknown>({ description: 'The content for the comment.', type: ['object', 'string'], properties: { raw: { type: 'string' } } })),
    date: Type.Optional(Type.String({ description: "The date the comment was published, in the site's timezone.", format: 'date-time' })),
    date_gmt: Type.Optional(Type.String({ description: 'The date the comment was published, as GMT.', format: 'date-time' })),
    parent: Type.Optional(Type.Integer({ description: 'The ID for the parent of the comment.', minimum: 0 })),
    post: Type.Optional(Type.Integer({ description: 'The ID of the associated post object.', minimum: 0 })),
    status: Type.Optional(Type.String({ description: 'State of the comment.' })),
    meta: Type.Optional(Type.Unsafe<unknown>({ description: 'Meta fields.', type: 'object' }))
  }
  const args = {
    list: listArgs,
    create: {
      ...writable,
      post: Type.Integer({ description: 'The ID of the associated post object.', minimum: 0, default: 0 }),
      type: Type.Optional(Type.String({ description: 'Type of the comment.' })),
      // Read as the core reads it: a create naming an id is refused.
      id: handlerChecked('Refused: a new comment has no id yet.')
    },
    read: { context: contextParam(schema), password: Type.Optional(Type.String({ description: 'The password for the parent post of the comment (if the post is password protected).' })) },
    update: { ...writable, type: Type.Optional(Type.String({ description: 'Type of the comment.' })) },
    remove: {
      force: Type.Boolean({ description: 'Whether to bypass Trash and force deletion.', default: false }),
      password: secret(Type.Optional(Type.String({ description: 'The password for the parent post of the comment (if the post is password protected).' })))
    }
  }

  // --- formatting ---------------------------------------------------------------

  const format = async (rows: readonly CommentRow[], req: RestRequest): Promise<Array<Record<string, unknown>>> => {
    const settings = await requestSettings(store, req, services.meta)
    const options = await discussionDisplay(req)
    const off = await req.registry.off(req)
    const ids = rows.map((r) => r.id)
    const [metas, parents, postRows, users] = await Promise.all([
      getCommentMeta(store, ids),
      withChildren(store, ids),
      Promise.all([...new Set(rows.map((r) => r.postId ?? 0).filter((id) => id !== 0))].map(async (id) => await postOf(req, id))),
      Promise.all([...new Set(rows.map((r) => r.userId).filter((id) => id !== 0))].map(async (id) => await findUserById(store, id)))
    ])
    const postsById = new Map(postRows.filter((p) => p !== undefined).map((p) => [p.id, p]))
    const emails = new Map(users.filter((u) => u !== undefined).map((u) => [u.id, u.email]))
    const base = req.baseUrl
    return await Promise.all(rows.map(async (c) => {
      const post = c.postId === null ? undefined : postsById.get(c.postId)
      const out: Record<string, unknown> = {
        id: c.id,
        post: c.postId ?? 0,
        parent: c.parent,
        author: c.userId,
        author_name: c.authorName,
        author_email: c.authorEmail,
        author_url: c.authorUrl,
        author_ip: c.authorIp,
        author_user_agent: c.authorAgent,
        date: formatLocal(c.dateGmt, settings.timeZone),
        date_gmt: formatGmt(c.dateGmt),
        content: { rendered: await textPool.renderComment(c.content, options.smilies), raw: c.content },
        link: post === undefined ? `${settings.home}/#comment-${c.id}` : `${permalink(settings.home, post.type, post.id)}#comment-${c.id}`,
        status: c.status,
        type: c.type
      }
      if (options.avatars) out.author_avatar_urls = avatarUrls(emails.get(c.userId) ?? c.authorEmail)
      out.meta = metaResponse(services.commentMeta.visible(off), metas.get(c.id) ?? {})
      const links: Links = {
        self: [{ href: restUrl(base, `${collection}/${c.id}`) }],
        collection: [{ href: restUrl(base, collection) }]
      }
      if (c.userId !== 0) links.author = [{ embeddable: true, href: restUrl(base, `/cms/v2/users/${c.userId}`) }]
      if (post !== undefined) {
        const restBase = post.type === 'page' ? 'pages' : 'posts'
        links.up = [{ embeddable: true, post_type: post.type, href: restUrl(base, `/cms/v2/${restBase}/${post.id}`) }]
      }
      if (c.parent !== 0) links['in-reply-to'] = [{ embeddable: true, href: restUrl(base, `${collection}/${c.parent}`) }]
      if (parents.has(c.id)) links.children = [{ embeddable: true, href: restUrlWithQuery(base, collection, { parent: c.id }) }]
      out._links = links
      return out
    }))
  }
  const formatOne = async (row: CommentRow, req: RestRequest): Promise<Record<string, unknown>> => (await format([row], req))[0]!

  // Options kept by the settings epoch, as the site settings are (requestSettings): a comment written or
  // shown reads none while nobody changed them.
  const discussionDisplay = async (req: RestRequest): Promise<{ smilies: boolean, avatars: boolean }> =>
    await keptBySettings(store, req, 'comments:display', async () => {
      const o = await getOptions(store, ['use_smilies', 'show_avatars'])
      return { smilies: Number(o.use_smilies) === 1, avatars: Number(o.show_avatars) === 1 }
    })
  const discussion = async (req: RestRequest): Promise<Record<string, string | number>> =>
    await keptBySettings(store, req, 'comments:discussion', async () => await discussionSettings(store))

  /**
   * A post a request names, read once per request: the permission, the
   * handler and the answer's links of one request read the same row (a
   * comment's write changes none of what they read of it); a read request's
   * through the posts' own cache (readPostFor).
   */
  const postOf = async (req: RestRequest, id: number): Promise<PostRow | undefined> =>
    await req.memo(`comments:post:${id}`, async () => await readPostFor(store, req, id))

  // --- list ---------------------------------------------------------------------

  const listPermission = async (req: RestRequest<Params<typeof args.list>>): Promise<true | RestError> => {
    const p = req.params
    const user = req.user
    for (const id of p.post) {
      const post = id === 0 ? undefined : await postOf(req, id)
      const password = p.post.length === 1 ? p.password : undefined
      if (id !== 0 && post !== undefined && !mayReadPost(user, post, password)) {
        return denied(commentErrors.rest_cannot_read_post(), user.id)
      }
      if (id === 0 && !moderates(user)) return denied(commentErrors.rest_cannot_read(undefined, 'Sorry, you are not allowed to read comments without a post.'), user.id)
    }
    if (p.context === 'edit' && !moderates(user)) {
      return denied(commentErrors.rest_forbidden_context(undefined, 'Sorry, you are not allowed to edit comments.'), user.id)
    }
    if (!user.can('edit_posts')) {
      const forbidden: string[] = []
      if ((p.author?.length ?? 0) > 0) forbidden.push('author')
      if ((p.author_exclude?.length ?? 0) > 0) forbidden.push('author_exclude')
      if (p.author_email !== undefined && p.author_email !== '') forbidden.push('author_email')
      if (p.type !== 'comment') forbidden.push('type')
      if (p.status !== 'approve') forbidden.push('status')
      if (forbidden.length > 0) return denied(commentErrors.rest_forbidden_param(undefined, `Query parameter not permitted: ${forbidden.join(', ')}`), user.id)
    }
    return true
  }

  const list = async (req: RestRequest<Params<typeof args.list>>): Promise<RestResponse> => {
    const p = req.params
    const settings = await requestSettings(store, req, services.meta)
    const date = (value: string | undefined, name: string): Date | undefined => {
      if (value === undefined) return undefined
      const d = parseRequestDate(value, settings.timeZone)
      if (d === null) throw invalidParam(name, 'Invalid date.')
      return d
    }
    const single = p.post.length === 1 && p.post[0] !== 0 && p.password !== undefined ? { id: p.post[0]!, password: p.password } : undefined
    const viewer: Viewer = { user: req.user, moderator: moderates(req.user), ...(single === undefined ? {} : { unlockedPost: single }) }
    const perPage = p.per_page
    const { rows, total } = await listComments(store, {
      statuses: statusesOf(p.status),
      type: p.type,
      posts: p.post,
      parents: p.parent,
      parentExclude: p.parent_exclude,
      include: p.include,
      exclude: p.exclude,
      authors: p.author ?? [],
      authorExclude: p.author_exclude ?? [],
      authorEmail: p.author_email,
      after: date(p.after, 'after'),
      before: date(p.before, 'before'),
      search: p.search,
      searchPrivate: viewer.moderator,
      orderby: p.orderby,
      order: p.order,
      limit: perPage,
      offset: p.offset ?? (p.page - 1) * perPage,
      viewer
    })
    // As the core: a page past the end is an empty list, not an error.
    return new RestResponse(await format(rows, req), 200, pageHeaders(req, { total, perPage, page: p.page }))
  }

  // --- one comment ---------------------------------------------------------------

  /** The comment a request names, with its post (once per request); the core's `get_comment`. */
  const load = async (req: RestRequest): Promise<{ comment: CommentRow, post: PostRow | undefined } | RestError> => await req.memo(`comment:${String(req.params.id)}`, async () => {
    const comment = await getComment(store, idOf(req.params.id))
    if (comment === undefined) return commentErrors.rest_comment_invalid_id()
    if (comment.postId === null) return { comment, post: undefined }
    const post = await postOf(req, comment.postId)
    if (post === undefined) return commentErrors.rest_post_invalid_id()
    return { comment, post }
  })
  const forget = (req: RestRequest): void => { req.memo.forget(`comment:${String(req.params.id)}`) }

  /** The core's `check_read_permission` of one comment. */
  const mayRead = (user: Principal, comment: CommentRow, post: PostRow | undefined, password: string | undefined): boolean => {
    if (post !== undefined && comment.status === 'approved' && mayReadPost(user, post, password)) return true
    if (user.id === 0) return false
    if (post === undefined) return moderates(user)
    if (!canRead(user, post)) return false
    return comment.userId === user.id || mayEditComment(user, post)
  }

  const readPermission = async (req: RestRequest): Promise<true | RestError> => {
    const found = await load(req)
    if (!('comment' in found)) return found
    const { comment, post } = found
    const user = req.user
    if (req.params.context === 'edit' && !moderates(user)) {
      return denied(commentErrors.rest_forbidden_context(undefined, 'Sorry, you are not allowed to edit comments.'), user.id)
    }
    const password = typeof req.params.password === 'string' ? req.params.password : undefined
    if (!mayRead(user, comment, post, password)) return denied(commentErrors.rest_cannot_read(), user.id)
    if (post !== undefined && !mayReadPost(user, post, password) && !(comment.userId === user.id && user.id !== 0) && !mayEditComment(user, post)) {
      return denied(commentErrors.rest_cannot_read_post(), user.id)
    }
    return true
  }

  const read = async (req: RestRequest): Promise<unknown> => {
    const { comment } = await load(req) as { comment: CommentRow }
    return await formatOne(comment, req)
  }

  // --- create --------------------------------------------------------------------

  const anonymousAllowed = services.settings.commentsAnonymous === true

  const createPermission = async (req: RestRequest<Params<typeof args.create>>): Promise<true | RestError> => {
    const p = req.params
    const user = req.user
    // Refused before anything else: the site does not take anonymous comments.
    if (user.id === 0 && !anonymousAllowed) return commentErrors.rest_comment_login_required()
    const moderator = moderates(user)
    if (p.author !== undefined && p.author !== user.id && !moderator) return denied(commentErrors.rest_comment_invalid_author(), user.id)
    if (p.author_ip !== undefined && !moderator && p.author_ip !== req.ip) return denied(commentErrors.rest_comment_invalid_author_ip(), user.id)
    if (p.status !== undefined && !moderator) return denied(commentErrors.rest_comment_invalid_status(), user.id)
    if (p.post === 0 && !moderator) return commentErrors.rest_comment_invalid_post_id()
    if (p.post === 0) return true
    const post = await postOf(req, p.post)
    if (post === undefined || post.type === 'revision') return commentErrors.rest_comment_invalid_post_id()
    if (post.status === 'draft' || post.status === 'auto-draft') return commentErrors.rest_comment_draft_post()
    if (post.status === 'trash') return commentErrors.rest_comment_trash_post()
    if (!mayReadPost(user, post, undefined)) return denied(commentErrors.rest_cannot_read_post(), user.id)
    if (!(await commentsOpen(req, post))) return commentErrors.rest_comment_closed()
    return true
  }

  const commentsOpen = async (req: RestRequest, post: PostRow): Promise<boolean> => {
    if (post.commentStatus !== 'open') return false
    if (post.type !== 'post' && post.type !== 'page') return false
    const o = await discussion(req)
    if (Number(o.close_comments_for_old_posts) === 1 && post.type === 'post') {
      const days = Number(o.close_comments_days_old)
      const published = (post.dateGmt ?? post.modifiedGmt).getTime()
      if (days > 0 && Date.now() - published > days * 86_400_000) return false
    }
    return true
  }

  /** Values of a create or update as stored columns; `undefined` for what the request does not set. */
  const prepare = async (req: RestRequest): Promise<Partial<CommentRow>> => {
    const p = req.params as Params<typeof args.update>
    const row: Partial<CommentRow> = {}
    if (p.post !== undefined) row.postId = p.post === 0 ? null : p.post
    if (p.parent !== undefined) row.parent = p.parent
    if (p.author !== undefined) {
      const user = await findUserById(store, p.author)
      if (user === undefined) throw commentErrors.rest_comment_author_invalid()
      Object.assign(row, { userId: user.id, authorName: user.displayName, authorEmail: user.email, authorUrl: user.url })
    }
    if (p.author_name !== undefined) row.authorName = plainText(p.author_name)
    if (p.author_email !== undefined) row.authorEmail = p.author_email.trim()
    if (p.author_url !== undefined) row.authorUrl = p.author_url.trim()
    if (p.author_ip !== undefined && moderates(req.user)) row.authorIp = p.author_ip
    if (p.author_user_agent !== undefined && p.author_user_agent !== '') row.authorAgent = plainText(p.author_user_agent)
    const content = textParam(p.content)
    if (p.content !== undefined && content === undefined) throw invalidParam('content', 'content is not of type object,string.')
    // Comment text keeps the small inline set of markup (titles' set: the core's allowed tags for comments).
    if (content !== undefined) row.content = req.user.can('unfiltered_html') ? content.trim() : await textPool.filter(content.trim(), 'title')
    if (p.date !== undefined || p.date_gmt !== undefined) {
      const settings = await requestSettings(store, req, services.meta)
      const d = p.date !== undefined ? parseRequestDate(p.date, settings.timeZone) : parseRequestDate(p.date_gmt!, settings.timeZone, true)
      if (d === null) throw invalidParam(p.date !== undefined ? 'date' : 'date_gmt', 'Invalid date.')
      row.dateGmt = d
    }
    for (const [column, max, code] of MAX_LENGTHS) {
      const value = row[column]
      if (typeof value === 'string' && value.length > max) throw new RestError(code, 'Comment field exceeds maximum length allowed.', 400)
    }
    return row
  }

  /** Checks a parent: a comment on the same post, not deeper than the thread depth allows. */
  const checkParent = async (req: RestRequest, parent: number, postId: number | null, ownId = 0): Promise<void> => {
    if (parent === 0) return
    const found = await getComment(store, parent)
    if (found === undefined || found.postId !== postId || found.id === ownId) throw commentErrors.rest_comment_invalid_parent()
    const o = await discussion(req)
    if (Number(o.thread_comments) !== 1) throw commentErrors.rest_comment_invalid_parent(undefined, 'Threaded comments are turned off: a comment cannot reply to another.')
    const max = Number(o.thread_comments_depth)
    if (await depthOf(store, parent, max) > max) {
      throw commentErrors.rest_comment_invalid_parent(undefined, `Replies nest at most ${max} levels deep.`)
    }
  }

  const create = async (req: RestRequest<Params<typeof args.create>>): Promise<RestResponse> => {
    const p = req.params
    const user = req.user
    if (p.id !== undefined && p.id !== null && p.id !== '' && p.id !== 0) throw commentErrors.rest_comment_exists()
    if (p.type !== undefined && p.type !== 'comment') throw commentErrors.rest_invalid_comment_type()
    const row = await prepare(req)
    if ((row.content ?? '') === '') throw commentErrors.rest_comment_content_invalid()
    if (row.userId === undefined && user.id !== 0 && row.authorName === undefined && row.authorEmail === undefined && row.authorUrl === undefined) {
      const me = await findUserById(store, user.id)
      if (me !== undefined) Object.assign(row, { userId: me.id, authorName: me.displayName, authorEmail: me.email, authorUrl: me.url })
    }
    const settings = await discussion(req)
    const anonymous = user.id === 0
    if ((anonymous || Number(settings.require_name_email) === 1) && ((row.authorName ?? '') === '' || (row.authorEmail ?? '') === '' || !isEmail(row.authorEmail ?? ''))) {
      throw commentErrors.rest_comment_author_data_required()
    }
    const postId = p.post === 0 ? null : p.post
    await checkParent(req, p.parent ?? 0, postId)
    const post = postId === null ? undefined : await postOf(req, postId)
    const moderator = moderates(user)
    const date = row.dateGmt ?? new Date(Math.floor(Date.now() / 1000) * 1000)
    const candidate: Candidate = {
      postId: postId ?? 0,
      postAuthor: post?.author ?? 0,
      parent: p.parent ?? 0,
      userId: row.userId ?? 0,
      authorName: row.authorName ?? '',
      authorEmail: row.authorEmail ?? '',
      authorUrl: row.authorUrl ?? '',
      authorIp: row.authorIp ?? req.ip,
      authorAgent: row.authorAgent ?? plainText(String(req.headers['user-agent'] ?? '')).slice(0, 254),
      content: row.content!,
      date,
      links: linkCount(await textPool.renderComment(row.content!, false))
    }
    const meta = p.meta === undefined ? undefined : await parseMetaParam(services.commentMeta.visible(await req.registry.off(req)), p.meta, user)
    const wanted = p.status === undefined ? undefined : statusChange(p.status, 'hold', null)
    const created = await store.transaction(async (tx) => {
      // One writer per post at a time: the duplicate and flood checks see every comment before them.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('cms.comments'), ${candidate.postId})`)
      await refuseDuplicate(tx, candidate)
      if (!moderator && !user.can('manage_options')) await refuseFlood(tx, candidate, Number(settings.comment_flood_seconds))
      const status: CommentStatus = wanted?.status ?? await initialStatus(tx, candidate, moderator, settings)
      const [inserted] = await tx.insert(comments).values({
        postId,
        parent: candidate.parent,
        userId: candidate.userId,
        authorName: candidate.authorName,
        authorEmail: candidate.authorEmail,
        authorUrl: candidate.authorUrl,
        authorIp: candidate.authorIp,
        authorAgent: candidate.authorAgent,
        dateGmt: date,
        content: candidate.content,
        status,
        type: 'comment'
      }).returning()
      if (meta !== undefined) await writeCommentMeta(tx, inserted!.id, meta.set, meta.remove)
      return inserted!
    })
    return createdAt(req, await formatOne(created, req), created.id)
  }

  // --- update ---------------------------------------------------------------------

  const editPermission = (error: () => RestError) => async (req: RestRequest): Promise<true | RestError> => {
    const found = await load(req)
    if (!('comment' in found)) return found
    if (!mayEditComment(req.user, found.post)) return denied(error(), req.user.id)
    return true
  }

  const update = async (req: RestRequest<Params<typeof args.update>>): Promise<unknown> => {
    const p = req.params
    const { comment } = await load(req) as { comment: CommentRow }
    if (p.type !== undefined && p.type !== comment.type) throw commentErrors.rest_comment_invalid_type()
    const row = await prepare(req)
    if (row.content !== undefined && row.content === '') throw commentErrors.rest_comment_content_invalid()
    if (row.postId !== undefined && row.postId !== null && (await postOf(req, row.postId)) === undefined) {
      throw commentErrors.rest_comment_invalid_post_id(undefined, 'Invalid post ID.')
    }
    const postId = row.postId !== undefined ? row.postId : comment.postId
    if (row.parent !== undefined || row.postId !== undefined) await checkParent(req, row.parent ?? comment.parent, postId, comment.id)
    const change = p.status === undefined ? undefined : statusChange(p.status, comment.status as CommentStatus, comment.previousStatus)
    const meta = p.meta === undefined ? undefined : await parseMetaParam(services.commentMeta.visible(await req.registry.off(req)), p.meta, req.user, { id: comment.id, type: 'comment' })
    const updated = await store.transaction(async (tx) => {
      const set: Partial<CommentRow> = { ...row }
      if (change !== undefined && change.status !== comment.status) Object.assign(set, { status: change.status, previousStatus: change.previous })
      let out = comment
      if (Object.keys(set).length > 0) {
        const [r] = await tx.update(comments).set(set).where(sql`${comments.id} = ${comment.id}`).returning()
        out = r!
      }
      if (meta !== undefined) await writeCommentMeta(tx, comment.id, meta.set, meta.remove)
      return out
    })
    forget(req)
    return await formatOne(updated, req)
  }

  // --- delete ---------------------------------------------------------------------

  const remove = async (req: RestRequest<Params<typeof args.remove>>): Promise<unknown> => {
    const { comment } = await load(req) as { comment: CommentRow }
    if (req.params.force) {
      const previous = await formatOne(comment, req)
      await store.transaction(async (tx) => { await deleteComment(tx, comment) })
      forget(req)
      return { deleted: true, previous }
    }
    if (comment.status === 'trash') throw commentErrors.rest_already_trashed()
    const [trashed] = await store.db.update(comments).set({ status: 'trash', previousStatus: comment.status }).where(sql`${comments.id} = ${comment.id}`).returning()
    forget(req)
    return await formatOne(trashed!, req)
  }

  const own = { vars: { id: 'comment' } }
  return [
    route({
      path: '/comments',
      schema,
      allowBatch: true,
      endpoints: [
        endpoint({ methods: ['GET'], summary: 'List comments', example: EXAMPLES.list, args: args.list, cache: 'public', permission: check(listPermission, who.everyone('comments on posts the caller may read are public')), handler: list }),
        endpoint({
          methods: ['POST'],
          summary: 'Create a comment',
          example: EXAMPLES.create,
          args: args.create,
          // A batch's comment writes join its one transaction (rows only), as the post types' do.
          batchTransaction: true,
          responseContext: (req) => moderates(req.user) ? 'edit' : 'view',
          permission: check(createPermission, who.signedIn('any signed-in user may comment on an open post they can read (anonymous callers only with CMS_COMMENTS_ANONYMOUS=1)', { bodyVars: { post: 'post' }, body: { content: 'A probe comment' } })),
          handler: create
        })
      ]
    }),
    route({
      path: '/comments/{id}',
      vars: { id: '[\\d]+' },
      args: { id: Type.Optional(Type.Integer({ description: 'Unique identifier for the comment.' })) },
      schema,
      allowBatch: true,
      endpoints: [
        endpoint({ methods: ['GET'], summary: 'Read a comment', example: EXAMPLES.read, args: args.read, cache: 'public', permission: check(readPermission, who.everyone('an approved comment on a published post is public', own)), handler: read }),
        endpoint({
          methods: ['POST', 'PUT', 'PATCH'],
          summary: 'Update a comment',
          example: EXAMPLES.update,
          args: args.update,
          batchTransaction: true,
          responseContext: 'edit',
          permission: check(editPermission(commentErrors.rest_cannot_edit), who.can('moderate_comments', 'edit_comment: moderators, or whoever may edit the post', { ...own, body: { content: 'A probe edit' } })),
          handler: update
        }),
        endpoint({
          methods: ['DELETE'],
          summary: 'Trash or delete a comment (force=true deletes it)',
          example: EXAMPLES.remove,
          args: args.remove,
          batchTransaction: true,
          responseContext: 'edit',
          permission: check(editPermission(commentErrors.rest_cannot_delete), who.can('moderate_comments', 'edit_comment: moderators, or whoever may edit the post', own)),
          handler: remove
        })
      ]
    })
  ]
}

/** A comment as answered (`edit`: to a moderator, with the author's e-mail, address and raw content), for the examples. */
function exampleComment (edit: boolean, change: { content?: string, status?: string } = {}): Record<string, unknown> {
  const api = 'https://cms.example.com/index.php?rest_route='
  const content = change.content ?? 'Congratulations on the launch!'
  const avatar = 'https://secure.gravatar.com/avatar/0c83f57c786a0b4a39efab23731c7ebc?d=mm&r=g'
  return {
    id: 1,
    post: 1,
    parent: 0,
    author: 2,
    author_name: 'Ada',
    ...(edit ? { author_email: 'ada@example.com' } : {}),
    author_url: '',
    ...(edit ? { author_ip: '192.0.2.10', author_user_agent: 'curl/8.5.0' } : {}),
    date: '2026-11-28T09:45:00',
    date_gmt: '2026-11-28T09:45:00',
    content: edit ? { rendered: `<p>${content}</p>\n`, raw: content } : { rendered: `<p>${content}</p>\n` },
    link: 'https://cms.example.com/?p=1#comment-1',
    status: change.status ?? 'approved',
    type: 'comment',
    author_avatar_urls: { 24: `${avatar}&s=24`, 48: `${avatar}&s=48`, 96: `${avatar}&s=96` },
    meta: {},
    _links: {
      self: [{ href: `${api}/cms/v2/comments/1` }],
      up: [{ embeddable: true, post_type: 'post', href: `${api}/cms/v2/posts/1` }]
    }
  }
}

/** The examples of the comment routes in the OpenAPI document (checked by the gateway's completeness test). */
const EXAMPLES = {
  list: { request: { post: [1], per_page: 10, order: 'asc' }, response: [exampleComment(false)] },
  create: { request: { post: 1, content: 'Congratulations on the launch!' }, response: exampleComment(true) },
  read: { request: { id: 1 }, response: exampleComment(false) },
  update: { request: { id: 1, content: 'Congratulations to the whole team!' }, response: exampleComment(true, { content: 'Congratulations to the whole team!' }) },
  // Without `force`, the comment goes to the trash and is answered as it now is.
  remove: { request: { id: 1 }, response: exampleComment(true, { status: 'trash' }) }
} satisfies Record<string, EndpointExample>

/** Text without markup, its whitespace runs made single spaces (the core's `sanitize_text_field`). */
function plainText (value: string): string {
  return value.replace(/<[^>]*>?/g, '').replace(/[\r\n\t ]+/g, ' ').trim()
}

/**
 * What a `status` of an update does (the core's `handle_status_param`):
 * approve, hold, spam or trash (remembering the status left), or restore
 * the status left (`unspam`, `untrash`; held when none is known).
 */
function statusChange (value: string, current: CommentStatus, previous: string | null): { status: CommentStatus, previous: string | null } {
  const v = value.trim().toLowerCase()
  if (!(STATUS_CHANGES as readonly string[]).includes(v)) {
    throw invalidParam('status', `status is not one of ${STATUS_CHANGES.join(', ')}.`)
  }
  const restored = (COMMENT_STATUSES as readonly string[]).includes(previous ?? '') && previous !== 'spam' && previous !== 'trash' ? previous as CommentStatus : 'hold'
  switch (v) {
    case 'approved': case 'approve': case '1': return { status: 'approved', previous }
    case 'hold': case '0': return { status: 'hold', previous }
    case 'spam': return current === 'spam' ? { status: current, previous } : { status: 'spam', previous: current }
    case 'trash': return current === 'trash' ? { status: current, previous } : { status: 'trash', previous: current }
    case 'unspam': return current === 'spam' ? { status: restored, previous: null } : { status: current, previous }
    default: return current === 'trash' ? { status: restored, previous: null } : { status: current, previous }
  }
}
