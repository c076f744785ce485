/**
 * Tables owned by @cms/registry (migrations in ../migrations). The files of
 * each package live in the content directory; these record what the files
 * cannot: each package's status, the operations log and the locks.
 */
import { bigserial, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'

/** The status of each installed package (a package without a row has its default: see catalogue.ts). */
export const registryPackages = pgTable('registry_packages', {
  type: text('type').notNull(),
  slug: text('slug').notNull(),
  status: text('status').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
}, (t) => [primaryKey({ columns: [t.type, t.slug] })])

/** Every operation on a package: who, what, from and to which version, the outcome. */
export const registryOperations = pgTable('registry_operations', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  userId: integer('user_id').notNull(),
  operation: text('operation').notNull(),
  type: text('type').notNull(),
  slug: text('slug').notNull(),
  fromVersion: text('from_version'),
  toVersion: text('to_version'),
  outcome: text('outcome').notNull(),
  message: text('message').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
})

/** One operation per package at a time, across processes; a lock older than LOCK_TTL is taken over. */
export const registryLocks = pgTable('registry_locks', {
  type: text('type').notNull(),
  slug: text('slug').notNull(),
  token: text('token').notNull(),
  operation: text('operation').notNull(),
  acquiredAt: timestamp('acquired_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
}, (t) => [primaryKey({ columns: [t.type, t.slug] })])
