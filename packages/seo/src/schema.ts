/**
 * Tables owned by @cms/seo (migrations in ../migrations, generated from
 * these by `pnpm --filter @cms/seo db:generate`, recorded in
 * `drizzle.__migrations_cms_seo`). The package reads and writes them in SQL
 * (indexables.ts, analysis.ts); these declarations are what the migrations
 * come from.
 */
import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' })

/** One row per post whose scores are due, under way or failed (analysis.ts): the worker's queue (`state`: pending, running under `lease_until`, done, failed). */
export const seoAnalysis = pgTable('seo_analysis', {
  postId: bigint('post_id', { mode: 'number' }).primaryKey(),
  state: text('state').notNull().default('pending'),
  inputHash: text('input_hash').notNull().default(''),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error').notNull().default(''),
  notBefore: at('not_before').notNull().defaultNow(),
  leaseUntil: at('lease_until'),
  updatedAt: at('updated_at').notNull().defaultNow()
}, (t) => [index('seo_analysis_due').on(t.state, t.notBefore)])

/** What the SEO package knows of each post, term, user and archive (indexables.ts). */
export const seoIndexables = pgTable('seo_indexables', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  objectKey: text('object_key').notNull(),
  objectType: text('object_type').notNull(),
  objectSubType: text('object_sub_type'),
  objectId: bigint('object_id', { mode: 'number' }),
  permalink: text('permalink'),
  title: text('title'),
  description: text('description'),
  breadcrumbTitle: text('breadcrumb_title'),
  primaryFocusKeyword: text('primary_focus_keyword'),
  primaryFocusKeywordScore: integer('primary_focus_keyword_score'),
  readabilityScore: integer('readability_score').notNull().default(0),
  inclusiveLanguageScore: integer('inclusive_language_score').notNull().default(0),
  estimatedReadingTimeMinutes: integer('estimated_reading_time_minutes'),
  isCornerstone: boolean('is_cornerstone').notNull().default(false),
  isRobotsNoindex: boolean('is_robots_noindex'),
  isRobotsNofollow: boolean('is_robots_nofollow').notNull().default(false),
  canonical: text('canonical'),
  openGraphTitle: text('open_graph_title'),
  openGraphDescription: text('open_graph_description'),
  openGraphImage: text('open_graph_image'),
  openGraphImageId: bigint('open_graph_image_id', { mode: 'number' }),
  twitterTitle: text('twitter_title'),
  twitterDescription: text('twitter_description'),
  twitterImage: text('twitter_image'),
  twitterImageId: bigint('twitter_image_id', { mode: 'number' }),
  /** Null until the post's links were counted (the links job's due rows). */
  linkCount: integer('link_count'),
  incomingLinkCount: integer('incoming_link_count'),
  postStatus: text('post_status'),
  isPublic: boolean('is_public'),
  isProtected: boolean('is_protected').notNull().default(false),
  authorId: bigint('author_id', { mode: 'number' }),
  postParent: bigint('post_parent', { mode: 'number' }),
  version: integer('version').notNull().default(1),
  objectLastModified: at('object_last_modified'),
  objectPublishedAt: at('object_published_at'),
  createdAt: at('created_at').notNull().defaultNow(),
  updatedAt: at('updated_at').notNull().defaultNow(),
  /** The post's categories and tags, for the score groups' term filter (scores.ts). */
  termIds: bigint('term_ids', { mode: 'number' }).array().notNull().default(sql`'{}'`)
}, (t) => [
  uniqueIndex('seo_indexables_object_key').on(t.objectKey),
  index('seo_indexables_type_status').on(t.objectType, t.objectSubType, t.postStatus),
  index('seo_indexables_permalink').on(t.permalink),
  index('seo_indexables_term_ids').using('gin', t.termIds),
  index('seo_indexables_object').on(t.objectType, t.objectId),
  index('seo_indexables_links_due').on(t.objectId).where(sql`${t.linkCount} IS NULL`)
])

/** The links found in each post's content, internal ones with their target. */
export const seoLinks = pgTable('seo_links', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  postId: bigint('post_id', { mode: 'number' }).notNull(),
  url: text('url').notNull(),
  type: text('type').notNull(),
  targetPostId: bigint('target_post_id', { mode: 'number' })
}, (t) => [index('seo_links_post').on(t.postId), index('seo_links_target').on(t.targetPostId)])
