/**
 * The import's one table (migrations in ../../migrations, generated from
 * this by `pnpm --filter @cms/cli db:generate`, recorded in
 * `drizzle.__migrations_cms_import`). map.ts reads and writes it in SQL
 * text; this declaration is what the migrations come from.
 */
import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'
import { jsonb } from '@cms/store/columns'

/** Per source site, what each source record became here and the record's checksum then. */
export const importMap = pgTable('import_map', {
  source: text('source').notNull(),
  kind: text('kind').notNull(),
  sourceKey: text('source_key').notNull(),
  newId: integer('new_id').notNull(),
  checksum: text('checksum').notNull(),
  sourceUrl: text('source_url'),
  newUrl: text('new_url'),
  pending: jsonb('pending'),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
}, (t) => [
  primaryKey({ columns: [t.source, t.kind, t.sourceKey] }),
  index('import_map_url_idx').on(t.source, t.sourceUrl)
])
