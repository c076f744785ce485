/**
 * One transaction shared by a run of writes (the batch route's in-process
 * requests): `inOneTransaction(store, fn)` opens it, and each write that
 * `fn` runs through `join.item(run, failed)` runs in it behind a savepoint
 * of its own. While an item runs, everything its async context sends to
 * the store joins the transaction: a query on `store.db`, `store.execute`,
 * `executeNamed`, a prepared statement made earlier (the drivers' clients
 * are routed, not the drizzle handles), and `store.transaction(fn)`, which
 * becomes a savepoint inside it (with the commit hooks run in it, so an
 * audit outbox row goes with it). An item that failed (`failed(value)`, or
 * it threw) is rolled back to its savepoint; the others stand. One commit
 * at the end. Each item's savepoint sets `cms.event_scope` to the item's
 * number, which the core's lifecycle-event triggers read: each item's
 * events are those it would have had committing alone.
 *
 * Inside an item the store's commit horizon reads as unknown: nothing is
 * reused from or kept in a cache that follows commits by horizon. Its
 * epochs are the transaction's own view (`joinedSnapshot`), read with the
 * item's savepoint and again before a later ask once the item has sent a
 * statement: an epoch this transaction renewed (its value is the
 * transaction's own id) is left out, so what an earlier item changed is read
 * afresh, and what is kept by an epoch still standing is the committed
 * value (the transaction changed nothing of that kind), which the item may
 * reuse and keep. So a later item reads what an earlier one wrote, and
 * nothing uncommitted is shown to another request.
 *
 * What must wait for the commit (the audit log's answered entry) is handed
 * to `afterJoinedCommit`, called once the outcome is known: `stood` (the
 * commit succeeded), `rolled-back` (the item failed and was undone) or
 * `lost` (the commit failed: nothing of it was written).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { EPOCHS_COLUMN, epochsKnown, epochsOf } from './epochs.js'

// db.ts's types, said again here: db.ts imports this file (its routed clients).
type Tx = Parameters<Parameters<PgDatabase<PgQueryResultHKT>['transaction']>[0]>[0]
/** A store as this file uses it (db.ts's `Store`). */
interface Store {
  transaction: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>
  snapshot: () => Promise<{ epochs: Readonly<Record<string, string>> } | undefined>
}
/** A store's driver (db.ts's `StoreDriver`): what names its shared transaction. */
type StoreDriver = object

export type JoinedOutcome = 'stood' | 'rolled-back' | 'lost'

/** What a driver's client does that a transaction's client does too. */
interface Client { query: (...args: any[]) => any, exec?: (...args: any[]) => any }

interface Item {
  /** Until the item ended: later work of its context (a timer it set) runs outside the transaction. */
  open: boolean
  stood: boolean
  readonly after: Array<(outcome: JoinedOutcome) => void>
  /** The transaction's epochs as last read in this item (those it renewed left out); undefined: without epochs. */
  epochs?: Readonly<Record<string, string>>
  /** The item sent a statement since its epochs were read (it may have renewed one). */
  sent: boolean
}

interface Frame {
  readonly driver: StoreDriver
  /** The connection (pg) or PGlite transaction every routed statement runs on. */
  readonly client: Client
  /** The innermost transaction or savepoint: `store.transaction` nests below it. */
  readonly tx: Tx
  readonly item: Item
}

const frames = new AsyncLocalStorage<Frame>()

/** @internal The open frame of this driver's shared transaction in this async context. */
export function frameOf (driver: StoreDriver): Frame | undefined {
  const frame = frames.getStore()
  return frame !== undefined && frame.driver === driver && frame.item.open ? frame : undefined
}

/** @internal `fn` as a savepoint of the frame's transaction, its own statements in a frame below. */
export async function nestIn<T> (frame: Frame, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return await frame.tx.transaction(async (inner) => await frames.run({ ...frame, tx: inner }, async () => await fn(inner)))
}

/**
 * @internal A driver's client whose `query` (and PGlite's `exec`) run on
 * the shared transaction when called from an item's context.
 */
export function routedClient<C extends object> (client: C, driver: () => StoreDriver): C {
  return new Proxy(client, {
    get (target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      if (key === 'query' || key === 'exec') {
        return (...args: unknown[]) => {
          const frame = frameOf(driver())
          if (frame !== undefined) frame.item.sent = true
          const on = frame === undefined ? target : frame.client
          return (Reflect.get(on, key, on) as (...a: unknown[]) => unknown).apply(on, args)
        }
      }
      return (value as (...a: unknown[]) => unknown).bind(target)
    }
  })
}

/** Defers `fn` to the outcome of the shared transaction the current item runs in; false outside one (call it now). */
export function afterJoinedCommit (store: Store, fn: (outcome: JoinedOutcome) => void): boolean {
  const driver = driverOf(store)
  const frame = driver === undefined ? undefined : frameOf(driver)
  if (frame === undefined) return false
  frame.item.after.push(fn)
  return true
}

export interface JoinedRun {
  /**
   * Runs one write behind a savepoint: rolled back to it when `failed(value)`
   * or when it throws (`error`).
   */
  item: <T>(run: () => Promise<T>, failed: (value: T) => boolean) => Promise<{ value: T, stood: boolean } | { error: unknown, stood: false }>
}

