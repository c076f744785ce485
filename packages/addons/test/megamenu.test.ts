/**
 * addons-a/v1 megamenu through HTTP (seo-rollback-assistant-addons.md §4.2):
 * a menu item's panel rendered from its builder template; the checks on the
 * item and on the template as the caller may read it; bad and unknown ids.
 */
import t from 'tap'
import { builderPackage } from '@cms/builder'
import { testApp } from '@cms/testing'
import { addonsPackage } from '../src/index.js'
import { menus } from '../src/menus.js'

const M = '/addons-a/v1/megamenu'

const tree = [{
  id: 'a1',
  elType: 'container',
  settings: {},
  elements: [
    { id: 'h1', elType: 'widget', widgetType: 'heading', settings: { title: 'Shop <em>now</em>', header_size: 'h3', link: { url: 'https://shop.example.com/' } } },
    { id: 'b1', elType: 'widget', widgetType: 'button', settings: { text: 'Go', link: { url: 'javascript:alert(1)' } } },
    { id: 'x1', elType: 'widget', widgetType: 'unknown-thing', settings: {} }
  ]
}]

t.test('a menu item\'s mega menu', async (t) => {
  const h = await testApp({ packages: [builderPackage, addonsPackage], namespaces: ['cms/v2', 'builder/v1', 'addons-a/v1', 'addons-b/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const subscriber = await h.caller('subscriber')
  const template = async (status: 'publish' | 'draft' | 'private', data: unknown = tree): Promise<number> => (await h.services.content.createPost({
    type: 'builder_library',
    title: `Panel ${status}`,
    status,
    author: admin.user.id,
    siteUrl: 'http://cms.test',
    meta: { _builder_template_type: 'section', _builder_edit_mode: 'builder', _builder_data: JSON.stringify(data) }
  })).id
  const published = await template('publish')
  const draft = await template('draft')
  const privateOne = await template('private')

  const store = menus(() => h.store)
  const menu = await store.create('Main')
  const item = await store.addItem({ menuId: menu.id, title: 'Shop', megaTemplate: published })
  const plain = await store.addItem({ menuId: menu.id, title: 'About', url: 'https://example.com/about' })
  const hidden = await store.addItem({ menuId: menu.id, title: 'Soon', status: 'draft', megaTemplate: published })
  const toDraft = await store.addItem({ menuId: menu.id, title: 'Draft panel', megaTemplate: draft })
  const toPrivate = await store.addItem({ menuId: menu.id, title: 'Private panel', megaTemplate: privateOne })

  const res = await h.call('GET', M, { query: { item_id: item.id } })
  t.equal(res.status, 200, 'anyone reads a published item\'s published panel')
  t.equal(typeof res.body, 'string', 'the answer is the HTML as a JSON string')
  t.equal(res.body, '<div class="builder-element builder-element-a1 builder-container">' +
    '<div class="builder-element builder-element-h1 builder-widget builder-widget-heading"><h3 class="builder-heading-title"><a href="https://shop.example.com/">Shop <em>now</em></a></h3></div>' +
    '<div class="builder-element builder-element-b1 builder-widget builder-widget-button"><a class="builder-button"><span class="builder-button-text">Go</span></a></div>' +
    '<div class="builder-element builder-element-x1 builder-widget builder-widget-unknown-thing"></div>' +
    '</div>', 'the template rendered; a refused URL scheme dropped')

  for (const [query, why] of [[{}, 'no item_id'], [{ item_id: 0 }, 'zero'], [{ item_id: 'abc' }, 'not digits'], [{ item_id: '99999999999' }, 'past any id']] as const) {
    const bad = await h.call('GET', M, { query })
    t.same([bad.status, bad.body.code, bad.body.data.status], [400, 'invalid_item_id', 400], why)
  }
  const unknown = await h.call('GET', M, { query: { item_id: 999999 } })
  t.same([unknown.status, unknown.body.code], [404, 'menu_item_not_found'])
  const noPanel = await h.call('GET', M, { query: { item_id: plain.id } })
  t.same([noPanel.status, noPanel.body.code], [404, 'mega_menu_not_found'], 'an item without a panel')

  const hiddenAnon = await h.call('GET', M, { query: { item_id: hidden.id } })
  t.same([hiddenAnon.status, hiddenAnon.body.code], [401, 'rest_forbidden'], 'an unpublished item: anonymous refused')
  const hiddenSub = await h.call('GET', M, { query: { item_id: hidden.id }, as: subscriber })
  t.equal(hiddenSub.status, 403, 'an unpublished item: a subscriber refused')
  const hiddenAdmin = await h.call('GET', M, { query: { item_id: hidden.id }, as: admin })
  t.equal(hiddenAdmin.status, 200, 'an unpublished item: whoever edits menus sees it')

  const draftAnon = await h.call('GET', M, { query: { item_id: toDraft.id } })
  t.same([draftAnon.status, draftAnon.body.code], [401, 'rest_forbidden'], 'a draft template is not shown anonymously')
  const draftSub = await h.call('GET', M, { query: { item_id: toDraft.id }, as: subscriber })
  t.equal(draftSub.status, 403, 'nor to a subscriber')
  const draftEditor = await h.call('GET', M, { query: { item_id: toDraft.id }, as: editor })
  t.equal(draftEditor.status, 200, 'an editor may read another\'s draft template')
  const privSub = await h.call('GET', M, { query: { item_id: toPrivate.id }, as: subscriber })
  t.equal(privSub.status, 403, 'a private template is not shown to a subscriber')

  await store.setMega(item.id, plain.id + 100000)
  const gone = await h.call('GET', M, { query: { item_id: item.id } })
  t.same([gone.status, gone.body.code], [404, 'mega_menu_not_found'], 'a template that is gone')
  const post = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Not a template', status: 'publish' } })
  await store.setMega(item.id, post.body.id)
  const notTemplate = await h.call('GET', M, { query: { item_id: item.id } })
  t.same([notTemplate.status, notTemplate.body.code], [404, 'mega_menu_not_found'], 'a post that is no builder template')

  const emptyTpl = await template('publish', 'not json [')
  await store.setMega(item.id, emptyTpl)
  const broken = await h.call('GET', M, { query: { item_id: item.id } })
  t.same([broken.status, broken.body], [200, ''], 'unreadable builder data renders as nothing')
})
