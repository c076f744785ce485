// test-all: first pass only. PGlite on disk, whatever CMS_TEST_DATABASE_URL says:
// a second pass (scripts/test-run.mjs) would repeat it exactly.
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { getOption, migrate, openStore, setOption, StoreLockedError } from '../src/index.js'

// One data directory for both tests: creating one (initdb on disk) is most of this file's time, and the
// lock test needs a database, not a new one.
const dataDir = mkdtempSync(join(tmpdir(), 'cms-store-'))
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))

t.test('on-disk PGlite persists across reopen', async (t) => {
  const first = await openStore({ dataDir })
  t.equal(first.kind, 'pglite')
  await migrate(first)
  await setOption(first, 'name', 'Persisted')
  await setOption(first, 'posts_per_page', 7)
  await first.close()
  t.ok(existsSync(join(dataDir, 'pgdata', 'PG_VERSION')), 'database files under <dataDir>/pgdata')
  t.notOk(existsSync(join(dataDir, 'pgdata.lock')), 'lock released on close')

  const second = await openStore({ dataDir })
  t.teardown(() => second.close())
  await migrate(second)
  t.equal(await getOption(second, 'name'), 'Persisted')
  t.equal(await getOption(second, 'posts_per_page'), 7)
})

t.test('an on-disk database is opened once at a time', async (t) => {
  const store = await openStore({ dataDir })
  await t.rejects(openStore({ dataDir }), StoreLockedError, 'second open in this process')
  await store.close()

  // A lock left by a process that no longer exists is taken over.
  writeFileSync(join(dataDir, 'pgdata.lock'), '2147483646')
  const again = await openStore({ dataDir })
  t.equal(await again.ping(), true)
  await again.close()
})
