/**
 * The package's tables (src/schema.ts) and their migrations (migrations/),
 * which the gateway runs at start into `drizzle.__migrations_cms_builder`.
 * After changing a table: `pnpm --filter @cms/builder db:generate` writes the next migration.
 */
export default {
  dialect: 'postgresql',
  schema: './src/schema.ts',
  out: './migrations',
  casing: 'snake_case',
  strict: true,
  verbose: true
}
