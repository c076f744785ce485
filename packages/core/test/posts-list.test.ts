/**
 * Every list parameter of `GET /cms/v2/posts`, each with data that a wrong
 * filter would expose, plus pagination headers and links.
 */
import t from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

t.test('posts list', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor, author, author2, contributor, subscriber } = h.users
  const call = h.call

  const cat = async (name: string, parent = 0): Promise<number> => (await call('POST', '/cms/v2/categories', { as: admin, body: { name, parent } })).body.id
  const tag = async (name: string): Promise<number> => (await call('POST', '/cms/v2/tags', { as: admin, body: { name } })).body.id
  const news = await cat('News')
  const local = await cat('Local', news)
  const sport = await cat('Sport')
  const red = await tag('Red')
  const blue = await tag('Blue')

  const make = async (as: typeof admin, body: Record<string, unknown>): Promise<number> => {
    const res = await call('POST', '/cms/v2/posts', { as, body: { status: 'publish', ...body } })
    if (res.status !== 201) throw new Error(`setup failed: ${JSON.stringify(res.body)}`)
    return res.body.id
  }
  // Dates ascending with the ids; each post differs in what a filter looks at.
  const p1 = await make(admin, { title: 'Apple pie recipe', content: 'Bake the rye bread', date_gmt: '2024-01-01T10:00:00', categories: [news], tags: [red], slug: 'apple' })
  const p2 = await make(editor, { title: 'Banana bread', content: 'Bananas and flour', excerpt: 'Sweet rye', date_gmt: '2024-02-01T10:00:00', categories: [local], tags: [red, blue], format: 'aside', slug: 'banana' })
  const p3 = await make(author, { title: 'Rye', content: 'Pure rye', date_gmt: '2024-03-01T10:00:00', categories: [sport], tags: [blue], format: 'quote', slug: 'cherry' })
  const p4 = await make(author2, { title: 'Zucchini soup', content: 'Green', date_gmt: '2024-04-01T10:00:00', categories: [news, sport], sticky: true, slug: 'zucchini' })
  const p5 = await make(admin, { title: 'Daily notes', content: 'Plain words', date_gmt: '2024-05-01T10:00:00', slug: 'daily' })
  const draftByAuthor = (await call('POST', '/cms/v2/posts', { as: author, body: { title: 'Author draft', status: 'draft' } })).body.id
  const draftByAdmin = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Admin draft', status: 'draft' } })).body.id
  const privateByAdmin = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Admin private', status: 'private' } })).body.id

  const ids = async (query: string | Record<string, string | number | boolean>, as?: typeof admin): Promise<number[]> => {
    const res = await call('GET', '/cms/v2/posts', { query, as })
    if (res.status !== 200) throw new Error(`${JSON.stringify(query)}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.map((p: any) => p.id)
  }

  t.test('default: published posts, newest first', async (t) => {
    t.same(await ids({}), [p5, p4, p3, p2, p1])
    t.same(await ids({ order: 'asc' }), [p1, p2, p3, p4, p5])
  })

  t.test('pagination headers and links', async (t) => {
    const res = await call('GET', '/cms/v2/posts', { query: 'per_page=2&_fields=id' })
    t.equal(res.headers['x-cms-total'], '5')
    t.equal(res.headers['x-cms-totalpages'], '3')
    t.equal(res.headers.link, '<http://cms.test/index.php?rest_route=%2Fcms%2Fv2%2Fposts&per_page=2&_fields=id&page=2>; rel="next"')
    const mid = await call('GET', '/cms/v2/posts', { query: 'per_page=2&page=2' })
    t.same(mid.body.map((p: any) => p.id), [p3, p2])
    t.equal(mid.headers.link, '<http://cms.test/index.php?rest_route=%2Fcms%2Fv2%2Fposts&per_page=2&page=1>; rel="prev", <http://cms.test/index.php?rest_route=%2Fcms%2Fv2%2Fposts&per_page=2&page=3>; rel="next"')
    const past = await call('GET', '/cms/v2/posts', { query: 'per_page=2&page=4' })
    t.equal(past.status, 400)
    t.equal(past.body.code, 'rest_post_invalid_page_number')
    const none = await call('GET', '/cms/v2/posts', { query: 'search=nothingmatches&page=3' })
    t.equal(none.status, 200)
    t.same(none.body, [])
    t.equal(none.headers['x-cms-total'], '0')
    const zero = await call('GET', '/cms/v2/posts', { query: 'page=0' })
    t.equal(zero.body.data.params.page, 'page must be greater than or equal to 1')
    const big = await call('GET', '/cms/v2/posts', { query: 'per_page=101' })
    t.equal(big.body.data.params.per_page, 'per_page must be between 1 (inclusive) and 100 (inclusive)')
    const offset = await call('GET', '/cms/v2/posts', { query: 'per_page=2&offset=3' })
    t.same(offset.body.map((p: any) => p.id), [p2, p1], 'offset wins over page')
    t.equal(offset.headers['x-cms-total'], '5', 'totals ignore the offset')
  })

  t.test('search', async (t) => {
    t.same(await ids({ search: 'rye' }), [p3, p2, p1], 'title, excerpt or content, any case')
    t.same(await ids({ search: 'rye bread' }), [p2, p1], 'every word must match')
    t.same(await ids({ search: 'rye -bread' }), [p3], 'a leading dash excludes')
    t.same(await ids({ search: 'rye', search_columns: 'post_title' }), [p3])
    t.same(await ids({ search: 'rye', search_columns: 'post_excerpt' }), [p2])
    t.same(await ids('search=rye&search_columns[]=post_title&search_columns[]=post_excerpt'), [p3, p2])
    t.same(await ids({ search: 'Rye', search_semantics: 'exact' }), [p3], 'exact: the whole column')
    t.same(await ids({ search: 'Rye Bread', search_semantics: 'exact' }), [])
    const bad = await call('GET', '/cms/v2/posts', { query: 'search=x&search_columns=post_title,post_name' })
    t.equal(bad.body.data.params.search_columns, 'search_columns[1] is not one of post_title, post_content, and post_excerpt.')
    t.same(await ids({ search: 'rye', orderby: 'relevance' }), [p3, p2, p1], 'title match first')
    const noTerm = await call('GET', '/cms/v2/posts', { query: { orderby: 'relevance' } })
    t.equal(noTerm.status, 400)
    t.equal(noTerm.body.code, 'rest_no_search_term_defined')
  })

  t.test('dates', async (t) => {
    t.same(await ids({ after: '2024-02-15T00:00:00' }), [p5, p4, p3])
    t.same(await ids({ before: '2024-02-15T00:00:00' }), [p2, p1])
    t.same(await ids({ after: '2024-01-15T00:00:00', before: '2024-03-15T00:00:00' }), [p3, p2])
    t.same(await ids({ after: '2024-02-01T10:00:00' }), [p5, p4, p3], 'after is exclusive')
    t.same(await ids({ modified_before: '2000-01-01T00:00:00' }), [])
    t.same((await ids({ modified_after: '2000-01-01T00:00:00' })).length, 5)
    const bad = await call('GET', '/cms/v2/posts', { query: { after: 'yesterday' } })
    t.equal(bad.status, 400)
    t.equal(bad.body.data.params.after, 'Invalid date.')
  })

  t.test('authors, ids and slugs', async (t) => {
    t.same(await ids({ author: admin.id }), [p5, p1])
    t.same(await ids({ author: `${admin.id},${author.id}` }), [p5, p3, p1])
    t.same(await ids({ author_exclude: admin.id }), [p4, p3, p2])
    t.same(await ids({ include: `${p1},${p3}` }), [p3, p1])
    t.same(await ids({ include: `${p1},${p3},${p2}`, orderby: 'include' }), [p1, p3, p2])
    t.same(await ids({ exclude: `${p5},${p4}` }), [p3, p2, p1])
    const noInclude = await call('GET', '/cms/v2/posts', { query: { orderby: 'include' } })
    t.equal(noInclude.status, 400)
    t.equal(noInclude.body.code, 'rest_orderby_include_missing_include')
    t.same(await ids({ slug: 'cherry,apple' }), [p3, p1])
    t.same(await ids({ slug: 'cherry,apple,banana', orderby: 'include_slugs' }), [p3, p1, p2])
    const badInclude = await call('GET', '/cms/v2/posts', { query: { include: 'a' } })
    t.equal(badInclude.body.data.params.include, 'include[0] is not of type integer.')
  })

  t.test('orderby', async (t) => {
    t.same(await ids({ orderby: 'title', order: 'asc' }), [p1, p2, p5, p3, p4])
    t.same(await ids({ orderby: 'slug', order: 'asc' }), [p1, p2, p3, p5, p4])
    t.same(await ids({ orderby: 'id', order: 'asc' }), [p1, p2, p3, p4, p5])
    t.same(await ids({ orderby: 'author', order: 'asc', include: `${p3},${p1}` }), [p1, p3])
    await call('POST', `/cms/v2/posts/${p1}`, { as: admin, body: { content: 'Bake the rye bread today' } })
    t.same((await ids({ orderby: 'modified' }))[0], p1)
  })

  t.test('status and its permissions', async (t) => {
    const anon = await call('GET', '/cms/v2/posts', { query: { status: 'draft' } })
    t.equal(anon.status, 400)
    t.equal(anon.body.code, 'rest_invalid_param')
    t.equal(anon.body.data.params.status, 'Status is forbidden.')
    t.same(anon.body.data.details.status, { code: 'rest_forbidden_status', message: 'Status is forbidden.', data: { status: 401 } })
    const sub = await call('GET', '/cms/v2/posts', { as: subscriber, query: { status: 'private' } })
    t.equal(sub.body.data.details.status.data.status, 403)
    const drafts = await call('GET', '/cms/v2/posts', { as: contributor, query: { status: 'draft' } })
    t.equal(drafts.status, 200)
    t.same(drafts.body, [], "a contributor may not read others' drafts: dropped")
    t.equal(drafts.headers['x-cms-total'], '0', 'nor count them (issue #11: totals reveal only readable rows)')
    t.same(await ids({ status: 'draft' }, author), [draftByAuthor])
    t.same(await ids({ status: 'draft' }, admin), [draftByAdmin, draftByAuthor])
    t.same((await ids({ status: 'any', per_page: 100 }, admin)).sort(), [p1, p2, p3, p4, p5, draftByAuthor, draftByAdmin, privateByAdmin].sort())
    t.same(await ids({ status: 'private' }, editor), [privateByAdmin])
    t.same(await ids('status[]=private&status[]=draft', author), [draftByAuthor])
    const bad = await call('GET', '/cms/v2/posts', { as: admin, query: { status: 'bogus' } })
    t.equal(bad.body.data.params.status, 'status[0] is not one of publish, future, draft, pending, private, trash, auto-draft, inherit, request-pending, request-confirmed, request-failed, request-completed, and any.')
  })

  t.test('edit context', async (t) => {
    const sub = await call('GET', '/cms/v2/posts', { as: subscriber, query: { context: 'edit' } })
    t.equal(sub.status, 403)
    t.equal(sub.body.code, 'rest_forbidden_context')
    t.equal(sub.body.message, 'Sorry, you are not allowed to edit posts in this post type.')
    const mine = await call('GET', '/cms/v2/posts', { as: author, query: { context: 'edit' } })
    t.same(mine.body.map((p: any) => p.id), [p3], 'posts the caller cannot edit are left out')
    t.equal(mine.headers['x-cms-total'], '1', 'nor counted')
    t.ok('raw' in mine.body[0].title)
  })

  t.test('categories and tags', async (t) => {
    t.same(await ids({ categories: news }), [p4, p1])
    t.same(await ids(`categories[terms][]=${news}&categories[include_children]=1`), [p4, p2, p1])
    t.same(await ids({ categories: `${news},${sport}` }), [p4, p3, p1], 'OR by default')
    t.same(await ids(`categories[terms]=${news},${sport}&categories[operator]=AND`), [p4])
    t.same(await ids({ categories_exclude: news }), [p5, p3, p2])
    t.same(await ids(`categories_exclude[terms][]=${news}&categories_exclude[include_children]=true`), [p5, p3])
    t.same(await ids({ tags: red }), [p2, p1])
    t.same(await ids(`tags[terms]=${red},${blue}&tags[operator]=AND`), [p2])
    t.same(await ids({ tags_exclude: blue }), [p5, p4, p1])
    t.same(await ids({ categories: sport, tags: red }), [], 'taxonomies combine with AND')
    t.same(await ids({ categories: sport, tags: red, tax_relation: 'OR' }), [p4, p3, p2, p1])
    const bad = await call('GET', '/cms/v2/posts', { query: `tags[terms]=${red}&tags[include_children]=1` })
    t.equal(bad.status, 400)
    t.equal(bad.body.data.params.tags, 'tags is not a valid Term ID Taxonomy Query. Reason: include_children is not a valid property of Object.')
  })

  t.test('sticky, format', async (t) => {
    t.same(await ids({ sticky: true }), [p4])
    t.same(await ids({ sticky: false }), [p5, p3, p2, p1])
    t.same(await ids({ per_page: 2, ignore_sticky: false }), [p4, p5], 'a sticky post on the page moves to the top')
    t.same(await ids({ per_page: 1, ignore_sticky: false }), [p4, p5], 'sticky posts are added to page 1 beyond per_page')
    t.same(await ids({ per_page: 2, page: 2, ignore_sticky: false }), [p3, p2], 'only page 1')
    t.same(await ids({ format: 'aside' }), [p2])
    t.same(await ids({ format: 'aside,quote' }), [p3, p2])
    t.same(await ids({ format: 'standard' }), [p5, p4, p1])
    const dup = await call('GET', '/cms/v2/posts', { query: { format: 'aside,aside' } })
    t.equal(dup.body.data.params.format, 'format has duplicate items.')
  })

  t.test('embed follows author and term links', async (t) => {
    const res = await call('GET', '/cms/v2/posts', { query: { include: p2, _embed: 'author,cms:term' } })
    const item = res.body[0]
    t.equal(item._embedded.author[0].id, editor.id)
    t.same(item._embedded['cms:term'][0].map((c: any) => c.id), [local])
    t.same(item._embedded['cms:term'][1].map((c: any) => c.name).sort(), ['Blue', 'Red'])
  })
})
