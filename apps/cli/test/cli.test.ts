// Runs the CLI as a child process against a temporary data directory (or,
// with CMS_TEST_DATABASE_URL set, against a fresh PostgreSQL database).
// The full matrix of arguments is in run.test.ts (in-process, faster).
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { cms } from './helpers.js'
import { createTestDatabase, testDatabaseUrl } from '@cms/store/testing'

t.test('cms as a child process', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-cli-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const env: NodeJS.ProcessEnv = { CMS_DATA_DIR: dataDir }
  if (testDatabaseUrl()) {
    const database = await createTestDatabase()
    t.teardown(() => database.drop())
    env.DATABASE_URL = database.url
  }

  t.test('usage and bad input', async (t) => {
    // None of these opens the database, so they run side by side.
    const [none, help, unknown, badZone] = await Promise.all([
      cms([], env),
      cms(['--help'], env),
      cms(['frob'], env),
      cms(['site', 'set', 'timezone_string', 'Mars/Olympus_Mons'], env),
    ])
    t.equal(none.code, 2, 'no command: exit 2')
    t.match(none.stderr, /Usage: cms <command>/)
    t.equal(help.code, 0)
    t.match(help.stdout, /Commands:\n\s+migrate .*\n\s+site /)
    for (const [r, message] of [
      [unknown, /^cms: unknown command "frob"/],
      [badZone, /^cms: .*not a valid IANA time zone/],
    ] as const) {
      t.not(r.code, 0)
      t.match(r.stderr, message)
      t.equal(r.stderr.trimEnd().split('\n').length, 1, 'one line')
      t.equal(r.stdout, '')
    }
  })

  t.test('migrate, set, get', async (t) => {
    if (!env.DATABASE_URL) {
      const early = await cms(['site', 'get', 'name'], env)
      t.equal(early.code, 1, 'before migrating')
      t.match(early.stderr, /not migrated yet \(run: cms migrate\)/)
    }
    const migrated = await cms(['migrate'], env)
    t.equal(migrated.code, 0, migrated.stderr)
    t.match(migrated.stdout, /migrated/)
    if (!env.DATABASE_URL) t.ok(existsSync(join(dataDir, 'pgdata')), 'embedded database in CMS_DATA_DIR')

    const setName = await cms(['site', 'set', 'name', 'Hello World'], env)
    t.same(setName, { code: 0, stdout: 'Hello World\n', stderr: '' })
    t.equal((await cms(['site', 'get', 'name'], env)).stdout, 'Hello World\n', 'persisted between processes')

    // The user commands through the same entry point (their cases run in-process in users.test.ts).
    const admin = await cms(['user', 'create', 'admin', '--email', 'admin@example.com', '--role', 'administrator'], env)
    t.equal(admin.code, 0, admin.stderr)
    const password = await cms(['app-password', 'create', 'admin', 'CI', '--json'], env)
    t.equal(password.code, 0, password.stderr)
    t.match(JSON.parse(password.stdout), { uuid: /^[0-9a-f-]{36}$/, password: /^[A-Za-z0-9]{24}$/ })
  })
})

// The embedded database in both passes: DATABASE_URL is always cleared by cms().
t.test('relative CMS_DATA_DIR is resolved against INIT_CWD', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'cms-cli-'))
  t.teardown(() => rmSync(base, { recursive: true, force: true }))
  const r = await cms(['migrate'], { INIT_CWD: base, CMS_DATA_DIR: 'var/data' })
  t.equal(r.code, 0, r.stderr)
  t.ok(existsSync(join(base, 'var', 'data', 'pgdata')))
})
