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
 * migration file it holds, so an edited migration makes a new one. An app's
 * migration sets are known only once its packages are registered, on a
 * store made already: such a store (`migrate: 'later'`) gets its database
 * from `migrateTestStore`, which the app builders call in place of
 * `migrate`. `migrationsApplied(store)` counts what the migrator itself
 * ran on a store (0 on a copy). Tests of the migrations themselves open a
 * store with `migrate: false` and migrate it from nothing.
 */
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { observePglite, openPgliteLater, openStore, storeDriver } from './db.js'
import type { Store } from './db.js'
import { migrate, migrationOrder } from './migrate.js'
import type { MigrationSet } from './migrate.js'
import { migrationsIn, pgliteBuild } from './template.js'

export { migrationsApplied } from './migrate.js'
/** Bind messages whose long parameters went to the socket as they are (pg-bind.ts), for tests that count it. */
export { bindCounts } from './pg-bind.js'
export { freePort } from './test-ports.js'

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
  return databaseOf(serverUrl, name)
}

/**
 * Test stores whose database is not made yet (`migrate: 'later'`), by
 * store: the first `migrateTestStore` on any of them makes it, a copy of the
 * template of the sets it is given (on PostgreSQL a database created from
 * the template, on PGlite the embedded database started from its dump).
 */
const unmigrated = new WeakMap<Store, { make: (sets: readonly MigrationSet[]) => Promise<void> }>()

export async function openTestStore (opts: TestStoreOptions = {}): Promise<Store> {
  if (opts.migrate === 'later') return (await openLaterStores(1, opts.poolSize ?? 5))[0]!
  const sets = opts.migrations ?? []
  const serverUrl = testDatabaseUrl()
  if (!serverUrl) {
    const loadDataDir = await pgliteTemplate(opts.migrate === false ? undefined : sets)
    return await openStore({ memory: true, loadDataDir })
  }
  const database = await createTestDatabase(opts.migrate === false ? undefined : await pgTemplate(serverUrl, sets))
  return (await storesOn(database, 1, opts.poolSize ?? 5))[0]!
}

/**
 * Stores on one fresh database, standing for as many processes (PostgreSQL:
 * a pool each; PGlite, which one process opens once: the same store each
 * time), made later as `openTestStore({ migrate: 'later' })` is: by the
 * first `migrateTestStore` on any of them, from the template of its sets.
 * Closing all of them drops the database.
 */
export async function openTestStores (count: number, opts: { poolSize?: number } = {}): Promise<Store[]> {
  return await openLaterStores(count, opts.poolSize ?? 5)
}

async function openLaterStores (count: number, poolSize: number): Promise<Store[]> {
  const serverUrl = testDatabaseUrl()
  let stores: Store[]
  let make: (sets: readonly MigrationSet[]) => Promise<void>
  if (!serverUrl) {
    const later = await openPgliteLater()
    stores = Array.from({ length: count }, () => later.store)
    make = async (sets) => { await later.open(await pgliteTemplate(sets)) }
  } else {
    const name = `cms_test_${randomBytes(6).toString('hex')}`
    stores = await storesOn(databaseOf(serverUrl, name), count, poolSize)
    // The pools connect on their first query, after this.
    make = async (sets) => { await admin(serverUrl, createStatement(name, await pgTemplate(serverUrl, sets))) }
  }
  let made: Promise<void> | undefined
  const entry = { make: (sets: readonly MigrationSet[]) => (made ??= make(sets)) }
  for (const store of stores) unmigrated.set(store, entry)
  return stores
}

/** `count` stores (a pool each) on a database of the server, which closing the last of them drops. */
async function storesOn (database: TestDatabase, count: number, poolSize: number): Promise<Store[]> {
  const opened: Store[] = []
  try {
    for (let i = 0; i < count; i++) opened.push(await openStore({ databaseUrl: database.url, poolSize }))
  } catch (err) {
    for (const store of opened) await store.close().catch(() => {})
    await database.drop().catch(() => {})
    throw err
  }
  let open = count
  return opened.map((store) => {
    let closed: Promise<void> | undefined
    const close = (): Promise<void> =>
      (closed ??= (async () => {
        try {
          await store.close()
        } finally {
          if (--open === 0) await database.drop()
        }
      })())
    // Spread keeps the driver (a symbol-keyed property) that migrate() needs.
    return { ...store, close }
  })
}

