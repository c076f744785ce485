/**
 * Tables of the comments module: comments on posts and pages (threaded by
 * `parent`), and their registered meta.
 *
 * Imports only drizzle (drizzle-kit loads this file to generate migrations).
 */
import { sql } from 'drizzle-orm'
import { index, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core'
// drizzle's own jsonb parses strings read back a second time ("123" -> 123).
import { jsonb } from '@cms/store/columns'
import { posts } from '../content/schema.js'

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 0, mode: 'date' })

export const comments = pgTable('comments', {
  id: serial('id').primaryKey(),
  /** The post commented on; null for a comment without a post (moderators only). A post's deletion deletes its comments. */
  postId: integer('post_id').references(() => posts.id, { onDelete: 'cascade' }),
  /** The comment replied to (0: none). */
  parent: integer('parent').notNull().default(0),
  /** The signed-in author (0: an anonymous one). */
  userId: integer('user_id').notNull().default(0),
  authorName: text('author_name').notNull().default(''),
  authorEmail: text('author_email').notNull().default(''),
  authorUrl: text('author_url').notNull().default(''),
  authorIp: text('author_ip').notNull().default(''),
  authorAgent: text('author_agent').notNull().default(''),
  dateGmt: instant('date_gmt').notNull(),
  content: text('content').notNull().default(''),
  /** approved, hold, spam or trash. */
  status: text('status').notNull().default('hold'),
  /** The status before the comment was spammed or trashed (what `unspam` and `untrash` restore). */
  previousStatus: text('previous_status'),
  type: text('type').notNull().default('comment')
}, (t) => [
  // A post's thread, by status and date; the site's moderation queue by status and date.
  index('comments_post_status_date_idx').on(t.postId, t.status, t.dateGmt),
  index('comments_status_date_idx').on(t.status, t.dateGmt),
  index('comments_parent_idx').on(t.parent),
  index('comments_user_idx').on(t.userId),
  // Flood control: an address's last comment.
  index('comments_ip_date_idx').on(t.authorIp, t.dateGmt),
  // Duplicate detection: the same words on the same post.
  index('comments_post_content_idx').on(t.postId, sql`md5(${t.content})`)
])

export const commentMeta = pgTable('comment_meta', {
  commentId: integer('comment_id').notNull().references(() => comments.id, { onDelete: 'cascade' }),
  key: text('key').notNull(),
  value: jsonb('value').notNull()
}, (t) => [primaryKey({ columns: [t.commentId, t.key] })])
