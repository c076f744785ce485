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
 * What drizzle cannot declare (a trigger, a function) goes in a custom
 * migration, kept in the same chain: `db:generate --custom --name what`
 * writes an empty SQL file (and a copy of the snapshot) to fill in.
 *
 * The migrator applies a migration only when its journal time (`when`) is
 * later than the newest one a database recorded, so a new entry stamped
 * with the clock at or before an older entry's time (some older journals
 * carry hand-set times ahead of the clock) would be skipped silently on
 * every database already migrated: such an entry is moved to just after
 * the one before it.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
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
const journalFile = join('migrations', 'meta', '_journal.json')
const entriesOf = () => existsSync(journalFile) ? JSON.parse(readFileSync(journalFile, 'utf8')).entries.length : 0
const before = entriesOf()
const run = spawnSync(process.execPath, [bin, 'generate', '--config', 'drizzle.config.ts', ...process.argv.slice(2)], { stdio: 'inherit' })
if (run.status === 0 && entriesOf() > before) {
  const journal = JSON.parse(readFileSync(journalFile, 'utf8'))
  let moved = false
  for (let i = Math.max(before, 1); i < journal.entries.length; i++) {
    const previous = journal.entries[i - 1].when
    if (journal.entries[i].when <= previous) {
      journal.entries[i].when = previous + 1
      moved = true
      process.stdout.write(`db-generate: ${journal.entries[i].tag} stamped ${previous + 1}, after ${journal.entries[i - 1].tag} (the clock is behind it)\n`)
    }
  }
  if (moved) writeFileSync(journalFile, JSON.stringify(journal, null, 2))
}
process.exit(run.status ?? 1)
