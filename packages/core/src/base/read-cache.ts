/**
 * Reads kept while nothing has been committed: the rows and settings that
 * handlers and permission checks load, reused across requests.
 *
 * The store's commit horizon (`store.horizon()`, asked once per request as
 * `req.horizon()`) changes with every commit or abort of a transaction that
 * wrote anything, in any process. A value read after the horizon was taken
 * is valid as long as the horizon reads the same: nothing can have become
 * visible in between. So a cached value is never older than the request
 * that reuses it, whoever wrote last (another replica, the CLI, a test
 * writing to the store directly). Without a readable horizon nothing is
 * reused. (Whole anonymous answers are the kernel's: `cache: 'public'`.)
 */
import { weighedCache, type RestRequest } from '@cms/rest'
import { storeSlot, type Store } from '@cms/store'
import type { LRUCache } from 'lru-cache'

interface Entry<T> { horizon: string, value: T }

/**
 * Values by key, each valid while the horizon it was read under lasts. The
 * values are shared between requests: callers must not change them. The
 * cache holds at most `budget` of their weight: one each by default (a count),
 * or what `weigh` says (bytes, for values whose size varies).
 */
export class ReadCache<T> {
  private readonly entries: LRUCache<string, Entry<T>>
  private readonly loading = new Map<string, Promise<Entry<T>>>()

  constructor (budget: number, weigh: (value: T) => number = () => 1) {
    this.entries = weighedCache<Entry<T>>(budget, (entry) => weigh(entry.value))
  }

  /** The cached value when still valid, else `load()`'s (kept for the next requests). */
  async get (req: RestRequest, key: string, load: () => Promise<T>): Promise<T> {
    const horizon = await req.horizon()
    if (horizon === undefined) return await load()
    return (await this.find(key, horizon, load)).value
  }

  /**
   * As `get`, under a horizon the caller took itself (authentication runs
   * before the request has its own); undefined: nothing is reused.
   */
  async getUnder (horizon: string | undefined, key: string, load: () => Promise<T>): Promise<T> {
    if (horizon === undefined) return await load()
    return (await this.find(key, horizon, load)).value
  }

  /** The cached value when still valid. */
  async peek (req: RestRequest, key: string): Promise<T | undefined> {
    const horizon = await req.horizon()
    const hit = this.entries.peek(key)
    return horizon !== undefined && hit !== undefined && hit.horizon === horizon ? hit.value : undefined
  }

  /** Keeps a value read after this request's horizon was taken. */
  async put (req: RestRequest, key: string, value: T): Promise<void> {
    const horizon = await req.horizon()
    if (horizon !== undefined) this.entries.set(key, { horizon, value })
  }

  /**
   * `put` for values that are the same whenever read under one horizon (a
   * row by its id): one kept under this horizon already stays (marked
   * recently used), not weighed and set again. A list keeps every row of
   * its page this way.
   */
  async keepRead (req: RestRequest, key: string, value: T): Promise<void> {
    const horizon = await req.horizon()
    if (horizon !== undefined && this.entries.get(key)?.horizon !== horizon) this.entries.set(key, { horizon, value })
  }

  /**
   * The entry valid under the horizon; requests under the same horizon that
   * miss wait for one load (its inputs are all in the key).
   */
  private async find (key: string, horizon: string, load: () => Promise<T>): Promise<Entry<T>> {
    const hit = this.entries.peek(key)
    if (hit !== undefined && hit.horizon === horizon) return hit
    const loadKey = `${horizon}\0${key}`
    let pending = this.loading.get(loadKey)
    if (pending === undefined) {
      pending = load().then((value) => {
        const entry = { horizon, value }
        this.entries.set(key, entry)
        return entry
      })
      this.loading.set(loadKey, pending)
      const done = (): void => { this.loading.delete(loadKey) }
      void pending.then(done, done)
    }
    return await pending
  }
}

/** A store's read caches by name (see `readCache`). */
const CACHES = storeSlot('content/read-caches', () => new Map<string, ReadCache<any>>())

/**
 * The read cache `name` of a store, made on first use with `budget` and
 * `weigh` (see {@link ReadCache}). Per store: two databases in one process
 * (tests) may read the same horizon. A store standing for a transaction
 * keeps none (its horizon is unknown: nothing would be reused).
 */
export function readCache<T> (store: Store, name: string, budget: number, weigh?: (value: T) => number): ReadCache<T> {
  const named = store.local?.(CACHES)
  let cache = named?.get(name) as ReadCache<T> | undefined
  if (cache === undefined) {
    cache = new ReadCache<T>(budget, weigh)
    named?.set(name, cache)
  }
  return cache
}

/**
 * A value read from the site options (`load`), once per request and kept
 * across requests while the settings epoch stays (writes to options renew
 * it, core migration 0014): no statement while nobody changed an option,
 * and read afresh after a change. Shared between requests: not to be changed.
 */
export async function keptBySettings<T> (store: Store, req: RestRequest, name: string, load: () => Promise<T>): Promise<T> {
  return await req.memo(name, async () => await readCache<T>(store, name, 1).getUnder(await req.epoch('settings'), name, load))
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
