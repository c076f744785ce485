/**
 * The database handle: PostgreSQL through `pg` when a URL is given,
 * otherwise embedded PGlite (on disk or in memory). Both are exposed as the
 * common drizzle `PgDatabase` base type so callers write one code path.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setFlagsFromString } from 'node:v8'
import { join, resolve } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { is, sql } from 'drizzle-orm'
import type { SQL, SQLWrapper } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { PgDatabase, PgDialect } from 'drizzle-orm/pg-core'
import type { PgQueryResultHKT, PgTransactionConfig } from 'drizzle-orm/pg-core'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import type pg from 'pg'
import { pgliteSettings } from './pglite-settings.js'
import { copyPgliteTemplate } from './template.js'
import { compiledRowMapper, type SelectedField } from './row-mapper.js'
import { pgliteSerializers } from './pglite-params.js'
import { bindLongParamsApart } from './pg-bind.js'
import { EPOCHS_COLUMN, epochsKnownKey, epochsOf } from './epochs.js'
import { frameOf, joinedSnapshot, nestIn, routedClient } from './joined.js'

export { pgliteSettings }

/** Database names are snake_case; JS keys without an explicit name are mapped. */
export const casing = 'snake_case' as const

/** The drizzle database of either driver (also the base type of a transaction). */
export type Db = PgDatabase<PgQueryResultHKT>
/** The transaction handle passed to `store.transaction(fn)`; same query API as `Db`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
/** Anything queries can run on: the store's `db` or a transaction. */
export type Queryable = Db | Tx

export type StoreKind = 'pg' | 'pglite'

export interface OpenStoreOptions {
  /** PostgreSQL connection URL. When set, `pg` is used; otherwise PGlite. */
  databaseUrl?: string;
  /** Directory for the embedded database (`<dataDir>/pgdata`). Default `.data`. */
  dataDir?: string;
  /** Embedded PGlite in memory (nothing persisted). Ignored when databaseUrl is set. */
  memory?: boolean;
  /** With `memory`: start from this data directory dump (PGlite's `dumpDataDir`) instead of running initdb. */
  loadDataDir?: Blob;
  /** Size of the `pg` connection pool. Default 10. */
  poolSize?: number;
  /** How long to wait for a pooled `pg` connection before failing (ms). Default 15000. */
  connectionTimeoutMillis?: number;
  /** Called with errors of idle pooled `pg` connections (default: printed to stderr). */
  onPoolError?: (err: Error) => void;
  /**
   * A directory of migrated templates (template.ts): a new embedded
   * database starts as a copy of the most complete usable one instead of
   * running initdb. Unset: initdb.
   */
  templates?: string;
  /**
   * Told each step of opening the embedded database, once it is done, with
   * the seconds it took (creating it on a first start takes 10-60 s).
   */
  onProgress?: (message: string) => void;
}

export interface Store {
  /** The drizzle database (query builder API shared by both drivers). */
  readonly db: Db;
  readonly kind: StoreKind;
  /**
   * Runs `fn` in a transaction (drizzle's `db.transaction`); rolled back when
   * `fn` throws. Inside `fn` use only `tx`: on PGlite a query on `db` waits
   * for the transaction to end (deadlock), on `pg` it runs outside it.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>, config?: PgTransactionConfig): Promise<T>;
  /** `select 1`; false on failure or when no answer came within `timeoutMs` (default 2000). */
  ping(timeoutMs?: number): Promise<boolean>;
  /** Runs raw SQL (a drizzle `sql` template or a string) and returns the rows. */
  execute<T extends Record<string, unknown> = Record<string, unknown>>(query: SQLWrapper | string): Promise<T[]>;
  /**
   * The commit horizon (`pg_current_snapshot()`: the newest finished
   * transaction and those still running). It changes with every commit or
   * abort of a transaction that wrote anything, in any process, so a value
   * read after the horizon was taken is valid as long as the horizon reads
   * the same. Calls made in one turn of the event loop share one query (a
   * prepared statement). Undefined when it cannot be read.
   */
  horizon(): Promise<string | undefined>;
  /**
   * The commit horizon and, read by the same statement, the epochs
   * (`cms_epochs`, made by the core's migration 0013: a value per kind of
   * change, renewed by triggers in the transaction of each such change): a
   * value kept while its epoch reads the same is valid whatever else was
   * committed meanwhile. Shared by the calls of one turn, as `horizon()`.
   * Without the table, no epochs; undefined when nothing can be read.
   */
  snapshot(): Promise<Snapshot | undefined>;
  /** Closes the pool / the embedded database. Idempotent. */
  close(): Promise<void>;
  /**
   * What a module keeps with this store (prepared statements, read caches,
   * a key read once): the slot's value, made on first use and kept while
   * the store lives. Absent on a store standing for a transaction (the
   * importer's view): nothing made there may outlive it.
   */
  readonly local?: <T>(slot: StoreSlot<T>) => T;
}

