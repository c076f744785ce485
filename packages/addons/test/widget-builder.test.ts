/**
 * addons-b/v1 widget-builder through HTTP (seo-rollback-assistant-addons.md
 * §4.3): save, save again (both versions kept), load (latest, a version,
 * the list), delete; script content stored and answered verbatim; the
 * declared schema's refusals; who may call each route.
 */
import t from 'tap'
import { builderPackage } from '@cms/builder'
import { testApp, type TestApp } from '@cms/testing'
import { addonsPackage } from '../src/index.js'

const W = '/addons-b/v1/widget-builder'

const definition = (title: string): Record<string, unknown> => ({
  title,
  icon: 'icon-star',
  category: 'my-widgets',
  markup: '<div class="card"><h3>{{heading}}</h3><script>alert(document.cookie)</script></div>',
  css: '.card > h3 { color: red }',
  js: 'document.querySelectorAll(".card").forEach((c) => { c.remove() }) </script>',
  css_includes: ['https://cdn.example.com/a.css'],
  js_includes: [],
  tabs: {
    content: [{
      key: 'main',
      label: 'Main',
      controls: [
        { key: 'heading', label: 'Heading', type: 'text', default: 'Hello' },
        { key: 'align', label: 'Align', type: 'choose', options: { left: { title: 'Left', icon: 'icon-left' }, right: 'Right' }, condition: { key: 'heading', value: 'x' } },
        { key: 'size', label: 'Size', type: 'slider', slider_min: 0, slider_max: 100, slider_step: 1, selectors: { '{{WRAPPER}} h3': 'font-size: {{SIZE}}px' } },
        { key: 'snippet', label: 'Snippet', type: 'code', language: 'html' }
      ]
    }],
    style: [],
    advanced: []
  }
})

async function app (): Promise<TestApp> {
  return await testApp({ packages: [builderPackage, addonsPackage], namespaces: ['cms/v2', 'addons-a/v1', 'addons-b/v1'] })
}

t.test('save, save again, load, delete', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const admin = await h.caller('administrator')

  const first = await h.call('POST', `${W}/save`, { as: admin, body: definition('Card') })
  t.equal(first.status, 200)
  t.same(first.body, { success: true, message: 'Widget saved successfully!', post_id: first.body.post_id, version: 1 })
  const id = first.body.post_id as number
  t.ok(Number.isInteger(id) && id > 0, 'the widget has an id')

  const loaded = await h.call('GET', `${W}/load/${id}`, { as: admin })
  t.equal(loaded.status, 200)
  t.equal(loaded.body.success, true)
  const data = loaded.body.data
  t.equal(data.markup, definition('Card').markup, 'script in the markup stored and answered as written (no PHP tags in it)')
  t.equal(data.js, 'document.querySelectorAll(".card").forEach((c) => { c.remove() }) ', 'the JavaScript stored without </script>, as the product stores it')
  t.equal(data.css, '.card > h3 { color: red }')
  t.same([data.title, data.icon, data.categories, data.push_id, data.version], ['Card', 'icon-star', ['my-widgets'], id, 1])
  t.same(data.tabs.content[0].controls.map((c: any) => c.key), ['heading', 'align', 'size', 'snippet'])
  t.same(data.tabs.content[0].controls[1].options, { left: { title: 'Left', icon: 'icon-left' }, right: 'Right' })
  t.same(loaded.body.versions.map((v: any) => v.version), [1])

  const second = await h.call('POST', `${W}/save/${id}`, { as: admin, body: { ...definition('Card v2'), js: '' } })
  t.same([second.status, second.body.post_id, second.body.version], [200, id, 2], 'a save of the same id is its second version')
  const latest = await h.call('GET', `${W}/load/${id}`, { as: admin })
  t.same([latest.body.data.title, latest.body.data.js, latest.body.data.version], ['Card v2', '', 2], 'load answers the latest')
  t.same(latest.body.versions.map((v: any) => [v.version, v.saved_by]), [[2, admin.user.id], [1, admin.user.id]], 'both versions listed, newest first')
  const old = await h.call('GET', `${W}/load/${id}`, { as: admin, query: { version: 1 } })
  t.same([old.status, old.body.data.title, old.body.data.js], [200, 'Card', data.js], 'the first version is kept whole')
  const none = await h.call('GET', `${W}/load/${id}`, { as: admin, query: { version: 3 } })
  t.same([none.status, none.body.code], [404, 'widget_version_not_found'])

  const other = await h.call('POST', `${W}/save/987654`, { as: admin, body: definition('Fresh') })
  t.equal(other.status, 200)
  t.not(other.body.post_id, 987654, 'an unknown id makes a new widget (as the product does), with an id of its own')
  t.equal(other.body.version, 1)

  const untitled = await h.call('POST', `${W}/save`, { as: admin, body: { markup: '<p>x</p>' } })
  const u = await h.call('GET', `${W}/load/${untitled.body.post_id}`, { as: admin })
  t.match(u.body.data.title, /^Custom Widget #\d+$/, 'an untitled widget is named as the product names it')
  t.same([u.body.data.icon, u.body.data.categories, u.body.data.tabs], ['icon-cog', ['addons-widgets'], { content: [], style: [], advanced: [] }])

  const del = await h.call('DELETE', `${W}/delete/${id}`, { as: admin })
  t.same([del.status, del.body], [200, { success: true, message: 'Widget deleted successfully!' }])
  const gone = await h.call('GET', `${W}/load/${id}`, { as: admin })
  t.same([gone.status, gone.body.code, gone.body.data.status], [404, 'widget_not_found', 404])
  const again = await h.call('DELETE', `${W}/delete/${id}`, { as: admin })
  t.same([again.status, again.body.code], [404, 'widget_not_found'])
  const versions = await h.store.execute<{ n: number }>(`select count(*)::int as n from addons_widget_versions where widget_id = ${id}`)
  t.equal(versions[0]!.n, 0, 'its versions went with it')
})

