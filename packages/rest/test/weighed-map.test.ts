/**
 * Values bounded by the total of their weights, oldest out first.
 */
import t from 'tap'
import { WeighedMap } from '../src/weighed-map.js'

t.test('the oldest values go first when a new one would not fit', async (t) => {
  const kept = new WeighedMap<string>(100)
  kept.set('a', 'A', 10)
  kept.set('b', 'B', 10)
  kept.set('c', 'C', 10)
  t.equal(kept.weight, 30)
  for (let i = 0; i < 7; i++) kept.set(`x${i}`, 'X', 10)
  t.equal(kept.weight, 100, 'full to the byte')
  kept.set('d', 'D', 10)
  t.equal(kept.get('a'), undefined, 'the oldest went')
  t.equal(kept.get('b'), 'B', 'the next oldest stayed')
  t.equal(kept.weight, 100)
  kept.set('e', 'E', 10)
  kept.set('f', 'F', 10)
  t.notOk(kept.has('b'))
  t.notOk(kept.has('c'))
  t.ok(kept.has('d') && kept.has('e') && kept.has('f'))
  t.equal(kept.weight, 100)
})

t.test('a value kept again replaces the old one and its weight', async (t) => {
  const kept = new WeighedMap<string>(100)
  kept.set('a', 'old', 10)
  kept.set('b', 'B', 10)
  kept.set('a', 'new', 5)
  t.equal(kept.get('a'), 'new')
  t.equal(kept.weight, 15, 'the old weight is no longer counted')
  // Replaced, `a` is now the newest: filling the budget evicts `b` first.
  kept.set('c', 'C', 10)
  kept.set('big', 'G', 10)
  for (let i = 0; i < 6; i++) kept.set(`x${i}`, 'X', 10)
  t.equal(kept.weight, 95)
  kept.set('y', 'Y', 10)
  t.notOk(kept.has('b'), 'the oldest went')
  t.ok(kept.has('a'), 'the replaced one stayed')
  t.equal(kept.weight, 95)
})

t.test('a value over a tenth of the budget is not kept and drops what the key held', async (t) => {
  const kept = new WeighedMap<string>(100)
  kept.set('a', 'small', 10)
  kept.set('a', 'large', 11)
  t.notOk(kept.has('a'), 'neither the large value nor the stale one is kept')
  t.equal(kept.weight, 0)
})
