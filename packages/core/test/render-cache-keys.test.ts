/**
 * The rendering cache keeps a long text under a digest, not under itself
 * (render-cache.ts): a lookup no longer compares megabytes character by
 * character on the request thread (issue 27). Keys still tell every text
 * apart, so what a read answers does not change.
 */
import t from 'tap'
import { cacheKey, DIGEST_KEYS_FROM, DIGEST_SLICE, digestCounts, keptContent, keyOf, renderedContent, renderedExcerpt } from '../src/content/render-cache.js'
import { textPool } from '../src/text/text-pool.js'

t.test('long texts are keyed by their digest, short ones by themselves', async (t) => {
  const long = '<p>a &amp; b</p>'.repeat(100_000)
  t.ok((await keyOf('c', long)).length < 64, 'a 1.6 MB text makes a short key')
  t.equal(cacheKey('c', 'short'), 'c\x005:short', 'a short text is its own key')
  t.equal(await keyOf('c', 'short'), 'c\x005:short', 'the same either way')
  t.not(await keyOf('c', long), await keyOf('c', `${long.slice(0, -1)}!`), 'texts differing in their last character differ')
  t.not(await keyOf('c', long), await keyOf('t', long), 'kinds differ')
  t.not(cacheKey('e', 'a', 'bc'), cacheKey('e', 'ab', 'c'), 'the parts of a key cannot be moved across')
  t.equal(cacheKey('c', 'x'.repeat(DIGEST_KEYS_FROM))?.length, DIGEST_KEYS_FROM + 7, 'up to the threshold the text is kept')
  const medium = 'y'.repeat(DIGEST_SLICE)
  t.equal(cacheKey('c', medium), await keyOf('c', medium), 'a text of one slice: the same key at once and over turns')
  t.equal(cacheKey('c', long), undefined, 'a longer one is not hashed at once')
  // UTF-8 would make a lone surrogate the bytes of U+FFFD (one key for two texts), and a slice may end inside a pair.
  const pad = 'z'.repeat(DIGEST_SLICE - 1)
  t.not(await keyOf('c', `${pad}\ud83d\ude00${pad}`), await keyOf('c', `${pad}\ufffd\ufffd${pad}`), 'a pair cut by a slice is not U+FFFD twice')
  t.not(cacheKey('c', `${'w'.repeat(DIGEST_KEYS_FROM)}\ud800`), cacheKey('c', `${'w'.repeat(DIGEST_KEYS_FROM)}\ufffd`), 'nor is a lone surrogate')
})

// Issue 27: a long text is hashed a slice a turn, not in one piece on the request thread (counted, never timed).
t.test('a long text is hashed in slices, with other work between them', async (t) => {
  const long = '<p>a &amp; b</p>'.repeat(100_000)
  const before = digestCounts.slices
  // A callback queued for every turn of the loop: it runs between slices only if the hashing yields.
  let between = 0
  let done = false
  const spin = (): void => { between++; if (!done) setImmediate(spin) }
  setImmediate(spin)
  await keyOf('c', long)
  done = true
  t.equal(digestCounts.slices - before, Math.ceil(long.length / DIGEST_SLICE), `${Math.ceil(long.length / DIGEST_SLICE)} slices of ${DIGEST_SLICE} characters`)
  t.ok(between >= Math.ceil(long.length / DIGEST_SLICE) - 1, `other callbacks ran between the slices (${between})`)
  t.equal(keptContent(long), undefined, 'a lookup without waiting does not hash it (the reader waits for keyOf)')
})

t.test('a long text is rendered once and read from the cache after', async (t) => {
  t.teardown(async () => { await textPool.close() })
  const long = `<p>${'word &amp; "quoted" '.repeat(20_000)}</p>`
  const before = textPool.counts.pool
  const first = await renderedContent(long)
  const again = await renderedContent(`${long.slice(0, 10)}${long.slice(10)}`)
  t.equal(again, first, 'the same rendering for an equal text')
  t.equal(textPool.counts.pool, before + 1, 'rendered once')
  const other = await renderedContent(`${long}x`)
  t.not(other, first, 'another text, another rendering')
  t.equal(textPool.counts.pool, before + 2)
  const excerpt = await renderedExcerpt('', long)
  t.equal(await renderedExcerpt('', long), excerpt)
  t.equal(textPool.counts.pool, before + 3, 'the excerpt rendered once too')
})