t.test('the declared schema refuses bad definitions and writes nothing', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const count = async (): Promise<number> => (await h.store.execute<{ n: number }>('select count(*)::int as n from addons_widget_versions'))[0]!.n

  const empty = await h.call('POST', `${W}/save`, { as: admin, body: {} })
  t.same([empty.status, empty.body.code, empty.body.message, empty.body.data.status], [400, 'invalid_data', 'Invalid data.', 400])
  const notObject = await h.call('POST', `${W}/save`, { as: admin, payload: '[1,2]', headers: { 'content-type': 'application/json' } })
  t.equal(notObject.status, 400)
  const nothing = await h.call('POST', `${W}/save`, { as: admin })
  t.same([nothing.status, nothing.body.code], [400, 'invalid_data'])

  const control = (c: Record<string, unknown>): Record<string, unknown> => ({ title: 'X', tabs: { content: [{ key: 's', controls: [c] }] } })
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['unknown control type', control({ key: 'a', type: 'php_eval' }), 'tabs.content[0].controls[0].type'],
    ['control without a key', control({ type: 'text' }), 'tabs.content[0].controls[0].key'],
    ['control key with spaces', control({ key: 'a b', type: 'text' }), 'tabs.content[0].controls[0].key'],
    ['bad separator', control({ key: 'a', type: 'text', separator: 'middle' }), 'tabs.content[0].controls[0].separator'],
    ['bad code language', control({ key: 'a', type: 'code', language: 'cobol' }), 'tabs.content[0].controls[0].language'],
    ['slider bound not a number', control({ key: 'a', type: 'slider', slider_min: 'low' }), 'tabs.content[0].controls[0].slider_min'],
    ['section without a key', { tabs: { style: [{ label: 'x', controls: [] }] } }, 'tabs.style[0].key'],
    ['repeated control key', { tabs: { content: [{ key: 's', controls: [{ key: 'a', type: 'text' }] }, { key: 't', controls: [{ key: 'a', type: 'number' }] }] } }, 'tabs.content[1].controls[0].key'],
    ['markup too long', { markup: 'x'.repeat(256 * 1024 + 1) }, 'markup'],
    ['title too long', { title: 'x'.repeat(201) }, 'title'],
    ['include not http', { css_includes: ['javascript:alert(1)'] }, 'css_includes[0]'],
    ['too many includes', { js_includes: Array.from({ length: 21 }, (_, i) => `https://x.test/${i}.js`) }, 'js_includes'],
    ['tabs not an object', { tabs: 'content' }, 'tabs'],
    ['markup not a string', { markup: { html: 1 } }, 'markup'],
    ['too many controls in a section', { tabs: { content: [{ key: 's', controls: Array.from({ length: 101 }, (_, i) => ({ key: `c${i}`, type: 'text' })) }] } }, 'tabs.content[0].controls']
  ]
  for (const [why, body, param] of cases) {
    const res = await h.call('POST', `${W}/save`, { as: admin, body })
    t.same([res.status, res.body.code, Object.keys(res.body.data.params ?? {})], [400, 'rest_invalid_param', [param]], why)
  }
  t.equal(await count(), 0, 'nothing was written')

  const first = await h.call('POST', `${W}/save`, { as: admin, body: { title: 'Kept' } })
  const bad = await h.call('POST', `${W}/save/${first.body.post_id}`, { as: admin, body: control({ key: 'a', type: 'nope' }) })
  t.equal(bad.status, 400)
  const still = await h.call('GET', `${W}/load/${first.body.post_id}`, { as: admin })
  t.same([still.body.data.title, still.body.versions.length], ['Kept', 1], 'a refused save leaves the widget as it was')
})

t.test('only manage_options may use the widget builder', async (t) => {
  const h = await app()
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const saved = await h.call('POST', `${W}/save`, { as: admin, body: definition('Mine') })
  const id = saved.body.post_id as number
  for (const role of ['editor', 'author', 'subscriber'] as const) {
    const who = await h.caller(role)
    for (const [method, path] of [['POST', `${W}/save`], ['POST', `${W}/save/${id}`], ['GET', `${W}/load/${id}`], ['DELETE', `${W}/delete/${id}`]] as const) {
      const res = await h.call(method, path, { as: who, ...(method === 'POST' ? { body: definition('Theirs') } : {}) })
      t.same([res.status, res.body.code], [403, 'rest_forbidden'], `${role}: ${method} ${path}`)
    }
  }
  const anon = await h.call('GET', `${W}/load/${id}`)
  t.same([anon.status, anon.body.code], [401, 'rest_forbidden'])
  const still = await h.call('GET', `${W}/load/${id}`, { as: admin })
  t.same([still.body.data.title, still.body.versions.length], ['Mine', 1], 'nothing changed')
})
