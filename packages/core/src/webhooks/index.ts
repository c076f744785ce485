/**
 * Signed webhooks: `/cms/v2/webhooks` (routes.ts, administrators only)
 * subscribes a URL to lifecycle events; the core's lifecycle listeners
 * (`webhooks.<topic>`, one per topic) turn each event into one delivery per
 * subscription (store.ts, a unique key per event and subscription), and a
 * worker any replica runs sends them, signed as Standard Webhooks says,
 * with retries (delivery.ts). Tables: schema.ts (core migration 0010);
 * settings: settings.ts; the scheme for receivers: docs/guides/webhooks.md.
 *
 * Why not pg-boss or graphile-worker: as for the lifecycle events
 * (platform/events/index.ts), neither is in the catalog and both need a
 * PostgreSQL server (LISTEN/NOTIFY, several connections) that the embedded
 * PGlite cannot fully stand in for; a table with `FOR UPDATE SKIP LOCKED`
 * and a lease runs the same on both, beside the outbox it is fed from.
 *
 * Topics are the core's (LIFECYCLE_TOPICS): packages cannot declare topics
 * of their own (the outbox's triggers are the core's, and the event worker
 * refuses any other topic), so there are none of theirs to offer.
 */
export { webhookRoutes } from './routes.js'
export { WEBHOOK_LISTENERS } from './service.js'
