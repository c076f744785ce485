/**
 * @cms/builder composed with the core: its post meta in cms/v2 and its
 * nps-survey/v1 routes (builder-family.md §5), through HTTP.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { builderPackage } from '../src/index.js'

t.test('builder package', async (t) => {
  const h = await testApp({ packages: [builderPackage], namespaces: ['cms/v2', 'nps-survey/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')

  t.test('the builder meta keys are registered on cms/v2', async (t) => {
    const created = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'B', status: 'publish', meta: { _builder_edit_mode: 'builder' } } })
    t.equal(created.status, 201)
    t.same(created.body.meta, { footnotes: '', _builder_edit_mode: 'builder', _builder_template_type: '', _builder_data: '', _builder_page_settings: {} })
    const view = await h.call('GET', `/cms/v2/posts/${created.body.id}`)
    t.same(view.body.meta, { footnotes: '' }, 'edit-context keys stay out of view')
    const bad = await h.call('POST', `/cms/v2/posts/${created.body.id}`, { as: admin, body: { meta: { _builder_template_type: 'nope' } } })
    t.equal(bad.status, 400)
    t.equal(bad.body.code, 'rest_not_in_enum')
  })

  t.test('rating and dismissal', async (t) => {
    const rated = await h.call('POST', '/nps-survey/v1/rating', { as: admin, body: { plugin_slug: 'hdrftr', rating: '9', comment: 'Good' } })
    t.equal(rated.status, 200)
    t.same(rated.body, { success: true, data: { status: true } })
    t.same(await h.store.execute('select plugin_slug, rating, comment, dismiss_permanently from nps_surveys'), [{ plugin_slug: 'hdrftr', rating: 9, comment: 'Good', dismiss_permanently: true }])

    const once = await h.call('POST', '/nps-survey/v1/dismiss-nps-survey', { as: admin, body: { plugin_slug: 'other', dismiss_timespan: 3600, current_step: 'nps-rating' } })
    t.same(once.body, { success: true, data: { status: true } })
    t.same(await h.store.execute("select dismiss_count, dismiss_permanently, dismiss_step, dismiss_timespan from nps_surveys where plugin_slug = 'other'"),
      [{ dismiss_count: 1, dismiss_permanently: false, dismiss_step: 'nps-rating', dismiss_timespan: 3600 }])
    await h.call('POST', '/nps-survey/v1/dismiss-nps-survey', { as: admin, body: { plugin_slug: 'other' } })
    t.same(await h.store.execute("select dismiss_count, dismiss_permanently from nps_surveys where plugin_slug = 'other'"),
      [{ dismiss_count: 2, dismiss_permanently: true }], 'retired from the second dismissal')
  })

  t.test('bad input is a 400 that writes nothing; callers without manage_options are refused', async (t) => {
    for (const body of [{ rating: 5 }, { plugin_slug: '../x', rating: 5 }, { plugin_slug: 'p', rating: 11 }, { plugin_slug: 'p', rating: 'ten' }]) {
      const res = await h.call('POST', '/nps-survey/v1/rating', { as: admin, body })
      t.equal(res.status, 400, JSON.stringify(body))
      t.equal(res.body.code, 'rest_invalid_param')
    }
    t.same(await h.store.execute("select plugin_slug from nps_surveys where plugin_slug = 'p'"), [])
    const asEditor = await h.call('POST', '/nps-survey/v1/rating', { as: editor, body: { plugin_slug: 'p', rating: 5 } })
    t.equal(asEditor.status, 403)
    t.equal(asEditor.body.code, 'gt_rest_cannot_access')
    const anon = await h.call('POST', '/nps-survey/v1/dismiss-nps-survey', { body: { plugin_slug: 'p' } })
    t.equal(anon.status, 401)
  })

  t.test('its table is migrated with its own migrations table', async (t) => {
    t.same(await h.store.execute('select count(*)::int as n from drizzle.__migrations_cms_builder'), [{ n: 1 }])
    t.same(h.platform.packages(), ['@cms/core', '@cms/builder'])
  })
})