/** The commit of a shared transaction failed: nothing of it was written. */
export class JoinedCommitError extends Error {
  readonly code = 'joined_commit_failed'
  constructor (readonly cause: unknown) {
    super(`the shared transaction did not commit: ${cause instanceof Error ? cause.message : String(cause)}`)
    this.name = 'JoinedCommitError'
  }
}

class RolledBack<T> {
  constructor (readonly value: T) {}
}

const driverKey = Symbol.for('@cms/store.driver')
function driverOf (store: Store): StoreDriver | undefined {
  return (store as Store & { [driverKey]?: StoreDriver })[driverKey]
}

/** A store standing for something else (a transaction): each item commits as it would alone. */
const ALONE: JoinedRun = {
  item: async (run, failed) => {
    try {
      const value = await run()
      return { value, stood: !failed(value) }
    } catch (error) {
      return { error, stood: false }
    }
  }
}

/**
 * Runs `fn` with one transaction its items join (module comment). Resolves
 * once committed, after the deferred work of every item was told its
 * outcome; throws `JoinedCommitError` when the transaction (its commit, or
 * anything outside an item) failed, every item being `lost` or `rolled-back`.
 */
export async function inOneTransaction<T> (store: Store, fn: (join: JoinedRun) => Promise<T>): Promise<T> {
  const driver = driverOf(store)
  if (driver === undefined) return await fn(ALONE)
  if (frameOf(driver) !== undefined) throw new Error('a shared transaction is open in this context already')
  // Whether the database keeps epochs (the core's migration 0013): then each item reads them with its savepoint.
  // Known once any snapshot of the store was read (a request's horizon, its credentials): no statement then.
  const withEpochs = epochsKnown(store) ?? Object.keys((await store.snapshot())?.epochs ?? {}).length > 0
  const items: Item[] = []
  let result: T
  try {
    result = await store.transaction(async (tx) => {
      const client = (tx as unknown as { _: { session: { client: Client } } })._.session.client
      const join: JoinedRun = {
        item: async (run, failed) => {
          const item: Item = { open: true, stood: false, after: [], sent: false }
          items.push(item)
          const savepoint = `batch_item_${items.length}`
          item.epochs = await openItem(client, savepoint, items.length, withEpochs)
          try {
            const value = await frames.run({ driver, client, tx, item }, run)
            item.open = false
            if (failed(value)) throw new RolledBack(value)
            item.stood = true
            return { value, stood: true }
          } catch (err) {
            item.open = false
            await tx.execute(sql`rollback to savepoint ${sql.raw(savepoint)}`)
            return err instanceof RolledBack ? { value: err.value as any, stood: false } : { error: err, stood: false }
          }
        }
      }
      return await fn(join)
    })
  } catch (err) {
    tell(items, (item) => item.stood ? 'lost' : 'rolled-back')
    throw new JoinedCommitError(err)
  }
  tell(items, (item) => item.stood ? 'stood' : 'rolled-back')
  return result
}

/** The transaction's view of the epochs: each by name, those it renewed itself (valued its own id) left out. */
const EPOCHS = `select txid_current()::text as t, ${EPOCHS_COLUMN} as e`

/**
 * Item `n`'s savepoint (not released: it lasts until the commit, one
 * statement fewer an item), the item's number as the transaction-local
 * setting `cms.event_scope`, and the epochs as the item starts, in one
 * round trip (statements of the simple protocol: PGlite's `exec`, pg's
 * `query` without parameters). The core's lifecycle-event triggers (core
 * migration 0020) keep each item's events apart by the setting, as if the
 * item had committed alone; a rollback to the savepoint undoes it with the
 * rest, and the commit ends it.
 */
async function openItem (client: Client, savepoint: string, n: number, withEpochs: boolean): Promise<Readonly<Record<string, string>> | undefined> {
  const text = `savepoint ${savepoint}; select set_config('cms.event_scope', '${n}', true)${withEpochs ? `; ${EPOCHS}` : ''}`
  const results = await simple(client, text)
  return withEpochs ? ownView(results) : undefined
}

/** The item's epochs (`Store.snapshot` inside it: no horizon), read again when it sent a statement since. */
export async function joinedSnapshot (frame: Frame): Promise<{ horizon: undefined, epochs: Readonly<Record<string, string>> } | undefined> {
  const item = frame.item
  if (item.epochs === undefined) return undefined
  if (item.sent) {
    item.sent = false
    item.epochs = ownView(await simple(frame.client, EPOCHS))
  }
  return { horizon: undefined, epochs: item.epochs }
}

interface Rows { rows: Array<Record<string, unknown>> }

async function simple (client: Client, text: string): Promise<Rows[]> {
  const out = await (client.exec !== undefined ? client.exec(text) : client.query(text)) as Rows | Rows[]
  return Array.isArray(out) ? out : [out]
}

function ownView (results: readonly Rows[]): Readonly<Record<string, string>> {
  const row = results[results.length - 1]?.rows[0] ?? {}
  const own = String(row.t)
  const view: Record<string, string> = {}
  for (const [name, value] of Object.entries(epochsOf(row.e))) if (value !== own) view[name] = value
  return view
}

function tell (items: readonly Item[], outcome: (item: Item) => JoinedOutcome): void {
  for (const item of items) {
    for (const fn of item.after) {
      try {
        fn(outcome(item))
      } catch {
        // What waits for the commit cannot fail it (the audit log's append never throws).
      }
    }
  }
}
