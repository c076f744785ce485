/**
 * addons-a/v1 and addons-b/v1 findings of a real client's and an
 * attacker's probes, each through HTTP on a real database.
 */
import t from 'tap'
import { builderPackage } from '@cms/builder'
import { testApp } from '@cms/testing'
import { addonsPackage } from '../src/index.js'
import { menus } from '../src/menus.js'

const A = '/addons-a/v1/ajaxselect2'

t.test('add-ons probes', async (t) => {
  const h = await testApp({ packages: [builderPackage, addonsPackage], namespaces: ['cms/v2', 'builder/v1', 'addons-a/v1', 'addons-b/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')

  t.test('ajaxselect2: an empty ids (a select box with nothing saved) matches nothing, as in the product', async (t) => {
    const post = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Listed', status: 'publish', categories: [] } })
    t.equal(post.status, 201)
    const term = await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Used' } })
    t.equal(term.status, 201)
    t.equal((await h.call('POST', `/cms/v2/posts/${post.body.id as number}`, { as: admin, body: { categories: [term.body.id] } })).status, 200)
    await menus(() => h.store).create('Main menu')
    const lookups: Array<[string, Record<string, string>]> = [
      ['get_posts_by_post_type', { query_slug: 'post' }],
      ['get_taxonomies', { query_slug: 'category' }],
      ['get_users', {}],
      ['get_menus', {}]
    ]
    for (const [action, query] of lookups) {
      const all = await h.call('GET', `${A}/${action}`, { as: editor, query })
      t.ok(all.body.results.length > 0, `${action}: something to find without ids`)
      for (const ids of ['', ',']) {
        const none = await h.call('GET', `${A}/${action}`, { as: editor, query: { ...query, ids } })
        t.same([none.status, none.body], [200, { results: [], pagination: { more: false } }], `${action}: ids=${JSON.stringify(ids)} matches nothing`)
      }
    }
    const trailing = await h.call('GET', `${A}/get_posts_by_post_type`, { as: editor, query: { query_slug: 'post', ids: `${post.body.id as number},` } })
    t.same(trailing.body.results, [{ id: post.body.id, text: 'Listed' }], 'an empty item of the list is skipped')
  })
})
