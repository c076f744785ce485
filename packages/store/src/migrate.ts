/**
 * Runs the checked-in drizzle-kit migrations (packages/store/migrations) on
 * either driver. The same SQL files serve PostgreSQL and PGlite.
 */
import { fileURLToPath } from 'node:url';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { casing, storeDriver } from './db.js';
import type { Store, StoreDriver } from './db.js';

/** Absolute path of the migrations folder shipped with this package. */
export const migrationsFolder = fileURLToPath(new URL('../migrations', import.meta.url));

/** Key of the session advisory lock that serialises concurrent `migrate` runs on PostgreSQL. */
export const MIGRATION_LOCK_KEY = 7_273_650_001;

export interface MigrateOptions {
  /** Defaults to this package's `migrations/` folder. */
  migrationsFolder?: string;
}

/**
 * Applies pending migrations. Idempotent. On PostgreSQL the run holds an
 * advisory lock on the connection it migrates with, so processes starting at
 * the same time apply each migration once.
 */
export async function migrate(store: Store, opts: MigrateOptions = {}): Promise<void> {
  const driver = storeDriver(store);
  // Calls on one store run one after the other (the migrator reads the last
  // applied migration before its transaction, so overlapping runs would race).
  const previous = running.get(driver) ?? Promise.resolve();
  const run = previous.catch(() => {}).then(() => migrateNow(driver, opts));
  running.set(driver, run);
  try {
    await run;
  } finally {
    if (running.get(driver) === run) running.delete(driver);
  }
}

const running = new WeakMap<StoreDriver, Promise<void>>();

async function migrateNow(driver: StoreDriver, opts: MigrateOptions): Promise<void> {
  const config = { migrationsFolder: opts.migrationsFolder ?? migrationsFolder };
  if (driver.kind === 'pglite') {
    await migratePglite(driver.db, config);
    return;
  }
  const client = await driver.pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migratePg(drizzlePg({ client, casing }), config);
    } finally {
      try {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      } catch (err) {
        broken = err as Error;
      }
    }
  } catch (err) {
    broken ??= err as Error;
    throw err;
  } finally {
    // A connection whose state is unknown (lock possibly still held) is discarded.
    client.release(broken);
  }
}