/** A typed value kept per store (`store.local(slot)`), made by `make` the first time a store is asked for it. */
export interface StoreSlot<T> {
  readonly name: string;
  readonly make: (store: Store) => T;
}

/** A slot named for what it keeps (`content/post-statements`). */
export function storeSlot<T> (name: string, make: (store: Store) => T): StoreSlot<T> {
  return { name, make }
}

/** The commit horizon and the epochs read with it (`Store.snapshot`). */
export interface Snapshot {
  /** Undefined inside a shared transaction's item (joined.ts): nothing is kept or reused by horizon there. */
  horizon: string | undefined;
  /** Epoch values by name (`credentials`); empty without the epochs table. */
  epochs: Readonly<Record<string, string>>;
}

/** Raised when an on-disk PGlite directory is already open (in this or another process). */
export class StoreLockedError extends Error {
  readonly code = 'store_locked'
  constructor (message: string) {
    super(message)
    this.name = 'StoreLockedError'
  }
}

// ---------------------------------------------------------------------------
// Driver internals, reachable by migrate() and testing helpers only.

/**
 * @internal Told the text of each statement a store sends, as it is sent
 * (`begin` and `commit` included): tests count a route's statements with
 * them (`recordStatements` of @cms/store/testing). Empty in service use.
 */
export type StatementObservers = Set<(text: string) => void>

/** @internal */
export type StoreDriver =
  | { kind: 'pg'; pool: pg.Pool; db: NodePgDatabase; observers?: StatementObservers }
  | { kind: 'pglite'; client: PGlite; db: PgliteDatabase; observers?: StatementObservers }

/** @internal */
export const driverKey: unique symbol = Symbol.for('@cms/store.driver')

/** @internal Tells a store that the epochs table may exist now (after migrations ran). */
export const epochsKey: unique symbol = Symbol.for('@cms/store.epochs')

/** @internal Where a store keeps its commit hooks (`onCommit`). */
export const commitHooksKey: unique symbol = Symbol.for('@cms/store.commitHooks')

/**
 * Run at the end of every `store.transaction(fn)` whose `fn` succeeded,
 * before its commit, in the caller's async context: a statement it runs on
 * `tx` commits with the transaction (or not at all). What it answers is
 * called once the commit succeeded. Undefined: nothing to add.
 */
export type CommitHook = (tx: Tx) => Promise<(() => void) | undefined> | undefined

type StoreWithDriver = Store & { [driverKey]?: StoreDriver, [epochsKey]?: () => void, [epochsKnownKey]?: () => boolean | undefined, [commitHooksKey]?: CommitHook[] }

/**
 * Adds a commit hook to a store's transactions (the store knows nothing of
 * what it writes: the core's audit outbox uses it). Idempotent per hook.
 */
export function onCommit (store: Store, hook: CommitHook): void {
  const hooks = (store as StoreWithDriver)[commitHooksKey]
  if (hooks === undefined) throw new TypeError('not a store returned by openStore()')
  if (!hooks.includes(hook)) hooks.push(hook)
}

/** @internal The driver behind a store (survives `{ ...store, close }` wrapping). */
export function storeDriver (store: Store): StoreDriver {
  const driver = (store as StoreWithDriver)[driverKey]
  if (!driver) throw new TypeError('not a store returned by openStore()')
  return driver
}

/** `store.db` for a store, or the database/transaction itself. */
export function dbOf (target: Store | Queryable): Db {
  return is(target, PgDatabase) ? (target as Db) : (target as Store).db
}

const dialect = new PgDialect({ casing })

/**
 * Runs raw SQL as a named prepared statement: on PostgreSQL it is parsed and
 * planned once per connection instead of on every call (PGlite ignores the
 * name). The text built for a name must never change, only its parameters
 * (lists go in as one array parameter, `= any($1::int[])`). Returns the rows
 * as the driver gives them (no column mapping).
 */
