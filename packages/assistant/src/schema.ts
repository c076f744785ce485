/**
 * Tables owned by @cms/assistant (migrations in ../migrations, recorded in
 * `drizzle.__migrations_cms_assistant`): snippets and their two file sets.
 * Files live in the database, never where a web server would run them.
 */
import { bigint, customType, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' })

/**
 * A snippet (seo-rollback-assistant-addons.md §3.2). `dev_rev` counts the
 * saves of the dev set, `prod_rev` is the dev revision last published:
 * the deployment status is derived from the two (not-deployed, test-only,
 * changes-pending, deployed), so a save and a publish in the same
 * millisecond are still told apart.
 */
export const assistantSnippets = pgTable('assistant_snippets', {
  id: serial('id').primaryKey(),
  title: text('title').notNull(),
  type: text('type'),
  author: integer('author').notNull(),
  /** The cloud artifact's id (lowercase hex and hyphens); one snippet per artifact. */
  artifactId: text('artifact_id'),
  version: bigint('version', { mode: 'number' }),
  devRev: integer('dev_rev').notNull().default(0),
  prodRev: integer('prod_rev').notNull().default(0),
  devModified: timestamp('dev_modified', { withTimezone: true, mode: 'date' }),
  prodModified: timestamp('prod_modified', { withTimezone: true, mode: 'date' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
}, (t) => [uniqueIndex('assistant_snippets_artifact_idx').on(t.artifactId), index('assistant_snippets_title_idx').on(t.title)])

/** One file of a snippet's `dev` or `prod` set. */
export const assistantSnippetFiles = pgTable('assistant_snippet_files', {
  snippetId: integer('snippet_id').notNull().references(() => assistantSnippets.id, { onDelete: 'cascade' }),
  env: text('env').notNull(),
  name: text('name').notNull(),
  content: bytea('content').notNull(),
  size: integer('size').notNull(),
  modifiedAt: timestamp('modified_at', { withTimezone: true, mode: 'date' }).notNull()
}, (t) => [primaryKey({ columns: [t.snippetId, t.env, t.name] })])

/** `settings/{name}`: the assistant's JSON settings (§3.6), each at most SETTING_MAX_BYTES of JSON. */
export const assistantSettings = pgTable('assistant_settings', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
})
