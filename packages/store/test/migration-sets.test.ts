/**
 * Migrations per package: each set has its own table, sets run in
 * dependency order, and a database migrated when every migration shared one
 * table is adopted without running anything twice.
 */
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { migrate, migrationOrder, migrationsTableOf, getOption, setOption } from '../src/index.js'
import type { MigrationSet } from '../src/index.js'
import { openTestStore } from '../src/testing.js'

const folder = (name: string): string => fileURLToPath(new URL(`./fixtures/sets/${name}`, import.meta.url))
const alpha: MigrationSet = { name: '@test/alpha', folder: folder('alpha') }
const beta: MigrationSet = { name: '@test/beta', folder: folder('beta'), dependsOn: ['@test/alpha'] }

t.test('sets run in dependency order, each recorded in its own table', async (t) => {
  t.same(migrationOrder([beta, alpha]).map((s) => s.name), ['@cms/store', '@test/alpha', '@test/beta'])
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  // beta is given first; its table references alpha's, so the run fails unless alpha goes first.
  await migrate(store, [beta, alpha])
  await store.execute(sql`insert into alpha_items (name) values ('one')`)
  await store.execute(sql`insert into beta_links (alpha_id) values (1)`)
  for (const [name, n] of [['@cms/store', 1], ['@test/alpha', 1], ['@test/beta', 1]] as const) {
    const rows = await store.execute<{ n: number }>(sql.raw(`select count(*)::int as n from drizzle.${migrationsTableOf(name)}`))
    t.equal(rows[0]!.n, n, `${name}: its migration recorded in ${migrationsTableOf(name)}`)
  }
  await migrate(store, [alpha, beta])
  const again = await store.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__migrations_test_beta`)
  t.equal(again[0]!.n, 1, 'a second run applies nothing')
})

t.test('a missing dependency or a cycle stops before anything runs', async (t) => {
  t.throws(() => migrationOrder([beta]), /depend on @test\/alpha, which is not composed/)
  const a: MigrationSet = { name: 'a', folder: folder('alpha'), dependsOn: ['b'] }
  const b: MigrationSet = { name: 'b', folder: folder('beta'), dependsOn: ['a'] }
  t.throws(() => migrationOrder([a, b]), /cycle: a -> b -> a/)
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  await t.rejects(migrate(store, [beta]), /not composed/)
  const tables = await store.execute<{ n: number }>(sql`select count(*)::int as n from information_schema.tables where table_schema = 'drizzle'`)
  t.equal(tables[0]!.n, 0, 'no migrations table was made')
})

t.test('a database migrated into the one shared table is adopted', async (t) => {
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  // As the code before per-package migrations left it: every migration in drizzle.__drizzle_migrations.
  await store.execute(sql`create schema drizzle`)
  await store.execute(sql`create table drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`)
  await store.execute(sql`create table "options" ("name" text primary key not null, "value" jsonb not null, "autoload" boolean default true not null)`)
  await store.execute(sql`create table "alpha_items" ("id" serial primary key not null, "name" text not null)`)
  await store.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('h0', 1795316950934), ('h1', 1795700000000)`)
  await setOption(store, 'name', 'Kept')
  await store.execute(sql`insert into alpha_items (name) values ('kept')`)

  await migrate(store, [alpha, beta])
  t.equal(await getOption(store, 'name'), 'Kept', 'the option row is kept')
  t.same(await store.execute(sql`select name from alpha_items`), [{ name: 'kept' }], 'the package row is kept')
  t.same(await store.execute(sql`select hash from drizzle.__migrations_cms_store`), [{ hash: 'h0' }], 'the store adopted its row')
  t.same(await store.execute(sql`select hash from drizzle.__migrations_test_alpha`), [{ hash: 'h1' }], 'alpha adopted its row (not run again)')
  const ran = await store.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__migrations_test_beta`)
  t.equal(ran[0]!.n, 1, 'beta, new, ran')
})
