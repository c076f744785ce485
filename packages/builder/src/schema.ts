/**
 * Tables owned by @cms/builder (migrations in ../migrations, recorded in
 * `drizzle.__migrations_cms_builder`).
 */
import { bigserial, boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { jsonb } from '@cms/store/columns'

/** The NPS survey of each product (plugin slug): its dismiss state and the rating given. */
export const npsSurveys = pgTable('nps_surveys', {
  pluginSlug: text('plugin_slug').primaryKey(),
  dismissCount: integer('dismiss_count').notNull().default(0),
  dismissPermanently: boolean('dismiss_permanently').notNull().default(false),
  dismissStep: text('dismiss_step').notNull().default(''),
  /** Unix seconds of the last dismissal. */
  dismissTime: integer('dismiss_time'),
  dismissTimespan: integer('dismiss_timespan'),
  rating: integer('rating'),
  comment: text('comment'),
  ratedBy: integer('rated_by')
})

/** Editor usage events (`send-event`), at most EVENTS_CAP rows: the oldest go first. */
export const builderEvents = pgTable('builder_events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  eventData: jsonb('event_data').notNull(),
  userId: integer('user_id').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
}, (t) => [index('builder_events_created_at_idx').on(t.createdAt)])
