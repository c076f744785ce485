/**
 * `_embed` work per request is bounded (issue #11, item 5): a page of a
 * hundred posts embeds at most EMBED_REQUEST_LIMIT distinct sub-requests
 * (links past it stay in `_links`, unembedded), and what is embedded is
 * still right.
 */
import t from 'tap'
import { EMBED_REQUEST_LIMIT } from '@cms/rest'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

t.test('embed bounds', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, author } = h.users
  const call = h.call
  const tag = async (name: string): Promise<number> => (await call('POST', '/cms/v2/tags', { as: admin, body: { name } })).body.id
  const ids: number[] = []
  const tags = new Map<number, number>()
  // Each post its own tag: every term link is a distinct sub-request.
  for (let i = 0; i < 70; i++) {
    const tagId = await tag(`Tag ${i}`)
    const res = await call('POST', '/cms/v2/posts', { as: i % 2 === 0 ? admin : author, body: { title: `Post ${i}`, status: 'publish', tags: [tagId], date_gmt: `2024-01-01T${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00` } })
    if (res.status !== 201) throw new Error(JSON.stringify(res.body))
    ids.push(res.body.id)
    tags.set(res.body.id, tagId)
  }

  t.test('what is embedded is right', async (t) => {
    const res = await call('GET', '/cms/v2/posts', { query: { per_page: '5', _embed: '1' } })
    t.equal(res.status, 200)
    t.equal(res.body.length, 5)
    for (const post of res.body) {
      const embedded = post._embedded
      t.equal(embedded.author[0].id, post.author, `post ${post.id}: its author`)
      t.equal(embedded.author[0].name, post.author === admin.id ? 'admin' : 'author')
      const [categories, postTags] = embedded['cms:term']
      t.same(categories.map((c: any) => c.slug), ['uncategorized'], 'its category')
      t.same(postTags.map((x: any) => x.id), [tags.get(post.id)], 'its tag')
    }
  })

  t.test('a page of a hundred embeds a bounded number of sub-requests', async (t) => {
    t.ok(EMBED_REQUEST_LIMIT >= 20 && EMBED_REQUEST_LIMIT <= 200, `the limit (${EMBED_REQUEST_LIMIT}) is a useful size`)
    const res = await call('GET', '/cms/v2/posts', { query: { per_page: '100', _embed: '1', bust: String(Date.now()) } })
    t.equal(res.status, 200)
    t.equal(res.body.length, 70)
    // Distinct embedded hrefs: two authors, and per post a category list and a tag list.
    const hrefs = new Set<string>()
    let embeddedEntries = 0
    for (const post of res.body) {
      const links = post._links
      const embedded = post._embedded ?? {}
      if (embedded.author !== undefined) {
        hrefs.add(links.author[0].href)
        t.equal(embedded.author[0].id, post.author)
      }
      const terms = embedded['cms:term']
      if (terms !== undefined) {
        links['cms:term'].forEach((l: any, i: number) => { if (Array.isArray(terms[i]) && terms[i].length > 0) hrefs.add(l.href) })
        embeddedEntries++
        if (terms[1].length > 0) t.same(terms[1].map((x: any) => x.id), [tags.get(post.id)], `post ${post.id}: the right tag`)
      }
      t.ok(links['cms:term'] !== undefined, 'links stay whether embedded or not')
    }
    t.ok(hrefs.size <= EMBED_REQUEST_LIMIT, `${hrefs.size} distinct sub-requests embedded, at most ${EMBED_REQUEST_LIMIT}`)
    t.ok(embeddedEntries > 0, 'the first posts still get their terms')
    t.ok(res.body.every((p: any) => p._embedded?.author !== undefined), 'authors (two distinct hrefs) are embedded for every post')
  })
})
