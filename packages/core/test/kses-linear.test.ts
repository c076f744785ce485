/**
 * test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a
 * process of its own, not in a batch where another file's leftovers could add to the figure).
 * The HTML filter is linear in its input: deep nesting (a megabyte of `<b>`
 * is 330,000 open elements; the tree builder under the filter spent time in
 * the depth on every tag, minutes in all) is cut at 512 levels as browsers
 * cut it, and costs no more than ordinary markup of the same size. Margin
 * for a loaded machine: compared with the same filter on a megabyte of
 * ordinary paragraphs, timed alternately (best of two), at most 4 times it.
 */
import t from 'tap'
import { filterPostHtml } from '../src/text/kses.js'
import { limitNesting, MAX_DEPTH } from '../src/text/nesting.js'
import { bestOfAlternating } from './fixtures/timing.js'

const MB = 1_000_000
const build = (unit: string): string => unit.repeat(Math.ceil(MB / unit.length))

t.test('nesting is cut at the limit, shallower markup is untouched', async (t) => {
  const deep = '<b>'.repeat(MAX_DEPTH + 88) + 'x'
  t.equal(limitNesting(deep), '<b>'.repeat(MAX_DEPTH) + 'x', 'opening tags past the limit are left out, the text stays')
  const closed = '<b>x</b>'.repeat(2000)
  t.equal(limitNesting(closed), closed, 'closed elements never nest deep')
  const paragraphs = '<p>para'.repeat(2000)
  t.equal(limitNesting(paragraphs), paragraphs, 'an opening <p> closes the open one, as the tree builder does')
  t.equal(filterPostHtml('<b>'.repeat(600) + 'x'), '<b>'.repeat(MAX_DEPTH) + 'x' + '</b>'.repeat(MAX_DEPTH), 'the filter closes what it kept')
})

t.test('a megabyte of deep nesting filters like ordinary markup', async (t) => {
  const ordinary = build('<p class="a">Lorem <b>ipsum</b> dolor <a href="https://x.example/">sit</a> amet</p>\n')
  for (const unit of ['<b>', '<b>x', '<div>', '<span class="a">', '<b/>']) {
    const input = build(unit)
    const [reference, took] = bestOfAlternating(2, () => filterPostHtml(ordinary), () => filterPostHtml(input))
    t.ok(took <= Math.max(200, 4 * reference), `${JSON.stringify(unit)} x ${input.length / unit.length | 0}: ${took.toFixed(0)} ms (ordinary markup ${reference.toFixed(0)} ms)`)
  }
})
