#!/usr/bin/env node
/**
 * Writes a package's next migration from its tables: drizzle-kit's
 * `generate` run in the package's folder with its drizzle.config.ts (schema
 * ./src/schema.ts, out ./migrations), so the table declarations are the one
 * source of the SQL. A package's `db:generate` script runs it:
 *
 *   pnpm --filter @cms/notes db:generate [--name what_changed]
 *
 * drizzle-kit is the store's development dependency; a package needs none
 * of its own. It writes nothing when the tables match the last snapshot.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'packages', 'store', 'node_modules', 'drizzle-kit', 'bin.cjs')
if (!existsSync(bin)) {
  process.stderr.write(`db-generate: drizzle-kit is not installed (${bin}); run pnpm install first\n`)
  process.exit(1)
}
if (!existsSync('drizzle.config.ts')) {
  process.stderr.write(`db-generate: no drizzle.config.ts in ${process.cwd()} (run it from a package folder)\n`)
  process.exit(1)
}
const run = spawnSync(process.execPath, [bin, 'generate', '--config', 'drizzle.config.ts', ...process.argv.slice(2)], { stdio: 'inherit' })
process.exit(run.status ?? 1)
