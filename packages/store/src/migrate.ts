/**
 * Runs the checked-in drizzle-kit migrations of every composed package on
 * either driver. Each package owns a migrations folder and a migrations
 * table of its own (`drizzle.__migrations_<package>`); the sets run in
 * dependency order, the store's own (the `options` table) first. The same
 * SQL files serve PostgreSQL and PGlite.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { casing, epochsMayExist, storeDriver } from './db.js'
import type { Store, StoreDriver } from './db.js'

/** Absolute path of the store's own migrations folder (the `options` table). */
export const migrationsFolder = fileURLToPath(new URL('../migrations', import.meta.url))

/** Key of the session advisory lock that serialises concurrent `migrate` runs on PostgreSQL. */
export const MIGRATION_LOCK_KEY = 7_273_650_001

/** The migrations a package brings: a drizzle-kit folder, run after those of the packages it depends on. */
export interface MigrationSet {
  /** The package's name (`@cms/core`); names its migrations table. */
  name: string;
  /** Absolute path of its drizzle-kit folder (SQL files and `meta/_journal.json`). */
  folder: string;
  /** Names of the packages whose migrations must run first. */
  dependsOn?: readonly string[];
}

/** The store's own set, always applied first. */
export const storeMigrations: MigrationSet = { name: '@cms/store', folder: migrationsFolder }

/** The migrations table of a set: `__migrations_cms_core` for `@cms/core`. */
export function migrationsTableOf (name: string): string {
  return `__migrations_${name.replace(/^@/, '').replace(/[^A-Za-z0-9]+/g, '_').toLowerCase()}`
}

/** Before migrations were per package, every migration was recorded in this one table. */
const LEGACY_TABLE = '__drizzle_migrations'
const SCHEMA = 'drizzle'

/**
 * The sets in the order they run: the store's first, then each set after
 * the sets it depends on (ties keep the given order). A dependency that is
 * not among the sets, or a cycle, is an error: a package cannot run
 * without the tables of the packages it uses.
 */
