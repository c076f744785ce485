/**
 * Test helpers (`@cms/store/testing`): one fresh, migrated database per call.
 *
 * With `CMS_TEST_DATABASE_URL` set (a PostgreSQL server URL whose user may
 * create databases), each call creates `cms_test_<random>` on that server and
 * drops it on `close()`. Otherwise an in-memory PGlite is used. Running a
 * suite with and without the variable runs it once per database.
 *
 * Fresh databases are copies of templates, made once and kept: initdb and
 * the migrations were most of the time an app took to start in a test
 * (PGlite's initdb alone is several seconds of CPU). On PostgreSQL a
 * template is a database `cms_tpl_<hash of the migration files>` on the
 * test server (`CREATE DATABASE ... TEMPLATE`); on PGlite a data-directory
 * dump, kept in this process and in the system's temporary directory for
 * the next test process. A template is named by the content of every
 * migration file it holds, so an edited migration makes a new one.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { openStore, pgliteSettings, storeDriver } from './db.js'
import type { Store } from './db.js'
import { migrate, migrationOrder } from './migrate.js'
import type { MigrationSet } from './migrate.js'

export interface TestStoreOptions {
  /**
   * Apply the migrations (default true): the store's own and those of
   * `migrations`. `'later'`: the database is made by `migrateTestStore`, as
   * a copy of the template of the sets it is given; nothing may use the
   * store before.
   */
  migrate?: boolean | 'later';
  /** The packages' migration sets to apply (`coreMigrations` of `@cms/core`...); the store knows none itself. */
  migrations?: readonly MigrationSet[];
  /** Pool size for PostgreSQL (default 5). */
  poolSize?: number;
}

/** The server URL test suites run against, or undefined for PGlite. */
export function testDatabaseUrl (env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.CMS_TEST_DATABASE_URL?.trim() || undefined
}

export interface TestDatabase {
  /** URL of the fresh, empty database. */
  url: string;
  /** Drops it (disconnecting any remaining sessions). Idempotent. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database `cms_test_<random>` on the CMS_TEST_DATABASE_URL
 * server, e.g. for tests that start a child process with DATABASE_URL
 * (or a copy of `template`). Throws when CMS_TEST_DATABASE_URL is not set.
 */
export async function createTestDatabase (template?: string): Promise<TestDatabase> {
  const serverUrl = testDatabaseUrl()
  if (!serverUrl) throw new Error('CMS_TEST_DATABASE_URL is not set')
  const name = `cms_test_${randomBytes(6).toString('hex')}`
  await admin(serverUrl, createStatement(name, template))
  let dropped: Promise<void> | undefined
  return {
    url: databaseUrlOf(serverUrl, name),
    drop: () => (dropped ??= admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  }
}

/** Test stores on PostgreSQL not yet migrated, by store: `migrateTestStore` may still swap their database for a template's copy. */
const unmigrated = new WeakMap<Store, { serverUrl: string, name: string }>()

export async function openTestStore (opts: TestStoreOptions = {}): Promise<Store> {
  const sets = opts.migrations ?? []
  const serverUrl = testDatabaseUrl()
  if (!serverUrl) {
    const loadDataDir = await pgliteTemplate(opts.migrate === false || opts.migrate === 'later' ? undefined : sets)
    return await openStore({ memory: true, loadDataDir })
  }

  const database = opts.migrate === 'later'
    ? laterDatabase(serverUrl)
    : await createTestDatabase(opts.migrate === false ? undefined : await pgTemplate(serverUrl, sets))
  let store: Store
  try {
    store = await openStore({ databaseUrl: database.url, poolSize: opts.poolSize ?? 5 })
  } catch (err) {
    await database.drop().catch(() => {})
    throw err
  }
  let closed: Promise<void> | undefined
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      try {
        await store.close()
      } finally {
        await database.drop()
      }
    })())
  // Spread keeps the driver (a symbol-keyed property) that migrate() needs.
  const testStore = { ...store, close }
  if (opts.migrate === 'later') unmigrated.set(testStore, { serverUrl, name: new URL(database.url).pathname.slice(1) })
  return testStore
}

