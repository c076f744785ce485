/**
 * Tables of the webhooks module (core migration 0010): the subscriptions
 * and their deliveries, one row per (event, subscription) and per test or
 * replay. See ./index.ts.
 *
 * Imports only drizzle (drizzle-kit loads this file to generate migrations).
 */
import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const webhooks = pgTable('webhooks', {
  id: serial('id').primaryKey(),
  /** Where deliveries are POSTed (checked by the outbound client at create and at every delivery). */
  url: text('url').notNull(),
  description: text('description').notNull().default(''),
  /** The lifecycle topics subscribed to. */
  events: text('events').array().notNull(),
  /** The signing secret (`whsec_...`), sealed with the core's secrets helper: never stored or shown in clear after the create. */
  secretSealed: text('secret_sealed').notNull(),
  /**
   * After a rotation, the secret it replaced (sealed) and until when
   * deliveries are signed with it too (Standard Webhooks: both signatures
   * in `webhook-signature`), so receivers can switch without a gap.
   */
  previousSecretSealed: text('previous_secret_sealed'),
  previousSecretUntil: instant('previous_secret_until'),
  /** The administrator's switch: an inactive subscription gets no new deliveries. */
  active: boolean('active').notNull().default(true),
  /** Set when deliveries kept failing for the configured period (CMS_WEBHOOKS_DISABLE_AFTER_MS); cleared by `active: true`. */
  disabledAt: instant('disabled_at'),
  disabledReason: text('disabled_reason'),
  /** The first failed attempt since the last success (null while it succeeds). */
  failingSince: instant('failing_since'),
  created: instant('created').notNull().defaultNow(),
  modified: instant('modified').notNull().defaultNow()
})

export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  webhookId: integer('webhook_id').notNull().references(() => webhooks.id, { onDelete: 'cascade' }),
  /** The lifecycle event (`cms_events.id`, which is pruned later: no foreign key); null for a test delivery. */
  eventId: bigint('event_id', { mode: 'number' }),
  /** The `webhook-id` header: the same for every attempt and replay of this delivery. */
  messageId: text('message_id').notNull(),
  topic: text('topic').notNull(),
  /** The JSON body sent (signed as it is). */
  body: text('body').notNull(),
  /** pending (due at `next_at`), delivered or failed (gave up, or the subscription was inactive). */
  status: text('status').notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  nextAt: instant('next_at').notNull().defaultNow(),
  /** Retries stop after this time (CMS_WEBHOOKS_RETRY_FOR_MS from the first try or the replay). */
  retryUntil: instant('retry_until').notNull(),
  /** A worker holds the delivery until then; after, another may take it. */
  leaseUntil: instant('lease_until'),
  leaseToken: text('lease_token'),
  /** The last attempt: its HTTP status (null: no answer), duration, answer's body (truncated) and error. */
  responseStatus: integer('response_status'),
  responseBody: text('response_body'),
  durationMs: integer('duration_ms'),
  error: text('error'),
  lastAttemptAt: instant('last_attempt_at'),
  created: instant('created').notNull().defaultNow()
}, (t) => [
  // Exactly one delivery per event and subscription, whichever replica's listener gets there (and however often).
  uniqueIndex('webhook_deliveries_once').on(t.webhookId, t.eventId),
  // The worker's due deliveries.
  index('webhook_deliveries_due').on(t.nextAt).where(sql`${t.status} = 'pending'`),
  // A subscription's log, newest first.
  index('webhook_deliveries_log').on(t.webhookId, t.id),
  index('webhook_deliveries_created').on(t.created)
])
