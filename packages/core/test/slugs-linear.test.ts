/**
 * test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a
 * process of its own, not in a batch where another file's leftovers could add to the figure).
 * Slugs are made in time linear in the title (issue #11): the core's
 * `/&.+?;/` (entities killed) and `/<(script|style)[^>]*?>.*?<\/\1>/si`
 * rescan to the end of the text from every `&` and every `<script`, so a
 * category created with a megabyte of `&#1` as its slug took minutes while
 * every other request waited; the last steps (dots and spaces made dashes,
 * punctuation dropped, dashes collapsed) were global replaces that slow
 * down with the number of matches (a megabyte of `1.` took half a second).
 * Percent escapes, accents and the octets the core strips were passes per
 * match or per list entry (a megabyte of `%e9` took 1.9 s and of `é` 1.1 s
 * under load): one copy each now. Each megabyte made to stall them is timed
 * beside a megabyte of ordinary words (alternately, best of three, so a
 * change of load hits both alike) and may take the larger of 250 ms and 8
 * times that reference; the quadratic passes took minutes.
 */
import t from 'tap'
import { sanitizeSlug } from '../src/text/slugs.js'
import { bestOfAlternating } from './fixtures/timing.js'

const MB = 1_000_000

function build (unit: string, tail: string, size: number): string {
  return unit.repeat(Math.ceil((size - tail.length) / unit.length)) + tail
}

t.test('entities and script elements are removed as the core removes them', async (t) => {
  t.equal(sanitizeSlug('Fish &amp; Chips'), 'fish-chips')
  t.equal(sanitizeSlug('a&b;c'), 'ac')
  t.equal(sanitizeSlug('a&;;b'), 'ab', 'the first character after & may be a ;')
  t.equal(sanitizeSlug('a&;b'), 'ab', 'no ; after the first character: only the punctuation goes')
  t.equal(sanitizeSlug('a&x\ny;b'), 'axyb', 'an entity does not span lines')
  t.equal(sanitizeSlug('a&#1 &#1\nb&c;d'), 'a1-1bd', 'a line without ; leaves its & runs, the next line is still read')
  t.equal(sanitizeSlug('x<script>alert(1)</script>y<style a>b</style>z'), 'xyz')
  t.equal(sanitizeSlug('x<script>no end<b>bold</b>'), 'xno-endbold', 'an unclosed script keeps its text, as the core does')
})

t.test('a megabyte made to stall the slug patterns is slugged like a megabyte of words', async (t) => {
  const words = build('Lorem ipsum dolor sit amet ', '', MB)
  for (const [unit, tail] of [['&#1', ''], ['&', ''], ['&a', ';'], ['<script ', ''], ['<script>', ''], ['<style ', '>'], ['&\n', ''], ['1.', ''], ['- ', ''], ['%e9', ''], ['é', ''], ['e\u0301', ''], ['---e9---', ''], ['%c2%ad', ''], ['中', ''], ['ǅ', '']] as const) {
    const large = build(unit, tail, MB)
    const [reference, took] = bestOfAlternating(3, () => sanitizeSlug(words), () => sanitizeSlug(large))
    const limit = Math.max(250, 8 * reference)
    t.ok(took <= limit, `${JSON.stringify(unit)} x ${Math.floor(large.length / unit.length)}${tail === '' ? '' : ` + ${JSON.stringify(tail)}`}: ${took.toFixed(0)} ms (limit ${limit.toFixed(0)} ms, words ${reference.toFixed(0)} ms)`)
  }
})

t.test('percent escapes, accents and stripped octets as the core treats them', async (t) => {
  t.equal(sanitizeSlug('Crème brûlée'), 'creme-brulee')
  t.equal(sanitizeSlug('Straße Æther Œuvre'), 'strasse-aether-oeuvre', 'letters the core spells out')
  t.equal(sanitizeSlug('Cafe\u0301'), 'cafe', 'a combining accent dropped')
  t.equal(sanitizeSlug('中文'), '%e4%b8%ad%e6%96%87', 'other scripts kept as lower-case escapes')
  t.equal(sanitizeSlug('a%E9b%zz%'), 'a%e9bzz', 'escapes kept (lower case), other % dropped')
  t.equal(sanitizeSlug('x---ab---y'), 'x%aby', 'a literal ---xx--- becomes an escape, as in the core')
  t.equal(sanitizeSlug('a%c2%a0b%e2%80%94c&nbsp;d'), 'a-b-c-d', 'space and dash octets and entities made dashes')
  t.equal(sanitizeSlug('a%c2%adb%e2%80%99c'), 'abc', 'stripped octets')
  t.equal(sanitizeSlug('a%e2%c2%ad%80%99b'), 'ab', 'an octet joined by removing another is removed too when the core\'s order reaches it')
  t.equal(sanitizeSlug('2%c3%973'), '2x3', 'the multiplication sign')
})

t.test('a slug is at most 200 characters, escapes kept whole', async (t) => {
  t.equal(sanitizeSlug('a'.repeat(MB)).length, 200)
  const escaped = sanitizeSlug('%e9'.repeat(MB / 3))
  t.equal(escaped.length, 198, 'cut before an escape that would not fit')
  t.match(escaped, /^(%e9)+$/)
  t.equal(sanitizeSlug(`${'a'.repeat(199)} b`), 'a'.repeat(199), 'no dash left at the end')
})
