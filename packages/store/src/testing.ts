/**
 * Test helpers (`@cms/store/testing`): one fresh, migrated database per call.
 *
 * With `CMS_TEST_DATABASE_URL` set (a PostgreSQL server URL whose user may
 * create databases), each call creates `cms_test_<random>` on that server and
 * drops it on `close()`. Otherwise an in-memory PGlite is used. Running a
 * suite with and without the variable runs it once per database.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { openStore } from './db.js'
import type { Store } from './db.js'
import { migrate } from './migrate.js'
import type { MigrationSet } from './migrate.js'

export interface TestStoreOptions {
  /** Apply the migrations (default true): the store's own and those of `migrations`. */
  migrate?: boolean;
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
 * server, e.g. for tests that start a child process with DATABASE_URL.
 * Throws when CMS_TEST_DATABASE_URL is not set.
 */
export async function createTestDatabase (): Promise<TestDatabase> {
  const serverUrl = testDatabaseUrl()
  if (!serverUrl) throw new Error('CMS_TEST_DATABASE_URL is not set')
  const name = `cms_test_${randomBytes(6).toString('hex')}`
  await admin(serverUrl, `CREATE DATABASE "${name}"`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  let dropped: Promise<void> | undefined
  return {
    url: url.toString(),
    drop: () => (dropped ??= admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  }
}

export async function openTestStore (opts: TestStoreOptions = {}): Promise<Store> {
  if (!testDatabaseUrl()) {
    const store = await openStore({ memory: true })
    if (opts.migrate !== false) await migrate(store, opts.migrations)
    return store
  }

  const database = await createTestDatabase()
  let store: Store
  try {
    store = await openStore({ databaseUrl: database.url, poolSize: opts.poolSize ?? 5 })
    if (opts.migrate !== false) await migrate(store, opts.migrations)
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
  return { ...store, close }
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
