/**
 * Reads kept while nothing has been committed: public responses and the
 * rows and settings permission checks load, reused across requests.
 *
 * The database's commit horizon (`pg_current_snapshot()`: the newest
 * finished transaction and those still running) changes with every commit
 * or abort of a transaction that wrote anything, in any process. A value
 * read after the horizon was taken is valid as long as the horizon reads the
 * same: nothing can have become visible in between. So a cached value is
 * never older than the request that reuses it, whoever wrote last (another
 * replica, the CLI, a test writing to the store directly).
 *
 * The horizon is asked with a query sent after the request arrived; the
 * requests of one turn of the event loop share it (a prepared statement on a
 * table-less select), so under load it costs a few microseconds a request.
 * Without a readable horizon nothing is reused.
 */
import { sql } from 'drizzle-orm'
import { WeighedMap, type RestRequest } from '@cms/rest'
import type { Store } from '@cms/store'

export class CommitClock {
  private pending: Promise<string | undefined> | undefined
  private readonly query

  constructor (store: Store) {
    // Prepared once: no query building, and PostgreSQL parses it once per connection.
    this.query = store.db.select({ h: sql<string>`pg_current_snapshot()::text` }).from(sql`(values (1)) as one (x)`).prepare('content_horizon')
  }

  /** The horizon as of some moment after this call; undefined when it cannot be read. */
  async now (): Promise<string | undefined> {
    // Calls of one turn of the event loop share the query sent at its end.
    this.pending ??= new Promise((resolve) => {
      setImmediate(() => {
        this.pending = undefined
        resolve(this.query.execute().then((rows) => rows[0]?.h, () => undefined))
      })
    })
    return await this.pending
  }
}

const clocks = new WeakMap<Store, CommitClock>()

export function commitClock (store: Store): CommitClock {
  let clock = clocks.get(store)
  if (clock === undefined) {
    clock = new CommitClock(store)
    clocks.set(store, clock)
  }
  return clock
}

/** The horizon for this request, asked once whatever the number of reads. */
export async function horizonOf (store: Store, req: RestRequest): Promise<string | undefined> {
  return await req.memo('content:horizon', async () => await commitClock(store).now())
}

interface Entry<T> { horizon: string, value: T }

/**
 * Values by key, each valid while the horizon it was read under lasts. The
 * values are shared between requests: callers must not change them. The
 * cache holds at most `budget` of their weight: one each by default (a count),
 * or what `weigh` says (bytes, for values whose size varies).
 */
export class ReadCache<T> {
  private readonly entries: WeighedMap<Entry<T>>
  private readonly loading = new Map<string, Promise<Entry<T>>>()

  constructor (private readonly store: Store, budget: number, private readonly weigh: (value: T) => number = () => 1) {
    this.entries = new WeighedMap(budget)
  }

  /** The cached value when still valid, else `load()`'s (kept for the next requests). */
  async get (req: RestRequest, key: string, load: () => Promise<T>): Promise<T> {
    const horizon = await horizonOf(this.store, req)
    if (horizon === undefined) return await load()
    return (await this.find(key, horizon, load)).value
  }

  /** The cached value when still valid. */
  async peek (req: RestRequest, key: string): Promise<T | undefined> {
    const horizon = await horizonOf(this.store, req)
    const hit = this.entries.get(key)
    return horizon !== undefined && hit !== undefined && hit.horizon === horizon ? hit.value : undefined
  }

  /** Keeps a value read after this request's horizon was taken. */
  async put (req: RestRequest, key: string, value: T): Promise<void> {
    const horizon = await horizonOf(this.store, req)
    if (horizon !== undefined) this.set(key, { horizon, value })
  }

  /** The entry object itself, stable while valid (the kernel's tag for reusing rendered bytes). */
  async entry (req: RestRequest, key: string, load: () => Promise<T>): Promise<Entry<T> | undefined> {
    const horizon = await horizonOf(this.store, req)
    if (horizon === undefined) return undefined
    return await this.find(key, horizon, load)
  }

  /**
   * The entry valid under the horizon; requests under the same horizon that
   * miss wait for one load (its inputs are all in the key).
   */
  private async find (key: string, horizon: string, load: () => Promise<T>): Promise<Entry<T>> {
    const hit = this.entries.get(key)
    if (hit !== undefined && hit.horizon === horizon) return hit
    const loadKey = `${horizon}\0${key}`
    let pending = this.loading.get(loadKey)
    if (pending === undefined) {
      pending = load().then((value) => {
        const entry = { horizon, value }
        this.set(key, entry)
        return entry
      })
      this.loading.set(loadKey, pending)
      const done = (): void => { this.loading.delete(loadKey) }
      void pending.then(done, done)
    }
    return await pending
  }

  private set (key: string, entry: Entry<T>): void {
    this.entries.set(key, entry, this.weigh(entry.value))
  }
}

/**
 * A rough weight of a JSON-like value in bytes, for a cache's budget: the
 * length of its strings and keys, and a few bytes for every other value.
 */
export function jsonWeight (value: unknown): number {
  if (typeof value === 'string') return value.length + 16
  if (value === null || typeof value !== 'object') return 16
  let weight = 32
  if (Array.isArray(value)) {
    for (const item of value) weight += jsonWeight(item)
  } else {
    for (const [key, item] of Object.entries(value)) weight += key.length + jsonWeight(item)
  }
  return weight
}
