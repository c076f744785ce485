/**
 * theme-a/v1 reset (builder-family.md §8) and theme-helper/v1's root,
 * through HTTP: the stored customisation and generated CSS go back to
 * their defaults, every method, idempotent, administrators only.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { themesPackage } from '../src/index.js'

t.test('theme-a/v1/reset and theme-helper/v1', async (t) => {
  const h = await testApp({ packages: [themesPackage], namespaces: ['cms/v2', 'theme-a/v1', 'theme-helper/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const stored = async (): Promise<unknown[]> => (await h.store.execute<{ name: string, value: unknown }>("select name, value from options where name like 'theme_a_%' order by name")).map((r) => [r.name, r.value])

  await h.store.execute('insert into options (name, value) values (\'theme_a_settings\', \'{"background_color":"#000"}\'::jsonb), (\'theme_a_dynamic_css_output\', \'"body{background:#000}"\'::jsonb), (\'theme_a_dynamic_css_cached_version\', \'"3.1.0"\'::jsonb)')
  t.equal((await stored()).length, 3)
  for (const method of ['POST', 'PUT', 'PATCH']) {
    const res = await h.call(method, '/theme-a/v1/reset', { as: admin })
    t.same([res.status, res.body], [200, { success: true, response: 'Settings reset.' }], method)
    t.same(await stored(), [], 'the settings and the generated CSS are gone')
  }
  const anon = await h.call('POST', '/theme-a/v1/reset')
  t.same([anon.status, anon.body.code], [401, 'rest_forbidden'])
  const refused = await h.call('POST', '/theme-a/v1/reset', { as: editor })
  t.same([refused.status, refused.body.code], [403, 'rest_forbidden'])
  t.equal((await h.call('GET', '/theme-a/v1/reset', { as: admin })).status, 404, 'GET is not a method of the route')

  const root = await h.call('GET', '/theme-helper/v1')
  t.same([root.status, root.body.namespace, root.body.routes], [200, 'theme-helper/v1', { '/theme-helper/v1': root.body.routes['/theme-helper/v1'] }])
  const themeRoot = await h.call('GET', '/theme-a/v1')
  t.same(Object.keys(themeRoot.body.routes), ['/theme-a/v1', '/theme-a/v1/reset'])
  t.same(themeRoot.body.routes['/theme-a/v1/reset'].methods, ['POST', 'PUT', 'PATCH'])
})
