/**
 * The embedded database shared on a Unix socket (src/share.ts): another
 * process's `pg` client works on the owner's PGlite, a client's transaction
 * never interleaves with the owner's queries, and what a client leaves in
 * PGlite's one session is undone when it goes.
 */
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { sql } from 'drizzle-orm'
import t from 'tap'
import { executeNamed, openStore, shareStore, sharedDatabaseAnswers, sharedDatabaseUrl, sharedSocketPath, type SharedDatabase } from '../src/index.js'

const dir = mkdtempSync(join(tmpdir(), 'cms-share-'))
const owner = await openStore({ memory: true })
const shared = await shareStore(owner, dir) as SharedDatabase
t.teardown(async () => {
  await shared.close()
  await owner.close()
  rmSync(dir, { recursive: true, force: true })
})
await owner.execute('create table notes (id serial primary key, body text not null)')
const url = sharedDatabaseUrl(dir)

/** Lets the event loop turn a few times (what is waiting for a lock stays waiting). */
const turns = async (n = 20): Promise<void> => { for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve)) }

t.test('the socket is the owner user\'s alone and answers', async (t) => {
  t.equal(typeof shared, 'object')
  t.equal(statSync(sharedSocketPath(dir)).mode & 0o777, 0o600)
  t.equal(await sharedDatabaseAnswers(dir), true)
})

t.test('a client reads and writes the owner\'s database', async (t) => {
  const client = await openStore({ databaseUrl: url, poolSize: 2 })
  t.teardown(() => client.close())
  t.equal(client.kind, 'pg')
  await owner.execute(sql`insert into notes (body) values ('from the owner')`)
  await client.execute(sql`insert into notes (body) values ('from the client')`)
  const seen = await client.execute<{ body: string }>('select body from notes order by id')
  t.same(seen.map((r) => r.body), ['from the owner', 'from the client'])
  t.same((await owner.execute<{ n: number }>('select count(*)::int as n from notes'))[0], { n: 2 })
  await client.execute('delete from notes')
})

t.test('the owner\'s queries wait for a client\'s transaction and never run inside it', async (t) => {
  const client = await openStore({ databaseUrl: url, poolSize: 2 })
  t.teardown(() => client.close())
  let ownerAnswer: number | undefined
  let pending: Promise<void> | undefined
  await client.transaction(async (tx) => {
    await tx.execute(sql`insert into notes (body) values ('in a transaction')`)
    pending = owner.execute<{ n: number }>('select count(*)::int as n from notes').then((rows) => { ownerAnswer = rows[0]!.n })
    await turns()
    t.equal(ownerAnswer, undefined, 'the owner waits while the transaction is open')
    await tx.execute(sql`insert into notes (body) values ('still in it')`)
  })
  await pending
  t.equal(ownerAnswer, 2, 'then it sees both rows, committed')
  await client.execute('delete from notes')
})

t.test('a client that disconnects inside a transaction leaves nothing behind', async (t) => {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  await client.query('begin')
  await client.query("insert into notes (body) values ('never committed')")
  // The connection dropped as by a killed process.
  ;(client as unknown as { connection: { stream: { destroy: () => void } } }).connection.stream.destroy()
  const rows = await owner.execute<{ n: number }>('select count(*)::int as n from notes')
  t.equal(rows[0]!.n, 0, 'rolled back; and the owner is not kept waiting')
  // A savepoint is refused outside a transaction block, whatever the clock says.
  const refusal = await owner.execute('savepoint share_test_probe').then(() => 'accepted', (err: Error & { cause?: Error }) => (err.cause ?? err).message)
  t.match(refusal, /transaction block/, 'the session is out of the transaction')
})

t.test('named statements of one client do not clash with the next client\'s', async (t) => {
  for (let i = 0; i < 2; i++) {
    const client = await openStore({ databaseUrl: url, poolSize: 1 })
    const rows = await executeNamed<{ v: number }>(client, 'share_test_named', sql`select ${i}::int as v`)
    t.same(rows, [{ v: i }], `client ${i + 1}`)
    await client.close()
  }
})

t.test('a client holding the lock in silence is cut off', async (t) => {
  const sub = mkdtempSync(join(tmpdir(), 'cms-share-idle-'))
  t.teardown(() => rmSync(sub, { recursive: true, force: true }))
  const quick = await shareStore(owner, sub, { idleMs: 50 }) as SharedDatabase
  t.teardown(() => quick.close())
  const client = new pg.Client({ connectionString: sharedDatabaseUrl(sub) })
  client.on('error', () => {})
  await client.connect()
  await client.query('begin')
  await client.query("insert into notes (body) values ('abandoned')")
  const ended = new Promise((resolve) => client.once('end', resolve))
  // The owner's query waits for the cut, then runs.
  const rows = await owner.execute<{ n: number }>('select count(*)::int as n from notes')
  t.equal(rows[0]!.n, 0)
  await ended
})

t.test('closed: the socket is gone and no longer answers', async (t) => {
  const sub = mkdtempSync(join(tmpdir(), 'cms-share-closed-'))
  t.teardown(() => rmSync(sub, { recursive: true, force: true }))
  const once = await shareStore(owner, sub) as SharedDatabase
  await once.close()
  t.equal(existsSync(sharedSocketPath(sub)), false)
  t.equal(await sharedDatabaseAnswers(sub), false)
})

t.test('a store on PostgreSQL is not shared', async (t) => {
  const client = await openStore({ databaseUrl: url, poolSize: 1 })
  t.teardown(() => client.close())
  t.match(await shareStore(client, dir), /PostgreSQL server/)
})
