/**
 * builder/v1 globals, kit-elements-defaults and settings (builder-family.md
 * §2.1, §2.2, §2.5) through HTTP: the kit made on first use with the
 * factory defaults, the globals round trip (upsert by id, delete of a custom
 * row, a system row kept), element defaults kept to real controls, and the
 * builder's options.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { builderPackage } from '../src/index.js'

t.test('the design kit', async (t) => {
  const h = await testApp({ packages: [builderPackage], namespaces: ['cms/v2', 'builder/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const contributor = await h.caller('contributor')
  const editor = await h.caller('editor')

  t.test('made on first use with the factory defaults, once', async (t) => {
    t.same(await h.store.execute("select value from options where name = 'builder_active_kit'"), [], 'no kit before first use')
    const [a, b] = await Promise.all([h.call('GET', '/builder/v1/globals', { as: contributor }), h.call('GET', '/builder/v1/globals/colors', { as: contributor })])
    t.equal(a.status, 200)
    t.same(a.body.colors.primary, { id: 'primary', title: 'Primary', value: '#6EC1E4' })
    t.same(Object.keys(a.body.colors), ['primary', 'secondary', 'text', 'accent'])
    t.same(a.body.typography.primary, { title: 'Primary', id: 'primary', value: { typography_typography: 'custom', typography_font_family: 'Roboto', typography_font_weight: '600' } })
    t.same(b.body, a.body.colors)
    const kits = await h.store.execute<{ id: number, type: string, status: string }>("select p.id, p.type, p.status from posts p join post_meta m on m.post_id = p.id and m.key = '_builder_template_type' where m.value = '\"kit\"'")
    t.equal(kits.length, 1, 'one kit, however many first uses at once')
    t.same([kits[0]!.type, kits[0]!.status], ['builder_library', 'publish'])
    t.same(await h.store.execute("select value from options where name = 'builder_active_kit'"), [{ value: kits[0]!.id }], 'the option names it')
    const typography = await h.call('GET', '/builder/v1/globals/typography', { as: contributor })
    t.same(Object.keys(typography.body), ['primary', 'secondary', 'text', 'accent'])
  })

  t.test('globals round trip', async (t) => {
    const made = await h.call('POST', '/builder/v1/globals/colors/brand1', { as: admin, body: { title: 'Brand', value: '#ff0000' } })
    t.equal(made.status, 200, JSON.stringify(made.body))
    t.same(made.body, { id: 'brand1', title: 'Brand', value: '#ff0000' })
    const again = await h.call('POST', '/builder/v1/globals/colors/brand1', { as: admin, body: { title: 'Brand red', value: '#ee0000' } })
    t.same(again.body, { id: 'brand1', title: 'Brand red', value: '#ee0000' })
    const colors = await h.call('GET', '/builder/v1/globals/colors', { as: contributor })
    t.same(Object.keys(colors.body), ['primary', 'secondary', 'text', 'accent', 'brand1'], 'upserted: one row')
    t.same((await h.call('GET', '/builder/v1/globals/colors/brand1', { as: contributor })).body, { id: 'brand1', title: 'Brand red', value: '#ee0000' })
    const system = await h.call('POST', '/builder/v1/globals/colors/primary', { as: admin, body: { title: 'Primary', value: '#111111' } })
    t.same(system.body.value, '#111111', 'a system colour takes a new value')
    t.same((await h.call('GET', '/builder/v1/globals/colors', { as: contributor })).body.primary.value, '#111111')

    const font = await h.call('POST', '/builder/v1/globals/typography/heading1', { as: admin, body: { title: 'Heading <b>big</b><script>x</script>', value: { typography_font_family: 'Inter', typography_font_size: { unit: 'px', size: 40 } } } })
    t.equal(font.status, 200, JSON.stringify(font.body))
    t.same(font.body, { title: 'Heading <b>big</b>', id: 'heading1', value: { typography_font_family: 'Inter', typography_font_size: { unit: 'px', size: 40 } } })
    t.same((await h.call('GET', '/builder/v1/globals', { as: contributor })).body.typography.heading1, font.body)

    const removed = await h.call('DELETE', '/builder/v1/globals/colors/brand1', { as: admin })
    t.same([removed.status, removed.body], [200, { id: 'brand1', title: 'Brand red', value: '#ee0000' }])
    const gone = await h.call('GET', '/builder/v1/globals/colors/brand1', { as: contributor })
    t.same([gone.status, gone.body.code, gone.body.data.status], [404, 'global_not_found', 404])
    t.same((await h.call('DELETE', '/builder/v1/globals/colors/brand1', { as: admin })).body.code, 'global_not_found')
    const systemDelete = await h.call('DELETE', '/builder/v1/globals/colors/primary', { as: admin })
    t.same([systemDelete.status, systemDelete.body.code], [400, 'global_is_system'])
    t.equal((await h.call('GET', '/builder/v1/globals/colors/primary', { as: contributor })).status, 200, 'the system row is kept')
    t.equal((await h.call('DELETE', '/builder/v1/globals/typography/heading1', { as: admin })).status, 200)
    t.equal((await h.call('GET', '/builder/v1/globals/typography/heading1', { as: admin })).status, 404)
  })

  t.test('bad globals writes are 400s that save nothing', async (t) => {
    const before = (await h.call('GET', '/builder/v1/globals', { as: admin })).body
    const cases: Array<[string, unknown, string]> = [
      ['/builder/v1/globals/colors/x1', { value: '#000' }, 'invalid_title'],
      ['/builder/v1/globals/colors/x1', { title: '', value: '#000' }, 'invalid_title'],
      ['/builder/v1/globals/colors/x1', { title: 'X', value: '<script>' }, 'rest_invalid_param'],
      ['/builder/v1/globals/colors/x1', { title: 'X' }, 'rest_invalid_param'],
      ['/builder/v1/globals/typography/x1', { title: 'X', value: 'big' }, 'rest_invalid_param'],
      ['/builder/v1/globals/typography/x1', { title: 'X', value: { color: 'red' } }, 'rest_invalid_param']
    ]
    for (const [path, body, code] of cases) {
      const res = await h.call('POST', path, { as: admin, body })
      t.same([res.status, res.body.code, res.body.data.status], [400, code, 400], JSON.stringify(body))
    }
    t.same((await h.call('GET', '/builder/v1/globals', { as: admin })).body, before, 'nothing saved')
    t.equal((await h.call('GET', '/builder/v1/globals/colors/bad-id', { as: admin })).status, 404, 'an id outside [\\w]+ is no route')
  })

  t.test('who may', async (t) => {
    t.equal((await h.call('GET', '/builder/v1/globals')).status, 401)
    t.equal((await h.call('GET', '/builder/v1/globals', { as: await h.caller('subscriber') })).status, 403)
    const post = await h.call('POST', '/builder/v1/globals/colors/x2', { as: editor, body: { title: 'X', value: '#000' } })
    t.same([post.status, post.body.code], [403, 'rest_forbidden'])
    t.equal((await h.call('DELETE', '/builder/v1/globals/colors/primary', { as: editor })).status, 403)
  })

  t.test('kit element defaults', async (t) => {
    t.same((await h.call('GET', '/builder/v1/kit-elements-defaults', { as: contributor })).body, {})
    const set = await h.call('PUT', '/builder/v1/kit-elements-defaults/button', { as: admin, body: { settings: { background_color: '#000', border_radius: { unit: 'px', top: '4' }, not_a_control: 1, text: 'Go <script>x</script>' } } })
    t.same([set.status, set.body], [200, {}])
    t.same((await h.call('GET', '/builder/v1/kit-elements-defaults', { as: contributor })).body, { button: { background_color: '#000', border_radius: { unit: 'px', top: '4' }, text: 'Go ' } }, 'only real controls, strings filtered')
    const post = await h.call('POST', '/builder/v1/kit-elements-defaults/heading', { as: admin, body: { settings: { title: 'Hi', align: 'center' } } })
    t.equal(post.status, 200, 'POST works as PUT')
    const patch = await h.call('PATCH', '/builder/v1/kit-elements-defaults/heading', { as: admin, body: { settings: { align: 'left' } } })
    t.equal(patch.status, 200)
    t.same((await h.call('GET', '/builder/v1/kit-elements-defaults', { as: contributor })).body.heading, { align: 'left' }, 'a write replaces the type\'s entry')
    const del = await h.call('DELETE', '/builder/v1/kit-elements-defaults/button', { as: admin })
    t.same([del.status, del.body], [200, {}])
    t.same(Object.keys((await h.call('GET', '/builder/v1/kit-elements-defaults', { as: contributor })).body), ['heading'])
    for (const [method, body] of [['PUT', { settings: { a: 1 } }], ['DELETE', undefined]] as const) {
      const unknown = await h.call(method, '/builder/v1/kit-elements-defaults/not-a-widget', { as: admin, body })
      t.same([unknown.status, unknown.body.code], [400, 'rest_invalid_param'], `${method} of an unknown type`)
    }
    const proto = await h.call('PUT', '/builder/v1/kit-elements-defaults/__proto__', { as: admin, body: { settings: { a: 1 } } })
    t.equal(proto.status, 400)
    const missing = await h.call('PUT', '/builder/v1/kit-elements-defaults/button', { as: admin, body: {} })
    t.same([missing.status, missing.body.code], [400, 'rest_missing_callback_param'])
    const notObject = await h.call('PUT', '/builder/v1/kit-elements-defaults/button', { as: admin, body: { settings: 'x' } })
    t.same([notObject.status, notObject.body.code], [400, 'rest_invalid_param'])
    t.equal((await h.call('PUT', '/builder/v1/kit-elements-defaults/button', { as: editor, body: { settings: {} } })).status, 403)
    t.equal((await h.call('GET', '/builder/v1/kit-elements-defaults', { as: await h.caller('subscriber') })).status, 403)
  })

  t.test('settings', async (t) => {
    t.same((await h.call('GET', '/builder/v1/settings/builder_font_display', { as: admin })).body, { success: true, data: { value: 'auto' } })
    const set = await h.call('POST', '/builder/v1/settings/builder_font_display', { as: admin, body: { value: 'swap' } })
    t.same([set.status, set.body], [200, { success: true, data: { message: 'Setting updated successfully.' } }])
    t.same((await h.call('PUT', '/builder/v1/settings/builder_font_display', { as: admin, body: { value: 'swap' } })).body, { success: true }, 'the same value: nothing to do')
    t.same((await h.call('GET', '/builder/v1/settings/builder_font_display', { as: admin })).body.data.value, 'swap')
    t.same((await h.call('PATCH', '/builder/v1/settings/builder_allow_tracking', { as: admin, body: { value: true } })).status, 200)
    t.same((await h.call('GET', '/builder/v1/settings/builder_unknown_key', { as: admin })).body, { success: true, data: { value: false } }, 'an unset builder key reads as false')
    const bad = await h.call('POST', '/builder/v1/settings/builder_font_display', { as: admin, body: { value: 'sideways' } })
    t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'])
    t.same((await h.call('GET', '/builder/v1/settings/builder_font_display', { as: admin })).body.data.value, 'swap', 'nothing written')
    const noValue = await h.call('POST', '/builder/v1/settings/builder_font_display', { as: admin, body: {} })
    t.same([noValue.status, noValue.body.code], [400, 'rest_invalid_param'])
    for (const method of ['GET', 'POST']) {
      const outside = await h.call(method, '/builder/v1/settings/blogname', { as: admin, body: method === 'POST' ? { value: 'x' } : undefined })
      t.same([outside.status, outside.body.code], [400, 'rest_invalid_param'], `${method} of a key outside the prefix`)
    }
    // As the real product: any builder key is an option of its own, written and read back (stored only).
    const undeclared = await h.call('POST', '/builder/v1/settings/builder_unknown_key', { as: admin, body: { value: { a: [1, 'two'] } } })
    t.same([undeclared.status, undeclared.body], [200, { success: true, data: { message: 'Setting updated successfully.' } }], 'an undeclared builder key is written')
    await h.call('POST', '/builder/v1/settings/builder_other_key', { as: admin, body: { value: 'x' } })
    t.same((await h.call('GET', '/builder/v1/settings/builder_unknown_key', { as: admin })).body, { success: true, data: { value: { a: [1, 'two'] } } }, 'and read back')
    t.same((await h.call('PUT', '/builder/v1/settings/builder_unknown_key', { as: admin, body: { value: { a: [1, 'two'] } } })).body, { success: true }, 'the same value: nothing to do')
    t.same((await h.call('GET', '/builder/v1/settings/builder_other_key', { as: admin })).body.data.value, 'x', 'each key kept')
    t.equal((await h.call('GET', '/builder/v1/settings/builder_other_settings', { as: admin })).status, 400, 'the record that keeps them is no key')
    t.equal((await h.call('GET', '/builder/v1/settings/builder_font_display', { as: editor })).status, 403)
    t.equal((await h.call('GET', '/builder/v1/settings/builder_font_display')).status, 401)
  })
})
