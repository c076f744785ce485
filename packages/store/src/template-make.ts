/**
 * Makes the migrated templates of the embedded database (template.ts says
 * what they are and how a new data directory uses one).
 */
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { openStore } from './db.js'
import { migrate, migrationOrder } from './migrate.js'
import type { MigrationSet } from './migrate.js'
import { migrationsIn, pgliteBuild, type Manifest } from './template.js'

function manifestOf (dir: string, sets: readonly MigrationSet[]): Manifest {
  return { build: pgliteBuild(), sets: migrationOrder(sets).map((s) => ({ name: s.name, folder: relative(dir, s.folder), migrations: migrationsIn(s.folder) })) }
}

/** A template's name: its manifest's hash (the same migrations on the same build make the same name). */
function nameOf (manifest: Manifest): string {
  return `t-${createHash('sha256').update(JSON.stringify(manifest)).digest('hex').slice(0, 16)}`
}

/** Partial folders of a process that died are removed after this long. */
const PARTIAL_KEEP_MS = 3600_000

/**
 * Makes the template of `sets` (the store's own and theirs, in dependency
 * order) in `dir`, unless it is there already; removes the others (and
 * what a dead maker left). Answers its folder and whether it was made now.
 */
export async function makePgliteTemplate (dir: string, sets: readonly MigrationSet[]): Promise<{ path: string, made: boolean }> {
  const manifest = manifestOf(dir, sets)
  const path = join(dir, nameOf(manifest))
  if (existsSync(join(path, 'manifest.json'))) return { path, made: false }
  const partial = `${path}.partial-${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    const store = await openStore({ dataDir: partial })
    try {
      await migrate(store, sets)
    } finally {
      await store.close()
    }
    writeFileSync(join(partial, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    try {
      renameSync(partial, path)
    } catch (err) {
      // Another maker renamed the same template first.
      if (!existsSync(join(path, 'manifest.json'))) throw err
    }
  } finally {
    rmSync(partial, { recursive: true, force: true })
  }
  for (const entry of readdirSync(dir)) {
    const other = join(dir, entry)
    if (other === path) continue
    try {
      if (!entry.includes('.partial-') || Date.now() - statSync(other).mtimeMs > PARTIAL_KEEP_MS) rmSync(other, { recursive: true, force: true })
    } catch {}
  }
  return { path, made: true }
}
