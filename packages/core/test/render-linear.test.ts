/**
 * Rendering is linear in its input: a megabyte of text made to stall a
 * pattern (unclosed `[gallery `, `<`, `<img `, block delimiters without
 * their end, `<!--more` without `-->`, ...) renders as fast as a megabyte of
 * ordinary prose, and under 200 ms on an idle core.
 *
 * Margin for a loaded machine: each input is timed (best of two) beside the
 * same renderings of a megabyte of plain paragraphs, and may take the larger
 * of 200 ms and 2.5 times that reference. The patterns these inputs stalled
 * took 7 s for 180 KB of `[gallery ` and 3 s for 40 KB of `<`; at a megabyte
 * they took minutes.
 */
import t from 'tap'
import { renderContent, renderExcerpt, renderTitle } from '../src/content/render.js'
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

function best (text: string): number {
  let min = Infinity
  for (let i = 0; i < 2; i++) {
    const started = performance.now()
    render(text)
    min = Math.min(min, performance.now() - started)
  }
  return min
}

const PROSE = build('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n\n', '', MB)

t.test('a megabyte made to stall a pattern renders like a megabyte of prose', async (t) => {
  for (const [unit, tail] of INPUTS) {
    const large = build(unit, tail, MB)
    const reference = best(PROSE)
    const took = best(large)
    // Linear, not equal: footnote markup costs ~2.5x prose by itself, while a quadratic
    // pass over a megabyte takes seconds to minutes (tens of times prose and more).
    const limit = Math.max(200, 4 * reference)
    t.ok(took <= limit, `${JSON.stringify(unit)} x ${large.length / unit.length | 0}${tail === '' ? '' : ` + ${JSON.stringify(tail)}`}: ${took.toFixed(0)} ms (limit ${limit.toFixed(0)} ms, prose ${reference.toFixed(0)} ms)`)
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
