/**
 * `_fields` decides what a post's answer computes, not only what it sends
 * (post-format.ts): a field left out is not rendered (the text pool counts
 * every rendering), and the answer is the full answer filtered, as before.
 */
import t from 'tap'
import { createCaller, testApp } from '../src/testing.js'
import { textPool } from '../src/text/text-pool.js'

const renders = (): number => textPool.counts.inline + textPool.counts.pool

t.test('fields left out of _fields are not rendered; the answer is the full one filtered', async (t) => {
  const h = await testApp({ namespaces: ['cms/v2'] })
  t.teardown(() => h.app.close())
  const admin = await createCaller(h.store, 'administrator')
  // Texts never rendered before in this process (the render cache keeps what it rendered).
  const unique = `${Date.now()}-${Math.random()}`
  const made = await h.call('POST', '/cms/v2/posts', { as: admin, query: { _fields: 'id' }, body: { title: `Title ${unique}`, content: `<p>Content ${unique}</p>`, excerpt: `Excerpt ${unique}`, status: 'publish' } })
  t.equal(made.status, 201)
  t.same(Object.keys(made.body), ['id'])
  const id = made.body.id as number
  const path = `/cms/v2/posts/${id}`

  let before = renders()
  const slim = await h.call('GET', path, { query: { _fields: 'id,slug,categories' } })
  t.same(Object.keys(slim.body), ['id', 'slug', 'categories'])
  t.equal(renders() - before, 0, 'no title, content or excerpt asked: nothing rendered')

  before = renders()
  const titled = await h.call('GET', path, { query: { _fields: 'id,title.rendered' } })
  t.same(titled.body, { id, title: { rendered: `Title ${unique}` } })
  t.equal(renders() - before, 1, 'the title alone rendered')

  const full = await h.call('GET', path, { as: admin, query: { context: 'edit' } })
  t.equal(full.status, 200)
  t.ok(renders() - before >= 3, 'the full answer renders its content and excerpt too')
  for (const fields of ['id,_links', 'generated_slug,class_list', 'meta,excerpt.raw', 'title,_embedded']) {
    const part = await h.call('GET', path, { as: admin, query: { context: 'edit', _fields: fields } })
    const wanted = fields.split(',').map((f) => f.split('.')[0]!)
    const expected = Object.fromEntries(Object.entries(full.body).filter(([k]) => wanted.includes(k) || (k === '_links' && wanted.includes('_embedded'))))
    if (fields === 'meta,excerpt.raw') expected.excerpt = { raw: full.body.excerpt.raw }
    t.same(part.body, expected, `_fields=${fields}: the full answer filtered`)
  }
})
