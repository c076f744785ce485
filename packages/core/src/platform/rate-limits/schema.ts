/**
 * Rate-limit counts shared by every replica (core migrations,
 * drizzle.__migrations_cms_core): one row per key and window, its hits
 * summed from the increments each replica sends every sync interval
 * (shared-counts.ts). Rows of ended windows are deleted.
 */
import { bigint, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'

export const rateLimitHits = pgTable('rate_limit_hits', {
  /** `<class>|<caller>`: `read|ip:203.0.113.9`, `write|u:12:<credential uuid>`. */
  key: text('key').notNull(),
  /** The window's start, in ms since the epoch (windows are aligned on it, so every replica names the same one). */
  windowStart: bigint('window_start', { mode: 'number' }).notNull(),
  hits: integer('hits').notNull(),
  /** The window's end: rows past it are pruned. */
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull()
}, (t) => [
  primaryKey({ columns: [t.key, t.windowStart] }),
  index('rate_limit_hits_expires').on(t.expiresAt)
])