/** A database of the server that `migrateTestStore` will create. */
function laterDatabase (serverUrl: string): TestDatabase {
  const name = `cms_test_${randomBytes(6).toString('hex')}`
  let dropped: Promise<void> | undefined
  return {
    url: databaseUrlOf(serverUrl, name),
    drop: () => (dropped ??= admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  }
}

/**
 * `migrate(store, sets)` for any store; for one of `openTestStore({ migrate:
 * 'later' })` on PostgreSQL, its database is created now as a copy of the
 * template of `sets` (the tables and rows the migrations make, without
 * running them).
 */
export async function migrateTestStore (store: Store, sets: readonly MigrationSet[] = []): Promise<void> {
  const later = unmigrated.get(store)
  if (later === undefined) {
    await migrate(store, sets)
    return
  }
  unmigrated.delete(store)
  await admin(later.serverUrl, createStatement(later.name, await pgTemplate(later.serverUrl, sets)))
}

// A copy of a small template by files is about twice as fast as the default
// (WAL_LOG, block by block); its checkpoint is cheap on a test server.
function createStatement (name: string, template: string | undefined): string {
  return template === undefined ? `CREATE DATABASE "${name}"` : `CREATE DATABASE "${name}" TEMPLATE "${template}" STRATEGY FILE_COPY`
}

/** A hash of the sets' names, order and every file of their migration folders. */
function templateKey (sets: readonly MigrationSet[]): string {
  const hash = createHash('sha256')
  for (const set of migrationOrder(sets)) {
    hash.update(`set ${set.name}\0`)
    for (const file of filesOf(set.folder)) hash.update(`${file}\0`).update(readFileSync(join(set.folder, file))).update('\0')
  }
  return hash.digest('hex').slice(0, 24)
}

function filesOf (folder: string, prefix = ''): string[] {
  return readdirSync(join(folder, prefix), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => entry.isDirectory() ? filesOf(folder, join(prefix, entry.name)) : [join(prefix, entry.name)])
}

const pgTemplates = new Map<string, Promise<string>>()

/** The template database of `sets` on the server, made once (under an advisory lock, as other test processes may be making it too). */
function pgTemplate (serverUrl: string, sets: readonly MigrationSet[]): Promise<string> {
  const name = `cms_tpl_${templateKey(sets)}`
  const key = `${serverUrl} ${name}`
  let made = pgTemplates.get(key)
  if (made === undefined) {
    made = makePgTemplate(serverUrl, name, sets)
    made.catch(() => pgTemplates.delete(key))
    pgTemplates.set(key, made)
  }
  return made
}

async function makePgTemplate (serverUrl: string, name: string, sets: readonly MigrationSet[]): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 })
  await client.connect()
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [name])
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name])
    if (rowCount === 0) {
      // Made under another name and renamed when complete: a process that
      // died half-way leaves no template that looks finished.
      const building = `${name}_${randomBytes(4).toString('hex')}`
      await client.query(`CREATE DATABASE "${building}"`)
      const store = await openStore({ databaseUrl: databaseUrlOf(serverUrl, building), poolSize: 1 })
      try {
        await migrate(store, sets)
      } finally {
        await store.close()
      }
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`)
    }
    return name
  } finally {
    await client.end()
  }
}

const pgliteTemplates = new Map<string, Promise<Blob>>()

/** The data-directory dump of an embedded database with `sets` migrated (none: just initdb's), from this process, the temporary directory, or made now. */
function pgliteTemplate (sets: readonly MigrationSet[] | undefined): Promise<Blob> {
  // The PGlite build (its resolved path names its version) and the store's settings name the initdb it ran.
  const build = createHash('sha256').update(import.meta.resolve('@electric-sql/pglite')).update(JSON.stringify(pgliteSettings)).digest('hex').slice(0, 12)
  const key = `${build}-${sets === undefined ? 'empty' : templateKey(sets)}`
  let made = pgliteTemplates.get(key)
  if (made === undefined) {
    made = makePgliteTemplate(key, sets)
    made.catch(() => pgliteTemplates.delete(key))
    pgliteTemplates.set(key, made)
  }
  return made
}

const PGLITE_TEMPLATE_DIR = join(tmpdir(), 'cms-test-templates')

async function makePgliteTemplate (key: string, sets: readonly MigrationSet[] | undefined): Promise<Blob> {
  const file = join(PGLITE_TEMPLATE_DIR, `pglite-${key}.tar`)
  try {
    return new Blob([readFileSync(file)])
  } catch {}
  const base = sets === undefined ? undefined : await pgliteTemplate(undefined)
  const store = await openStore({ memory: true, loadDataDir: base })
  try {
    if (sets !== undefined) await migrate(store, sets)
    const driver = storeDriver(store)
    if (driver.kind !== 'pglite') throw new Error('expected an embedded database')
    const dump = await driver.client.dumpDataDir('none')
    // Written whole under another name, then renamed: a reader never sees half a dump.
    mkdirSync(PGLITE_TEMPLATE_DIR, { recursive: true })
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()))
    renameSync(partial, file)
    return dump
  } finally {
    await store.close()
  }
}

function databaseUrlOf (serverUrl: string, name: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

async function admin (serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}
