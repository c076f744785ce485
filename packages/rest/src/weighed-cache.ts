/**
 * Values by key within a budget of their weights (bytes for kept answers;
 * one each where a count is enough), on lru-cache. Read with `peek`, so that
 * the oldest set goes first when a new value would not fit; a value weighing
 * over a tenth of the budget is not kept (one large value must not push out
 * everything else), and setting one drops what its key held.
 */
import { LRUCache } from 'lru-cache'

export function weighedCache<T extends {}> (budget: number, weigh?: (value: T) => number): LRUCache<string, T> {
  return new LRUCache<string, T>({
    maxSize: budget,
    maxEntrySize: Math.max(1, Math.floor(budget / 10)),
    ...(weigh === undefined ? {} : { sizeCalculation: (value: T) => Math.max(1, Math.ceil(weigh(value))) })
  })
}
