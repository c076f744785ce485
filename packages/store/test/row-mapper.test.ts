// prepareShaped's rows are mapped by a mapper made once per statement
// (row-mapper.ts): the same objects as drizzle's own mapping gives the same
// query run unnamed, on either database: columns, timestamps, sql fields,
// nested selections and a left-joined table's nulls.
import t from 'tap'
import { eq, sql } from 'drizzle-orm'
import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { dbOf, prepareShaped } from '../src/index.js'
import { openTestStore } from '../src/testing.js'

const owners = pgTable('mapped_owners', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  at: timestamp('at', { withTimezone: true, mode: 'date' })
})
const pets = pgTable('mapped_pets', {
  id: integer('id').primaryKey(),
  owner: integer('owner').notNull(),
  kind: text('kind')
})

t.test('a kept statement maps its rows as drizzle does', async (t) => {
  const store = await openTestStore()
  t.teardown(() => store.close())
  await store.execute('create table mapped_owners (id int primary key, name text not null, at timestamptz)')
  await store.execute('create table mapped_pets (id int primary key, owner int not null, kind text)')
  await store.execute("insert into mapped_owners values (1, 'ann', '2026-11-28 10:00:00+00'), (2, 'bob', null), (3, 'cy', '2020-02-29 23:59:59.123+00')")
  await store.execute("insert into mapped_pets values (10, 1, 'cat'), (11, 1, null), (12, 3, 'dog')")
  const d = dbOf(store)
  type Query = { execute: () => Promise<unknown>, prepare: (name: string) => { execute: () => Promise<unknown> } }
  const queries: Record<string, () => Query> = {
    'a table': () => d.select().from(owners).orderBy(owners.id),
    'a left join: an owner without pets has pets null': () => d.select().from(owners).leftJoin(pets, eq(pets.owner, owners.id)).orderBy(owners.id, pets.id),
    'a right join: nulls on the other side': () => d.select().from(pets).rightJoin(owners, eq(pets.owner, owners.id)).orderBy(owners.id, pets.id),
    'chosen fields, nested, with sql': () => d.select({
      owner: owners,
      pet: { id: pets.id, kind: pets.kind, upper: sql<string | null>`upper(${pets.kind})` },
      n: sql<number>`count(*) over ()`.mapWith(Number),
      names: sql<string[]>`array[${owners.name}, 'x']`
    }).from(owners).leftJoin(pets, eq(pets.owner, owners.id)).orderBy(owners.id, pets.id),
    'a partial left-joined table': () => d.select({ id: owners.id, pet: { kind: pets.kind } }).from(owners).leftJoin(pets, eq(pets.owner, owners.id)).orderBy(owners.id, pets.id)
  }
  for (const [what, build] of Object.entries(queries)) {
    const drizzles = await build().execute()
    const kept = prepareShaped(build(), 'mapped')
    t.same(await kept.execute(), drizzles, what)
    t.same(await kept.execute(), drizzles, `${what}, again`)
    t.ok((kept as { customResultMapper?: unknown }).customResultMapper !== undefined, `${what}: mapped by its own mapper`)
  }
  const [first] = await prepareShaped(d.select().from(owners).where(eq(owners.id, 3)), 'mapped').execute()
  t.ok(first?.at instanceof Date && first.at.toISOString() === '2020-02-29T23:59:59.123Z', 'a timestamp is a Date')
})