export async function executeNamed<T extends Record<string, unknown> = Record<string, unknown>> (
  target: Store | Queryable,
  name: string,
  query: SQL
): Promise<T[]> {
  const session = dbOf(target)._.session
  const result = await session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false).execute()
  return (result as { rows: T[] }).rows
}

/**
 * {@link executeNamed}'s statement built once: `query` names its parameters
 * with `sql.placeholder(name)`, and each run of the answer sends `values`
 * for them as they are (no encoder), without building the text again
 * (drizzle's walk of a statement of a few dozen parts cost a create about
 * 28 µs of CPU, issue 35). Bound to `target`'s connections: a transaction
 * runs its own statements (a shared transaction's items are routed by the
 * client, as every prepared statement of the store is).
 */
export function prepareNamed<T extends Record<string, unknown> = Record<string, unknown>> (
  target: Store | Queryable,
  name: string,
  query: SQL
): (values: Record<string, unknown>) => Promise<T[]> {
  const prepared = dbOf(target)._.session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false)
  return async (values) => ((await prepared.execute(values)) as { rows: T[] }).rows
}

/** Statement texts given a name so far (text -> name), and how many may be. */
const shapes = new Map<string, string>()
const SHAPES_LIMIT = 128

/**
 * A name for a statement built at run time (a list query whose filters
 * vary), so that PostgreSQL parses and plans each shape once per connection
 * instead of on every call: planning the posts list cost four times its
 * execution. The name is derived from the text, so one text always has one
 * name. At most 128 shapes are named per process (each is kept by every
 * connection of the pool); past that, statements run unnamed, as before.
 */
export function shapeName (prefix: string, text: string): string | undefined {
  const known = shapes.get(text)
  if (known !== undefined || shapes.size >= SHAPES_LIMIT) return known
  const name = `${prefix}_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`
  shapes.set(text, name)
  return name
}

/**
 * Runs a built drizzle query (a select whose filters vary) as a named
 * statement of its shape ({@link shapeName}): parsed and planned once per
 * connection on PostgreSQL. The query is built once; the name is set on the
 * prepared query the driver runs (PGlite's has none: it runs unnamed, as
 * PGlite ignores names anyway). Only for shapes whose generic plan is good
 * for every parameter (no LIMIT parameter: see post-query's `inline`).
 */
export async function executeShaped<T> (query: { prepare: (name: string) => { execute: () => Promise<T> } }, prefix: string): Promise<T> {
  return await prepareShaped(query, prefix).execute()
}

/**
 * {@link executeShaped}'s statement, built and named but not run: it may
 * run again, by any number of requests at once, without building the query
 * again (what a caller keeping the statements of frequent queries needs).
 * Its parameters are part of it, or, where the query names them with
 * `sql.placeholder(name)`, given to each run (`execute(values)`): one
 * statement then serves every value of a filter. `named: false` runs it
 * unnamed, parsed and planned with its values on every run (for filters
 * whose best plan depends on the value, such as a search's words).
 */
export function prepareShaped<T> (query: { prepare: (name: string) => { execute: (values?: Record<string, unknown>) => Promise<T> } }, prefix: string, opts: { named?: boolean } = {}): { execute: (values?: Record<string, unknown>) => Promise<T> } {
  const prepared = query.prepare(prefix) as {
    execute: (values?: Record<string, unknown>) => Promise<T>
    queryString?: unknown
    queryConfig?: { name?: string }
    rawQueryConfig?: { name?: string }
    fields?: SelectedField[]
    joinsNotNullableMap?: Record<string, boolean>
    customResultMapper?: unknown
  }
  const name = opts.named !== false && typeof prepared.queryString === 'string' ? shapeName(prefix, prepared.queryString) : undefined
  if (prepared.queryConfig !== undefined && prepared.rawQueryConfig !== undefined) {
    prepared.queryConfig.name = name
    prepared.rawQueryConfig.name = name
  }
  // Its rows are mapped by a mapper made for it once (both drivers call `customResultMapper`
  // with the rows in array mode): drizzle's own decides each value's decoder afresh.
  if (prepared.fields !== undefined && prepared.customResultMapper === undefined) {
    prepared.customResultMapper = compiledRowMapper(prepared.fields, prepared.joinsNotNullableMap)
  }
  return prepared
}

