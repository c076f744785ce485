/**
 * A store whose every query runs in the importer's current transaction,
 * when one is open: the service's routes are built once on it, and each
 * batch of records (and each record, in a savepoint) is written through
 * them in one transaction with its id map rows, so an interrupted import
 * leaves whole batches and resumes after the last one.
 */
import type { Queryable, Store, Tx } from '@cms/store'

export interface SwitchableStore {
  /** Hand this to the app: it delegates to the store, or to the open transaction. */
  store: Store
  /** Runs `fn` with every query of the app inside `tx` (a transaction or a savepoint). */
  within: <T>(tx: Tx, fn: () => Promise<T>) => Promise<T>
}

function viewOf (base: Store, tx: Tx): Store {
  return {
    db: tx as unknown as Store['db'],
    kind: base.kind,
    transaction: async (fn) => await tx.transaction(fn),
    ping: async () => true,
    execute: async <T extends Record<string, unknown>>(q: Parameters<Store['execute']>[0]) => ((await (tx as Queryable).execute(q as never)) as unknown as { rows: T[] }).rows,
    // No reuse of answers while a transaction is open (the horizon is for committed data).
    horizon: async () => undefined,
    snapshot: async () => undefined,
    close: async () => {}
  }
}

export function switchableStore (base: Store): SwitchableStore {
  let current: Store = base
  const store = new Proxy(base, {
    // What the core keeps per store (`store.local`: prepared statements, read caches) is the base
    // store's; the transaction's view has none, so nothing is made on a transaction that ends with its batch.
    has (_target, key) { return Reflect.has(current, key) },
    get (_target, key) {
      // The driver (a symbol) stays the base store's: migrations run before any transaction.
      const from = typeof key === 'symbol' ? base : current
      const value = Reflect.get(from, key) as unknown
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(from) : value
    }
  })
  return {
    store,
    async within (tx, fn) {
      const before = current
      current = viewOf(base, tx)
      try {
        return await fn()
      } finally {
        current = before
      }
    }
  }
}
