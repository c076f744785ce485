/**
 * The core's tables (`src/<area>/schema.ts`, `src/platform/events/schema.ts`)
 * and their migrations (migrations/), which run at start into
 * `drizzle.__migrations_cms_core` (see `src/migrations.ts`). After changing a
 * table: `pnpm --filter @cms/core db:generate` writes the next migration. A
 * plain object (no import of drizzle-kit, which only the store installs).
 */
export default {
  dialect: 'postgresql',
  schema: ['./src/**/schema.ts'],
  out: './migrations',
  casing: 'snake_case',
  strict: true,
  verbose: true
}
