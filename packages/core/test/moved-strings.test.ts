/**
 * Long strings cross to and from the text pool's threads as moved bytes
 * (issue 27: a structured clone of a 1.9 MB text held the request thread
 * 9-18 ms each way). Counted, never timed: the strings carried to the thread
 * and the strings the thread's outcome carried back (restored here: the
 * thread handed over a transferable), with the same results as inline work.
 */
import t from 'tap'
import { carry, MOVE_MIN_CHARS, movedCounts, restore } from '../src/text/moved-strings.js'
import { textPool } from '../src/text/text-pool.js'
import * as tasks from '../src/text/text-tasks.js'

t.teardown(() => textPool.close())

t.test('carry and restore give back the same fields, moving only long strings', async (t) => {
  const long = 'x<b>é</b>'.repeat(MOVE_MIN_CHARS / 8) // Latin-1: one byte a character
  const wide = 'x<b>’😀</b>'.repeat(MOVE_MIN_CHARS / 8) // UTF-16, a surrogate pair included
  const fields = { html: long, other: wide, short: 'short', n: 3, texts: ['a', long, 'b', wide], none: null }
  const { carried, transfer } = carry(fields)
  t.equal(transfer.length, 4, 'four long strings, four buffers to move')
  t.same(carried.fields, { html: '', other: '', short: 'short', n: 3, texts: ['a', '', 'b', ''], none: null })
  t.same(fields.texts, ['a', long, 'b', wide], 'the caller\'s fields are left as they were')
  t.equal(transfer[0]!.byteLength, long.length, 'Latin-1 bytes')
  t.equal(transfer[1]!.byteLength, wide.length * 2, 'UTF-16 bytes')
  // Moved as a thread would receive them.
  const received = structuredClone(carried, { transfer })
  t.equal(transfer[0]!.byteLength, 0, 'the buffer was moved, not copied')
  t.same(restore(received), fields)
  const small = { html: 'short' }
  t.equal(carry(small).carried.fields, small, 'nothing long: the fields as they are')
})

t.test('the pool moves a long text there and its outcome back', async (t) => {
  const html = '<p>Some <b>text</b> ’ &amp; a <a href="https://example.com/">link</a><script>alert(1)</script></p>\n'.repeat(2000)
  const before = { ...movedCounts }
  const pool = textPool.counts.pool
  const filtered = await textPool.filter(html)
  t.equal(textPool.counts.pool, pool + 1, 'filtered in the pool')
  t.equal(movedCounts.carried - before.carried, 1, 'the text went as bytes')
  t.equal(movedCounts.restored - before.restored, 1, 'the filtered text came back as bytes')
  t.equal(filtered, (tasks.filterOne({ html, kind: 'post' }) as { value: string }).value, 'as filtered inline')
  const rendered = await textPool.renderContent(html)
  t.equal(rendered, (tasks.renderContent({ raw: html }) as { value: string }).value)
  const many = await textPool.filterMany(['<b>a</b><script>x</script>', html])
  t.same(many, (tasks.filterMany({ texts: ['<b>a</b><script>x</script>', html], kind: 'post' }) as { value: string[] }).value, 'a long string of a list too')
})
