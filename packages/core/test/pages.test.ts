/**
 * `/cms/v2/pages`: what differs from posts (parent, menu_order, no terms or
 * sticky or format, `?page_id=` links, slugs unique among siblings) and the
 * page list parameters.
 */
import t from 'tap'
import { allowTemplates } from '../src/index.js'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const PAGE_VIEW_KEYS = ['id', 'date', 'date_gmt', 'guid', 'modified', 'modified_gmt', 'slug', 'status', 'type', 'link', 'title', 'content', 'excerpt',
  'author', 'featured_media', 'parent', 'menu_order', 'comment_status', 'ping_status', 'template', 'meta', 'class_list', '_links']

t.test('pages', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin } = h.users
  const call = h.call
  const page = async (body: Record<string, unknown>): Promise<any> => {
    const res = await call('POST', '/cms/v2/pages', { as: admin, body: { status: 'publish', ...body } })
    if (res.status !== 201) throw new Error(JSON.stringify(res.body))
    return res.body
  }

  const root = await page({ title: 'About', menu_order: 3 })
  const child = await page({ title: 'Team', parent: root.id, menu_order: 1 })
  const other = await page({ title: 'Contact', menu_order: 2 })

  t.test('fields and links', async (t) => {
    const res = await call('GET', `/cms/v2/pages/${child.id}`)
    t.same(Object.keys(res.body), PAGE_VIEW_KEYS)
    t.equal(res.body.link, `http://cms.test/?page_id=${child.id}`)
    t.equal(res.body.guid.rendered, `http://cms.test/?page_id=${child.id}`)
    t.equal(res.body.parent, root.id)
    t.equal(res.body.comment_status, 'closed')
    t.equal(res.body.ping_status, 'closed')
    t.same(res.body.class_list, [`post-${child.id}`, 'page', 'type-page', 'status-publish', 'hentry'])
    t.same(res.body._links.up, [{ embeddable: true, href: `http://cms.test/index.php?rest_route=/cms/v2/pages/${root.id}` }])
    t.notOk(res.body._links['cms:term'])
    const edit = await call('GET', `/cms/v2/pages/${root.id}`, { as: admin, query: { context: 'edit' } })
    t.notOk(edit.body._links['cms:action-sticky'])
    t.ok(edit.body._links['cms:action-publish'])
    t.notOk(edit.body._links.up, 'no parent, no up link')
    const embedded = await call('GET', `/cms/v2/pages/${child.id}`, { query: { _embed: 'up' } })
    t.equal(embedded.body._embedded.up[0].id, root.id)
    t.equal(embedded.body._embedded.up[0].title.rendered, 'About')
  })

  t.test('parents', async (t) => {
    const bad = await call('POST', '/cms/v2/pages', { as: admin, body: { title: 'Orphan', parent: 999999 } })
    t.equal(bad.status, 400)
    t.equal(bad.body.code, 'rest_post_invalid_id')
    t.equal(bad.body.message, 'Invalid post parent ID.')
    const loop = await call('POST', `/cms/v2/pages/${root.id}`, { as: admin, body: { parent: child.id } })
    t.equal(loop.status, 200)
    t.equal(loop.body.parent, 0, 'a loop silently resets the parent')
    const self = await call('POST', `/cms/v2/pages/${root.id}`, { as: admin, body: { parent: root.id } })
    t.equal(self.body.parent, 0)
  })

  t.test('slugs and empty pages', async (t) => {
    const a = await page({ title: 'Team', parent: other.id })
    t.equal(a.slug, 'team', 'unique among siblings only')
    const b = await page({ title: 'Team', parent: other.id })
    t.equal(b.slug, 'team-2')
    const digits = await page({ title: '2024' })
    t.equal(digits.slug, '2024-2', 'all-digit page slugs are suffixed')
    const empty = await call('POST', '/cms/v2/pages', { as: admin, body: {} })
    t.equal(empty.status, 201, 'pages have no excerpt, so they may be empty')
  })

  t.test('templates offered by another module are accepted', async (t) => {
    const before = await call('POST', `/cms/v2/pages/${other.id}`, { as: admin, body: { template: 'builder-canvas' } })
    t.equal(before.status, 400)
    t.equal(before.body.data.params.template, 'template is not one of .')
    allowTemplates('page', ['builder-canvas', 'builder-full-width'])
    const after = await call('POST', `/cms/v2/pages/${other.id}`, { as: admin, body: { template: 'builder-canvas' } })
    t.equal(after.status, 200)
    t.equal(after.body.template, 'builder-canvas')
    const other2 = await call('POST', `/cms/v2/pages/${other.id}`, { as: admin, body: { template: 'nope' } })
    t.equal(other2.body.data.params.template, 'template is not one of builder-canvas, builder-full-width.')
    const cleared = await call('POST', `/cms/v2/pages/${other.id}`, { as: admin, body: { template: '' } })
    t.equal(cleared.body.template, '', 'the empty template is always accepted')
  })

  t.test('list parameters', async (t) => {
    const ids = async (query: Record<string, string | number>): Promise<number[]> => (await call('GET', '/cms/v2/pages', { query })).body.map((p: any) => p.id)
    t.same(await ids({ parent: root.id }), [child.id])
    t.same(await ids({ parent: `${root.id},${other.id}`, orderby: 'id', order: 'asc' }).then((l) => l[0]), child.id)
    t.notOk((await ids({ parent_exclude: 0, per_page: 100 })).includes(root.id))
    t.same(await ids({ menu_order: 2 }), [other.id])
    t.same((await ids({ orderby: 'menu_order', order: 'asc', include: `${root.id},${child.id},${other.id}` })), [child.id, other.id, root.id])
    const bad = await call('GET', '/cms/v2/pages', { query: { orderby: 'sticky' } })
    t.equal(bad.status, 400)
    t.match(bad.body.data.params.orderby, /menu_order\.$/)
    const postsParam = await call('GET', '/cms/v2/pages', { query: { categories: 'x' } })
    t.equal(postsParam.status, 200, 'post-only parameters are not parameters of pages (ignored)')
  })
})
