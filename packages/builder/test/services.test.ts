/**
 * builder/v1 library/connect, send-event and cache, and builder-ai/v1
 * (builder-family.md §2.10 to §2.12, §4) through HTTP. The library and
 * events services are stand-ins this test starts on loopback (the
 * `builder-library` and `builder-events` upstreams); without their
 * settings the library connect is a 503 naming the setting.
 */
import t from 'tap'
import { standIn, testApp } from '@cms/testing'
import { builderPackage } from '../src/index.js'

t.test('with the library and events services configured', async (t) => {
  const library = await standIn()
  const events = await standIn()
  t.teardown(library.close)
  t.teardown(events.close)
  const h = await testApp({
    packages: [builderPackage],
    namespaces: ['cms/v2', 'builder/v1', 'builder-ai/v1'],
    env: { CMS_UPSTREAM_BUILDER_LIBRARY_URL: library.url, CMS_UPSTREAM_BUILDER_LIBRARY_TOKEN: 'lib-token', CMS_UPSTREAM_BUILDER_EVENTS_URL: events.url }
  })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')

  t.test('library connect: the token exchanged, the credentials kept sealed', async (t) => {
    library.answer.body = { client_id: 'client-1', auth_secret: 'auth-s3cret', access_token: 'access-t0ken-value', access_token_secret: 'ats', token_type: 'bearer', user: { email: 'a@example.com' } }
    const res = await h.call('POST', '/builder/v1/library/connect', { as: admin, body: { token: 'CONNECT-123' } })
    t.same([res.status, res.body], [201, { success: true, message: 'Connected successfully.' }])
    t.same(library.received.at(-1), { method: 'POST', path: '/api/connect', auth: 'Bearer lib-token', body: { token: 'CONNECT-123', site_url: 'http://cms.test', email: `${admin.login}@example.com` } })
    const rows = await h.store.execute<{ value: any }>(`select value from user_meta where user_id = ${admin.id} and key = 'builder_connect_library'`)
    t.equal(rows.length, 1)
    t.equal(rows[0]!.value.client_id, 'client-1')
    const stored = JSON.stringify(rows[0]!.value)
    t.notMatch(stored, /access-t0ken-value|auth-s3cret/, 'no secret stored in the clear')
    t.match(rows[0]!.value.sealed, /^v1\./)

    library.answer.body = { error: 'bad token' }
    const refused = await h.call('POST', '/builder/v1/library/connect', { as: admin, body: { token: 'WRONG' } })
    t.same([refused.status, refused.body.code], [502, 'rest_upstream_error'], 'no access token: not connected')
    library.answer.status = 500
    t.same((await h.call('POST', '/builder/v1/library/connect', { as: admin, body: { token: 'X' } })).status, 502)
    library.answer.status = 200
    t.same(JSON.stringify((await h.store.execute<{ value: any }>(`select value from user_meta where user_id = ${admin.id} and key = 'builder_connect_library'`))[0]!.value), stored, 'a failed connect keeps what was there')

    const missing = await h.call('POST', '/builder/v1/library/connect', { as: admin, body: {} })
    t.same([missing.status, missing.body.code], [400, 'rest_missing_callback_param'])
    t.equal((await h.call('POST', '/builder/v1/library/connect', { as: editor, body: { token: 'X' } })).status, 403)
    const sent = library.received.length
    t.equal((await h.call('POST', '/builder/v1/library/connect', { body: { token: 'X' } })).status, 401)
    t.equal(library.received.length, sent, 'refused callers reach no upstream')

    const gone = await h.call('DELETE', '/builder/v1/library/connect', { as: admin })
    t.same([gone.status, gone.body], [200, { success: true, message: 'Disconnected successfully.' }])
    t.same(await h.store.execute(`select value from user_meta where user_id = ${admin.id} and key = 'builder_connect_library'`), [])
  })

  t.test('send-event: recorded, capped, forwarded only when tracking is allowed', async (t) => {
    const first = await h.call('POST', '/builder/v1/send-event', { as: admin, body: { event_data: { name: 'editor_loaded', ts: 1717000000 } } })
    t.same([first.status, first.body.success, first.body.data.forwarded], [200, true, false])
    t.equal(events.received.length, 0, 'tracking is off: nothing leaves the site')
    t.equal((await h.call('POST', '/builder/v1/settings/builder_allow_tracking', { as: admin, body: { value: true } })).status, 200)
    const second = await h.call('POST', '/builder/v1/send-event', { as: admin, body: { event_data: { name: 'widget_added', details: { widget: 'heading' } } } })
    t.equal(second.body.data.forwarded, true)
    t.same(events.received.map((r) => [r.path, r.body]), [['/api/', { name: 'widget_added', details: { widget: 'heading' } }]])
    events.answer.status = 503
    const failed = await h.call('POST', '/builder/v1/send-event', { as: admin, body: { event_data: { name: 'lost' } } })
    t.same([failed.status, failed.body.code], [502, 'rest_upstream_error'])
    events.answer.status = 200
    await h.call('POST', '/builder/v1/settings/builder_allow_tracking', { as: admin, body: { value: false } })

    const list = await h.call('GET', '/builder/v1/send-event', { as: admin, query: { per_page: 1 } })
    t.equal(list.status, 200)
    t.same(list.body.map((e: any) => e.event_data.name), ['widget_added'])
    t.equal(list.headers['x-cms-total'], '2', 'the failed forward stored nothing')
    t.equal((await h.call('GET', '/builder/v1/send-event', { as: admin, query: { page: 9 } })).status, 400)
    t.equal((await h.call('GET', '/builder/v1/send-event', { as: admin })).body.at(-1).created_at, '2024-05-29T16:26:40', 'created_at from event_data.ts')

    await h.store.execute('insert into builder_events (event_data, user_id) select jsonb_build_object(\'n\', g), 0 from generate_series(1, 1000) g')
    await h.call('POST', '/builder/v1/send-event', { as: admin, body: { event_data: { name: 'newest' } } })
    t.same(await h.store.execute('select count(*)::int as n from builder_events'), [{ n: 1000 }], 'capped at 1,000 rows')
    t.same((await h.call('GET', '/builder/v1/send-event', { as: admin, query: { per_page: 1 } })).body[0].event_data, { name: 'newest' }, 'the oldest went')
    t.same(await h.store.execute("select count(*)::int as n from builder_events where event_data->>'name' = 'editor_loaded'"), [{ n: 0 }])

    t.same((await h.call('POST', '/builder/v1/send-event', { as: admin, body: {} })).body.code, 'rest_missing_callback_param')
    t.same((await h.call('POST', '/builder/v1/send-event', { as: admin, body: { event_data: 'x' } })).status, 400)
    t.same((await h.call('POST', '/builder/v1/send-event', { as: admin, body: { event_data: { big: 'x'.repeat(70_000) } } })).status, 400)
    t.equal((await h.call('POST', '/builder/v1/send-event', { as: editor, body: { event_data: {} } })).status, 403)
    t.equal((await h.call('GET', '/builder/v1/send-event')).status, 401)
  })

  t.test('cache: derived builder data cleared', async (t) => {
    const post = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Styled', status: 'publish' } })
    await h.store.execute(`insert into post_meta (post_id, key, value) values (${Number(post.body.id)}, '_builder_css', '{"status":"file"}'::jsonb), (${Number(post.body.id)}, '_builder_element_cache', '"x"'::jsonb), (${Number(post.body.id)}, 'kept', '1'::jsonb)`)
    const res = await h.call('DELETE', '/builder/v1/cache', { as: admin })
    t.same([res.status, res.body], [200, { success: true, data: { cleared: { _builder_css: 1, _builder_element_cache: 1, _builder_page_assets: 0 } } }])
    t.same(await h.store.execute(`select key from post_meta where post_id = ${Number(post.body.id)} order by key`), [{ key: 'kept' }], 'other meta kept')
    t.equal((await h.call('DELETE', '/builder/v1/cache', { as: editor })).status, 403)
  })

  t.test('builder-ai permissions', async (t) => {
    t.same((await h.call('GET', '/builder-ai/v1/permissions', { as: admin })).body, { success: true, data: { site_planner_connect: true } })
    t.equal((await h.call('GET', '/builder-ai/v1/permissions', { as: editor })).status, 403)
    t.equal((await h.call('GET', '/builder-ai/v1/permissions')).status, 401)
  })
})

t.test('without the library setting, connect is a 503 naming it (after validation and the permission check)', async (t) => {
  const h = await testApp({ packages: [builderPackage], namespaces: ['cms/v2', 'builder/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const res = await h.call('POST', '/builder/v1/library/connect', { as: admin, body: { token: 'CONNECT-123' } })
  t.same([res.status, res.body.code, res.body.data.status, res.body.data.setting], [503, 'rest_upstream_unconfigured', 503, 'CMS_UPSTREAM_BUILDER_LIBRARY_URL'])
  t.equal((await h.call('POST', '/builder/v1/library/connect', { as: admin, body: {} })).status, 400)
  t.equal((await h.call('POST', '/builder/v1/library/connect', { as: await h.caller('editor'), body: { token: 'X' } })).status, 403)
  t.equal((await h.call('DELETE', '/builder/v1/library/connect', { as: admin })).status, 200, 'forgetting needs no outside service')
  await h.call('POST', '/builder/v1/settings/builder_allow_tracking', { as: admin, body: { value: true } })
  const event = await h.call('POST', '/builder/v1/send-event', { as: admin, body: { event_data: { name: 'x' } } })
  t.same([event.status, event.body.data.forwarded], [200, false], 'no events service: recorded, not forwarded')
})
