/**
 * Lists reveal only what the caller may read (issue #11, item 2): totals,
 * pages, ordering and search matches never depend on rows the caller may
 * not read, nor on the content and excerpt of password-protected posts the
 * caller may not edit. The attack: a contributor guessing an editor's private
 * text through `status=private&search=...` and reading `X-CMS-Total`.
 */
import t, { type Test } from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp, type TestUser } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

t.test('lists reveal only readable rows', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor, author, contributor, subscriber } = h.users
  const call = h.call

  const make = async (as: TestUser, type: 'posts' | 'pages', body: Record<string, unknown>): Promise<number> => {
    const res = await call('POST', `/cms/v2/${type}`, { as, body })
    if (res.status !== 201) throw new Error(`setup failed: ${JSON.stringify(res.body)}`)
    return res.body.id
  }
  const future = new Date(Date.now() + 30 * 86400_000).toISOString().slice(0, 19)
  const privatePost = await make(editor, 'posts', { title: 'Salaries', content: 'zqxprivate salaries', status: 'private' })
  const draft = await make(editor, 'posts', { title: 'Plans', content: 'zqxdraft plans', status: 'draft' })
  const pending = await make(admin, 'posts', { title: 'Review', content: 'zqxpending review', status: 'pending' })
  const scheduled = await make(editor, 'posts', { title: 'Launch', content: 'zqxfuture launch', status: 'future', date_gmt: future })
  const protectedPost = await make(editor, 'posts', { title: 'Members', content: 'zqxprotected content', excerpt: 'zqxexcerpt teaser', password: 'pw', status: 'publish' })
  const protectedPage = await make(admin, 'pages', { title: 'Members page', content: 'zqxpageprotected content', password: 'pw', status: 'publish' })
  const authorsDraft = await make(author, 'posts', { title: 'Mine', content: 'zqxown draft', status: 'draft' })

  const total = async (as: TestUser | undefined, query: Record<string, string>, type = 'posts'): Promise<{ status: number, total: string | undefined, ids: number[] }> => {
    const res = await call('GET', `/cms/v2/${type}`, { as, query })
    return { status: res.status, total: res.headers['x-cms-total'], ids: Array.isArray(res.body) ? res.body.map((p: any) => p.id) : [] }
  }

  /** The extraction: a known prefix of the secret, then each next letter; any non-zero total leaks. */
  const extract = async (t: Test, as: TestUser | undefined, query: Record<string, string>, secret: string, type = 'posts'): Promise<void> => {
    const whole = await total(as, { ...query, search: secret }, type)
    if (whole.status === 200) {
      t.equal(whole.total, '0', `${JSON.stringify(query)} search=${secret}: nothing counted`)
      t.same(whole.ids, [], 'nothing listed')
    } else {
      t.equal(whole.status, 400, `${JSON.stringify(query)}: the status is refused outright (rest_forbidden_status)`)
    }
    let leaks = 0
    for (const c of 'abcdefghijklmnopqrstuvwxyz') {
      const probe = await total(as, { ...query, search: `${secret.slice(0, 4)}${c}` }, type)
      if (probe.status === 200 && probe.total !== '0') leaks++
    }
    t.equal(leaks, 0, 'no letter of the secret answers differently')
  }

  for (const [name, as] of [['contributor', contributor], ['author', author], ['subscriber', subscriber]] as const) {
    t.test(`a ${name} learns nothing of others' unreadable posts`, async (t) => {
      await extract(t, as, { status: 'private' }, 'zqxprivate')
      await extract(t, as, { status: 'draft' }, 'zqxdraft')
      await extract(t, as, { status: 'pending' }, 'zqxpending')
      await extract(t, as, { status: 'future' }, 'zqxfuture')
      await extract(t, as, { status: 'any' }, 'zqxprivate')
      await extract(t, as, {}, 'zqxprotected')
      await extract(t, as, {}, 'zqxexcerpt')
      await extract(t, as, { search_columns: 'post_content' }, 'zqxprotected')
      await extract(t, as, {}, 'zqxpageprotected', 'pages')
      // A leading dash excludes: the protected text must not decide whether the post is excluded.
      const excluded = await total(as, { search: '-zqxprotected', per_page: '100' })
      const unrelated = await total(as, { search: '-nothingmatchesthis', per_page: '100' })
      t.equal(excluded.total, unrelated.total, 'an excluded word of protected content changes nothing')
      t.ok(excluded.ids.includes(protectedPost), 'the protected post stays listed')
    })
  }

  t.test('anonymous callers learn nothing either', async (t) => {
    await extract(t, undefined, {}, 'zqxprotected')
    await extract(t, undefined, {}, 'zqxpageprotected', 'pages')
  })

  t.test('what the caller may read is still found and counted', async (t) => {
    t.same(await total(editor, { status: 'private', search: 'zqxprivate' }), { status: 200, total: '1', ids: [privatePost] })
    t.same(await total(admin, { status: 'draft', search: 'zqxdraft' }), { status: 200, total: '1', ids: [draft] })
    t.same(await total(editor, { status: 'pending', search: 'zqxpending' }), { status: 200, total: '1', ids: [pending] })
    t.same(await total(admin, { status: 'future', search: 'zqxfuture' }), { status: 200, total: '1', ids: [scheduled] })
    t.same(await total(editor, { search: 'zqxprotected' }), { status: 200, total: '1', ids: [protectedPost] }, 'editors search protected content they may edit')
    t.same(await total(admin, { search: 'zqxpageprotected' }, 'pages'), { status: 200, total: '1', ids: [protectedPage] })
    t.same(await total(author, { status: 'draft', search: 'zqxown' }), { status: 200, total: '1', ids: [authorsDraft] }, "one's own drafts")
    t.same(await total(author, { status: 'draft' }), { status: 200, total: '1', ids: [authorsDraft] }, 'and only them')
    t.same(await total(contributor, { search: 'Members' }), { status: 200, total: '1', ids: [protectedPost] }, 'the title of a protected post is searched')
    const all = await total(admin, { status: 'any', per_page: '100' })
    t.equal(all.total, '6')
  })

  t.test('pages hold only readable rows, so paging is exact', async (t) => {
    // Six posts the author may not read, one they may: one page of one row.
    const res = await total(author, { status: 'draft,pending,private,future', per_page: '1' })
    t.same(res, { status: 200, total: '1', ids: [authorsDraft] })
    const second = await call('GET', '/cms/v2/posts', { as: author, query: { status: 'draft,pending,private,future', per_page: '1', page: '2' } })
    t.equal(second.status, 400, 'no second page of rows that are not there')
    t.equal(second.headers['x-cms-totalpages'], undefined)
  })

  t.test('the edit context counts only editable rows', async (t) => {
    const res = await call('GET', '/cms/v2/posts', { as: contributor, query: { context: 'edit', per_page: '100' } })
    t.equal(res.status, 200)
    t.same(res.body, [])
    t.equal(res.headers['x-cms-total'], '0')
  })

  t.test('relevance ignores protected text the caller may not edit', async (t) => {
    // Both titles hold the phrase; only the older post's (protected) excerpt holds it quoted.
    const older = await make(admin, 'posts', { title: 'Kiwi fruit notes', excerpt: 'about "kiwi fruit" here', password: 'pw', status: 'publish', date_gmt: '2020-01-01T00:00:00' })
    const newer = await make(admin, 'posts', { title: 'Kiwi fruit notes', status: 'publish', date_gmt: '2020-02-01T00:00:00' })
    const query = { search: '"kiwi fruit"', orderby: 'relevance' }
    t.same((await total(contributor, query)).ids, [newer, older], 'by date: the protected excerpt does not rank')
    t.same((await total(admin, query)).ids, [older, newer], 'an editor of the post ranks by it')
  })
})
