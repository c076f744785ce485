/**
 * Every package of the workspace keeps the layout `cms new package` gives a
 * new one (issue 28): its `cms` field and `.taprc`, a test running the
 * permission prober over the namespaces it serves, and, where it owns
 * tables, a drizzle config whose tables are the one source of its
 * migrations (drizzle-kit's snapshots chained, the next `db:generate`
 * writing nothing until a table changes). A migration a database has
 * applied is never rewritten (fixtures/applied-migrations.json: tag, time
 * and SQL hash of every migration on main: a migration's line is added
 * there when it lands), and a migration generated while an older journal
 * time is still ahead of the clock is applied all the same.
 */
import { createHash } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { migrate } from '@cms/store'
import { openTestStore } from '@cms/store/testing'
import { packageFiles } from '../src/scaffold/package-files.js'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const script = join(repo, 'scripts', 'db-generate.mjs')

interface Manifest { name: string, cms?: { namespaces: string[] }, scripts?: Record<string, string> }
interface Journal { entries: Array<{ idx: number, tag: string, when: number }> }

// The packages, and the command line (the import map's table is its own).
const packages = [...readdirSync(join(repo, 'packages')).sort().map((name) => ['packages', name]), ['apps', 'cli']].map(([parent, name]) => {
  const dir = join(repo, parent!, name!)
  return { name: name!, dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest }
})
const withTables = packages.filter((p) => existsSync(join(p.dir, 'migrations')))
const journalOf = (dir: string): Journal => JSON.parse(readFileSync(join(dir, 'migrations', 'meta', '_journal.json'), 'utf8'))
const listing = (dir: string): string => JSON.stringify([readdirSync(join(dir, 'migrations')), readdirSync(join(dir, 'migrations', 'meta'))])
const generate = (cwd: string, args: string[] = []) => spawnSync(process.execPath, [script, ...args], { cwd, encoding: 'utf8' })

t.test('every package declares itself, runs as the others do and probes its permissions', async (t) => {
  for (const { name, dir, manifest } of packages.filter((p) => p.manifest.cms !== undefined)) {
    t.ok(existsSync(join(dir, '.taprc')), `${name}: .taprc`)
    if (manifest.cms!.namespaces.length === 0) continue
    const tests = readdirSync(join(dir, 'test')).filter((f) => f.endsWith('.test.ts'))
    t.ok(tests.some((f) => readFileSync(join(dir, 'test', f), 'utf8').includes('checkPermissions(')), `${name}: a test runs the permission prober`)
  }
})

t.test('each package\'s tables are the one source of its migrations', async (t) => {
  t.ok(withTables.length >= 9, withTables.map((p) => p.name).join(', '))
  for (const { name, dir, manifest } of withTables) {
    t.test(name, async (t) => {
      t.ok(existsSync(join(dir, 'drizzle.config.ts')), 'drizzle.config.ts')
      t.equal(manifest.scripts?.['db:generate'], 'node ../../scripts/db-generate.mjs', 'the db:generate script')
      const { entries } = journalOf(dir)
      let previous = ''
      entries.forEach((entry, i) => {
        if (i > 0) t.ok(entry.when > entries[i - 1]!.when, `${entry.tag}: recorded after the one before (the migrator skips an older time)`)
        const file = join(dir, 'migrations', 'meta', `${entry.tag.split('_')[0]}_snapshot.json`)
        t.ok(existsSync(file), `${entry.tag}: its drizzle-kit snapshot`)
        if (!existsSync(file)) return
        const snapshot = JSON.parse(readFileSync(file, 'utf8')) as { id: string, prevId: string }
        // The core's first follows the snapshot of the migration the store took over (0000_options).
        if (i > 0) t.equal(snapshot.prevId, previous, `${entry.tag}: its snapshot follows the one before`)
        previous = snapshot.id
      })
      const before = listing(dir)
      const run = generate(dir)
      t.equal(run.status, 0, run.stderr)
      t.match(run.stdout, /No schema changes/, 'db:generate now: nothing to write, the tables match the last snapshot')
      t.equal(listing(dir), before, 'no file written')
    })
  }
})

t.test('a migration a database has applied is never rewritten', async (t) => {
  const applied = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'applied-migrations.json'), 'utf8')) as Record<string, Array<[string, number, string]>>
  for (const [name, migrations] of Object.entries(applied)) {
    const dir = packages.find((p) => p.name === name)!.dir
    const { entries } = journalOf(dir)
    for (const [i, [tag, when, hash]] of migrations.entries()) {
      t.same([entries[i]?.tag, entries[i]?.when], [tag, when], `${name} ${tag}: same name and time`)
      t.equal(createHash('sha256').update(readFileSync(join(dir, 'migrations', `${tag}.sql`))).digest('hex'), hash, `${name} ${tag}: same SQL`)
    }
  }
})

t.test('a migration generated while an older one\'s time is ahead of the clock is applied', async (t) => {
  const ws = mkdtempSync(join(tmpdir(), 'cms-clock-'))
  t.teardown(() => { rmSync(ws, { recursive: true, force: true }) })
  const dir = join(ws, 'clock')
  // The first migration stamped a day ahead, as some hand-written journals were.
  const ahead = Date.now() + 86_400_000
  for (const [file, text] of Object.entries(packageFiles({ name: 'clock', namespace: 'clock/v1' }, ahead))) {
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    writeFileSync(join(dir, file), text)
  }
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(realpathSync(join(repo, 'packages', 'store', 'node_modules', 'drizzle-orm')), join(dir, 'node_modules', 'drizzle-orm'), 'dir')

  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  const set = { name: '@cms/clock', folder: join(dir, 'migrations') }
  await migrate(store, [set])

  const schema = join(dir, 'src', 'schema.ts')
  writeFileSync(schema, readFileSync(schema, 'utf8').replace('  title: text().notNull(),\n', '  title: text().notNull(),\n  note: text(),\n'))
  const run = generate(dir, ['--name', 'note'])
  t.equal(run.status, 0, run.stderr)
  t.match(run.stdout, /0001_note stamped/, 'the new entry is moved after the first')
  t.equal(readFileSync(join(dir, 'migrations', '0001_note.sql'), 'utf8').trim(), 'ALTER TABLE "clock_items" ADD COLUMN "note" text;', 'only the change')
  const { entries } = journalOf(dir)
  t.equal(entries[1]!.when, ahead + 1)
  t.match(generate(dir).stdout, /No schema changes/, 'and then nothing more')

  await migrate(store, [set])
  await store.execute('insert into clock_items (title, author, note) values (\'t\', 1, \'n\')')
  t.same(await store.execute('select note from clock_items'), [{ note: 'n' }], 'the database that applied the first migration has the new column')
  t.same(await store.execute('select count(*)::int as n from drizzle.__migrations_cms_clock'), [{ n: 2 }])
})
