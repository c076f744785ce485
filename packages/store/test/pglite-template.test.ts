/**
 * Which migrated template a new embedded database is copied from
 * (src/template.ts): only one made by this PGlite build whose migrations are
 * the first ones of each folder as it is now (an older template is fine: the
 * migrator adds the rest), the most complete of those; none otherwise, and
 * then the caller runs initdb. The copy appears whole or not at all. The
 * templates here are stand-ins (a manifest and a small pgdata/): what a
 * real one gives a started service is apps/cli/test/pglite-template.test.ts.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { copyPgliteTemplate, migrationsIn, pgliteBuild, type Manifest } from '../src/template.js'

const fixture = fileURLToPath(new URL('./fixtures/sets/alpha', import.meta.url))

function setup (t: Test): { dir: string, folder: string, template: (name: string, manifest: Manifest) => void, fresh: () => string } {
  const root = mkdtempSync(join(tmpdir(), 'cms-pglite-template-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const folder = join(root, 'sets', 'alpha')
  cpSync(fixture, folder, { recursive: true })
  const dir = join(root, 'templates')
  let n = 0
  return {
    dir,
    folder,
    template: (name, manifest) => {
      mkdirSync(join(dir, name, 'pgdata', 'base'), { recursive: true })
      writeFileSync(join(dir, name, 'pgdata', 'PG_VERSION'), name)
      writeFileSync(join(dir, name, 'pgdata', 'base', 'file'), 'x')
      writeFileSync(join(dir, name, 'manifest.json'), JSON.stringify(manifest))
    },
    fresh: () => join(root, `data-${n++}`, 'pgdata')
  }
}

const manifest = (dir: string, folder: string, migrations: Manifest['sets'][number]['migrations'], build = pgliteBuild()): Manifest =>
  ({ build, sets: [{ name: '@test/alpha', folder: relative(dir, folder), migrations }] })

t.test('no templates directory: none used', async (t) => {
  const { dir, fresh } = setup(t)
  t.match(copyPgliteTemplate(dir, fresh()), { skipped: /^no templates in / })
})

t.test('a template of the code\'s migrations is copied whole, under its own name then renamed', async (t) => {
  const { dir, folder, template, fresh } = setup(t)
  template('t-current', manifest(dir, folder, migrationsIn(folder)))
  const pgdata = fresh()
  mkdirSync(join(pgdata, '..'), { recursive: true })
  t.same(copyPgliteTemplate(dir, pgdata), { from: join(dir, 't-current') })
  t.equal(readFileSync(join(pgdata, 'PG_VERSION'), 'utf8'), 't-current')
  t.equal(readFileSync(join(pgdata, 'base', 'file'), 'utf8'), 'x')
  t.same(readdirSync(join(pgdata, '..')), ['pgdata'], 'nothing else left beside it')
})

t.test('an older template (its migrations a prefix of the folder\'s) is used; the most complete one first', async (t) => {
  const { dir, folder, template, fresh } = setup(t)
  template('t-none', manifest(dir, folder, []))
  t.same(copyPgliteTemplate(dir, fresh()), { from: join(dir, 't-none') }, 'a template with none of the migrations yet')
  template('t-all', manifest(dir, folder, migrationsIn(folder)))
  t.same(copyPgliteTemplate(dir, fresh()), { from: join(dir, 't-all') }, 'the one with more of them')
})

t.test('another PGlite build, an edited migration, a migration the code does not have: not used', async (t) => {
  const { dir, folder, template, fresh } = setup(t)
  const current = migrationsIn(folder)
  template('t-build', manifest(dir, folder, current, 'another-build'))
  template('t-newer', manifest(dir, folder, [...current, { when: current[0]!.when + 1, hash: 'f'.repeat(64) }]))
  writeFileSync(join(dir, 't-junk'), 'not a template')
  const pgdata = fresh()
  const out = copyPgliteTemplate(dir, pgdata)
  t.match(out, { skipped: /t-build: made by another PGlite build/ })
  t.match(out, { skipped: /t-newer: its migration 1 of @test\/alpha is not the code's/ })
  t.match(out, { skipped: /t-junk: no readable manifest/ })
  t.notOk(existsSync(pgdata), 'nothing made')

  template('t-edited', manifest(dir, folder, current))
  writeFileSync(join(folder, '0000_alpha.sql'), `${readFileSync(join(folder, '0000_alpha.sql'), 'utf8')}\n-- edited\n`)
  t.match(copyPgliteTemplate(dir, fresh()), { skipped: /t-edited: its migration 0 of @test\/alpha is not the code's/ }, 'the SQL of an applied migration changed')
  rmSync(folder, { recursive: true })
  t.match(copyPgliteTemplate(dir, fresh()), { skipped: /t-edited: the migrations of @test\/alpha are not at / }, 'the folder is gone')
})
