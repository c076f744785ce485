/**
 * Tables owned by @cms/builder (migrations in ../migrations, recorded in
 * `drizzle.__migrations_cms_builder`).
 */
import { boolean, integer, pgTable, text } from 'drizzle-orm/pg-core'

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
