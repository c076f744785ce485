/**
 * test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a
 * process of its own, not in a batch where another file's leftovers could add to the figure).
 * The sanitizers of the `uri`, `text-field` and `textarea-field` formats do
 * work linear in their input (issue #11): they were global replaces, which
 * slow down with the number of matches on long strings (a megabyte of `<a `
 * took 2.2 s in sanitize_url(), four times the input costing eighteen times
 * the time; a megabyte of `<` took 3.5 s in sanitize_text_field(), ten
 * times what it takes now). Each input is timed at 250 KB and at 1 MB,
 * alternately, best of three (so a change of load hits both alike): four
 * times the text may take at most ten times as long (or 250 ms: below
 * 25 ms a small input's time is mostly noise; quadratic work takes sixteen
 * times as long). Below 250 KB a pass runs
 * faster per byte (the young generation of the heap), so smaller inputs
 * would make linear work look superlinear.
 */
import t from 'tap'
import { sanitizeTextField, sanitizeUrl } from '../src/formats.js'
// The suite's one timing helper (the core's tests use it too).
import { bestOfAlternating } from '../../core/test/fixtures/timing.js'

const MB = 1_000_000

function build (unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length))
}

const SANITIZERS: Array<[string, (s: string) => string]> = [
  ['uri', sanitizeUrl],
  ['text-field', (s) => sanitizeTextField(s)],
  ['textarea-field', (s) => sanitizeTextField(s, true)]
]

t.test('the format sanitizers scale linearly on text made of what they replace', async (t) => {
  for (const [format, sanitize] of SANITIZERS) {
    for (const unit of ['<a ', '\n x', '<', 'a<', '- ', '<img ', '<!--', '%0%0a', '&a &#1;']) {
      const small = build(unit, MB / 4)
      const large = build(unit, MB)
      const [smallMs, largeMs] = bestOfAlternating(3, () => sanitize(small), () => sanitize(large))
      t.ok(largeMs <= 10 * Math.max(smallMs, 25), `${format} ${JSON.stringify(unit)}: 1 MB ${largeMs.toFixed(0)} ms, 250 KB ${smallMs.toFixed(0)} ms (linear: about 4 times)`)
    }
  }
})

t.test('what the sanitizers give is unchanged', async (t) => {
  t.equal(sanitizeUrl('  http://a.b/c d<e>"f'), 'http://a.b/c%20def')
  t.equal(sanitizeUrl('héllo.example/é'), 'http://héllo.example/é')
  t.equal(sanitizeUrl('javascript:alert(1)'), '')
  t.equal(sanitizeUrl('http://a.b/%0%0aa%0D'), 'http://a.b/', 'line-break octets removed until none is left')
  t.equal(sanitizeTextField('a < b <i>c</i>\n\t d &amp; &x'), 'a &lt; b c d &amp; &x')
  t.equal(sanitizeTextField('<<a "q" \'s\' & &amp;'), '&lt;&lt;a &quot;q&quot; &#039;s&#039; &amp; &amp;')
  t.equal(sanitizeTextField('a\n\n b', true), 'a\n\n b')
  t.equal(sanitizeTextField('a  %41 %zz  b'), 'a %zz b')
})
