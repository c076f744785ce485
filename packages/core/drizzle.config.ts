/**
 * The core's migrations: its tables (users, content, oEmbed cache) in
 * `src/<area>/schema.ts` (`src/platform/events/schema.ts`), written to `migrations/` with their own migrations
 * table (`drizzle.__migrations_cms_core`, see `src/migrations.ts`).
 *
 *   cd packages/store && npx drizzle-kit generate --config ../core/drizzle.config.ts
 */
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: ['../core/src/**/schema.ts'],
  out: '../core/migrations',
  casing: 'snake_case',
  strict: true,
  verbose: true
})
