/**
 * The store's own tables (src/schema.ts: `options`) and their migrations
 * (migrations/). Every package that owns tables keeps the same three: a
 * drizzle config, a schema and a migrations folder. After changing a table:
 * `pnpm --filter @cms/store db:generate` writes the next migration.
 */
export default {
  dialect: 'postgresql',
  schema: './src/schema.ts',
  out: './migrations',
  casing: 'snake_case',
  strict: true,
  verbose: true
}
