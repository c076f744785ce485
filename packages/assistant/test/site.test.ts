/**
 * assistant/v1 settings, site and builder routes through HTTP
 * (seo-rollback-assistant-addons.md §3.6): JSON settings, the website id,
 * the site options whitelist, health, consent's return_to, the token from
 * a local stand-in of the assistant service (and without it), the kit and
 * library through the builder's service, who may call.
 */
import t from 'tap'
import { builderPackage } from '@cms/builder'
import { standIn, testApp } from '@cms/testing'
import { assistantPackage } from '../src/index.js'

const S = '/assistant/v1'

t.test('site routes', async (t) => {
  const assistant = await standIn()
  t.teardown(assistant.close)
  const h = await testApp({
    packages: [builderPackage, assistantPackage],
    namespaces: ['cms/v2', 'builder/v1', 'assistant/v1'],
    env: { CMS_UPSTREAM_ASSISTANT_URL: assistant.url, CMS_UPSTREAM_ASSISTANT_TOKEN: 'svc-token' }
  })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const author = await h.caller('author')
  const subscriber = await h.caller('subscriber')

  t.test('settings/{name}: JSON values', async (t) => {
    t.same((await h.call('GET', `${S}/settings/ui-state`, { as: admin })).body, { success: true, data: { name: 'ui-state', value: [] } })
    const saved = await h.call('POST', `${S}/settings/ui-state`, { as: admin, body: { value: { panel: 'open', n: [1, 2] } } })
    t.same(saved.body, { success: true, data: { name: 'ui-state', value: { panel: 'open', n: [1, 2] }, message: 'Setting updated successfully.' } })
    t.same((await h.call('GET', `${S}/settings/ui-state`, { as: admin })).body.data.value, { panel: 'open', n: [1, 2] })
    t.equal((await h.call('POST', `${S}/settings/ui-state`, { as: admin, body: { value: { panel: 'open', n: [1, 2] } } })).status, 200, 'the same value again is no error')
    t.same((await h.call('POST', `${S}/settings/text`, { as: admin, body: { value: '{"a":true}' } })).body.data.value, { a: true }, 'a string is JSON text')
    const notJson = await h.call('POST', `${S}/settings/text`, { as: admin, body: { value: '{a' } })
    t.same([notJson.status, notJson.body.code], [400, 'invalid_json'])
    const nothing = await h.call('POST', `${S}/settings/text`, { as: admin, body: { value: null } })
    t.same([nothing.status, nothing.body.code], [400, 'rest_missing_callback_param'], 'null is no value (the kernel says so first)')
    t.equal((await h.call('POST', `${S}/settings/text`, { as: admin, body: {} })).status, 400)
    const big = await h.call('POST', `${S}/settings/big`, { as: admin, body: { value: { text: 'x'.repeat(70_000) } } })
    t.same([big.status, big.body.code], [400, 'setting_too_large'])
    t.same(await h.store.execute("select name from assistant_settings where name = 'big'"), [], 'nothing written')
    t.equal((await h.call('GET', `${S}/settings/a.b`, { as: admin })).status, 404, 'names are letters, digits, _ and -')
  })

  t.test('website-uuid: made once, stable', async (t) => {
    const [a, b] = await Promise.all([h.call('GET', `${S}/website-uuid`, { as: admin }), h.call('GET', `${S}/website-uuid`, { as: admin })])
    t.match(a.body, { success: true, data: { uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/ } })
    t.equal(b.body.data.uuid, a.body.data.uuid)
    t.equal((await h.call('GET', `${S}/website-uuid`, { as: admin })).body.data.uuid, a.body.data.uuid)
  })

  t.test('cms-options: the whitelist, checked, all or nothing', async (t) => {
    const read = await h.call('GET', `${S}/cms-options`, { as: admin })
    t.match(read.body, { success: true, options: { name: 'My CMS Site', posts_per_page: 10, timezone_string: 'UTC' } })
    const wrote = await h.call('POST', `${S}/cms-options`, { as: admin, body: { options: { name: 'Assisted', posts_per_page: '12', timezone_string: 'Europe/Paris' } } })
    t.same(wrote.body, { success: true, message: 'All site options updated successfully.', updated_options: { name: 'Assisted', posts_per_page: 12, timezone_string: 'Europe/Paris' } })
    t.match((await h.call('GET', '/')).body, { name: 'Assisted' }, 'the site description reads the same options')
    const unknown = await h.call('POST', `${S}/cms-options`, { as: admin, body: { options: { name: 'X', users_can_register: 1 } } })
    t.same([unknown.status, unknown.body.code], [400, 'rest_invalid_param'])
    t.match(unknown.body.data.params.options, /Option "users_can_register" is not allowed/)
    const bad = await h.call('POST', `${S}/cms-options`, { as: admin, body: { options: { name: 'Y', timezone_string: 'Mars/Olympus' } } })
    t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'])
    t.match(bad.body.data.params.options, /timezone_string/)
    t.equal((await h.call('GET', `${S}/cms-options`, { as: admin })).body.options.name, 'Assisted', 'a refused write writes nothing')
    for (const options of [{}, [], 'name']) {
      const res = await h.call('POST', `${S}/cms-options`, { as: admin, body: { options } })
      t.equal(res.status, 400, `options ${JSON.stringify(options)}: 400`)
    }
    t.equal((await h.call('POST', `${S}/cms-options`, { as: editor, body: { options: { name: 'Z' } } })).status, 403)
  })

  t.test('cms-options/health', async (t) => {
    const res = await h.call('GET', `${S}/cms-options/health`, { as: admin })
    t.match(res.body.database, { status: 'good', badge: { label: 'Performance' }, test: 'database' })
    t.match(res.body.https_status, { status: 'recommended', test: 'https_status' })
    for (const r of Object.values(res.body) as any[]) t.ok(['good', 'recommended', 'critical'].includes(r.status))
  })

  t.test('consent: same-site return_to only', async (t) => {
    const plain = await h.call('POST', `${S}/consent`, { as: admin })
    t.same(plain.body, { message: 'Consent granted successfully', redirect: 'http://cms.test/' })
    t.equal((await h.call('POST', `${S}/consent`, { as: admin, body: { return_to: '/cms-admin/?page=x' } })).body.redirect, 'http://cms.test/cms-admin/?page=x')
    t.equal((await h.call('POST', `${S}/consent`, { as: admin, body: { return_to: 'http://cms.test/a' } })).body.redirect, 'http://cms.test/a')
    for (const bad of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)', '\\\\evil.example', 'http://cms.test.evil.example/']) {
      const res = await h.call('POST', `${S}/consent`, { as: admin, body: { return_to: bad } })
      t.same([res.status, res.body.code], [400, 'invalid_return_to'], `${bad} refused`)
    }
    const stored = await h.store.execute<{ value: unknown }>("select value from options where name = 'assistant_external_scripts_consent'")
    t.match(String(stored[0]?.value), /yes/)
  })

  t.test('token: from the assistant service', async (t) => {
    assistant.answer.body = { access_token: 'jwt-abc', expires_in: 3400 }
    const res = await h.call('GET', `${S}/token`, { as: admin })
    t.same(res.body, { access_token: 'jwt-abc', token_type: 'Bearer', expires_in: 3400 })
    const sent = assistant.received.at(-1)!
    t.match(sent, { method: 'POST', path: '/api/token', auth: 'Bearer svc-token', body: { user_id: admin.id, site_url: 'http://cms.test' } })
    t.match(sent.body.website_uuid, /^[0-9a-f-]{36}$/)
    assistant.answer.body = { error: 'no' }
    t.same((await h.call('GET', `${S}/token`, { as: admin })).body.code, 'no_token')
    assistant.answer.status = 500
    const failed = await h.call('GET', `${S}/token`, { as: admin })
    t.same([failed.status, failed.body.code], [502, 'rest_upstream_error'])
    assistant.answer.status = 200
    t.equal((await h.call('GET', `${S}/token`, { as: editor })).status, 403)
  })

  t.test('the builder kit, through the builder', async (t) => {
    const kit = await h.call('GET', `${S}/builder-kit`, { as: admin })
    t.match(kit.body, { system_colors: [{ _id: 'primary', color: '#6EC1E4' }], custom_colors: [] })
    const globals = await h.call('GET', '/builder/v1/globals', { as: admin })
    t.equal(globals.status, 200)
    const update = { custom_colors: [{ _id: 'brand', title: 'Brand', color: '#112233' }], container_width: { size: 1200, unit: 'px' } }
    const saved = await h.call('POST', `${S}/builder-kit`, { as: admin, body: update })
    t.match(saved.body, { success: true, message: 'Site settings updated successfully', updated_settings: update })
    t.type(saved.body.kit_id, 'number')
    const after = await h.call('GET', `${S}/builder-kit`, { as: admin })
    t.same([after.body.custom_colors, after.body.container_width, after.body.system_colors.length], [update.custom_colors, update.container_width, 4], 'merged: other keys kept')
    t.match((await h.call('GET', '/builder/v1/globals/colors/brand', { as: admin })).body, { id: 'brand', value: '#112233' }, 'the builder sees the same kit')
    const badRows = await h.call('POST', `${S}/builder-kit`, { as: admin, body: { custom_colors: 'red' } })
    t.same([badRows.status, badRows.body.code], [400, 'rest_invalid_param'])
    t.equal((await h.call('GET', `${S}/builder-kit`, { as: editor })).status, 403, 'edit_theme_options: administrators')

    t.match((await h.call('GET', `${S}/builder-kit/schema`, { as: admin })).body, { 'global-colors': { system_colors: { type: 'repeater' } }, 'global-typography': { custom_typography: { type: 'repeater' } } })
    t.match((await h.call('GET', `${S}/builder-kit/fonts`, { as: admin })).body, { fonts: { Roboto: 'googlefonts' }, google_fonts_enabled: true, font_display_setting: 'auto' })
    t.same((await h.call('GET', `${S}/builder-settings/supported-post-types`, { as: admin })).body, ['post', 'page'])
    t.equal((await h.call('GET', `${S}/builder-settings/supported-post-types`, { as: editor })).status, 403, 'use_assistant: administrators')
  })

  t.test('the library: template types and sync-type', async (t) => {
    const types = await h.call('GET', `${S}/builder-library/template-types`, { as: author })
    t.same(types.body.data.map((x: any) => x.type), ['page', 'section', 'container', 'kit'])
    t.equal((await h.call('GET', `${S}/builder-library/template-types`, { as: subscriber })).status, 403)

    const doc = await h.services.content.createPost({ type: 'builder_library', title: 'Hero', status: 'publish', author: admin.id, siteUrl: 'http://cms.test', meta: { _builder_template_type: 'section' } })
    const synced = await h.call('POST', `${S}/builder-library/${doc.id}/sync-type`, { as: admin, body: { template_type: 'page' } })
    t.same(synced.body, { post_id: doc.id, template_type: 'page', terms: ['page'] })
    t.equal((await h.services.content.post(doc.id))!.meta._builder_template_type, 'page')
    const post = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Plain', status: 'publish' } })
    const notLibrary = await h.call('POST', `${S}/builder-library/${post.body.id}/sync-type`, { as: admin, body: { template_type: 'page' } })
    t.same([notLibrary.status, notLibrary.body.code], [400, 'invalid_post_type'])
    t.same((await h.call('POST', `${S}/builder-library/99999/sync-type`, { as: admin, body: { template_type: 'page' } })).body.code, 'rest_post_invalid_id')
    t.equal((await h.call('POST', `${S}/builder-library/${doc.id}/sync-type`, { as: author, body: { template_type: 'page' } })).status, 403, 'edit_post on another\'s document')
    const badType = await h.call('POST', `${S}/builder-library/${doc.id}/sync-type`, { as: admin, body: { template_type: 'Page Type!' } })
    t.same([badType.status, badType.body.code], [400, 'rest_invalid_param'])
  })

  t.test('page-templates: the post type\'s edit capability', async (t) => {
    t.same((await h.call('GET', `${S}/page-templates`, { as: editor })).body, { success: true, data: { post_type: 'page', templates: {} } })
    t.equal((await h.call('GET', `${S}/page-templates`, { as: author })).status, 403, 'authors may not edit pages')
    t.equal((await h.call('GET', `${S}/page-templates`, { as: author, query: { post_type: 'post' } })).status, 200)
    t.equal((await h.call('GET', `${S}/page-templates`, { as: admin, query: { post_type: 'nope' } })).status, 403, 'an unknown post type is refused')
    t.equal((await h.call('GET', `${S}/page-templates`)).status, 401)
  })

  t.test('who may call: manage_options', async (t) => {
    for (const [method, path, body] of [['GET', 'settings/x'], ['POST', 'settings/x', { value: 1 }], ['GET', 'website-uuid'], ['GET', 'cms-options'], ['GET', 'cms-options/health'], ['POST', 'consent'], ['POST', 'dev-mode', { enabled: false }], ['GET', 'dev-mode/status']] as Array<[string, string, unknown?]>) {
      t.same([(await h.call(method, `${S}/${path}`, { body })).status, (await h.call(method, `${S}/${path}`, { as: editor, body })).status], [401, 403], `${method} ${path}`)
    }
  })
})

t.test('token without the assistant service configured: 503 naming the setting', async (t) => {
  const h = await testApp({ packages: [builderPackage, assistantPackage], namespaces: ['cms/v2', 'assistant/v1'] })
  t.teardown(h.close)
  const res = await h.call('GET', `${S}/token`, { as: await h.caller('administrator') })
  t.same([res.status, res.body.code, res.body.data.setting], [503, 'rest_upstream_unconfigured', 'CMS_UPSTREAM_ASSISTANT_URL'])
})
