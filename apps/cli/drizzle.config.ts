/**
 * The import map's table (src/import/schema.ts) and its migrations
 * (migrations/), which `cms import` applies before it writes, into
 * `drizzle.__migrations_cms_import`.
 * After changing the table: `pnpm --filter @cms/cli db:generate` writes the next migration.
 */
export default {
  dialect: 'postgresql',
  schema: './src/import/schema.ts',
  out: './migrations',
  casing: 'snake_case',
  strict: true,
  verbose: true
}
