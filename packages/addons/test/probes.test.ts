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

  t.test('widget-builder: the code cleaned as the product cleans it; a form\'s numbers and flags as the product reads them', async (t) => {
    const body = {
      title: 'Cleaned',
      markup: '<?php system("id"); ?><div><?= $x ?></div><?PHP x',
      css: ' <style>a{}</style>.a > .b { color: red }<script>alert(1)</script></style><b>bold</b> ',
      js: 'let a = 1</script><script>alert(2)</script>',
      tabs: {
        content: [{
          key: 'main',
          controls: [
            { key: 'size', type: 'slider', slider_min: '0', slider_max: '100.5', slider_step: '', no_units: '1' },
            { key: 'gap', type: 'slider', slider_min: 2, no_units: 0 },
            { key: 'code', type: 'code', language: 'scss' },
            { key: 'tpl', type: 'code', language: 'php' }
          ]
        }]
      }
    }
    const saved = await h.call('POST', '/addons-b/v1/widget-builder/save', { as: admin, body })
    t.equal(saved.status, 200, 'a real front end\'s definition is saved')
    const loaded = await h.call('GET', `/addons-b/v1/widget-builder/load/${saved.body.post_id as number}`, { as: admin })
    const data = loaded.body.data
    t.equal(data.markup, ' system("id"); <div> $x </div>PHP x', 'PHP open and close tags out of the markup')
    t.equal(data.css, '.a > .b { color: red }bold', 'tags out of the CSS (script and style elements with their content), trimmed')
    t.equal(data.js, 'let a = 1<script>alert(2)', '</script> out of the JavaScript')
    const controls = data.tabs.content[0].controls
    t.same([controls[0].slider_min, controls[0].slider_max, controls[0].slider_step, controls[0].no_units], [0, 100.5, undefined, true])
    t.same([controls[1].slider_min, controls[1].no_units], [2, false])
    t.same([controls[2].language, controls[3].language], ['scss', 'php'])
    const bad = await h.call('POST', '/addons-b/v1/widget-builder/save', { as: admin, body: { title: 'X', tabs: { content: [{ key: 's', controls: [{ key: 'a', type: 'slider', slider_min: '1e999x' }] }] } } })
    t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'], 'a string that is no number is still refused')
  })
})
