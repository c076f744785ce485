/**
 * test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a
 * process of its own, not in a batch where another file's leftovers could add to the figure).
 * Rendering is linear in its input: text made to stall a pattern (unclosed
 * `[gallery `, `<`, `<img `, block delimiters without their end, `<!--more`
 * without `-->`, ...) costs in proportion to its size. Each input is timed
 * at two sizes, alternately, and only their ratio is checked (a fixed time
 * or a comparison with other text varied with the machine's load). The
 * patterns these inputs stalled took 7 s for 180 KB of `[gallery ` and 3 s
 * for 40 KB of `<`; at a megabyte they took minutes.
 */
import t from 'tap'
import { renderContent, renderExcerpt, renderTitle } from '../src/text/render.js'
import { bestOfAlternating } from './fixtures/timing.js'

const MB = 1_000_000

/** `unit` repeated to `size` characters, then `tail`. */
function build (unit: string, tail: string, size: number): string {
  return unit.repeat(Math.ceil((size - tail.length) / unit.length)) + tail
}

const INPUTS: Array<[string, string]> = [
  ['[gallery ', ''],
  ['<', ''],
  ['<img ', ''],
  ['[[gallery ', ']'],
  ['<!-- wp:paragraph {"a":', ''],
  ['<!-- wp:paragraph ', ''],
  ['<!--more', ''],
  ['<sup data-fn=x>', ''],
  ['<script ', ''],
  ['<svg ', ''],
  [' ', '</object>'],
  [' ', 'x<option'],
  ['\t', 'x<figcaption'],
  ['1.', 'y1x1'],
  [' ', ''],
  ['[', '']
]

function render (text: string): void {
  renderContent(text)
  renderExcerpt('', text)
  renderTitle(text)
}

t.test('a megabyte made to stall a pattern costs four times a quarter of it', async (t) => {
  // Growth, not a fixed time: both sizes are timed alternately (best of three), so a change
  // of machine load hits both alike. Linear work gives about 4 times; the quadratic passes
  // these inputs once stalled give 16 times and more (7 s for 180 KB of `[gallery `). Both
  // sizes are past the young generation of the heap, where smaller text costs less per byte.
  for (const [unit, tail] of INPUTS) {
    const small = build(unit, tail, MB / 4)
    const large = build(unit, tail, MB)
    const [smallMs, largeMs] = bestOfAlternating(3, () => render(small), () => render(large))
    const limit = 11 * Math.max(smallMs, 10)
    t.ok(largeMs <= limit, `${JSON.stringify(unit)} x ${large.length / unit.length | 0}${tail === '' ? '' : ` + ${JSON.stringify(tail)}`}: 1 MB ${largeMs.toFixed(0)} ms, 250 KB ${smallMs.toFixed(0)} ms (limit ${limit.toFixed(0)} ms)`)
  }
})

t.test('the passes that build paragraphs scale linearly on unclosed block tags', async (t) => {
  // Paragraph building multiplies these inputs (a paragraph per tag), so they cost more per byte
  // than prose; what matters is that they grow like the input: 8 times the text, at most 24 times
  // the time (quadratic work gives 64). Timed alternately, best of three, against load changes.
  for (const unit of ['<p ', '<div ', '<pre ', '<p><li ', '<p>[gallery ']) {
    const small = build(unit, '\n', MB / 32)
    const large = build(unit, '\n', MB / 4)
    const [smallMs, largeMs] = bestOfAlternating(3, () => renderContent(small), () => renderContent(large))
    t.ok(largeMs <= 24 * Math.max(smallMs, 30), `${JSON.stringify(unit)}: 250 KB ${largeMs.toFixed(0)} ms, 31 KB ${smallMs.toFixed(0)} ms (linear: about 8 times)`)
  }
})