// ---------------------------------------------------------------------------

export async function openStore (opts: OpenStoreOptions = {}): Promise<Store> {
  if (opts.databaseUrl) return await openPg(opts.databaseUrl, opts)
  return await openPglite(opts)
}

/** `pg` and its drizzle driver, loaded only when PostgreSQL is used (the embedded database needs neither). */
async function loadPg () {
  const [{ default: pg }, { drizzle }] = await Promise.all([import('pg'), import('drizzle-orm/node-postgres')])
  return { pg, drizzlePg: drizzle }
}

async function openPg (databaseUrl: string, opts: OpenStoreOptions): Promise<Store> {
  const poolSize = opts.poolSize ?? 10
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new RangeError(`poolSize must be a positive integer, got ${String(opts.poolSize)}`)
  }
  const { pg, drizzlePg } = await loadPg()
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: opts.connectionTimeoutMillis ?? 15_000,
  })
  // A client that loses its connection emits 'error' (an idle one on the pool,
  // a checked-out one on itself); unhandled, that would crash the process.
  // The query in flight fails on its own and is answered as an outage.
  const onError =
    opts.onPoolError ?? ((err: Error) => process.stderr.write(`@cms/store: connection error: ${err.message}\n`))
  pool.on('error', onError)
  const observers: StatementObservers = new Set()
  pool.on('connect', (client) => {
    client.on('error', onError)
    observeClient(client, observers)
    // A long parameter is handed to the socket as it is, not copied into the Bind message (pg-bind.ts).
    bindLongParamsApart((client as unknown as { connection: Parameters<typeof bindLongParamsApart>[0] }).connection)
  })
  const driver: StoreDriver = { kind: 'pg', pool, db: undefined as unknown as NodePgDatabase, observers }
  // Its statements join a shared transaction when sent from one's item (joined.ts).
  driver.db = drizzlePg({ client: routedClient(pool, () => driver), casing })
  let closed: Promise<void> | undefined
  return makeStore(driver, () => (closed ??= pool.end()), pgTransaction(pool, drizzlePg))
}

/**
 * Every statement of a pooled connection goes through its `query` (the
 * pool's own `query` and drizzle's transactions included): the observers
 * see its text there. Without observers (the service) a size check.
 */