/** A database of the server by name (created by whoever asks for it), dropped by `drop`. */
function databaseOf (serverUrl: string, name: string): TestDatabase {
  let dropped: Promise<void> | undefined
  return {
    url: databaseUrlOf(serverUrl, name),
    drop: () => (dropped ??= admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  }
}

/**
 * `migrate(store, sets)` for any store; for one of `openTestStore({ migrate:
 * 'later' })` or `openTestStores`, its database is made now as a copy of the
 * template of `sets` (the tables and rows the migrations make, without
 * running them), then migrated in place with `sets`, which finds nothing
 * to do. A later call on the same database migrates it in place.
 */
export async function migrateTestStore (store: Store, sets: readonly MigrationSet[] = []): Promise<void> {
  await unmigrated.get(store)?.make(sets)
  unmigrated.delete(store)
  await migrate(store, sets)
}

// A copy of a small template by files is about twice as fast as the default
// (WAL_LOG, block by block); its checkpoint is cheap on a test server.
function createStatement (name: string, template: string | undefined): string {
  return template === undefined ? `CREATE DATABASE "${name}"` : `CREATE DATABASE "${name}" TEMPLATE "${template}" STRATEGY FILE_COPY`
}

/**
 * A hash of the sets' names, order and migrations as the migrator reads
 * them (template.ts's `migrationsIn`, as the embedded database's migrated
 * templates are named): drizzle-kit's snapshots, which only the generator
 * reads, may be regenerated without making a new template.
 */
function templateKey (sets: readonly MigrationSet[]): string {
  const migrations = migrationOrder(sets).map((set) => ({ name: set.name, migrations: migrationsIn(set.folder) }))
  return createHash('sha256').update(JSON.stringify(migrations)).digest('hex').slice(0, 24)
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
  // PGlite's version and the store's settings name the initdb it ran (the version, not the install's
  // path: every checkout on the machine shares the dumps).
  const build = pgliteBuild()
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
/** A dump no test process has read for this long is removed (each is about 40 MB; every edit of a migration makes one). */
const PGLITE_TEMPLATE_KEEP_MS = 2 * 24 * 3600_000
/**
 * At most this many dumps are kept, the most recently read (about 1 GB): the
 * checkouts of one machine share the folder, and a day of edited migrations
 * left more than a hundred of them (4.5 GB). A run reads about a dozen.
 */
const PGLITE_TEMPLATE_KEEP_COUNT = 24
/** A partial write this old is one whose process died. */
const PGLITE_PARTIAL_KEEP_MS = 3600_000

async function makePgliteTemplate (key: string, sets: readonly MigrationSet[] | undefined): Promise<Blob> {
  const file = join(PGLITE_TEMPLATE_DIR, `pglite-${key}.tar`)
  try {
    const dump = new Blob([readFileSync(file)])
    // Its time says when it was last used (what pruning reads).
    const now = new Date()
    utimesSync(file, now, now)
    return dump
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
    pruneTemplates(PGLITE_TEMPLATE_DIR, file)
    return dump
  } finally {
    await store.close()
  }
}

/**
 * Removes from `dir` the dumps unused for PGLITE_TEMPLATE_KEEP_MS, those past
 * the PGLITE_TEMPLATE_KEEP_COUNT most recently used (`keep`, just made, is
 * one of them), and the partial writes of processes that died. A process
 * reading a dump removed meanwhile makes it again. Exported for its test.
 */
export function pruneTemplates (dir: string, keep: string, now = Date.now()): void {
  const dumps: Array<{ path: string, used: number }> = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    try {
      const used = statSync(path).mtimeMs
      if (!name.endsWith('.tar')) {
        if (now - used > PGLITE_PARTIAL_KEEP_MS) rmSync(path, { force: true })
      } else if (path !== keep && now - used > PGLITE_TEMPLATE_KEEP_MS) {
        rmSync(path, { force: true })
      } else if (path !== keep) {
        dumps.push({ path, used })
      }
    } catch {}
  }
  dumps.sort((a, b) => b.used - a.used)
  for (const { path } of dumps.slice(PGLITE_TEMPLATE_KEEP_COUNT - 1)) rmSync(path, { force: true })
}

/** The statements a store sent while recorded (`recordStatements`). */
export interface StatementLog {
  /** Their texts, in the order sent (`begin` and `commit` of a transaction included). */
  readonly texts: string[]
  /** Stops recording (what was recorded stays). */
  stop: () => void
}

const observedPglite = new WeakSet<object>()

/**
 * Records the statements `store` sends from now on, on either database
 * (each is a round trip on PostgreSQL): a test counts a route's statements
 * this way, so a change that adds one fails without timing anything.
 * Everything the store sends is recorded, the app's background work too:
 * record around one request, with nothing else running.
 */
export function recordStatements (store: Store): StatementLog {
  const driver = storeDriver(store)
  driver.observers ??= new Set()
  const observers = driver.observers
  if (driver.kind === 'pglite' && !observedPglite.has(driver.client)) {
    // The embedded database is patched once, on first use (an in-memory one made later is patched when recorded).
    observePglite(driver.client, observers)
    observedPglite.add(driver.client)
  }
  const texts: string[] = []
  const observe = (text: string): void => { texts.push(text) }
  observers.add(observe)
  return { texts, stop: () => { observers.delete(observe) } }
}

/** The texts of the statements `store` sent while `run` ran (`recordStatements` around it). */
export async function statementsDuring (store: Store, run: () => Promise<unknown>): Promise<string[]> {
  const log = recordStatements(store)
  try {
    await run()
  } finally {
    log.stop()
  }
  return log.texts
}

/**
 * The Node arguments that start `entry`, a workspace package's TypeScript
 * entry point (the CLI's or the service's `src/main.ts`), as a child of this
 * test: under the test command's loader (scripts/test-loader.mjs, which
 * refuses compiled code older than its sources, and which the test command
 * hands to the children of the tests it runs compiled) its compiled twin in
 * dist/ with no module hooks, which is what the loader would run (about 1 s
 * of CPU less per child); otherwise (tsx, `npx tap`) the source as this
 * process runs.
 */
export function childArgs (entry: string): string[] {
  const loader = process.execArgv.some((arg) => /[/\\]scripts[/\\]test-loader\.mjs$/.test(arg))
  const source = /^(.*)[/\\]src[/\\](.+)\.ts$/.exec(entry)
  if (loader && source !== null) {
    const twin = join(source[1]!, 'dist', `${source[2]!}.js`)
    if (existsSync(twin)) return [twin]
  }
  return [...process.execArgv, entry]
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
