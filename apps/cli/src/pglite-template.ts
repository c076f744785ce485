#!/usr/bin/env node
/**
 * Makes the embedded database's migrated template (packages/store's
 * template.ts): initdb and the migrations of every installed package and of
 * the importer, as `cms migrate` applies them, and nothing else. A new data
 * directory then starts as a copy of it (about 0.2 s) instead of running
 * initdb and every migration (8 s on a quiet machine). Run by
 * scripts/build-dist.mjs after it compiled something (the install runs it);
 * does nothing when the template of these migrations is there already.
 *
 *   node apps/cli/dist/pglite-template.js [templates directory]
 */
import type { Store } from '@cms/store'
import { defaultTemplatesDir, makePgliteTemplate } from '@cms/store'
import { importMigrations } from './import/map.js'
import { withPackages } from './packages.js'

// The packages declare their migrations without touching a database: a stand-in
// that refuses any use (what they keep per store, `local`, is optional) is enough.
const unopened = new Proxy({} as Store, {
  get (_target, key) {
    if (key === 'local' || key === 'then') return undefined
    throw new Error(`the packages used the database while declaring their migrations (${String(key)})`)
  }
})

try {
  const dir = process.argv[2] ?? defaultTemplatesDir
  const started = performance.now()
  const sets = await withPackages(unopened, async (platform) => [...platform.migrationSets(), importMigrations])
  const { path, made } = await makePgliteTemplate(dir, sets)
  if (made) process.stdout.write(`pglite-template: the embedded database's migrated template made in ${((performance.now() - started) / 1000).toFixed(1)} s (${path})\n`)
} catch (err) {
  // Without a template a new database is made by initdb, as before: a failure here stops nothing.
  process.stderr.write(`pglite-template: no template made (${(err as Error).message}); new embedded databases run initdb\n`)
}
