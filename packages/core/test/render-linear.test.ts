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
 * they took minutes. Each input must also scale like a linear pass: a
 * megabyte at most 24 times as long as 125 KB (linear work gives 8,
 * quadratic 64; the margin is for the noise of a busy machine).
 */
import t from 'tap'
import { renderContent, renderExcerpt, renderTitle } from '../src/content/render.js'

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
    const limit = Math.max(200, 2.5 * reference)
    t.ok(took <= limit, `${JSON.stringify(unit)} x ${large.length / unit.length | 0}${tail === '' ? '' : ` + ${JSON.stringify(tail)}`}: ${took.toFixed(0)} ms (limit ${limit.toFixed(0)} ms, prose ${reference.toFixed(0)} ms)`)
    const small = best(build(unit, tail, MB / 8))
    t.ok(took <= 24 * Math.max(small, 10), `${JSON.stringify(unit)}: 1 MB ${took.toFixed(0)} ms, 125 KB ${small.toFixed(0)} ms (linear: about 8 times)`)
  }
})

t.test('the passes that build paragraphs scale linearly on unclosed block tags', async (t) => {
  // Paragraph building multiplies these inputs (a paragraph per tag), so they are slower per byte
  // than prose; what matters is that they grow like the input.
  for (const unit of ['<p ', '<div ', '<pre ', '<p><li ', '<p>[gallery ']) {
    const time = (size: number): number => {
      const text = build(unit, '\n', size)
      let min = Infinity
      for (let i = 0; i < 2; i++) {
        const started = performance.now()
        renderContent(text)
        min = Math.min(min, performance.now() - started)
      }
      return min
    }
    const small = time(MB / 16)
    const large = time(MB / 4)
    t.ok(large <= 10 * Math.max(small, 10), `${JSON.stringify(unit)}: 250 KB ${large.toFixed(0)} ms, 62.5 KB ${small.toFixed(0)} ms (linear: about 4 times, quadratic 16)`)
  }
})
