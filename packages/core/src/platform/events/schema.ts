/**
 * The lifecycle-event outbox (core migrations, drizzle.__migrations_cms_core):
 * one row per event, written by triggers on `posts` and `users` in the
 * transaction that made the change, and one row per listener that handled
 * it. See ./index.ts.
 */
import { sql } from 'drizzle-orm'
import { bigint, bigserial, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { jsonb } from '@cms/store/columns'

export const cmsEvents = pgTable('cms_events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** `post.created`, `post.updated`, `post.status_changed`, `post.trashed`, `post.deleted`, `user.deleted`. */
  topic: text('topic').notNull(),
  objectId: bigint('object_id', { mode: 'number' }).notNull(),
  payload: jsonb('payload').notNull(),
  /** The writing transaction. */
  txid: bigint('txid', { mode: 'number' }).notNull().default(sql`txid_current()`),
  /**
   * The part of it the event belongs to: the setting `cms.event_scope` when
   * the trigger ran (a batch item's number, set with its savepoint:
   * @cms/store's joined.ts), '' without one. One event per topic and object
   * per transaction and scope (core migration 0020).
   */
  scope: text('scope').notNull().default(''),
  created: timestamp('created', { withTimezone: true }).notNull().defaultNow(),
  /** A worker holds the event until then; after, another may take it (a worker that stopped). */
  leaseUntil: timestamp('lease_until', { withTimezone: true })
}, (t) => [
  uniqueIndex('cms_events_once').on(t.txid, t.scope, t.topic, t.objectId),
  index('cms_events_created').on(t.created)
])

export const cmsEventDeliveries = pgTable('cms_event_deliveries', {
  eventId: bigint('event_id', { mode: 'number' }).notNull().references(() => cmsEvents.id, { onDelete: 'cascade' }),
  /** `<package>:<name>` of the listener. */
  listener: text('listener').notNull(),
  delivered: timestamp('delivered', { withTimezone: true }).notNull().defaultNow()
}, (t) => [primaryKey({ columns: [t.eventId, t.listener] })])
