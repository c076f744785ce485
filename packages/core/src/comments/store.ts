/**
 * Reads and writes of comments. Lists filter what the caller may read in
 * SQL (the post's read rule, the comment's status and author), so totals and
 * pages never count a row the caller may not see.
 */
import { and, asc, desc, eq, inArray, ne, notInArray, or, sql, type SQL } from 'drizzle-orm'
import { dbOf, type Queryable, type Store } from '@cms/store'
import type { Principal } from '@cms/rest'
import { posts, readableWhere, readRule } from '../content/index.js'
import { commentMeta, comments } from './schema.js'

export type CommentRow = typeof comments.$inferSelect
type Db = Store | Queryable

/** The statuses a comment is stored with, and what the list's `status` argument names them. */
export const COMMENT_STATUSES = ['approved', 'hold', 'spam', 'trash'] as const
export type CommentStatus = typeof COMMENT_STATUSES[number]

/** The post types comments are taken on. */
export const COMMENTED_TYPES = ['post', 'page'] as const

/**
 * The list's `status` argument as stored statuses: `approve` (the default)
 * and `approved`, `hold`, `spam`, `trash`, `all` (approved and held, as the
 * core's comment query reads it), or several separated by commas. A name
 * the core does not know matches nothing.
 */
export function statusesOf (value: string): CommentStatus[] {
  const out = new Set<CommentStatus>()
  for (const part of value.split(',').map((s) => s.trim().toLowerCase())) {
    if (part === 'approve' || part === 'approved' || part === '1') out.add('approved')
    else if (part === 'hold' || part === '0') out.add('hold')
    else if (part === 'all') { out.add('approved'); out.add('hold') } else if (part === 'spam' || part === 'trash') out.add(part)
  }
  return [...out]
}

export interface CommentQuery {
  statuses: CommentStatus[]
  /** `comment` (the only type comments are created with), or `all`. */
  type: string
  posts: number[]
  parents: number[]
  parentExclude: number[]
  include: number[]
  exclude: number[]
  authors: number[]
  authorExclude: number[]
  authorEmail?: string
  after?: Date
  before?: Date
  search?: string
  /** Search the e-mail and address columns too (moderators only: for anyone else they would be an oracle). */
  searchPrivate: boolean
  orderby: 'date' | 'date_gmt' | 'id' | 'include' | 'post' | 'parent' | 'type'
  order: 'asc' | 'desc'
  limit: number
  offset: number
  /** What the caller may read (see {@link visibleWhere}). */
  viewer: Viewer
}

export interface Viewer {
  user: Principal
  moderator: boolean
  /** A post whose password was given with a request naming only that post. */
  unlockedPost?: { id: number, password: string }
}

