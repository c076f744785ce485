/**
 * Tables of the oEmbed module: remote embed results kept for a day.
 *
 * Imports only drizzle (drizzle-kit loads this file to generate migrations).
 */
import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
// drizzle's own jsonb parses strings read back a second time ("123" -> 123).
import { jsonb } from '@cms/store/columns'

export const oembedCache = pgTable('oembed_cache', {
  /** SHA-256 of every parameter of the proxy request. */
  key: text('key').primaryKey(),
  url: text('url').notNull(),
  data: jsonb('data').notNull(),
  created: timestamp('created', { withTimezone: true }).notNull().defaultNow(),
  expires: timestamp('expires', { withTimezone: true }).notNull()
}, (t) => [index('oembed_cache_expires_idx').on(t.expires)])
