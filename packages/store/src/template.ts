/**
 * Migrated templates of the embedded database. Creating a PGlite data
 * directory runs initdb (a second PostgreSQL in WebAssembly, about 9 s of
 * CPU) and then every migration; a first start spent most of its time there.
 * A template is a data directory made once (by the build: scripts/build-dist.mjs
 * runs apps/cli/src/pglite-template.ts), with every installed package's
 * migrations applied and nothing else: no user, no site key (made on first
 * need: core's platform/site-keys), no option a site set. A new data
 * directory starts as a copy of it, and the migrations still run on top,
 * so a template older than the code is correct too.
 *
 * Each template is a folder `<name>/` (its `pgdata/` and `manifest.json`)
 * of the templates directory, never changed once named (made under another
 * name, then renamed), so a copy never mixes two of them. The manifest names
 * the PGlite build it was made by and, per migration set, the folder and
 * each migration applied (its time and a hash of its SQL). A template is
 * used only when the build is this one and every set's migrations are the
 * first ones of that folder as it is now; otherwise the database is made by
 * initdb as before.
 */
import { createHash } from 'node:crypto'
import { cpSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pgliteSettings } from './pglite-settings.js'

/** Where the build keeps the templates: the repository's `node_modules/.cache/cms/pglite-templates` (never outside the tree). */
export const defaultTemplatesDir = fileURLToPath(new URL('../../../node_modules/.cache/cms/pglite-templates', import.meta.url))

export interface Manifest {
  build: string
  sets: Array<{ name: string, folder: string, migrations: Array<{ when: number, hash: string }> }>
}

/** PGlite's version and the store's settings: what an initdb made (a directory of another build is not used). */
export function pgliteBuild (): string {
  return createHash('sha256').update(pgliteVersion()).update(JSON.stringify(pgliteSettings)).digest('hex').slice(0, 12)
}

function pgliteVersion (): string {
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')))
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string, version?: string }
      if (manifest.name === '@electric-sql/pglite' && manifest.version !== undefined) return manifest.version
    } catch {}
    const up = dirname(dir)
    if (up === dir) throw new Error('the version of @electric-sql/pglite was not found')
    dir = up
  }
}

/** A folder's migrations as the migrator reads them: each one's time and a hash of its SQL, in order. */
export function migrationsIn (folder: string): Array<{ when: number, hash: string }> {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ when: number, tag: string }> }
  return journal.entries.map((e) => ({ when: e.when, hash: createHash('sha256').update(readFileSync(join(folder, `${e.tag}.sql`))).digest('hex') }))
}

/** Whether a template's migrations are the first ones of each folder as it is now (then the migrator adds the rest). */
function usable (dir: string, manifest: Manifest, build: string): string | undefined {
  if (manifest.build !== build) return `made by another PGlite build (${manifest.build}, this one ${build})`
  for (const set of manifest.sets) {
    let now: Array<{ when: number, hash: string }>
    try {
      now = migrationsIn(resolve(dir, set.folder))
    } catch {
      return `the migrations of ${set.name} are not at ${set.folder} any more`
    }
    const differs = set.migrations.findIndex((m, i) => now[i]?.when !== m.when || now[i]?.hash !== m.hash)
    if (differs !== -1) return `its migration ${differs} of ${set.name} is not the code's`
  }
  return undefined
}

/**
 * Makes `pgdata` (which must not exist) a copy of the most complete usable
 * template of `dir`: copied under another name, then renamed, so a copy cut
 * short is never taken for a database. Answers the template's folder, or
 * why none was used (then the caller runs initdb).
 */
export function copyPgliteTemplate (dir: string, pgdata: string): { from: string } | { skipped: string } {
  let entries: string[]
  try {
    entries = readdirSync(dir).filter((e) => !e.includes('.partial-'))
  } catch {
    return { skipped: `no templates in ${dir}` }
  }
  const build = pgliteBuild()
  const reasons: string[] = []
  const candidates: Array<{ path: string, count: number }> = []
  for (const entry of entries) {
    const path = join(dir, entry)
    try {
      const manifest = JSON.parse(readFileSync(join(path, 'manifest.json'), 'utf8')) as Manifest
      const why = usable(dir, manifest, build)
      if (why === undefined) candidates.push({ path, count: manifest.sets.reduce((n, s) => n + s.migrations.length, 0) })
      else reasons.push(`${entry}: ${why}`)
    } catch {
      reasons.push(`${entry}: no readable manifest`)
    }
  }
  const best = candidates.sort((a, b) => b.count - a.count)[0]
  if (best === undefined) return { skipped: reasons.length === 0 ? `no templates in ${dir}` : reasons.join('; ') }
  const partial = `${pgdata}.template-${process.pid}`
  try {
    cpSync(join(best.path, 'pgdata'), partial, { recursive: true })
    renameSync(partial, pgdata)
    return { from: best.path }
  } catch (err) {
    rmSync(partial, { recursive: true, force: true })
    return { skipped: `copying ${best.path} failed: ${(err as Error).message}` }
  }
}
