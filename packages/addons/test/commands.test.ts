/**
 * `cms menu`: menus and items written from the command line, then read
 * through HTTP by the mega menu; refusals of a bad command line.
 */
import t from 'tap'
import { builderPackage } from '@cms/builder'
import type { PackageCommandContext, Services } from '@cms/core'
import { testApp } from '@cms/testing'
import { addonsCommands } from '../src/commands.js'
import { addonsPackage } from '../src/index.js'

t.test('cms menu', async (t) => {
  const h = await testApp({ packages: [builderPackage, addonsPackage], namespaces: ['cms/v2', 'builder/v1', 'addons-a/v1', 'addons-b/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const lines: string[] = []
  const ctx: PackageCommandContext = {
    env: {},
    out: (text) => { lines.push(text) },
    progress: () => {},
    withServices: async <T>(fn: (s: Services) => Promise<T>) => await fn(h.services)
  }
  const [menu] = addonsCommands
  const tpl = await h.call('POST', '/builder/v1/template-library/templates', { as: admin, body: { type: 'section', title: 'Panel', content: [{ id: 'w1', elType: 'widget', widgetType: 'html', settings: { html: '<b>Deals</b>' } }] } })

  t.equal(await menu!.run(['create', 'Main menu'], ctx), 0)
  const menuId = lines.at(-1)!
  t.equal(await menu!.run(['add-item', menuId, 'Shop', '--url', 'https://shop.example.com/', '--mega', String(tpl.body.template_id)], ctx), 0)
  const itemId = lines.at(-1)!
  const res = await h.call('GET', '/addons-a/v1/megamenu', { query: { item_id: itemId } })
  t.same([res.status, res.body], [200, '<div class="builder-element builder-element-w1 builder-widget builder-widget-html"><b>Deals</b></div>'], 'the item written here opens its panel')

  t.equal(await menu!.run(['list', '--json'], ctx), 0)
  const listed = JSON.parse(lines.at(-1)!)
  t.same(listed.map((m: any) => [m.name, m.slug, m.items.map((i: any) => i.title)]), [['Main menu', 'main-menu', ['Shop']]])

  t.equal(await menu!.run(['set-mega', itemId, 'none'], ctx), 0)
  const none = await h.call('GET', '/addons-a/v1/megamenu', { query: { item_id: itemId } })
  t.equal(none.status, 404, 'the panel taken off')
  t.equal(await menu!.run(['set-mega', '999999', 'none'], ctx), 1, 'no such item')

  const post = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Plain', status: 'publish' } })
  await t.rejects(menu!.run(['set-mega', itemId, String(post.body.id)], ctx), { name: 'CommandUsageError' }, 'a post that is no template')
  await t.rejects(menu!.run(['add-item', '999999', 'Lost'], ctx), { name: 'CommandUsageError' }, 'an unknown menu')
  await t.rejects(menu!.run(['add-item', menuId, 'Bad', '--url', 'javascript:alert(1)'], ctx), { name: 'CommandUsageError' })
  await t.rejects(menu!.run(['create'], ctx), { name: 'CommandUsageError' })
  await t.rejects(menu!.run(['rename'], ctx), { name: 'CommandUsageError' })
})
