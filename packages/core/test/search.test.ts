/**
 * `/cms/v2/search`: posts and pages found by a word (published only, as the
 * core searches), never another user's draft or private post, terms with
 * `type=term`, subtypes, pages of results and `_embed` of what was found.
 */
import t from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const BASE = 'http://cms.test'

t.test('search', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor, author, author2, contributor } = h.users
  const call = h.call

  const make = async (as: typeof admin, type: 'posts' | 'pages', body: Record<string, unknown>): Promise<number> => {
    const res = await call('POST', `/cms/v2/${type}`, { as, body })
    t.equal(res.status, 201, `${type} "${String(body.title)}" created`)
    return res.body.id
  }
  const post = await make(admin, 'posts', { title: 'Zebra crossing', content: 'Stripes everywhere', status: 'publish' })
  const page = await make(editor, 'pages', { title: 'About zebras', content: 'A page', status: 'publish' })
  const older = await make(author, 'posts', { title: 'Notes', content: 'The zebra in the content', status: 'publish', date: '2020-01-01T10:00:00' })
  const draft = await make(author2, 'posts', { title: 'Zebra draft of author2', status: 'draft' })
  const ownDraft = await make(author, 'posts', { title: 'Zebra draft of author', status: 'draft' })
  const pending = await make(contributor, 'posts', { title: 'Zebra pending', status: 'pending' })
  const hidden = await make(admin, 'posts', { title: 'Zebra private', status: 'private' })
  const protectedPost = await make(admin, 'posts', { title: 'Locked', content: 'zebra secret', password: 'pw', status: 'publish' })
  const unpublished = [draft, ownDraft, pending, hidden]

  const ids = (body: Array<{ id: number }>): number[] => body.map((r) => r.id)

  t.test('posts and pages, published only, best matches first', async (t) => {
    const res = await call('GET', '/cms/v2/search', { query: { search: 'zebra' } })
    t.equal(res.status, 200)
    t.same(ids(res.body), [page, post, older], 'titles first (newest first among them), then the content match; the protected post is not searched anonymously')
    t.equal(res.headers['x-cms-total'], '3')
    t.equal(res.headers['x-cms-totalpages'], '1')
    const first = res.body.find((r: any) => r.id === post)
    t.same(first, {
      id: post,
      title: 'Zebra crossing',
      url: `${BASE}/?p=${post}`,
      type: 'post',
      subtype: 'post',
      _links: {
        self: [{ embeddable: true, href: `${BASE}/index.php?rest_route=/cms/v2/posts/${post}` }],
        about: [{ href: `${BASE}/index.php?rest_route=/cms/v2/types/post` }],
        collection: [{ href: `${BASE}/index.php?rest_route=/cms/v2/search` }]
      }
    })
    t.equal(res.body.find((r: any) => r.id === page).url, `${BASE}/?page_id=${page}`)
    t.equal(res.body.find((r: any) => r.id === page).subtype, 'page')
  })

  t.test('never a draft, pending or private post of another user, whoever asks', async (t) => {
    for (const [name, as] of [['anonymous', undefined], ['contributor', contributor], ['author', author], ['author2', author2], ['editor', editor], ['admin', admin]] as const) {
      const res = await call('GET', '/cms/v2/search', { as, query: { search: 'zebra', per_page: 100 } })
      t.equal(res.status, 200)
      const found = ids(res.body)
      t.same(found.filter((id) => unpublished.includes(id)), [], `${name}: no unpublished post found`)
      t.ok(found.includes(post) && found.includes(page), `${name}: the published post and page found`)
    }
    const editorSearch = await call('GET', '/cms/v2/search', { as: admin, query: { search: 'secret' } })
    t.same(ids(editorSearch.body), [protectedPost], 'an editor of the protected post finds it by its content')
    const authorSearch = await call('GET', '/cms/v2/search', { as: author, query: { search: 'secret' } })
    t.same(ids(authorSearch.body), [], 'another user does not find it by its protected content')
  })

  t.test('subtype, include, exclude, paging', async (t) => {
    t.same(ids((await call('GET', '/cms/v2/search', { query: { search: 'zebra', subtype: 'page' } })).body), [page])
    t.same(ids((await call('GET', '/cms/v2/search', { query: 'search=zebra&subtype[]=post&subtype[]=page' })).body), [page, post, older])
    t.same(ids((await call('GET', '/cms/v2/search', { query: { search: 'zebra', exclude: String(page) } })).body), [post, older])
    t.same(ids((await call('GET', '/cms/v2/search', { query: { include: `${older},${post}` } })).body), [post, older], 'without a search: newest first')
    t.same(ids((await call('GET', '/cms/v2/search', { query: { search: 'zebra', subtype: 'category' } })).body), [], 'a term subtype with type=post finds nothing')

    const paged = await call('GET', '/cms/v2/search', { query: { search: 'zebra', per_page: 2, page: 2 } })
    t.same(ids(paged.body), [older])
    t.equal(paged.headers['x-cms-totalpages'], '2')
    t.match(paged.headers.link, /rel="prev"/)
    const past = await call('GET', '/cms/v2/search', { query: { search: 'zebra', page: 9 } })
    t.equal(past.status, 400)
    t.equal(past.body.code, 'rest_search_invalid_page_number')
    const badSubtype = await call('GET', '/cms/v2/search', { query: { subtype: 'nope' } })
    t.equal(badSubtype.status, 400)
    t.equal(badSubtype.body.code, 'rest_invalid_param')
    t.equal((await call('GET', '/cms/v2/search', { query: { type: 'comment' } })).status, 400)
    t.equal((await call('GET', '/cms/v2/search', { query: { context: 'edit' } })).status, 400, 'search has no edit context')
  })

  t.test('terms', async (t) => {
    const cat = await call('POST', '/cms/v2/categories', { as: editor, body: { name: 'Zebra facts' } })
    const tag = await call('POST', '/cms/v2/tags', { as: editor, body: { name: 'zebra-tag' } })
    const res = await call('GET', '/cms/v2/search', { query: { search: 'zebra', type: 'term' } })
    t.same(ids(res.body), [cat.body.id, tag.body.id])
    t.same(res.body[0], {
      id: cat.body.id,
      title: 'Zebra facts',
      url: `${BASE}/?cat=${cat.body.id}`,
      type: 'term',
      subtype: 'category',
      _links: {
        self: [{ embeddable: true, href: `${BASE}/index.php?rest_route=/cms/v2/categories/${cat.body.id}` }],
        about: [{ href: `${BASE}/index.php?rest_route=/cms/v2/taxonomies/category` }],
        collection: [{ href: `${BASE}/index.php?rest_route=/cms/v2/search` }]
      }
    })
    t.same(ids((await call('GET', '/cms/v2/search', { query: { search: 'zebra', type: 'term', subtype: 'post_tag' } })).body), [tag.body.id])
  })

  t.test('_embed brings the found items', async (t) => {
    const res = await call('GET', '/cms/v2/search', { query: { search: 'crossing', _embed: '1' } })
    t.equal(res.body.length, 1)
    const embedded = res.body[0]._embedded.self[0]
    t.equal(embedded.id, post)
    t.equal(embedded.title.rendered, 'Zebra crossing')
    t.notOk('content' in embedded, 'embedded in the embed context')
  })
})