function observeClient (client: pg.PoolClient, observers: StatementObservers): void {
  const query = client.query
  client.query = function (this: pg.PoolClient, ...args: unknown[]) {
    if (observers.size > 0) {
      const config = args[0] as string | { text?: string } | undefined
      const text = typeof config === 'string' ? config : config?.text ?? ''
      for (const observe of observers) observe(text)
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof client.query
}

/**
 * @internal PGlite's statements seen by `observers`: its `query`, `exec`
 * and transactions (`begin`, what runs on the transaction, `commit` or
 * `rollback`, which PGlite sends itself), patched on first use by a test.
 */
export function observePglite (client: PGlite, observers: StatementObservers): void {
  const tell = (text: string): void => { for (const observe of observers) observe(text) }
  const wrap = <F extends (query: string, ...rest: any[]) => Promise<any>>(run: F): F =>
    (async (query: string, ...rest: unknown[]) => { tell(query); return await run(query, ...rest) }) as F
  const { query, exec, transaction } = client
  client.query = wrap(query.bind(client)) as typeof client.query
  client.exec = wrap(exec.bind(client)) as typeof client.exec
  client.transaction = (async (fn: Parameters<typeof transaction>[0]) => {
    tell('begin')
    try {
      const result = await transaction.call(client, async (tx) => {
        tx.query = wrap(tx.query.bind(tx)) as typeof tx.query
        tx.exec = wrap(tx.exec.bind(tx)) as typeof tx.exec
        return await fn(tx)
      })
      tell('commit')
      return result
    } catch (err) {
      tell('rollback')
      throw err
    }
  }) as typeof client.transaction
}

/**
 * Transactions on a client of their own. drizzle's transaction on a pool
 * never gives the client back when `begin` fails (a connection dropped
 * between checkout and `begin`, as in an outage), so every outage would
 * shrink the pool for good. Here the client is released whatever happens;
 * the pool discards it when its connection is gone.
 */
function pgTransaction (pool: pg.Pool, drizzlePg: (typeof import('drizzle-orm/node-postgres'))['drizzle']): Store['transaction'] {
  // One drizzle handle per pooled client (the pool reuses client objects).
  const handles = new WeakMap<pg.PoolClient, NodePgDatabase>()
  return async (fn, config) => {
    const client = await pool.connect()
    try {
      let db = handles.get(client)
      if (db === undefined) {
        db = drizzlePg({ client, casing })
        handles.set(client, db)
      }
      return await db.transaction(fn, config)
    } finally {
      client.release()
    }
  }
}

/**
 * V8 compiles PGlite's WebAssembly with its baseline compiler only. By
 * default the functions a start runs hot (catalog loading, recovery) are
 * compiled again by the optimizing compiler in the background: on a 2-core
 * machine that was about 0.6 s of CPU per open and 40-60 MB of code kept
 * resident, while 4,000 small queries afterwards took the same CPU either
 * way (docs/benchmarks.md). Set before the module is compiled; it applies
 * to the WebAssembly this process compiles from then on.
 */
const PGLITE_V8_FLAG = '--liftoff-only'

/** PGlite and its drizzle driver, loaded only when the embedded database is used (tens of MB). */
async function loadPglite () {
  setFlagsFromString(PGLITE_V8_FLAG)
  const [{ PGlite, types }, { drizzle }] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')])
  return { PGlite, types, drizzlePglite: drizzle }
}

/** Directories opened by this process (a second PGlite on one directory corrupts it). */
const openDirs = new Set<string>()

function pgliteStartParams (defaults: readonly string[]): string[] {
  return [...defaults, ...pgliteSettings.flatMap((s) => ['-c', s])]
}

const CREATE_SCRIPT = fileURLToPath(new URL('./pglite-create.mjs', import.meta.url))

/**
 * Creates the database files in a child process: PGlite's initdb runs a
 * second PostgreSQL and the initdb program in WebAssembly, and their memory
 * (about 500 MB at its peak) would stay in this process for good.
 */
async function createPgliteDir (pgdata: string, params: string[]): Promise<void> {
  await promisify(execFile)(process.execPath, [PGLITE_V8_FLAG, CREATE_SCRIPT, pgdata, JSON.stringify(params)], {
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: Error & { stderr?: string }) => {
    throw new Error(`creating the embedded database in ${pgdata} failed: ${(err.stderr ?? '').trim() || err.message}`)
  })
}

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`

async function openPglite (opts: OpenStoreOptions): Promise<Store> {
  const { PGlite, types, drizzlePglite } = await loadPglite()
  const startParams = pgliteStartParams(PGlite.defaultStartParams)
  if (opts.memory) {
    const client = await PGlite.create({ startParams, serializers: pgliteSerializers(types.serializers), ...(opts.loadDataDir === undefined ? {} : { loadDataDir: opts.loadDataDir }) })
    let closed: Promise<void> | undefined
    return makeStore(pgliteDriver(client, drizzlePglite), () => (closed ??= client.close()))
  }
  const dataDir = resolve(opts.dataDir ?? '.data')
  const pgdata = join(dataDir, 'pgdata')
  mkdirSync(dataDir, { recursive: true })
  const release = lockDir(pgdata)
  const progress = opts.onProgress ?? (() => {})
  let client: PGlite
  try {
    if (!existsSync(join(pgdata, 'PG_VERSION'))) {
      const started = performance.now()
      // Only where nothing is yet: a directory initdb left half-made is made again by initdb.
      const copied = opts.templates === undefined || existsSync(pgdata) ? undefined : copyPgliteTemplate(opts.templates, pgdata)
      if (copied !== undefined && 'from' in copied) {
        progress(`embedded database: created ${pgdata} from the migrated template ${copied.from} in ${seconds(started)}`)
      } else {
        await createPgliteDir(pgdata, startParams)
        progress(`embedded database: created ${pgdata} (initdb, first start${copied === undefined ? '' : `; no template: ${copied.skipped}`}) in ${seconds(started)}`)
      }
    }
    const started = performance.now()
    client = await PGlite.create({ dataDir: pgdata, startParams, serializers: pgliteSerializers(types.serializers) })
    progress(`embedded database: started in ${seconds(started)}`)
  } catch (err) {
    release()
    throw err
  }
  let closed: Promise<void> | undefined
  return makeStore(pgliteDriver(client, drizzlePglite), () => (closed ??= client.close().finally(release)))
}

/** PGlite's driver, its statements joining a shared transaction when sent from one's item (joined.ts). */
function pgliteDriver (client: PGlite, drizzlePglite: (typeof import('drizzle-orm/pglite'))['drizzle']): StoreDriver {
  const driver: StoreDriver = { kind: 'pglite', client, db: undefined as unknown as PgliteDatabase }
  driver.db = drizzlePglite({ client: routedClient(client, () => driver), casing })
  return driver
}

/**
 * @internal An in-memory embedded store whose database comes later: `open`
 * starts it from a data-directory dump. For tests, whose template is the
 * dump of the migrations of an app not yet composed (PGlite reads a dump
 * only when it starts). Until then drizzle holds a stand-in that refuses
 * every use, as a PostgreSQL test database not yet created would.
 */
export async function openPgliteLater (): Promise<{ store: Store, open: (loadDataDir: Blob) => Promise<void> }> {
  const { PGlite, types, drizzlePglite } = await loadPglite()
  let client: PGlite | undefined
  const standIn = new Proxy({} as PGlite, {
    get (_target, key) {
      if (client === undefined) throw new Error('this test store is used before migrateTestStore made its database')
      const value: unknown = Reflect.get(client, key, client)
      return typeof value === 'function' ? value.bind(client) : value
    },
  })
  const driver = pgliteDriver(standIn, drizzlePglite)
  let closed: Promise<void> | undefined
  const store = makeStore(driver, () => (closed ??= client?.close() ?? Promise.resolve()))
  const open = async (loadDataDir: Blob): Promise<void> => {
    if (client !== undefined) throw new Error('the test store is open already')
    if (closed !== undefined) throw new Error('the test store was closed before its database was made')
    const made = await PGlite.create({ startParams: pgliteStartParams(PGlite.defaultStartParams), loadDataDir, serializers: pgliteSerializers(types.serializers) })
    if (closed !== undefined) {
      await made.close()
      throw new Error('the test store was closed while its database was made')
    }
    client = made
    const pglite = driver as Extract<StoreDriver, { kind: 'pglite' }>
    pglite.client = made
  }
  return { store, open }
}

function makeStore (driver: StoreDriver, close: () => Promise<void>, transaction?: Store['transaction']): Store {
  const db = driver.db as unknown as Db
  const run: Store['transaction'] = transaction ?? ((fn, config) => db.transaction(fn, config))
  const hooks: CommitHook[] = []
  const store: StoreWithDriver = {
    db,
    kind: driver.kind,
    // Without hooks (the usual case outside a write) a transaction pays nothing for them.
    transaction: (fn, config) => {
      // In a shared transaction's item: a savepoint of it (joined.ts).
      const frame = frameOf(driver)
      const runs: Store['transaction'] = frame === undefined ? run : async (f) => await nestIn(frame, f)
      return hooks.length === 0 ? runs(fn, config) : hooked(runs, hooks, fn, config)
    },
    ping: (timeoutMs = 2000) => ping(db, timeoutMs),
    execute: async <T extends Record<string, unknown>>(query: SQLWrapper | string) => {
      const res = (await db.execute(query)) as unknown as { rows: T[] }
      return res.rows
    },
    horizon: async () => (await store.snapshot())?.horizon,
    snapshot: () => {
      // Inside a shared transaction: no horizon (nothing kept or reused by it), the transaction's own epochs (joined.ts).
      const frame = frameOf(driver)
      if (frame !== undefined) return joinedSnapshot(frame)
      // Calls of one turn of the event loop share the query sent at its end.
      pendingSnapshot ??= new Promise((resolve) => {
        setImmediate(() => {
          pendingSnapshot = undefined
          resolve(readSnapshot())
        })
      })
      return pendingSnapshot
    },
    close,
    local: <T>(slot: StoreSlot<T>): T => {
      if (!locals.has(slot)) locals.set(slot, slot.make(store))
      return locals.get(slot) as T
    },
    [driverKey]: driver,
    [epochsKey]: () => { withEpochs = true; epochsFound = undefined },
    [epochsKnownKey]: () => epochsFound,
    [commitHooksKey]: hooks,
  }
  const locals = new Map<StoreSlot<unknown>, unknown>()
  let pendingSnapshot: Promise<Snapshot | undefined> | undefined
  // Until a statement finds no epochs table (a database the core has not migrated); migrate() sets it again.
  let withEpochs = true
  // What a snapshot found: the table read (true) or missing (false); unknown until one was read.
  let epochsFound: boolean | undefined
  // Built once: they are asked on every anonymous read of a kept answer.
  let snapshotQuery: { execute: () => Promise<unknown> } | undefined
  let horizonQuery: { execute: () => Promise<unknown> } | undefined
  const readSnapshot = async (): Promise<Snapshot | undefined> => {
    if (withEpochs) {
      snapshotQuery ??= db._.session.prepareQuery(dialect.sqlToQuery(sql`select pg_current_snapshot()::text as h, ${sql.raw(EPOCHS_COLUMN)} as e`), undefined, 'store_snapshot', false)
      try {
        const row = ((await snapshotQuery.execute()) as { rows: Array<{ h: string, e: unknown }> }).rows[0]
        if (row === undefined) return undefined
        epochsFound = true
        return { horizon: row.h, epochs: epochsOf(row.e) }
      } catch (err) {
        // 42P01: no such table (drizzle wraps the driver's error). Any other failure: nothing can be read.
        const e = err as { code?: string, cause?: { code?: string } }
        if ((e.code ?? e.cause?.code) !== '42P01') return undefined
        withEpochs = false
        epochsFound = false
      }
    }
    horizonQuery ??= db._.session.prepareQuery(dialect.sqlToQuery(sql`select pg_current_snapshot()::text as h`), undefined, 'store_horizon', false)
    try {
      const h = ((await horizonQuery.execute()) as { rows: Array<{ h: string }> }).rows[0]?.h
      return h === undefined ? undefined : { horizon: h, epochs: {} }
    } catch {
      return undefined
    }
  }
  return store
}

/** A transaction that runs the commit hooks after `fn`, and what they answer after the commit. */
async function hooked<T> (run: Store['transaction'], hooks: readonly CommitHook[], fn: (tx: Tx) => Promise<T>, config?: PgTransactionConfig): Promise<T> {
  const committed: Array<() => void> = []
  const result = await run(async (tx) => {
    const value = await fn(tx)
    for (const hook of hooks) {
      const pending = hook(tx)
      const done = pending === undefined ? undefined : await pending
      if (done !== undefined) committed.push(done)
    }
    return value
  }, config)
  for (const done of committed) done()
  return result
}

/** @internal */
export function epochsMayExist (store: Store): void {
  (store as Store & { [epochsKey]?: () => void })[epochsKey]?.()
}

async function ping (db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs)
    timer.unref()
  })
  try {
    const query = Promise.resolve()
      .then(() => db.execute(sql`select 1`))
      .then(
        () => true,
        () => false
      )
    return await Promise.race([query, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * A lock file beside the PGlite directory: PGlite has no locking of its own,
 * and two instances on one directory (say the server and `pnpm cms`) would
 * corrupt it. A lock left by a dead process is taken over.
 */
function lockDir (pgdata: string): () => void {
  if (openDirs.has(pgdata)) {
    throw new StoreLockedError(`the database in ${pgdata} is already open in this process`)
  }
  const lockPath = `${pgdata}.lock`
  const token = `${process.pid}`
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx')
      try {
        writeSync(fd, token)
      } finally {
        closeSync(fd)
      }
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err
      let holder = NaN
      try {
        holder = Number.parseInt(readFileSync(lockPath, 'utf8'), 10)
      } catch {
        // unreadable: treat as stale
      }
      // Our own pid but not in openDirs means a previous run (e.g. pid 1 in a
      // restarted container) left it behind.
      if (Number.isInteger(holder) && holder !== process.pid && processAlive(holder)) {
        throw new StoreLockedError(
          `the database in ${pgdata} is in use by process ${holder}; stop it first, ` +
            'or use a PostgreSQL server (DATABASE_URL) to share one database between processes'
        )
      }
      try {
        unlinkSync(lockPath)
      } catch {
        // someone else removed it; retry once
      }
    }
  }
  openDirs.add(pgdata)
  let released = false
  return () => {
    if (released) return
    released = true
    openDirs.delete(pgdata)
    try {
      if (readFileSync(lockPath, 'utf8') === token) unlinkSync(lockPath)
    } catch {
      // already gone
    }
  }
}

function processAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
