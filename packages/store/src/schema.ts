/**
 * Tables owned by @cms/store: only the site options. Every package that
 * owns tables keeps them in its own `src/schema.ts` (or `src/<area>/schema.ts`)
 * with its own drizzle config and migrations folder, run by `migrate()` in
 * dependency order with a migrations table of its own.
 *
 * Conventions for schema files (so drizzle-kit can load them):
 * - database names are snake_case (the store runs drizzle with
 *   `casing: 'snake_case'`, so `authorId: integer()` becomes `author_id`;
 *   naming columns explicitly is fine too);
 * - import only from `drizzle-orm`, `drizzle-orm/pg-core`,
 *   `@cms/store/columns` and other schema files, never from modules with
 *   side effects;
 * - for JSON use `jsonb` from `@cms/store/columns` (drizzle's own `jsonb`
 *   turns a stored string such as "null" or "123" into null / 123 on read).
 */
import { boolean, pgTable, text } from 'drizzle-orm/pg-core'
import { jsonb } from './columns.js'

/** Site options (name -> JSON value), WordPress `wp_options` style. */
export const options = pgTable('options', {
  name: text('name').primaryKey(),
  value: jsonb('value').notNull(),
  autoload: boolean('autoload').notNull().default(true),
})
