/**
 * Post types, statuses and taxonomies: the core's fields per context, links,
 * permissions (edit context), types registered by other code, and the
 * `about` links posts, pages and terms carry answering 200.
 */
import t from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const BASE = 'http://cms.test'

t.test('types, statuses, taxonomies', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor, contributor, subscriber } = h.users
  const call = h.call

  t.test('GET /types lists post, page and attachment in view context', async (t) => {
    const res = await call('GET', '/cms/v2/types')
    t.equal(res.status, 200)
    t.same(Object.keys(res.body), ['post', 'page', 'attachment'])
    const post = res.body.post
    t.same(Object.keys(post), ['description', 'hierarchical', 'has_archive', 'name', 'slug', 'icon', 'taxonomies', 'rest_base', 'rest_namespace', 'template', 'template_lock', '_links'])
    t.match(post, { description: '', hierarchical: false, has_archive: false, name: 'Posts', slug: 'post', taxonomies: ['category', 'post_tag'], rest_base: 'posts', rest_namespace: 'cms/v2', template: [], template_lock: false })
    t.same(post._links, {
      collection: [{ href: `${BASE}/index.php?rest_route=/cms/v2/types` }],
      'cms:items': [{ href: `${BASE}/index.php?rest_route=/cms/v2/posts` }],
      curies: [{ name: 'cms', href: 'https://api.cms.invalid/{rel}', templated: true }]
    })
    t.match(res.body.page, { hierarchical: true, name: 'Pages', slug: 'page', taxonomies: [], rest_base: 'pages' })
    t.match(res.body.attachment, { hierarchical: false, has_archive: false, name: 'Media', slug: 'attachment', icon: 'admin-media', taxonomies: [], rest_base: 'media' })
    t.equal(res.body.attachment._links['cms:items'][0].href, `${BASE}/index.php?rest_route=/cms/v2/media`)
  })

  t.test('GET /types/{type}: item, embed and edit contexts', async (t) => {
    const res = await call('GET', '/cms/v2/types/page')
    t.equal(res.status, 200)
    t.equal(res.body.slug, 'page')
    t.notOk('capabilities' in res.body, 'capabilities are edit-only')
    t.equal(res.body._links['cms:items'][0].href, `${BASE}/index.php?rest_route=/cms/v2/pages`)
    const embed = await call('GET', '/cms/v2/types/post', { query: { context: 'embed' } })
    t.same(Object.keys(embed.body), ['name', 'slug', 'icon', 'rest_base', 'rest_namespace', '_links'])

    const anonymousEdit = await call('GET', '/cms/v2/types/post', { query: { context: 'edit' } })
    t.equal(anonymousEdit.status, 401)
    t.equal(anonymousEdit.body.code, 'rest_forbidden_context')
    t.equal((await call('GET', '/cms/v2/types/post', { as: subscriber, query: { context: 'edit' } })).status, 403, 'a subscriber may not edit posts')
    const contributorEdit = await call('GET', '/cms/v2/types/post', { as: contributor, query: { context: 'edit' } })
    t.equal(contributorEdit.status, 200, 'a contributor has edit_posts')
    t.same(Object.keys(contributorEdit.body), ['capabilities', 'description', 'hierarchical', 'has_archive', 'visibility', 'viewable', 'labels', 'name', 'slug', 'icon', 'supports', 'taxonomies', 'rest_base', 'rest_namespace', 'template', 'template_lock', '_links'])
    t.equal(contributorEdit.body.capabilities.edit_posts, 'edit_posts')
    t.equal(contributorEdit.body.labels.singular_name, 'Post')
    t.equal(contributorEdit.body.supports['post-formats'], true)
    t.same(contributorEdit.body.visibility, { show_in_nav_menus: true, show_ui: true })
    t.equal((await call('GET', '/cms/v2/types/page', { as: contributor, query: { context: 'edit' } })).status, 403, 'pages need edit_pages')
    const pageEdit = await call('GET', '/cms/v2/types/page', { as: editor, query: { context: 'edit' } })
    t.equal(pageEdit.body.capabilities.edit_posts, 'edit_pages')

    const list = await call('GET', '/cms/v2/types', { as: contributor, query: { context: 'edit' } })
    t.same(Object.keys(list.body), ['post', 'attachment'], 'the edit list has only the types the caller may edit (attachments need edit_posts)')
    const media = await call('GET', '/cms/v2/types/attachment', { as: contributor, query: { context: 'edit' } })
    t.equal(media.body.capabilities.create_posts, 'upload_files')
    t.same(media.body.visibility, { show_in_nav_menus: false, show_ui: true })
    t.equal((await call('GET', '/cms/v2/types', { as: subscriber, query: { context: 'edit' } })).body.code, 'rest_cannot_view')

    const unknown = await call('GET', '/cms/v2/types/nope')
    t.equal(unknown.status, 404)
    t.same(unknown.body, { code: 'rest_type_invalid', message: 'Invalid post type.', data: { status: 404 } })
  })

  t.test('a type registered by other code is listed', async (t) => {
    h.services.types.registerPostType({ slug: 'cms_block', name: 'Blocks', singularName: 'Block', restBase: 'blocks', supports: ['title', 'editor'], capabilities: { create_posts: 'publish_posts' } })
    h.services.types.registerTaxonomy({ slug: 'genre', name: 'Genres', singularName: 'Genre', types: ['cms_block'] })
    t.throws(() => h.services.types.registerPostType({ slug: 'post', name: 'Again' }), /already registered/)
    t.throws(() => h.services.types.registerPostType({ slug: 'attachment', name: 'Again' }), /already registered/, 'the media routes registered attachment')
    const res = await call('GET', '/cms/v2/types')
    t.same(Object.keys(res.body), ['post', 'page', 'attachment', 'cms_block'])
    t.same(res.body.cms_block.taxonomies, ['genre'])
    const item = await call('GET', '/cms/v2/types/cms_block', { as: admin, query: { context: 'edit' } })
    t.equal(item.status, 200)
    t.equal(item.body.capabilities.create_posts, 'publish_posts')
    t.equal(item.body._links['cms:items'][0].href, `${BASE}/index.php?rest_route=/cms/v2/blocks`)
    const genre = await call('GET', '/cms/v2/taxonomies/genre')
    t.same(genre.body.types, ['cms_block'])
    t.same(Object.keys((await call('GET', '/cms/v2/taxonomies', { query: { type: 'cms_block' } })).body), ['genre'])
  })

  t.test('statuses: the public one for anyone, the others for editors of posts', async (t) => {
    const anonymous = await call('GET', '/cms/v2/statuses')
    t.equal(anonymous.status, 200)
    t.same(Object.keys(anonymous.body), ['publish'])
    t.same(anonymous.body.publish, {
      name: 'Published',
      public: true,
      queryable: true,
      slug: 'publish',
      date_floating: false,
      _links: { archives: [{ href: `${BASE}/index.php?rest_route=/cms/v2/posts` }] }
    })
    const asContributor = await call('GET', '/cms/v2/statuses', { as: contributor })
    t.same(Object.keys(asContributor.body), ['publish', 'future', 'draft', 'pending', 'private', 'trash'])
    t.equal(asContributor.body.draft._links.archives[0].href, `${BASE}/index.php?rest_route=%2Fcms%2Fv2%2Fposts&status=draft`)
    t.equal(asContributor.body.draft.date_floating, true)
    const edit = await call('GET', '/cms/v2/statuses/private', { as: contributor, query: { context: 'edit' } })
    t.same(Object.keys(edit.body), ['name', 'private', 'protected', 'public', 'queryable', 'show_in_list', 'slug', 'date_floating', '_links'])
    t.equal(edit.body.private, true)
    t.equal((await call('GET', '/cms/v2/statuses', { as: subscriber })).body.draft, undefined, 'a subscriber sees only publish')
    t.equal((await call('GET', '/cms/v2/statuses', { as: subscriber, query: { context: 'edit' } })).status, 403)

    const draft = await call('GET', '/cms/v2/statuses/draft')
    t.equal(draft.status, 401)
    t.same(draft.body, { code: 'rest_cannot_read_status', message: 'Cannot view status.', data: { status: 401 } })
    t.equal((await call('GET', '/cms/v2/statuses/inherit', { as: admin })).status, 403, 'internal statuses are never shown')
    t.equal((await call('GET', '/cms/v2/statuses/trash', { as: contributor })).status, 200)
    t.equal((await call('GET', '/cms/v2/statuses/nope')).body.code, 'rest_status_invalid')
  })

  t.test('taxonomies', async (t) => {
    const res = await call('GET', '/cms/v2/taxonomies')
    t.same(Object.keys(res.body), ['category', 'post_tag', 'genre'])
    const category = res.body.category
    t.same(Object.keys(category), ['name', 'slug', 'description', 'types', 'hierarchical', 'rest_base', 'rest_namespace', '_links'])
    t.match(category, { name: 'Categories', slug: 'category', description: '', types: ['post'], hierarchical: true, rest_base: 'categories', rest_namespace: 'cms/v2' })
    t.equal(category._links['cms:items'][0].href, `${BASE}/index.php?rest_route=/cms/v2/categories`)
    t.same(Object.keys((await call('GET', '/cms/v2/taxonomies', { query: { type: 'page' } })).body), [], 'pages have no taxonomy')
    t.same(Object.keys((await call('GET', '/cms/v2/taxonomies', { query: { type: 'post' } })).body), ['category', 'post_tag'])

    const tag = await call('GET', '/cms/v2/taxonomies/post_tag', { as: contributor, query: { context: 'edit' } })
    t.equal(tag.status, 200, 'a contributor may assign tags')
    t.same(tag.body.capabilities, { manage_terms: 'manage_post_tags', edit_terms: 'edit_post_tags', delete_terms: 'delete_post_tags', assign_terms: 'assign_post_tags' })
    t.equal(tag.body.show_cloud, true)
    t.equal(tag.body.labels.name, 'Tags')
    t.equal((await call('GET', '/cms/v2/taxonomies/category', { query: { context: 'edit' } })).status, 401)
    t.equal((await call('GET', '/cms/v2/taxonomies/category', { as: subscriber, query: { context: 'edit' } })).body.code, 'rest_forbidden_context')
    t.equal((await call('GET', '/cms/v2/taxonomies', { as: subscriber, query: { context: 'edit' } })).body.code, 'rest_cannot_view')
    const unknown = await call('GET', '/cms/v2/taxonomies/nope')
    t.same(unknown.body, { code: 'rest_taxonomy_invalid', message: 'Invalid taxonomy.', data: { status: 404 } })
  })

  t.test('the about links of posts, pages and terms answer 200', async (t) => {
    const post = await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'About', status: 'publish' } })
    const page = await call('POST', '/cms/v2/pages', { as: admin, body: { title: 'About page', status: 'publish' } })
    const category = await call('GET', '/cms/v2/categories/1')
    for (const item of [post.body, page.body, category.body]) {
      const href: string = item._links.about[0].href
      const route = new URL(href).searchParams.get('rest_route')!
      const about = await call('GET', route)
      t.equal(about.status, 200, `${href} answers 200`)
      t.equal(about.body.slug, item.type ?? item.taxonomy)
    }
  })
})
