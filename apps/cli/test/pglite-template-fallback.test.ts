/**
 * Without a usable migrated template (here one made by another PGlite
 * build), a first start on the embedded database runs initdb and every
 * migration, as before templates existed, says why, and answers.
 * (A separate file: initdb is most of a minute of CPU under load.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { inside, me, start } from './service.js'

t.test('a template of another PGlite build is not used: initdb, and the service starts', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'cms-pglite-fallback-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const templates = join(root, 'templates')
  mkdirSync(join(templates, 't-other', 'pgdata'), { recursive: true })
  writeFileSync(join(templates, 't-other', 'pgdata', 'PG_VERSION'), 'not a database')
  writeFileSync(join(templates, 't-other', 'manifest.json'), JSON.stringify({ build: 'another-build', sets: [] }))
  const service = await start(t, root, 'data', templates)
  t.match(service.log(), /\(initdb, first start; no template: t-other: made by another PGlite build/, 'says why it ran initdb')
  t.equal(await me(service, service.appPassword), 200, 'starts, its first administrator made')
  const { applied, siteKeys } = await inside(service.dataDir, ['@cms/store', '@cms/core'])
  t.ok(applied['@cms/store']! >= 1 && applied['@cms/core']! >= 15, `migrated by its own start (${JSON.stringify(applied)})`)
  t.equal(siteKeys.length, 1)
})
