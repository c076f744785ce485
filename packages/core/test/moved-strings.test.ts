/**
 * Long strings cross to and from the text pool's threads as moved bytes
 * (issue 27: a structured clone of a 1.9 MB text held the request thread
 * 9-18 ms each way). Counted, never timed: the strings carried to the thread
 * and the strings the thread's outcome carried back (restored here: the
 * thread handed over a transferable), with the same results as inline work.
 */
import t from 'tap'
import { carry, CONVERT_SLICE, MOVE_MIN_CHARS, movedCounts, restore } from '../src/text/moved-strings.js'
import { bytesOfSliced, textOfSliced } from '@cms/rest/moved-strings'
import { textPool } from '../src/text/text-pool.js'
import * as tasks from '../src/text/text-tasks.js'

t.teardown(() => textPool.close())

t.test('carry and restore give back the same fields, moving only long strings', async (t) => {
  const long = 'x<b>é</b>'.repeat(MOVE_MIN_CHARS / 8) // Latin-1: one byte a character
  const wide = 'x<b>’😀</b>'.repeat(MOVE_MIN_CHARS / 8) // UTF-16, a surrogate pair included
  const fields = { html: long, other: wide, short: 'short', n: 3, texts: ['a', long, 'b', wide], none: null }
  const { carried, transfer } = await carry(fields)
  t.equal(transfer.length, 4, 'four long strings, four buffers to move')
  t.same(carried.fields, { html: '', other: '', short: 'short', n: 3, texts: ['a', '', 'b', ''], none: null })
  t.same(fields.texts, ['a', long, 'b', wide], 'the caller\'s fields are left as they were')
  t.equal(transfer[0]!.byteLength, long.length, 'Latin-1 bytes')
  t.equal(transfer[1]!.byteLength, wide.length * 2, 'UTF-16 bytes')
  // Moved as a thread would receive them.
  const received = structuredClone(carried, { transfer })
  t.equal(transfer[0]!.byteLength, 0, 'the buffer was moved, not copied')
  t.same(await restore(received), fields)
  const small = { html: 'short' }
  t.equal((await carry(small)).carried.fields, small, 'nothing long: the fields as they are')
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

// Issue 27 (g): converting a 1.9 MB text to bytes or back in one piece was one task of 20-40 ms of CPU under load on the
// request thread; it is converted a slice a turn. Counted: the turns, and other callbacks run between the slices.
t.test('the request thread converts a long text a slice a turn, with other callbacks between', async (t) => {
  const between = async <T>(work: () => Promise<T>): Promise<{ value: T, ticks: number }> => {
    let ticks = 0
    let on = true
    const tick = (): void => { if (on) { ticks++; setImmediate(tick) } }
    setImmediate(tick)
    try { return { value: await work(), ticks } } finally { on = false }
  }
  const latin = '<p>Some <b>text</b> é &amp; a <a href="https://example.com/">link</a></p>\n'.repeat(26_000) // 1.9 MB, one byte a character
  const slices = Math.ceil(latin.length / CONVERT_SLICE)
  t.ok(slices >= 7, `${latin.length} characters: ${slices} slices`)
  let before = movedCounts.turns
  const bytes = await between(async () => await bytesOfSliced(latin))
  t.equal(movedCounts.turns - before, slices - 1, 'one turn between two slices')
  t.ok(bytes.ticks >= slices - 2, `other callbacks ran between the slices (${bytes.ticks})`)
  t.equal(bytes.value.latin1, true)
  t.ok(bytes.value.bytes.byteOffset === 0 && bytes.value.bytes.byteLength === bytes.value.bytes.buffer.byteLength, 'one buffer of its own, to move')
  t.ok(Buffer.from(bytes.value.bytes).equals(Buffer.from(latin, 'latin1')), 'the same bytes as converted whole')
  before = movedCounts.turns
  const text = await between(async () => await textOfSliced(bytes.value))
  t.equal(movedCounts.turns - before, slices - 1)
  t.ok(text.ticks >= slices - 2, `other callbacks ran between the slices (${text.ticks})`)
  t.equal(text.value, latin, 'the same text back')

  // A wide character in the last slice: the copy starts again as UTF-16; a surrogate pair cut by a slice joins again.
  const pairCut = 'a'.repeat(CONVERT_SLICE - 1) + '😀' + 'b'.repeat(CONVERT_SLICE) + '’'
  const wide = await bytesOfSliced(pairCut)
  t.equal(wide.latin1, false)
  t.ok(Buffer.from(wide.bytes).equals(Buffer.from(pairCut, 'utf16le')), 'the same UTF-16 bytes as converted whole')
  t.equal(await textOfSliced(wide), pairCut, 'the pair cut by a slice is whole again')
  const lone = 'x'.repeat(CONVERT_SLICE + 5) + '\ud800' + 'y'
  t.equal(await textOfSliced(await bytesOfSliced(lone)), lone, 'a lone surrogate kept as it is')

  // Through the pool: the filter's input and outcome, each converted a slice a turn.
  // (Another text than the one decoded above, whose bytes would be moved on as they are: the next test.)
  const other = `<i>z</i>${latin}`
  before = movedCounts.turns
  const filtered = await textPool.filter(other)
  t.ok(movedCounts.turns - before >= 2 * (slices - 1) - 1, `the text there and its filtered copy back in slices (${movedCounts.turns - before} turns)`)
  t.equal(filtered, (tasks.filterOne({ html: other, kind: 'post' }) as { value: string }).value, 'as filtered inline')
})

// A string decoded from moved bytes and sent to a thread again moves those bytes on, not a new copy: the body's content
// to the filter, the filtered text to the renderer. Counted.
t.test('bytes a string was decoded from are moved on with it, once', async (t) => {
  const text = 'x<b>y</b>'.repeat(CONVERT_SLICE / 4)
  const bytes = await bytesOfSliced(text)
  const decoded = await textOfSliced(bytes)
  const before = { ...movedCounts }
  const again = await bytesOfSliced(decoded)
  t.equal(movedCounts.reused - before.reused, 1, 'the same bytes, not converted again')
  t.equal(again.bytes, bytes.bytes)
  t.equal(movedCounts.turns, before.turns, 'no slice converted')
  const third = await bytesOfSliced(decoded)
  t.equal(movedCounts.reused - before.reused, 1, 'taken once: moved bytes are gone')
  t.ok(Buffer.from(third.bytes).equals(Buffer.from(text, 'latin1')))
  // Through the pool: the filtered text comes back decoded from moved bytes; rendering it moves those bytes on.
  const html = '<p>Some <b>text</b> &amp; a <a href="https://example.com/">link</a></p>\n'.repeat(20_000)
  const filtered = await textPool.filter(html)
  const reused = movedCounts.reused
  const rendered = await textPool.renderContent(filtered)
  t.equal(movedCounts.reused - reused, 1, 'the filtered text went to the renderer as the bytes it came in')
  t.equal(rendered, (tasks.renderContent({ raw: filtered }) as { value: string }).value, 'rendered as inline')
})
