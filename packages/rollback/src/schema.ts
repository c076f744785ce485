/**
 * Tables owned by @cms/rollback (migrations in ../migrations): the
 * archives of installed versions made by the backup step, and the state a
 * rollback keeps between its steps (one per package, for an hour).
 */
import { bigint, index, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core'
import { jsonb } from '@cms/store/columns'

export const rollbackArchives = pgTable('rollback_archives', {
  id: serial('id').primaryKey(),
  type: text('type').notNull(),
  slug: text('slug').notNull(),
  name: text('name').notNull(),
  version: text('version').notNull(),
  userId: integer('user_id').notNull(),
  /** Path under the content directory (`rollback-archives/<slug>-<version>-<random>.zip`). */
  file: text('file').notNull(),
  fileSize: bigint('file_size', { mode: 'number' }).notNull(),
  /** Of the file's bytes: the download's strong ETag. */
  sha256: text('sha256').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
}, (t) => [index('rollback_archives_slug_idx').on(t.type, t.slug, t.version)])

export const rollbackState = pgTable('rollback_state', {
  type: text('type').notNull(),
  slug: text('slug').notNull(),
  version: text('version').notNull(),
  userId: integer('user_id').notNull(),
  data: jsonb('data').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull()
}, (t) => [primaryKey({ columns: [t.type, t.slug] })])
