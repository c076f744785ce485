import t from 'tap'
import { sql } from 'drizzle-orm'
import { migrate, schema, getOption, setOption } from '../src/index.js'
import { openTestStore, testDatabaseUrl } from '../src/testing.js'

const expectedKind = testDatabaseUrl() ? 'pg' : 'pglite'

async function appliedMigrations (store: Awaited<ReturnType<typeof openTestStore>>): Promise<number> {
  const rows = await store.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__migrations_cms_store`)
  return rows[0]!.n
}

t.test('open, ping, execute', async (t) => {
  const store = await openTestStore()
  t.equal(store.kind, expectedKind)
  t.equal(await store.ping(), true)
  t.same(await store.execute(sql`select 1 + 1 as two`), [{ two: 2 }])
  t.same(await store.execute('select 3 as three'), [{ three: 3 }])
  await store.close()
  await store.close() // idempotent
  // With a time limit no run reaches, a false answer is the closed store's refusal, not the timer's (the time
  // itself is not asserted: a loaded machine is slow; tap's file timeout catches a hang).
  t.equal(await store.ping(3_600_000), false, 'ping after close is false, at once: not by waiting for its time limit')
})

t.test('the commit horizon moves with every write that commits, and only then', async (t) => {
  const store = await openTestStore()
  t.teardown(() => store.close())
  await migrate(store)
  const first = await store.horizon()
  t.type(first, 'string')
  const [a, b] = await Promise.all([store.horizon(), store.horizon()])
  t.equal(a, b, 'calls of one turn share one answer')
  // The horizon is the server's (pg_current_snapshot): on a test server other files commit meanwhile and move it.
  // So a read is shown to move nothing in some window of a few tries, as a read that wrote never could.
  const stillAfter = async (read: () => Promise<unknown>): Promise<boolean> => {
    for (let i = 0; i < 25; i++) {
      const before = await store.horizon()
      await read()
      if (await store.horizon() === before) return true
    }
    return false
  }
  t.ok(await stillAfter(async () => await store.horizon()), 'reads move nothing')
  t.ok(await stillAfter(async () => await store.db.select().from(schema.options)), 'a select moves nothing')
  t.notOk(await stillAfter(async () => await store.execute(sql`select txid_current()`)), 'a statement that takes a transaction id moves it (the check can fail)')
  await setOption(store, 'timezone_string', 'Europe/Paris')
  const second = await store.horizon()
  t.not(second, first, 'a committed write moves it')
  await store.execute(sql`update options set value = '"UTC"' where name = 'timezone_string'`)
  t.not(await store.horizon(), second, 'a write outside the service moves it too')
  await store.close()
  t.equal(await store.horizon(), undefined, 'undefined when it cannot be read')
})

t.test('the epochs are read by the statement of the horizon, once their table exists', async (t) => {
  const store = await openTestStore()
  t.teardown(() => store.close())
  await migrate(store)
  t.same((await store.snapshot())?.epochs, {}, 'no table (the core makes it): no epochs, the horizon still')
  t.type((await store.snapshot())?.horizon, 'string')
  await store.execute(sql`create table cms_epochs (name text primary key, value bigint not null)`)
  await store.execute(sql`insert into cms_epochs values ('credentials', 7)`)
  t.same((await store.snapshot())?.epochs, {}, 'not looked for again until migrations ran')
  await migrate(store)
  // Asked in one turn: on a shared test server other files commit between two turns and move the horizon.
  const [snapshot, horizon] = await Promise.all([store.snapshot(), store.horizon()])
  t.same(snapshot?.epochs, { credentials: '7' }, 'read after migrations ran')
  t.equal(snapshot?.horizon, horizon, 'the same horizon as horizon() answers')
  await store.execute(sql`update cms_epochs set value = 8`)
  const after = await store.snapshot()
  t.same(after?.epochs, { credentials: '8' })
  t.not(after?.horizon, snapshot?.horizon)
})

t.test('transaction rollback leaves no row', async (t) => {
  const store = await openTestStore()
  t.teardown(() => store.close())
  await t.rejects(
    store.transaction(async (tx) => {
      await tx.insert(schema.options).values({ name: 'name', value: 'rolled back' })
      const inside = await tx.select().from(schema.options)
      t.equal(inside.length, 1, 'visible inside the transaction')
      throw new Error('boom')
    }),
    /boom/
  )
  t.same(await store.db.select().from(schema.options), [], 'no row after rollback')

  const result = await store.transaction(async (tx) => {
    await setOption(tx, 'name', 'committed')
    return 42
  })
  t.equal(result, 42, 'returns the callback value')
  t.equal(await getOption(store, 'name'), 'committed')
})

t.test('migrate twice is a no-op', async (t) => {
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  await migrate(store)
  const applied = await appliedMigrations(store)
  t.ok(applied >= 1, 'migrations recorded')
  await setOption(store, 'name', 'kept')
  await migrate(store)
  t.equal(await appliedMigrations(store), applied, 'nothing applied again')
  t.equal(await getOption(store, 'name'), 'kept', 'data untouched')
  await Promise.all([migrate(store), migrate(store)])
  t.equal(await appliedMigrations(store), applied, 'overlapping calls are fine')
})
