/**
 * Test databases are copies of migrated templates (src/testing.ts): a copy
 * holds what the migrations make, copies are independent of each other, a
 * store opened with `migrate: 'later'` becomes a copy of the template of the
 * sets `migrateTestStore` is given, and an edited migration makes a new
 * template instead of reusing the old one. A copy's own migrator applies
 * nothing (`migrationsApplied`); a store opened with `migrate: false`
 * (the tests of the migrations themselves) is migrated from nothing. Runs
 * on PGlite and, with CMS_TEST_DATABASE_URL, on PostgreSQL.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { migrationsTableOf } from '../src/index.js'
import type { MigrationSet, Store } from '../src/index.js'
import { migrateTestStore, migrationsApplied, openTestStore, openTestStores } from '../src/testing.js'

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
