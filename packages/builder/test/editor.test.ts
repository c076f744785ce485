/**
 * The editor's helpers in builder/v1 (builder-family.md §2.3, §2.4, §2.6 to
 * §2.9) through HTTP: the link search, favorites, the current user's data,
 * the checklist (completion following the site's state), site navigation
 * and the template library.
 */
import t from 'tap'
import { largeStringifies, testApp } from '@cms/testing'
import { builderPackage } from '../src/index.js'
import { WIDGET_TYPES } from '../src/elements.js'
import { textPool, walkCounts, WALK_SLICE, type TextWorkEvent } from '@cms/core'

t.test('editor helpers', async (t) => {
  const h = await testApp({ packages: [builderPackage], namespaces: ['cms/v2', 'builder/v1'], env: { CMS_ADMIN_URL: 'https://admin.example/cms-admin' } })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const author = await h.caller('author')
  const contributor = await h.caller('contributor')
  const subscriber = await h.caller('subscriber')

  t.test('link search', async (t) => {
    const about = await h.call('POST', '/cms/v2/pages', { as: admin, body: { title: 'About us', status: 'publish' } })
    await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Abolish drafts', status: 'draft' } })
    const news = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'About the news', status: 'publish' } })
    const res = await h.call('GET', '/builder/v1/post', { as: contributor, query: { term: 'abo', post_keys_conversion_map: JSON.stringify({ ID: 'value', post_title: 'label', post_type: 'groupLabel' }) } })
    t.equal(res.status, 200, JSON.stringify(res.body))
    t.same(res.body, { success: true, data: { value: [{ value: news.body.id, label: 'About the news', groupLabel: 'Posts' }, { value: about.body.id, label: 'About us', groupLabel: 'Pages' }] } }, 'published only, newest first, mapped keys')
    const full = await h.call('GET', '/builder/v1/post', { as: contributor, query: { term: 'About us' } })
    t.equal(full.body.data.value.length, 1)
    t.match(full.body.data.value[0], { ID: about.body.id, post_title: 'About us', post_type: 'Pages', post_status: 'publish', post_password: '' })
    const pagesOut = await h.call('GET', '/builder/v1/post', { as: contributor, query: { term: 'abo', excluded_post_types: JSON.stringify(['page']), max_count: 500 } })
    t.same(pagesOut.body.data.value.map((r: any) => r.ID), [news.body.id], 'excluded types left out; max_count clamped')
    const one = await h.call('GET', '/builder/v1/post', { as: contributor, query: { term: 'abo', max_count: 0 } })
    t.equal(one.body.data.value.length, 1, 'max_count clamped up to 1')
    const byId = await h.call('GET', '/builder/v1/post', { as: contributor, query: { term: String(about.body.id) } })
    t.same(byId.body.data.value.map((r: any) => r.ID), [about.body.id], 'a digit term finds that id')
    t.same((await h.call('GET', '/builder/v1/post', { as: contributor, query: { term: '  ' } })).body, { success: true, data: { value: [] } })
    const bad = await h.call('GET', '/builder/v1/post', { as: contributor, query: { term: 'abo', post_keys_conversion_map: '{nope' } })
    t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'])
    const list = await h.call('GET', '/builder/v1/post', { as: contributor, query: { term: 'abo', post_keys_conversion_map: 'ID,post_title', excluded_post_types: 'post' } })
    t.same(list.body.data.value, [{ ID: about.body.id, post_title: 'About us' }], 'comma lists too')
    t.equal((await h.call('GET', '/builder/v1/post', { as: subscriber, query: { term: 'abo' } })).status, 403)
    t.equal((await h.call('GET', '/builder/v1/post', { query: { term: 'abo' } })).status, 401)
  })

  t.test('favorites', async (t) => {
    t.same((await h.call('GET', '/builder/v1/favorites', { as: contributor })).body, { widgets: [] }, 'none yet, and no 5xx')
    const added = await h.call('POST', '/builder/v1/favorites/widgets', { as: contributor, body: { favorite: 'heading,button,not-a-widget,container' } })
    t.same([added.status, added.body], [200, ['heading', 'button']], 'unknown names and elements dropped')
    t.same((await h.call('POST', '/builder/v1/favorites/widgets', { as: contributor, body: { favorite: 'heading' } })).body, ['heading', 'button'], 'a set')
    t.same((await h.call('DELETE', '/builder/v1/favorites/widgets', { as: contributor, body: { favorite: 'heading' } })).body, ['button'])
    t.same((await h.call('GET', '/builder/v1/favorites', { as: contributor, query: { per_page: 5 } })).body, { widgets: ['button'] })
    t.same((await h.call('GET', '/builder/v1/favorites', { as: author })).body, { widgets: [] }, "another user's are their own")
    const unknown = await h.call('POST', '/builder/v1/favorites/elements', { as: contributor, body: { favorite: 'heading' } })
    t.same([unknown.status, unknown.body.code], [400, 'rest_invalid_param'])
    const missing = await h.call('POST', '/builder/v1/favorites/widgets', { as: contributor, body: {} })
    t.same([missing.status, missing.body.code], [400, 'rest_missing_callback_param'])
    t.equal((await h.call('GET', '/builder/v1/favorites', { as: contributor, query: { per_page: 101 } })).status, 400)
    t.equal((await h.call('POST', '/builder/v1/favorites/widgets', { as: subscriber, body: { favorite: 'heading' } })).status, 403)
  })

  t.test('favorites added at once by one user are all kept', async (t) => {
    const names = Object.keys(WIDGET_TYPES).slice(0, 12)
    const answers = await Promise.all(names.map(async (favorite) => await h.call('POST', '/builder/v1/favorites/widgets', { as: author, body: { favorite } })))
    t.same(answers.map((a) => a.status), names.map(() => 200))
    const { body } = await h.call('GET', '/builder/v1/favorites', { as: author })
    t.same([...body.widgets].sort(), [...names].sort(), 'no read-modify-write lost one')
  })

  t.test('current user data', async (t) => {
    const mine = await h.call('GET', '/builder/v1/user-data/current-user', { as: subscriber })
    t.equal(mine.status, 200)
    t.same(mine.body.suppressedMessages, [])
    t.ok(mine.body.capabilities.includes('read') && mine.body.capabilities.includes('subscriber'), 'capabilities and the role name')
    t.notOk(mine.body.capabilities.includes('edit_posts'))
    const set = await h.call('PATCH', '/builder/v1/user-data/current-user', { as: subscriber, body: { suppressedMessages: ['ai_get_started', 'checklist-popup', '', 7, null, { a: 1 }] } })
    t.same([set.status, set.body.suppressedMessages], [200, ['ai_get_started', 'checklist-popup']], 'empty and non-string entries dropped, not refused (the notes)')
    const notList = await h.call('PATCH', '/builder/v1/user-data/current-user', { as: subscriber, body: { suppressedMessages: 'checklist-popup' } })
    t.same([notList.status, notList.body.code], [400, 'rest_invalid_param'], 'not a list: refused')
    const tooMany = await h.call('PATCH', '/builder/v1/user-data/current-user', { as: subscriber, body: { suppressedMessages: Array.from({ length: 1001 }, (_, i) => `m${i}`) } })
    t.same([tooMany.status, tooMany.body.code], [400, 'rest_invalid_param'], 'over 1,000 entries: refused before any is read')
    const replaced = await h.call('PATCH', '/builder/v1/user-data/current-user', { as: subscriber, body: { suppressedMessages: ['checklist-popup'] } })
    t.same(replaced.body.suppressedMessages, ['checklist-popup'], 'replaces the set')
    t.same((await h.call('GET', '/builder/v1/user-data/current-user', { as: subscriber })).body.suppressedMessages, ['checklist-popup'])
    const bad = await h.call('PATCH', '/builder/v1/user-data/current-user', { as: subscriber, body: { suppressedMessages: { a: 1 } } })
    t.equal(bad.status, 400)
    t.equal((await h.call('GET', '/builder/v1/user-data/current-user')).status, 401)
  })

  t.test('checklist', async (t) => {
    const steps = await h.call('GET', '/builder/v1/checklist/steps', { as: admin })
    t.equal(steps.status, 200)
    t.same(steps.body.data.map((s: any) => s.config.id), ['add_logo', 'set_fonts_and_colors', 'create_pages', 'setup_header', 'assign_homepage'])
    t.same(steps.body.data.map((s: any) => s.is_absolute_completed), [false, false, false, false, false])
    t.match(steps.body.data[0].config, { title: 'Add your logo', is_completion_immutable: true, learn_more_text: 'Learn more' })

    // The site changes: a logo, three builder pages, custom colours and typography.
    await h.store.execute("update options set value = '7'::jsonb where name = 'site_logo'")
    const logo = await h.call('POST', '/cms/v2/settings', { as: admin, body: { site_logo: 0 } })
    t.equal(logo.status, 200, 'settings route reachable')
    const media = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Logo holder', status: 'publish' } })
    const setLogo = await h.call('POST', '/cms/v2/settings', { as: admin, body: { site_logo: media.body.id } })
    t.equal(setLogo.status, 200, JSON.stringify(setLogo.body))
    for (const title of ['Home', 'Team', 'Contact']) {
      const page = await h.call('POST', '/cms/v2/pages', { as: admin, body: { title, status: 'publish', meta: { _builder_edit_mode: 'builder' } } })
      t.equal(page.status, 201)
    }
    await h.call('POST', '/builder/v1/globals/colors/brand', { as: admin, body: { title: 'Brand', value: '#123456' } })
    await h.call('POST', '/builder/v1/globals/typography/body', { as: admin, body: { title: 'Body', value: { typography_font_family: 'Inter' } } })
    const after = await h.call('GET', '/builder/v1/checklist/steps', { as: admin })
    t.same(after.body.data.map((s: any) => [s.config.id, s.is_absolute_completed, s.is_immutable_completed]), [
      ['add_logo', true, true], ['set_fonts_and_colors', true, true], ['create_pages', true, true], ['setup_header', false, false], ['assign_homepage', false, false]
    ], 'completion computed from the site; immutable completion flipped')

    // Immutable: stays complete when the site changes back.
    await h.call('POST', '/cms/v2/settings', { as: admin, body: { site_logo: 0 } })
    const later = await h.call('GET', '/builder/v1/checklist/steps', { as: admin })
    t.same([later.body.data[0].is_absolute_completed, later.body.data[0].is_immutable_completed], [false, true], 'saved for good')

    const marked = await h.call('PATCH', '/builder/v1/checklist/steps/assign_homepage', { as: admin, body: { is_marked_completed: true, other: 1 } })
    t.same([marked.status, marked.body], [200, null])
    t.equal((await h.call('POST', '/builder/v1/checklist/steps/assign_homepage', { as: admin, body: { is_marked_completed: 'true' } })).status, 200, 'POST works as PUT')
    t.equal((await h.call('GET', '/builder/v1/checklist/steps', { as: admin })).body.data[4].is_marked_completed, true)
    const unknown = await h.call('PUT', '/builder/v1/checklist/steps/no_such_step', { as: admin, body: { is_marked_completed: true } })
    t.same([unknown.status, unknown.body.code, unknown.body.data.params?.id !== undefined], [400, 'rest_invalid_param', true], 'a step id that names no step: 400, as the notes record')
    const badBool = await h.call('PUT', '/builder/v1/checklist/steps/add_logo', { as: admin, body: { is_marked_completed: 'maybe' } })
    t.same([badBool.status, badBool.body.code], [400, 'rest_invalid_param'])
    for (const path of ['/builder/v1/checklist/12', '/builder/v1/checklist/steps/12']) {
      const digit = await h.call('GET', path, { as: admin })
      t.same([digit.status, digit.body.code, digit.body.data.status], [404, 'rest_invalid_step_id', 404], path)
    }

    t.same((await h.call('GET', '/builder/v1/checklist/user-progress', { as: admin })).body.data.should_open_in_editor, false)
    const sentFrom = Math.floor(Date.now() / 1000)
    const progress = await h.call('PUT', '/builder/v1/checklist/user-progress', { as: admin, body: { is_popup_minimized: true, last_opened_timestamp: true, builder_editor_counter: 2, ignored: 'x' } })
    t.same([progress.status, progress.body], [200, { data: 'success' }])
    const sentTo = Math.ceil(Date.now() / 1000)
    const read = await h.call('GET', '/builder/v1/checklist/user-progress', { as: admin })
    t.equal(read.body.data.is_popup_minimized, true)
    // Between the clocks read around the request, however long it took.
    const stamp = read.body.data.last_opened_timestamp
    t.ok(stamp >= sentFrom && stamp <= sentTo, `the server stores the current time (${stamp}, sent within ${sentFrom}..${sentTo})`)
    t.equal(read.body.data.should_open_in_editor, false, 'opened already')
    await h.call('PATCH', '/builder/v1/checklist/user-progress', { as: admin, body: { last_opened_timestamp: false } })
    t.equal((await h.call('GET', '/builder/v1/checklist/user-progress', { as: admin })).body.data.should_open_in_editor, true, 'second editor visit, never opened')
    t.equal((await h.call('POST', '/builder/v1/checklist/user-progress', { as: admin, body: { builder_editor_counter: -1 } })).status, 400)
    const index = await h.call('GET', '/builder/v1/checklist', { as: admin })
    t.equal(index.status, 200)
    t.equal(index.body.data.steps.length, 5)
    t.equal((await h.call('GET', '/builder/v1/checklist/steps', { as: await h.caller('editor') })).status, 403)
    t.equal((await h.call('GET', '/builder/v1/checklist/user-progress')).status, 401)
  })

  t.test('site navigation', async (t) => {
    const made = await h.call('POST', '/builder/v1/site-navigation/add-new-post', { as: author, body: { post_type: 'post' } })
    t.equal(made.status, 200, JSON.stringify(made.body))
    t.match(made.body, { id: Number, edit_url: /\/cms-admin\/post\.php\?post=\d+&action=builder$/ })
    const stored = await h.call('GET', `/cms/v2/posts/${made.body.id}`, { as: author, query: { context: 'edit' } })
    t.match(stored.body, { status: 'draft', author: author.id, meta: { _builder_edit_mode: 'builder', _builder_template_type: 'cms-post' } })
    const defaulted = await h.call('POST', '/builder/v1/site-navigation/add-new-post', { as: author, body: {} })
    t.equal(defaulted.status, 200, 'post by default')
    const page = await h.call('POST', '/builder/v1/site-navigation/add-new-post', { as: author, body: { post_type: 'page' } })
    t.same([page.status, page.body.code, page.body.data.status], [403, 'post_type_not_allowed', 403], 'authors may not create pages')
    const unknown = await h.call('POST', '/builder/v1/site-navigation/add-new-post', { as: author, body: { post_type: 'nope' } })
    t.same([unknown.status, unknown.body.code], [400, 'post_type_not_found'])

    const recent = await h.call('GET', '/builder/v1/site-navigation/recent-posts', { as: admin, query: { posts_per_page: 3 } })
    t.equal(recent.status, 200, JSON.stringify(recent.body))
    t.equal(recent.body.length, 3)
    t.match(recent.body[0], { id: defaulted.body.id, title: '', edit_url: /^https:\/\/admin\.example\/cms-admin\/post\.php\?post=/, date_modified: Number, type: { post_type: 'post', doc_type: 'cms-post', label: 'Post' } })
    const pagesOnly = await h.call('GET', '/builder/v1/site-navigation/recent-posts', { as: admin, query: { posts_per_page: 10, 'post_type[]': 'page' } })
    t.same(pagesOnly.body.map((r: any) => r.title), ['Contact', 'Team', 'Home'], 'builder pages only (not the plain page), newest first')
    const excluded = await h.call('GET', '/builder/v1/site-navigation/recent-posts', { as: admin, query: { posts_per_page: 10, post__not_in: String(made.body.id) } })
    t.notOk(excluded.body.some((r: any) => r.id === made.body.id))
    t.notOk(excluded.body.some((r: any) => r.type.doc_type === 'kit'), 'the kit is left out')
    t.same((await h.call('GET', '/builder/v1/site-navigation/recent-posts', { as: admin })).body.code, 'rest_missing_callback_param')
    t.equal((await h.call('GET', '/builder/v1/site-navigation/recent-posts', { as: admin, query: { posts_per_page: 0 } })).status, 400)
    t.equal((await h.call('GET', '/builder/v1/site-navigation/recent-posts', { as: subscriber, query: { posts_per_page: 3 } })).status, 403)
  })

  t.test('template library', async (t) => {
    const saved = await h.call('POST', '/builder/v1/template-library/templates', {
      as: contributor,
      body: { type: 'section', title: 'Hero', content: [{ id: 'a1', elType: 'widget', widgetType: 'html', settings: { html: '<script>x()</script><p>Hi</p>', link: { url: 'javascript:alert(1)' } } }] }
    })
    t.equal(saved.status, 200, JSON.stringify(saved.body))
    t.match(saved.body, { template_id: Number, source: 'local', type: 'section', title: 'Hero', thumbnail: false, date: Number, status: 'pending', hasPageSettings: false, tags: [] }, "a contributor's template waits for review")
    const meta = await h.store.execute<{ key: string, value: unknown }>(`select key, value from post_meta where post_id = ${Number(saved.body.template_id)} order by key`)
    const byKey = Object.fromEntries(meta.map((m) => [m.key, m.value]))
    t.equal(byKey._builder_template_type, 'section')
    t.same(JSON.parse(byKey._builder_data as string)[0].settings, { html: '<p>Hi</p>', link: { url: '' } }, "a contributor's data filtered")
    const pendingListed = await h.call('GET', '/builder/v1/template-library/templates', { as: admin })
    t.notOk(pendingListed.body.templates.some((x: any) => x.template_id === saved.body.template_id), "a contributor's pending template is not in the library")
    const untitled = await h.call('POST', '/builder/v1/template-library/templates', { as: author, body: { type: 'page' } })
    t.match(untitled.body, { title: '(no title)', status: 'publish' }, 'an author publishes; no title: "(no title)"')
    const published = await h.call('POST', '/builder/v1/template-library/templates', { as: author, body: { type: 'section', title: 'Hero' } })
    t.equal(published.body.status, 'publish')
    // Issue 27: the human dates are made by one formatter kept, not by toLocaleDateString (ICU's format built each
    // call, two a template). Counted, never timed.
    const toLocale = Date.prototype.toLocaleDateString
    let localized = 0
    Date.prototype.toLocaleDateString = function (this: Date, ...args: Parameters<typeof toLocale>) { localized++; return toLocale.apply(this, args) } // eslint-disable-line no-extend-native
    let list
    try {
      list = await h.call('GET', '/builder/v1/template-library/templates', { as: contributor, query: { source: 'local' } })
    } finally {
      Date.prototype.toLocaleDateString = toLocale // eslint-disable-line no-extend-native
    }
    t.equal(list.status, 200)
    t.equal(localized, 0, 'no toLocaleDateString a template')
    const when = new Date(Number(published.body.date) * 1000)
    t.equal(list.body.templates[0].human_date, toLocale.call(when, 'en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }), 'the date written as before')
    t.same(list.body.templates.map((x: any) => x.template_id), [published.body.template_id, untitled.body.template_id], 'the published templates, newest first; the kit is not a template')
    t.type(list.body.config, 'object')
    t.same((await h.call('GET', '/builder/v1/template-library/templates', { as: contributor, query: { source: 'remote' } })).body.templates, [])
    const badType = await h.call('POST', '/builder/v1/template-library/templates', { as: contributor, body: { type: 'header', title: 'X' } })
    t.same([badType.status, badType.body.code], [400, 'rest_invalid_param'])
    t.same((await h.call('POST', '/builder/v1/template-library/templates', { as: contributor, body: { title: 'X' } })).body.code, 'rest_missing_callback_param')
    t.equal((await h.call('POST', '/builder/v1/template-library/templates', { as: subscriber, body: { type: 'page' } })).status, 403)
  })

  // Issue 27: a template's content of many members is scanned, parsed, filtered and written back in the text pool (one
  // task), not walked on the request thread; stored as before. Counted, never timed.
  t.test('a template of many members is filtered in the text pool', async (t) => {
    const members = 9000 // under the kernel's 10,000 items of a list
    const content = Array.from({ length: members }, (_, i) => i % 2 === 0 ? `<b>${i}</b><script>x()</script>` : `plain ${i}`)
    const tasks: TextWorkEvent[] = []
    const stop = textPool.watch((e) => { if (e.phase === 'start') tasks.push(e) })
    t.teardown(stop)
    const before = walkCounts.slices
    const written = walkCounts.written
    const body = { type: 'section', title: 'Wide', content }
    // JSON.stringify of the whole content (and of its column's text) on the request thread was one long task: the
    // content is written as JSON a slice of members a turn, its column's text made in the pool.
    const large = await largeStringifies(JSON.stringify(body), async () => await h.call('POST', '/builder/v1/template-library/templates', { as: contributor, body }))
    const saved = large.value
    t.equal(saved.status, 200, JSON.stringify(saved.body).slice(0, 300))
    t.same(large.sizes, [], 'no JSON over 64 KiB written on the request thread')
    t.equal(walkCounts.written - written, Math.ceil(members / WALK_SLICE) - 1, 'the content written as JSON a slice a turn')
    t.same(tasks.filter((e) => e.task === 'filterJson').map((e) => e.where), ['pool'], 'the content: one task in the pool')
    // The page settings ({}) and the title are walked here, a slice each; the content (9,000 members) took 7 and more.
    t.equal(walkCounts.slices - before, 2, 'nothing of the content walked on the request thread')
    const [row] = await h.store.execute<{ value: string }>(`select value from post_meta where post_id = ${Number(saved.body.template_id)} and key = '_builder_data'`)
    const stored = JSON.parse(row!.value) as string[]
    t.equal(stored.length, members)
    t.equal(row!.value, JSON.stringify(content.map((c, i) => i % 2 === 0 ? `<b>${i}</b>` : c)), 'the same text as the filter wrote before')
    t.same([stored[0], stored[1], stored[members - 2]], ['<b>0</b>', 'plain 1', `<b>${members - 2}</b>`], 'filtered as before')
    const deep = await h.call('POST', '/builder/v1/template-library/templates', { as: contributor, body: { type: 'section', title: 'Deep', content: [JSON.parse('['.repeat(20) + ']'.repeat(20))] } })
    t.equal(deep.status, 200, 'nesting within the kernel\'s bound is stored')
  })

  t.test('the library type is listed by /cms/v2/types and its items link answers', async (t) => {
    const types = await h.call('GET', '/cms/v2/types')
    t.equal(types.status, 200)
    t.match(types.body.builder_library, { slug: 'builder_library', name: 'My Templates', rest_namespace: 'builder/v1', rest_base: 'template-library/templates' })
    const one = await h.call('GET', '/cms/v2/types/builder_library', { as: contributor, query: { context: 'edit' } })
    t.equal(one.status, 200)
    t.match(one.body, { viewable: false, supports: { title: true, builder: true }, labels: { singular_name: 'Template' } })
    const rel = Object.keys(one.body._links).find((k) => k.endsWith('items'))!
    const href = String(one.body._links[rel][0].href)
    t.match(decodeURIComponent(href), /\/builder\/v1\/template-library\/templates$/)
    const listed = await h.call('GET', '/builder/v1/template-library/templates', { as: contributor })
    t.equal(listed.status, 200, 'the link names a route that answers')
    const search = await h.call('GET', '/cms/v2/search', { query: { subtype: 'builder_library' } })
    t.equal(search.status, 400, 'templates are not a search subtype')
  })
})