const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * The comments a caller may read, as a condition: moderators read all; others
 * read those on posts they may read, approved ones (on a password-protected
 * post only with edit rights or its password), their own, and any on posts
 * they may edit (the core's `edit_comment`).
 */
export function visibleWhere (viewer: Viewer): SQL {
  if (viewer.moderator) return sql`true`
  const { user } = viewer
  const readable = or(...COMMENTED_TYPES.map((t) => readableWhere(readRule(user, t))))!
  const editable = or(...COMMENTED_TYPES.map((t) => readableWhere(readRule(user, t, 'edit'))))!
  const unlocked = viewer.unlockedPost === undefined
    ? sql`false`
    : and(eq(posts.id, viewer.unlockedPost.id), eq(posts.password, viewer.unlockedPost.password), sql`${posts.password} <> ''`)!
  const approvedShown = and(eq(comments.status, 'approved'), or(eq(posts.password, ''), editable, unlocked))!
  const ownOrEditable = user.id === 0 ? sql`false` : or(eq(comments.userId, user.id), editable)!
  return sql`exists (select 1 from ${posts} where ${posts.id} = ${comments.postId} and ${readable} and (${approvedShown} or ${ownOrEditable}))`
}

function whereOf (q: CommentQuery): SQL {
  const parts: SQL[] = [visibleWhere(q.viewer)]
  parts.push(q.statuses.length === 0 ? sql`false` : inArray(comments.status, q.statuses))
  if (q.type !== 'all') parts.push(eq(comments.type, q.type))
  if (q.posts.length > 0) parts.push(inArray(comments.postId, q.posts))
  if (q.parents.length > 0) parts.push(inArray(comments.parent, q.parents))
  if (q.parentExclude.length > 0) parts.push(notInArray(comments.parent, q.parentExclude))
  if (q.include.length > 0) parts.push(inArray(comments.id, q.include))
  if (q.exclude.length > 0) parts.push(notInArray(comments.id, q.exclude))
  if (q.authors.length > 0) parts.push(inArray(comments.userId, q.authors))
  if (q.authorExclude.length > 0) parts.push(notInArray(comments.userId, q.authorExclude))
  if (q.authorEmail !== undefined && q.authorEmail !== '') parts.push(sql`lower(${comments.authorEmail}) = lower(${q.authorEmail})`)
  if (q.after !== undefined) parts.push(sql`${comments.dateGmt} > ${q.after.toISOString()}`)
  if (q.before !== undefined) parts.push(sql`${comments.dateGmt} < ${q.before.toISOString()}`)
  if (q.search !== undefined && q.search !== '') {
    const like = likePattern(q.search)
    const columns = [comments.authorName, comments.authorUrl, comments.content, ...(q.searchPrivate ? [comments.authorEmail, comments.authorIp] : [])]
    parts.push(or(...columns.map((c) => sql`${c} ilike ${like}`))!)
  }
  return and(...parts)!
}

function orderOf (q: CommentQuery): SQL[] {
  const dir = q.order === 'asc' ? asc : desc
  switch (q.orderby) {
    case 'id': return [dir(comments.id)]
    case 'include': return q.include.length > 0 ? [sql`array_position(array[${sql.join(q.include.map((id) => sql`${id}`), sql`, `)}]::int[], ${comments.id})`, dir(comments.id)] : [dir(comments.dateGmt), dir(comments.id)]
    case 'post': return [dir(comments.postId), dir(comments.id)]
    case 'parent': return [dir(comments.parent), dir(comments.id)]
    case 'type': return [dir(comments.type), dir(comments.id)]
    default: return [dir(comments.dateGmt), dir(comments.id)]
  }
}

/** A page of comments and the total the query matches (one statement). */
export async function listComments (db: Db, q: CommentQuery): Promise<{ rows: CommentRow[], total: number }> {
  const rows = await dbOf(db).select({ comment: comments, total: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(comments)
    .where(whereOf(q))
    .orderBy(...orderOf(q))
    .limit(q.limit)
    .offset(q.offset)
  if (rows.length > 0) return { rows: rows.map((r) => r.comment), total: rows[0]!.total }
  // A page past the end: the total still counts.
  if (q.offset === 0) return { rows: [], total: 0 }
  const [{ n }] = await dbOf(db).select({ n: sql<number>`count(*)`.mapWith(Number) }).from(comments).where(whereOf(q)) as [{ n: number }]
  return { rows: [], total: n }
}

export async function getComment (db: Db, id: number): Promise<CommentRow | undefined> {
  if (id <= 0 || id > 2147483647) return undefined
  const [row] = await dbOf(db).select().from(comments).where(eq(comments.id, id))
  return row
}

/** Which of these comments have replies (any status but trash). */
export async function withChildren (db: Db, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  const rows = await dbOf(db).selectDistinct({ parent: comments.parent }).from(comments).where(and(inArray(comments.parent, ids), ne(comments.status, 'trash')))
  return new Set(rows.map((r) => r.parent))
}

/** A comment's depth in its thread (1: top level), walking its ancestors (bounded by the deepest thread allowed). */
export async function depthOf (db: Db, parent: number, limit: number): Promise<number> {
  if (parent === 0) return 1
  const rows = await dbOf(db).execute(sql`
    with recursive up(id, parent, depth) as (
      select id, parent, 1 from ${comments} where id = ${parent}
      union all
      select c.id, c.parent, up.depth + 1 from ${comments} c join up on c.id = up.parent where up.depth <= ${limit}
    ) select max(depth)::int as depth from up`)
  const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{ depth: number | null }>
  return (list[0]?.depth ?? 0) + 1
}

export async function getCommentMeta (db: Db, ids: number[]): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>()
  if (ids.length === 0) return out
  const rows = await dbOf(db).select().from(commentMeta).where(inArray(commentMeta.commentId, ids))
  for (const r of rows) {
    const m = out.get(r.commentId) ?? {}
    m[r.key] = r.value
    out.set(r.commentId, m)
  }
  return out
}

export async function writeCommentMeta (db: Db, id: number, set: Record<string, unknown>, remove: string[]): Promise<void> {
  const d = dbOf(db)
  for (const [key, value] of Object.entries(set)) {
    await d.insert(commentMeta).values({ commentId: id, key, value }).onConflictDoUpdate({ target: [commentMeta.commentId, commentMeta.key], set: { value } })
  }
  if (remove.length > 0) await d.delete(commentMeta).where(and(eq(commentMeta.commentId, id), inArray(commentMeta.key, remove)))
}

/**
 * Deletes a comment for good; its replies move up to its parent, as the
 * core does, so no thread loses its remaining comments.
 */
export async function deleteComment (db: Db, comment: CommentRow): Promise<void> {
  const d = dbOf(db)
  await d.update(comments).set({ parent: comment.parent }).where(eq(comments.parent, comment.id))
  await d.delete(comments).where(eq(comments.id, comment.id))
}
