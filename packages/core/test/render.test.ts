/**
 * Rendering fixtures from the core notes: texturizing, smilies, paragraphs,
 * blocks, shortcodes, images, titles, excerpts and slugs; then the same
 * rendering seen through the posts routes.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { renderContent, renderExcerpt, renderTitle } from '../src/text/render.js'
import { sanitizeSlug } from '../src/text/slugs.js'
import { texturize } from '../src/text/texturize.js'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

interface Fixtures {
  texturize: Array<[string, string]>
  content: Array<[string, string]>
  title: Array<[string, string]>
  excerpt: Array<{ excerpt: string, content: string, length?: number, rendered: string }>
  slugs: Array<[string, string]>
}

const fixtures: Fixtures = JSON.parse(readFileSync(new URL('./fixtures/content/render.json', import.meta.url), 'utf8'))

t.test('texturize', async (t) => {
  for (const [input, expected] of fixtures.texturize) t.equal(texturize(input), expected, JSON.stringify(input))
})

t.test('content', async (t) => {
  for (const [input, expected] of fixtures.content) t.equal(renderContent(input), expected, JSON.stringify(input))
})

t.test('titles', async (t) => {
  for (const [input, expected] of fixtures.title) t.equal(renderTitle(input), expected, JSON.stringify(input))
})

t.test('excerpts', async (t) => {
  for (const f of fixtures.excerpt) t.equal(renderExcerpt(f.excerpt, f.content, f.length), f.rendered, JSON.stringify(f))
  const long = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ')
  t.equal(renderExcerpt('', long), `<p>${Array.from({ length: 55 }, (_, i) => `w${i}`).join(' ')} [&hellip;]</p>\n`, '55 words by default')
  const exact = Array.from({ length: 55 }, (_, i) => `w${i}`).join(' ')
  t.equal(renderExcerpt('', exact), `<p>${exact}</p>\n`, 'no ellipsis when nothing was cut')
})

t.test('slugs', async (t) => {
  for (const [input, expected] of fixtures.slugs) t.equal(sanitizeSlug(input), expected, JSON.stringify(input))
  t.equal(sanitizeSlug('!!!', '42'), '42', 'the fallback when nothing is left')
})

t.test('through the routes', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const block = fixtures.content[1]!
  const res = await h.call('POST', '/cms/v2/posts', { as: h.users.admin, body: { title: 'Rendered', content: block[0], status: 'publish' } })
  t.equal(res.body.content.rendered, block[1])
  t.equal(res.body.content.block_version, 1)
  const plain = await h.call('POST', '/cms/v2/posts', { as: h.users.admin, body: { title: 'Plain', content: 'One two three four five six seven', status: 'publish' } })
  t.equal(plain.body.content.block_version, 0)
  const short = await h.call('GET', `/cms/v2/posts/${plain.body.id}`, { query: { excerpt_length: 5 } })
  t.equal(short.body.excerpt.rendered, '<p>One two three four five [&hellip;]</p>\n', 'excerpt_length')
  const bad = await h.call('GET', `/cms/v2/posts/${plain.body.id}`, { query: { excerpt_length: 'x' } })
  t.equal(bad.status, 400)
  const list = await h.call('GET', '/cms/v2/posts', { query: { include: plain.body.id } })
  t.equal(list.body[0].excerpt.rendered, '<p>One two three four five six seven</p>\n')
})
