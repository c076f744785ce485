/**
 * Tables of the content module: one `posts` table for posts, pages and
 * revisions (told apart by `type`), their meta, and the category/tag terms.
 *
 * Imports only drizzle (drizzle-kit loads this file to generate migrations).
 */
import { sql } from 'drizzle-orm'
import { boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
// drizzle's own jsonb parses strings read back a second time ("123" -> 123).
import { jsonb } from '@cms/store/columns'

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 0, mode: 'date' })

export const posts = pgTable('posts', {
  id: serial('id').primaryKey(),
  /** post, page or revision (autosaves are revisions named `{parent}-autosave-v1`). */
  type: text('type').notNull(),
  author: integer('author').notNull().default(0),
  status: text('status').notNull().default('draft'),
  /** Null while a draft/pending post has no date of its own ("floating"): its date is its last save. */
  dateGmt: instant('date_gmt'),
  modifiedGmt: instant('modified_gmt').notNull(),
  slug: text('slug').notNull().default(''),
  title: text('title').notNull().default(''),
  content: text('content').notNull().default(''),
  excerpt: text('excerpt').notNull().default(''),
  password: text('password').notNull().default(''),
  parent: integer('parent').notNull().default(0),
  menuOrder: integer('menu_order').notNull().default(0),
  commentStatus: text('comment_status').notNull().default('open'),
  pingStatus: text('ping_status').notNull().default('open'),
  format: text('format').notNull().default('standard'),
  sticky: boolean('sticky').notNull().default(false),
  template: text('template').notNull().default(''),
  featuredMedia: integer('featured_media').notNull().default(0),
  guid: text('guid').notNull().default('')
}, (t) => [
  // The list query: one type, a status set, newest first.
  index('posts_type_status_date_idx').on(t.type, t.status, sql`coalesce(${t.dateGmt}, ${t.modifiedGmt})`),
  index('posts_type_slug_idx').on(t.type, t.slug),
  index('posts_parent_type_idx').on(t.parent, t.type),
  index('posts_author_idx').on(t.author),
  // Scheduled publishing looks only at future posts.
  index('posts_future_idx').on(t.dateGmt).where(sql`${t.status} = 'future'`),
  index('posts_sticky_idx').on(t.type).where(sql`${t.sticky}`),
  // A page's revision counts (the page statement): bounded by the page's posts whatever the
  // statistics say. With statistics taken before a site had revisions the planner chose
  // posts_type_slug_idx for `type = 'revision'` and read every revision (docs/benchmarks.md).
  index('posts_revisions_parent_idx').on(t.parent).where(sql`${t.type} = 'revision'`)
])

export const postMeta = pgTable('post_meta', {
  postId: integer('post_id').notNull().references(() => posts.id, { onDelete: 'cascade' }),
  key: text('key').notNull(),
  value: jsonb('value').notNull()
}, (t) => [primaryKey({ columns: [t.postId, t.key] })])

export const terms = pgTable('terms', {
  id: serial('id').primaryKey(),
  /** category or post_tag. */
  taxonomy: text('taxonomy').notNull(),
  name: text('name').notNull(),
  slug: text('slug').notNull(),
  description: text('description').notNull().default(''),
  parent: integer('parent').notNull().default(0),
  /** Published posts carrying the term. */
  count: integer('count').notNull().default(0)
}, (t) => [
  uniqueIndex('terms_taxonomy_slug_key').on(t.taxonomy, t.slug),
  index('terms_taxonomy_name_idx').on(t.taxonomy, t.name),
  index('terms_parent_idx').on(t.parent)
])

export const termRelationships = pgTable('term_relationships', {
  postId: integer('post_id').notNull().references(() => posts.id, { onDelete: 'cascade' }),
  termId: integer('term_id').notNull().references(() => terms.id, { onDelete: 'cascade' })
}, (t) => [
  primaryKey({ columns: [t.postId, t.termId] }),
  index('term_relationships_term_idx').on(t.termId)
])

/**
 * Changes to terms' counts not yet folded into `terms.count` (migration
 * 0016): a term's count is its `count` plus the sum of its rows here. A
 * writer that finds the term's count taken by another transaction in flight
 * adds a row instead of waiting for that row's lock; the next writer that
 * gets it folds them in (`cms_add_term_counts`), mostly the one that left
 * them, as it commits (migration 0019's deferred trigger).
 */
export const termCountDeltas = pgTable('term_count_deltas', {
  // No foreign key (core migration 0022): a term's changes go with it by a trigger on terms.
  termId: integer('term_id').notNull(),
  delta: integer('delta').notNull()
}, (t) => [
  index('term_count_deltas_term_idx').on(t.termId)
])
