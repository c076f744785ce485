/**
 * What happens to a new comment before it is stored, as the core decides it
 * (`wp_allow_comment`): a duplicate is refused, a commenter posting too
 * quickly is refused, then the comment is approved, held for moderation,
 * or sent to the trash by the discussion settings.
 */
import { and, eq, gte, ne, or, sql } from 'drizzle-orm'
import { dbOf, getOptions, type Queryable, type Store } from '@cms/store'
import { comments } from './schema.js'
import { commentErrors } from './errors.js'
import type { CommentStatus } from './store.js'

type Db = Store | Queryable

export interface Candidate {
  postId: number
  postAuthor: number
  parent: number
  userId: number
  authorName: string
  authorEmail: string
  authorUrl: string
  authorIp: string
  authorAgent: string
  content: string
  date: Date
  /** Links in the content as displayed (see {@link linkCount}). */
  links: number
}

/** Discussion settings read for each new comment (they change at any time). */
export async function discussionSettings (db: Db): Promise<Record<string, string | number>> {
  return await getOptions(db, [
    'comment_moderation', 'comment_previously_approved', 'comment_max_links', 'moderation_keys', 'disallowed_keys',
    'comment_flood_seconds', 'require_name_email', 'thread_comments', 'thread_comments_depth',
    'close_comments_for_old_posts', 'close_comments_days_old'
  ])
}

/** Refuses the same words by the same author on the same post and thread (the core's duplicate check; 409). */
export async function refuseDuplicate (db: Db, c: Candidate): Promise<void> {
  const sameAuthor = [eq(comments.authorName, c.authorName)]
  if (c.authorEmail !== '') sameAuthor.push(eq(comments.authorEmail, c.authorEmail))
  if (c.userId !== 0) sameAuthor.push(eq(comments.userId, c.userId))
  const [hit] = await dbOf(db).select({ id: comments.id }).from(comments).where(and(
    eq(comments.postId, c.postId),
    eq(comments.parent, c.parent),
    ne(comments.status, 'trash'),
    sql`md5(${comments.content}) = md5(${c.content})`,
    eq(comments.content, c.content),
    or(...sameAuthor)
  )).limit(1)
  if (hit !== undefined) throw commentErrors.comment_duplicate()
}

/**
 * Refuses a comment from an address or user whose last comment is more
 * recent than the flood interval (moderators are never held back, as the
 * core exempts them).
 */
export async function refuseFlood (db: Db, c: Candidate, seconds: number): Promise<void> {
  if (seconds <= 0) return
  const since = new Date(c.date.getTime() - seconds * 1000)
  const who = [eq(comments.authorIp, c.authorIp)]
  if (c.userId !== 0) who.push(eq(comments.userId, c.userId))
  const [hit] = await dbOf(db).select({ id: comments.id }).from(comments).where(and(gte(comments.dateGmt, since), or(...who))).limit(1)
  if (hit !== undefined) throw commentErrors.comment_flood()
}

/** Whether any line of `keys` (words, addresses, fragments) appears in one of the fields, without case. */
function matchesKeys (keys: string, fields: readonly string[]): boolean {
  const words = keys.split('\n').map((w) => w.trim().toLowerCase()).filter((w) => w !== '')
  if (words.length === 0) return false
  const haystack = fields.map((f) => f.toLowerCase())
  return words.some((w) => haystack.some((h) => h.includes(w)))
}

/** Links in a comment as displayed (its bare URLs made links), as the core counts `<a href`. */
export function linkCount (displayed: string): number {
  return displayed.match(/<a [^>]*href/gi)?.length ?? 0
}

/**
 * The status a new comment gets: approved for moderators and for the post's
 * author; otherwise held when the site holds every comment, when it has more
 * links than allowed, when it contains a moderation word, or when its author
 * has no approved comment yet (with that setting on); sent to the trash when
 * it contains a disallowed word.
 */
export async function initialStatus (db: Db, c: Candidate, moderator: boolean, settings: Record<string, string | number>): Promise<CommentStatus> {
  const fields = [c.authorName, c.authorEmail, c.authorUrl, c.content, c.authorIp, c.authorAgent]
  if (matchesKeys(String(settings.disallowed_keys), fields)) return 'trash'
  if (moderator || (c.userId !== 0 && c.userId === c.postAuthor)) return 'approved'
  if (Number(settings.comment_moderation) === 1) return 'hold'
  if (c.links > Number(settings.comment_max_links)) return 'hold'
  if (matchesKeys(String(settings.moderation_keys), fields)) return 'hold'
  if (Number(settings.comment_previously_approved) === 1) {
    const mine = c.userId !== 0
      ? eq(comments.userId, c.userId)
      : and(eq(comments.authorName, c.authorName), eq(comments.authorEmail, c.authorEmail), ne(comments.authorEmail, ''))!
    const [before] = await dbOf(db).select({ id: comments.id }).from(comments).where(and(mine, eq(comments.status, 'approved'))).limit(1)
    if (before === undefined) return 'hold'
  }
  return 'approved'
}
