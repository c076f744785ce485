/**
 * The rendering cache keeps a long text under a digest, not under itself
 * (render-cache.ts): a lookup no longer compares megabytes character by
 * character on the request thread (issue 27). Keys still tell every text
 * apart, so what a read answers does not change.
 */
import t from 'tap'
import { cacheKey, DIGEST_KEYS_FROM, renderedContent, renderedExcerpt } from '../src/content/render-cache.js'
import { textPool } from '../src/text/text-pool.js'

t.test('long texts are keyed by their digest, short ones by themselves', async (t) => {
  const long = '<p>a &amp; b</p>'.repeat(100_000)
  t.ok(cacheKey('c', long).length < 64, 'a 1.6 MB text makes a short key')
  t.equal(cacheKey('c', 'short'), 'c\x005:short', 'a short text is its own key')
  t.not(cacheKey('c', long), cacheKey('c', `${long.slice(0, -1)}!`), 'texts differing in their last character differ')
  t.not(cacheKey('c', long), cacheKey('t', long), 'kinds differ')
  t.not(cacheKey('e', 'a', 'bc'), cacheKey('e', 'ab', 'c'), 'the parts of a key cannot be moved across')
  t.equal(cacheKey('c', 'x'.repeat(DIGEST_KEYS_FROM)).length, DIGEST_KEYS_FROM + 7, 'up to the threshold the text is kept')
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
