/**
 * The request's memo: what a request loads once (a post, the settings) is
 * shared by its permission check, its handler and the Allow header's checks.
 */

/** Values loaded once per request, by key. */
export interface RequestMemo {
  <T>(key: string, load: () => Promise<T>): Promise<T>
  /** Forgets a key: the next call loads again (after a write changed it). */
  forget (key: string): void
}

/** A fresh per-request memo. */
export function requestMemo (): RequestMemo {
  const cache = new Map<string, Promise<unknown>>()
  const memo = async <T>(key: string, load: () => Promise<T>): Promise<T> => {
    let pending = cache.get(key) as Promise<T> | undefined
    if (pending === undefined) {
      pending = load()
      cache.set(key, pending)
      // A failed load is not remembered: the next caller tries again.
      pending.catch(() => { if (cache.get(key) === pending) cache.delete(key) })
    }
    return await pending
  }
  return Object.assign(memo, { forget: (key: string) => { cache.delete(key) } })
}
