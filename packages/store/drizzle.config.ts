/**
 * One migrations folder for the whole database: every package (or app) that
 * owns tables keeps them in its own `src/schema.ts` (or `src/<area>/schema.ts`),
 * and all of them are collected here. Packages without a schema file are
 * simply not matched.
 *
 *   pnpm --filter @cms/store generate      # after changing any schema.ts
 */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // Paths are relative to packages/store (where `pnpm --filter` runs drizzle-kit).
  schema: ['./src/schema.ts', '../*/src/schema.ts', '../*/src/*/schema.ts', '../../apps/*/src/schema.ts'],
  out: './migrations',
  casing: 'snake_case',
  strict: true,
  verbose: true,
});
