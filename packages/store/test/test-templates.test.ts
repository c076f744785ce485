/**
 * Test databases are copies of migrated templates (src/testing.ts): a copy
 * holds what the migrations make, copies are independent of each other, a
 * store opened with `migrate: 'later'` becomes a copy of the template of the
 * sets `migrateTestStore` is given, and an edited migration makes a new
 * template instead of reusing the old one. Runs on PGlite and, with
 * CMS_TEST_DATABASE_URL, on PostgreSQL.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { migrationsTableOf } from '../src/index.js'
import type { MigrationSet, Store } from '../src/index.js'
import { migrateTestStore, openTestStore } from '../src/testing.js'

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
})

t.test('a store opened for later is made by migrateTestStore from the template of its sets', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  await migrateTestStore(store, [alpha])
  t.equal(await count(store, 'alpha_items'), 0)
  t.same(await columns(store, 'beta_links'), [], 'only the sets given')
  await migrateTestStore(store, [alpha, beta])
  t.equal(await count(store, 'beta_links'), 0, 'called again, it migrates the store in place')
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
  t.ok((await columns(after, 'alpha_items')).includes('edited'), 'the edited migration ran')
})
