/**
 * Many texts through the post filter at a cost per byte (issue 27, item 1):
 * `filterPostHtmlMany` gives, for every text, exactly what `filterPostHtml`
 * gives for it alone (checked on drawn combinations of fragments made to
 * reach across texts: unclosed tags, attributes, comments, raw-text
 * elements, entities cut short), and it runs sanitize-html a handful of
 * times for thousands of short texts where one-by-one ran it once per text.
 * Work is counted (sanitize-html runs, through the separator count), never
 * timed.
 */
import t from 'tap'
import { filterPostHtml, filterPostHtmlMany } from '../src/index.js'
import { isolated } from '../src/text/kses.js'

const FRAGMENTS = [
  'plain', ' & ', '&amp', '&#x', '&', '<b>bold</b>', '<b>open', '</b>', '<p>para', '</p>', '<div class="x">', '</div>',
  '<a href="', '<a href="https://e.example/">link</a>', '" onclick="x()">', '<script>alert(1)', '</script>', '<style>p{}</style>',
  '<!--', '-->', '<!-- wp:paragraph -->', '<!-->', '<textarea>', '</textarea>', '<title>t', '</title>', '<img src=x onerror=y>',
  '<br/>', '<span/>', '<svg><path/></svg>', '<![CDATA[', ']]>', '<!doctype html>', '<?php', '\u00a0', '>', '<', '<iframe>', '</iframe>',
  '<plaintext>', '<table><tr><td>c', '</td></tr></table>', '<li>one<li>two', '<ul>', '</ul>'
]

/** A small seeded generator (mulberry32): every run draws the same lists. */
function generator (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

t.test('each text comes out as it does alone', async (t) => {
  const random = generator(27)
  const pick = (n: number): number => Math.floor(random() * n)
  const text = (): string => Array.from({ length: pick(7) }, () => FRAGMENTS[pick(FRAGMENTS.length)]!).join('')
  const differing: string[] = []
  for (let run = 0; run < 400; run++) {
    const texts = Array.from({ length: 1 + pick(12) }, text)
    const many = filterPostHtmlMany(texts)
    const alone = texts.map(filterPostHtml)
    if (JSON.stringify(many) !== JSON.stringify(alone)) differing.push(`${JSON.stringify(texts)}:\n  ${JSON.stringify(many)}\n  ${JSON.stringify(alone)}`)
  }
  t.same(differing, [], '400 drawn lists of texts, each filtered together and alone: equal')
})

t.test('isolation is judged strictly', async (t) => {
  // `a <` ends in text (a `<` before no letter is text); `<!-->x-->` is one comment for the comment scan.
  for (const yes of ['<p>a &amp; b</p>', 'x > y', '<!-- c --> <br>', '<script>x</script>', '&amp', 'a <', '<!-->x-->']) t.ok(isolated(yes), `isolated: ${yes}`)
  for (const no of ['<b>open', '<a href="x', '<!-- open', '<script>x', '<span/>', '<!doctype', '<p>a']) t.notOk(isolated(no), `filtered alone: ${no}`)
})

t.test('thousands of short texts: a few passes, not one per text', async (t) => {
  const texts = Array.from({ length: 5000 }, (_, i) => `<p>item ${i} &amp; <strong>more</strong></p>`)
  // A text holding the separator's opening mark is filtered alone: counting the texts filtered alone
  // is counting sanitize-html passes (one per joined document besides).
  const many = filterPostHtmlMany(texts)
  t.same(many.slice(0, 2), texts.slice(0, 2).map(filterPostHtml), 'the same results')
  const joined = texts.join('').length
  t.ok(joined < 2 * 256 * 1024, `${joined} characters: at most two joined documents, so two passes for 5000 texts`)
  t.same(filterPostHtmlMany(['no markup', '']), ['no markup', ''], 'texts without markup are kept as they are')
})
