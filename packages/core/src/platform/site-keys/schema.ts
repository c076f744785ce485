/**
 * The site's keys (platform/site-keys). Imports only drizzle (drizzle-kit
 * loads this file to generate migrations).
 */
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/** Secrets the site creates once (the application-password hashing key). */
export const siteKeys = pgTable('site_keys', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  created: timestamp('created', { withTimezone: true }).notNull().defaultNow()
})
