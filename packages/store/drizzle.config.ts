/**
 * The store's own migrations (the `options` table). Every package that owns
 * tables keeps its own drizzle config, schema and migrations folder
 * (packages/core/drizzle.config.ts for the core's).
 *
 *   pnpm --filter @cms/store generate      # after changing src/schema.ts
 */
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/schema.ts'],
  out: './migrations',
  casing: 'snake_case',
  strict: true,
  verbose: true,
})
