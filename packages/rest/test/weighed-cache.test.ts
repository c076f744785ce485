/**
 * Values bounded by the total of their weights, oldest out first (lru-cache
 * as the kernel and the read caches configure it, read with `peek`).
 */
import t from 'tap'
import { weighedCache } from '../src/weighed-cache.js'

t.test('the oldest values go first when a new one would not fit', async (t) => {
  const kept = weighedCache<string>(100)
  kept.set('a', 'A', { size: 10 })
  kept.set('b', 'B', { size: 10 })
  kept.set('c', 'C', { size: 10 })
  t.equal(kept.calculatedSize, 30)
  for (let i = 0; i < 7; i++) kept.set(`x${i}`, 'X', { size: 10 })
  t.equal(kept.calculatedSize, 100, 'full to the byte')
  kept.set('d', 'D', { size: 10 })
  t.equal(kept.peek('a'), undefined, 'the oldest went')
  t.equal(kept.peek('b'), 'B', 'the next oldest stayed')
  t.equal(kept.calculatedSize, 100)
  kept.set('e', 'E', { size: 10 })
  kept.set('f', 'F', { size: 10 })
  t.notOk(kept.has('b'))
  t.notOk(kept.has('c'))
  t.ok(kept.has('d') && kept.has('e') && kept.has('f'))
  t.equal(kept.calculatedSize, 100)
})

t.test('a value kept again replaces the old one and its weight', async (t) => {
  const kept = weighedCache<string>(100)
  kept.set('a', 'old', { size: 10 })
  kept.set('b', 'B', { size: 10 })
  kept.set('a', 'new', { size: 5 })
  t.equal(kept.peek('a'), 'new')
  t.equal(kept.calculatedSize, 15, 'the old weight is no longer counted')
  // Replaced, `a` is now the newest: filling the budget evicts `b` first.
  kept.set('c', 'C', { size: 10 })
  kept.set('big', 'G', { size: 10 })
  for (let i = 0; i < 6; i++) kept.set(`x${i}`, 'X', { size: 10 })
  t.equal(kept.calculatedSize, 95)
  kept.set('y', 'Y', { size: 10 })
  t.notOk(kept.has('b'), 'the oldest went')
  t.ok(kept.has('a'), 'the replaced one stayed')
  t.equal(kept.calculatedSize, 95)
})

t.test('a value over a tenth of the budget is not kept and drops what the key held', async (t) => {
  const kept = weighedCache<string>(100)
  kept.set('a', 'small', { size: 10 })
  kept.set('a', 'large', { size: 11 })
  t.notOk(kept.has('a'), 'neither the large value nor the stale one is kept')
  t.equal(kept.calculatedSize, 0)
})
