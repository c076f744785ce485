// recordStatements (@cms/store/testing): what a store sends, counted the same
// on PostgreSQL and PGlite (a transaction's begin and commit included), so
// route tests can assert statement counts instead of timing anything.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { executeNamed } from '../src/index.js'
import { openTestStore, openTestStores, migrateTestStore, recordStatements } from '../src/testing.js'

t.test('plain statements, named ones and transactions, counted on either database', async (t) => {
  const store = await openTestStore()
  t.teardown(() => store.close())
  await store.execute('create table counted (id int primary key, v text)')

  const log = recordStatements(store)
  await store.execute(sql`insert into counted values (1, 'a')`)
  await executeNamed(store, 'counted_read', sql`select v from counted where id = ${1}`)
  await executeNamed(store, 'counted_read', sql`select v from counted where id = ${1}`)
  t.equal(log.texts.length, 3, 'one statement per call, a named statement each time it runs')
  t.match(log.texts[0], /^insert into counted/)
  t.equal(log.texts[1], 'select v from counted where id = $1')

  log.texts.length = 0
  await store.transaction(async (tx) => {
    await tx.execute(sql`insert into counted values (2, 'b')`)
    await tx.execute(sql`update counted set v = 'c' where id = 2`)
  })
  t.same(log.texts.map((text) => text.split(' ')[0]!.toLowerCase()), ['begin', 'insert', 'update', 'commit'], 'a transaction: begin, its statements, commit')

  log.texts.length = 0
  await t.rejects(store.transaction(async (tx) => {
    await tx.execute(sql`insert into counted values (3, 'd')`)
    throw new Error('undo')
  }))
  t.same(log.texts.map((text) => text.split(' ')[0]!.toLowerCase()), ['begin', 'insert', 'rollback'], 'a failed one: rollback')

  await store.horizon() // once first: this store has no epochs table, which its first try finds out
  log.texts.length = 0
  await Promise.all([store.horizon(), store.horizon(), store.snapshot()])
  t.equal(log.texts.length, 1, 'the horizons asked in one turn: one statement')

  log.stop()
  await store.execute('select 1')
  t.equal(log.texts.length, 1, 'nothing recorded once stopped')
  const second = recordStatements(store)
  await store.execute('select 2')
  t.same(second.texts, ['select 2'], 'a new record sees only what follows it')
  second.stop()
})

t.test('a store made later (the apps\' test stores) is recorded once made', async (t) => {
  const [store] = await openTestStores(1)
  t.teardown(() => store!.close())
  await migrateTestStore(store!)
  const log = recordStatements(store!)
  await store!.execute('select 1')
  t.equal(log.texts.length, 1)
  log.stop()
})
