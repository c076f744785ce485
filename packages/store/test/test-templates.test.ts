/**
 * Test databases are copies of migrated templates (src/testing.ts): a copy
 * holds what the migrations make, copies are independent of each other, a
 * store opened with `migrate: 'later'` becomes a copy of the template of the
 * sets `migrateTestStore` is given, and an edited migration makes a new
 * template instead of reusing the old one. A copy's own migrator applies
 * nothing (`migrationsApplied`); a store opened with `migrate: false`
 * (the tests of the migrations themselves) is migrated from nothing. The
 * folder of PGlite dumps stays bounded. Runs on PGlite and, with
 * CMS_TEST_DATABASE_URL, on PostgreSQL.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { migrationsTableOf } from '../src/index.js'
import type { MigrationSet, Store } from '../src/index.js'
import { migrateTestStore, migrationsApplied, openTestStore, openTestStores, pruneTemplates } from '../src/testing.js'

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/sets/${name}`, import.meta.url))
const alpha: MigrationSet = { name: '@test/alpha', folder: fixture('alpha') }
const beta: MigrationSet = { name: '@test/beta', folder: fixture('beta'), dependsOn: ['@test/alpha'] }

async function count (store: Store, table: string): Promise<number> {
  const rows = await store.execute<{ n: number }>(sql.raw(`select count(*)::int as n from ${table}`))
  return rows[0]!.n
}

async function columns (store: Store, table: string): Promise<string[]> {
  const rows = await store.execute<{ column_name: string }>(sql`select column_name from information_schema.columns where table_name = ${table} order by column_name`)
  return rows.map((r) => r.column_name)
}

t.test('copies of one template hold the migrations and are independent', async (t) => {
  const one = await openTestStore({ migrations: [alpha, beta] })
  t.teardown(() => one.close())
  const two = await openTestStore({ migrations: [beta, alpha] })
  t.teardown(() => two.close())
  await one.execute(sql`insert into alpha_items (name) values ('only in one')`)
  t.equal(await count(one, 'alpha_items'), 1)
  t.equal(await count(two, 'alpha_items'), 0, 'a write to one copy is not in the other')
  t.equal(await count(two, `drizzle.${migrationsTableOf('@test/beta')}`), 1, 'the migrations are recorded as run')
  await two.execute(sql`insert into alpha_items (name) values ('two')`)
  await two.execute(sql`insert into beta_links (alpha_id) values (1)`)
  t.equal(await count(two, 'beta_links'), 1, 'the copy has every table of the sets')
  t.equal(migrationsApplied(one) + migrationsApplied(two), 0, 'neither copy ran a migration itself')
})

t.test('a store opened with migrate: false is migrated from nothing, and counted', async (t) => {
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  t.same(await columns(store, 'alpha_items'), [], 'empty')
  await migrateTestStore(store, [alpha, beta])
  t.equal(migrationsApplied(store), 3, "the store's own migration, alpha's and beta's")
  await migrateTestStore(store, [alpha, beta])
  t.equal(migrationsApplied(store), 3, 'again: nothing left to apply')
})

t.test('a store opened for later is made by migrateTestStore from the template of its sets', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  await migrateTestStore(store, [alpha])
  t.equal(await count(store, 'alpha_items'), 0)
  t.same(await columns(store, 'beta_links'), [], 'only the sets given')
  t.equal(migrationsApplied(store), 0, 'a copy of the template: nothing applied')
  await migrateTestStore(store, [alpha, beta])
  t.equal(await count(store, 'beta_links'), 0, 'called again, it migrates the store in place')
  t.equal(migrationsApplied(store), 1, "in place: beta's one migration")
})

t.test('stores opened together share one database, made by the first migrateTestStore on any of them', async (t) => {
  const [one, two] = await openTestStores(2)
  t.teardown(async () => { await one!.close(); await two!.close() })
  await migrateTestStore(two!, [alpha])
  await migrateTestStore(one!, [alpha])
  await one!.execute(sql`insert into alpha_items (name) values ('written by one')`)
  t.equal(await count(two!, 'alpha_items'), 1, 'the other store reads it')
  t.equal(migrationsApplied(one!) + migrationsApplied(two!), 0, 'a copy of the template')
})

t.test('a store opened for later refuses to be used before migrateTestStore', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  await t.rejects(store.execute(sql`select 1`), 'no database yet')
  await migrateTestStore(store, [alpha])
  t.same(await store.execute(sql`select 1 as one`), [{ one: 1 }])
})

t.test('an edited migration makes a new template', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-template-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  cpSync(fixture('alpha'), dir, { recursive: true })
  const set: MigrationSet = { name: '@test/alpha', folder: dir }
  const before = await openTestStore({ migrations: [set] })
  t.teardown(() => before.close())
  const sqlFile = join(dir, '0000_alpha.sql')
  const original = readFileSync(sqlFile, 'utf8')
  writeFileSync(sqlFile, original.replace(/\s*\);\s*$/, ',\n  "edited" text\n);\n'))
  t.not(readFileSync(sqlFile, 'utf8'), original, 'the fixture was edited')
  const after = await openTestStore({ migrations: [set] })
  t.teardown(() => after.close())
  t.notOk((await columns(before, 'alpha_items')).includes('edited'))
  t.ok((await columns(after, 'alpha_items')).includes('edited'), 'the edited migration is in the template the copy came from')
  t.equal(migrationsApplied(after), 0, 'a copy of a new template, not a migration run on the old one')
})

t.test('the folder of PGlite dumps keeps the most recently used ones only', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-template-prune-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const now = Date.now()
  const minute = 60_000
  const make = (name: string, minutesAgo: number): void => {
    const path = join(dir, name)
    writeFileSync(path, 'x')
    const at = new Date(now - minutesAgo * minute)
    utimesSync(path, at, at)
  }
  // 30 dumps used a minute apart (dump-0 the most recent), one unused for three days, one just made but dated old.
  for (let i = 0; i < 30; i++) make(`dump-${i}.tar`, i + 1)
  make('stale.tar', 3 * 24 * 60)
  make('new.tar', 5 * 24 * 60)
  // Partial writes: one of a process that died (two hours old), one under way.
  make('dump-0.tar.123.abcd', 120)
  make('dump-1.tar.456.ef01', 0)
  pruneTemplates(dir, join(dir, 'new.tar'), now)
  const left = readdirSync(dir).sort()
  const dumps = left.filter((name) => name.endsWith('.tar'))
  t.equal(dumps.length, 24, 'at most 24 dumps')
  t.ok(left.includes('new.tar'), 'the one just made stays')
  t.same(dumps.filter((name) => name.startsWith('dump-')).sort((a, b) => Number(a.slice(5, -4)) - Number(b.slice(5, -4))), Array.from({ length: 23 }, (_, i) => `dump-${i}.tar`), 'the 23 most recently used others stay')
  t.notOk(left.includes('stale.tar'), 'one unused for days is removed')
  t.notOk(left.includes('dump-0.tar.123.abcd'), "a dead process's partial write is removed")
  t.ok(left.includes('dump-1.tar.456.ef01'), 'a write under way stays')
})