export function migrationOrder (sets: readonly MigrationSet[]): MigrationSet[] {
  const byName = new Map<string, MigrationSet>()
  for (const set of [storeMigrations, ...sets]) {
    const known = byName.get(set.name)
    if (known !== undefined && known.folder !== set.folder) throw new Error(`two migration sets are named ${set.name}`)
    byName.set(set.name, set)
  }
  const ordered: MigrationSet[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (set: MigrationSet, path: string[]): void => {
    const s = state.get(set.name)
    if (s === 'done') return
    if (s === 'visiting') throw new Error(`migrations depend on each other in a cycle: ${[...path, set.name].join(' -> ')}`)
    state.set(set.name, 'visiting')
    for (const dep of set.dependsOn ?? []) {
      const target = byName.get(dep)
      if (target === undefined) throw new Error(`the migrations of ${set.name} depend on ${dep}, which is not composed`)
      visit(target, [...path, set.name])
    }
    state.set(set.name, 'done')
    ordered.push(set)
  }
  for (const set of byName.values()) visit(set, [])
  return ordered
}

/**
 * Applies the pending migrations of the store and of the given sets, in
 * dependency order. Idempotent. On PostgreSQL the run holds an advisory
 * lock on the connection it migrates with, so processes starting at the
 * same time apply each migration once.
 *
 * A database migrated before the migrations were split per package keeps
 * its rows: a set whose table is still empty adopts the rows of the old
 * shared table that name its own migrations (same file, same timestamp).
 */
export async function migrate (store: Store, sets: readonly MigrationSet[] = []): Promise<void> {
  const ordered = migrationOrder(sets)
  const driver = storeDriver(store)
  // Calls on one store run one after the other (the migrator reads the last
  // applied migration before its transaction, so overlapping runs would race).
  const previous = running.get(driver) ?? Promise.resolve()
  const run = previous.catch(() => {}).then(() => migrateNow(driver, ordered))
  running.set(driver, run)
  try {
    await run
  } finally {
    if (running.get(driver) === run) running.delete(driver)
    // A store that found no epochs table looks again: these migrations may have made it.
    epochsMayExist(store)
  }
}

const running = new WeakMap<StoreDriver, Promise<void>>()

/** Migrations `migrate` applied to each store (not those a copied template held). */
const applied = new WeakMap<StoreDriver, number>()

/**
 * How many migrations `migrate` has applied to this store (any of its
 * wrappings): 0 for a copy of a migrated template, which the tests check.
 */
export function migrationsApplied (store: Store): number {
  return applied.get(storeDriver(store)) ?? 0
}

/** Rows of a set's migrations table; 0 when it does not exist yet. */
async function recorded (db: AnyDb, set: MigrationSet): Promise<number> {
  try {
    const result = (await db.execute(sql`select count(*)::int as n from ${sql.identifier(SCHEMA)}.${sql.identifier(migrationsTableOf(set.name))}`)) as unknown as { rows: Array<{ n: number }> }
    return result.rows[0]?.n ?? 0
  } catch {
    return 0
  }
}

/** Runs one set's migrator and counts what it applied (asked only when something is pending: a start that is up to date asks nothing). */
async function runSet (driver: StoreDriver, db: AnyDb, set: MigrationSet, run: () => Promise<void>): Promise<void> {
  await adoptLegacy(db, set)
  const before = await recorded(db, set)
  await run()
  const now = await recorded(db, set)
  applied.set(driver, (applied.get(driver) ?? 0) + now - before)
}

type AnyDb = PgDatabase<PgQueryResultHKT>

/**
 * Whether every set's newest migration is recorded already, asked in one
 * query: then a start runs nothing else (drizzle's migrator asks five
 * statements per set and reads every SQL file). The migrator applies the
 * migrations newer than the newest recorded one, so a set whose newest
 * recorded `created_at` is at least its journal's newest `when` has nothing
 * to apply. A set table missing (a fresh database) fails the query: then
 * the migrator runs, as it would have.
 */
async function upToDate (db: AnyDb, sets: readonly MigrationSet[]): Promise<boolean> {
  const checks = sets.flatMap((set) => {
    const times = journalTimes(set.folder)
    if (times.length === 0) return []
    const table = sql`${sql.identifier(SCHEMA)}.${sql.identifier(migrationsTableOf(set.name))}`
    return [sql`select coalesce(max(created_at), 0) >= ${Math.max(...times)}::bigint as current from ${table}`]
  })
  if (checks.length === 0) return true
  try {
    const result = (await db.execute(sql`select bool_and(current) as current from (${sql.join(checks, sql` union all `)}) as sets`)) as unknown as { rows: Array<{ current: boolean | null }> }
    return result.rows[0]?.current === true
  } catch {
    return false
  }
}

async function migrateNow (driver: StoreDriver, sets: readonly MigrationSet[]): Promise<void> {
  if (await upToDate(driver.db as unknown as AnyDb, sets)) return
  if (driver.kind === 'pglite') {
    const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator')
    for (const set of sets) await runSet(driver, driver.db as unknown as AnyDb, set, () => migratePglite(driver.db, configOf(set)))
    return
  }
  const [{ drizzle: drizzlePg }, { migrate: migratePg }] = await Promise.all([import('drizzle-orm/node-postgres'), import('drizzle-orm/node-postgres/migrator')])
  const client = await driver.pool.connect()
  let broken: Error | undefined
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
    try {
      const db = drizzlePg({ client, casing })
      for (const set of sets) await runSet(driver, db as unknown as AnyDb, set, () => migratePg(db, configOf(set)))
    } finally {
      try {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
      } catch (err) {
        broken = err as Error
      }
    }
  } catch (err) {
    broken ??= err as Error
    throw err
  } finally {
    // A connection whose state is unknown (lock possibly still held) is discarded.
    client.release(broken)
  }
}

function configOf (set: MigrationSet) {
  return { migrationsFolder: set.folder, migrationsTable: migrationsTableOf(set.name), migrationsSchema: SCHEMA }
}

/** The timestamps (`when`) of a folder's migrations, as drizzle records them in `created_at`. */
function journalTimes (folder: string): number[] {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ when: number }> }
  return journal.entries.map((e) => e.when)
}

async function adoptLegacy (db: AnyDb, set: MigrationSet): Promise<void> {
  const rows = (await db.execute(sql`select to_regclass(${`${SCHEMA}.${LEGACY_TABLE}`}) is not null as legacy`)) as unknown as {
    rows: Array<{ legacy: boolean }>;
  }
  if (rows.rows[0]?.legacy !== true) return
  const table = sql`${sql.identifier(SCHEMA)}.${sql.identifier(migrationsTableOf(set.name))}`
  // The same table drizzle's migrator creates.
  await db.execute(sql`create table if not exists ${table} (id serial primary key, hash text not null, created_at bigint)`)
  const times = journalTimes(set.folder)
  if (times.length === 0) return
  await db.execute(sql`
    insert into ${table} (hash, created_at)
    select hash, created_at from ${sql.identifier(SCHEMA)}.${sql.identifier(LEGACY_TABLE)}
    where created_at in (${sql.join(times.map((t) => sql`${t}::bigint`), sql`, `)}) and not exists (select 1 from ${table})
    order by created_at`)
}
