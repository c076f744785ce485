/**
 * @cms/builder composed with the core: its post meta in cms/v2 and its
 * nps-survey/v1 routes (builder-family.md §5), through HTTP. Ratings go to
 * a metrics server this test starts on loopback (the `nps-survey`
 * upstream).
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { largeStringifies, testApp } from '@cms/testing'
import { builderPackage } from '../src/index.js'
import { sql } from 'drizzle-orm'
import { textPool, walkCounts, type TextWorkEvent } from '@cms/core'

interface Received { method: string, path: string, auth: string | undefined, body: any }

/** The metrics server: answers `status` (or nothing at all for 'hang') and keeps what it received. */
async function metricsServer (): Promise<{ url: string, received: Received[], answer: { status: number | 'hang' }, close: () => Promise<void> }> {
  const received: Received[] = []
  const answer: { status: number | 'hang' } = { status: 201 }
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ method: req.method!, path: req.url!, auth: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') })
      if (answer.status === 'hang') return
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end('{"success":true}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/bsf-metrics-server/v1/nps-survey/`,
    received,
    answer,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  }
}

t.test('builder package', async (t) => {
  const metrics = await metricsServer()
  t.teardown(metrics.close)
  const h = await testApp({
    packages: [builderPackage],
    namespaces: ['cms/v2', 'nps-survey/v1'],
    env: { CMS_UPSTREAM_NPS_SURVEY_URL: metrics.url, CMS_UPSTREAM_NPS_SURVEY_TOKEN: 'metrics-token', CMS_UPSTREAM_NPS_SURVEY_TIMEOUT_MS: '2500' }
  })
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

  // Issue 27: builder data carried as JSON text is scanned, parsed, filtered and written back in the text pool, as one
  // task, none of it walked on the request thread. Counted, never timed.
  t.test('large builder data is filtered in the text pool, with the same result (issue 27)', async (t) => {
    const author = await h.caller('author')
    const elements = 5000
    const data = Array.from({ length: elements }, (_, i) => ({ id: `e${i}`, settings: { text: `<b>${i}</b><script>x()</script>`, url: 'javascript:alert(1)' } }))
    const tasks: TextWorkEvent[] = []
    const stop = textPool.watch((e) => { if (e.phase === 'start') tasks.push(e) })
    t.teardown(stop)
    const before = walkCounts.slices
    const body = { title: 'Big builder page', meta: { _builder_data: JSON.stringify(data) } }
    // JSON.stringify on this thread, by the size of what it wrote: the request's own body (the test sends it) aside,
    // nothing over 64 KiB (the jsonb column wrote the filtered data's JSON here before; the pool writes it now).
    const large = await largeStringifies(JSON.stringify(body), async () => await h.call('POST', '/cms/v2/posts', { as: author, body }))
    const created = large.value
    t.equal(created.status, 201)
    t.same(large.sizes, [], 'no JSON over 64 KiB written on the request thread')
    t.same(tasks.filter((e) => e.task === 'filterJson'), [{ task: 'filterJson', where: 'pool', phase: 'start' }], 'one task in the pool: scan, parse, filter, write back')
    t.equal(tasks.filter((e) => e.task === 'filterMany').length, 0, 'no texts handed over one list at a time')
    t.equal(walkCounts.slices, before, 'nothing walked on the request thread')
    const stored = JSON.parse(created.body.meta._builder_data as string) as typeof data
    t.equal(stored.length, elements)
    // Byte for byte what the filter wrote before (the column's text made in the pool is that text's JSON).
    const expected = JSON.stringify(Array.from({ length: elements }, (_, i) => ({ id: `e${i}`, settings: { text: `<b>${i}</b>`, url: '' } })))
    t.equal(created.body.meta._builder_data, expected, 'the stored text is the filtered JSON, as before')
    const [row] = await h.store.execute<{ v: string }>(sql`select value::text as v from post_meta where post_id = ${created.body.id} and key = '_builder_data'`)
    t.equal(row?.v, JSON.stringify(expected), 'the column holds its JSON, as JSON.stringify wrote it')
    for (const i of [0, 2500, elements - 1]) {
      t.same(stored[i], { id: `e${i}`, settings: { text: `<b>${i}</b>`, url: '' } }, `element ${i} filtered as before`)
    }
    const small = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Small', meta: { _builder_data: JSON.stringify([{ settings: { text: '<b>a</b><script>x()</script>', link: 'javascript:x' } }]) } } })
    t.same(JSON.parse(small.body.meta._builder_data as string), [{ settings: { text: '<b>a</b>', link: '' } }], 'small data filtered the same, inline')
    t.same(tasks.filter((e) => e.task === 'filterJson').map((e) => e.where), ['pool', 'inline'])
    const deep = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Deep', meta: { _builder_data: '['.repeat(300) + ']'.repeat(300) } } })
    t.same([deep.status, deep.body.message], [400, 'meta._builder_data is nested more than 256 levels deep.'], 'refusals name the value, as before')
    const broken = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Broken', meta: { _builder_data: `[${'"<b>x</b>",'.repeat(10_000)}` } } })
    t.same([broken.status, broken.body.message], [400, 'meta._builder_data is not valid JSON.'], 'from the pool too')
  })

  t.test('rating and dismissal', async (t) => {
    const rated = await h.call('POST', '/nps-survey/v1/rating', { as: admin, body: { plugin_slug: 'hdrftr', rating: '9', comment: 'Good' } })
    t.equal(rated.status, 200)
    t.same(rated.body, { success: true, data: { status: true } })
    t.same(metrics.received, [{
      method: 'POST',
      path: '/wp-json/bsf-metrics-server/v1/nps-survey/',
      auth: 'Bearer metrics-token',
      body: { rating: 9, comment: 'Good', email: `${admin.login}@example.com`, first_name: '', last_name: '', source: 'hdrftr', plugin_slug: 'hdrftr' }
    }], 'the rating is sent to the metrics server with the caller\'s e-mail')
    t.same(await h.store.execute('select plugin_slug, rating, comment, dismiss_permanently from nps_surveys'), [{ plugin_slug: 'hdrftr', rating: 9, comment: 'Good', dismiss_permanently: true }])

    const once = await h.call('POST', '/nps-survey/v1/dismiss-nps-survey', { as: admin, body: { plugin_slug: 'other', dismiss_timespan: 3600, current_step: 'nps-rating' } })
    t.same(once.body, { success: true, data: { status: true } })
    t.same(await h.store.execute("select dismiss_count, dismiss_permanently, dismiss_step, dismiss_timespan from nps_surveys where plugin_slug = 'other'"),
      [{ dismiss_count: 1, dismiss_permanently: false, dismiss_step: 'nps-rating', dismiss_timespan: 3600 }])
    await h.call('POST', '/nps-survey/v1/dismiss-nps-survey', { as: admin, body: { plugin_slug: 'other' } })
    t.same(await h.store.execute("select dismiss_count, dismiss_permanently from nps_surveys where plugin_slug = 'other'"),
      [{ dismiss_count: 2, dismiss_permanently: true }], 'retired from the second dismissal')
    t.equal(metrics.received.length, 1, 'dismissals stay local')
  })

  t.test('a failing or silent metrics server is a 502 / 504 and nothing is recorded', async (t) => {
    t.teardown(() => { metrics.answer.status = 201 })
    metrics.answer.status = 500
    const failed = await h.call('POST', '/nps-survey/v1/rating', { as: admin, body: { plugin_slug: 'failing', rating: 3 } })
    t.same([failed.status, failed.body.code, failed.body.data.status], [502, 'rest_upstream_error', 502])
    metrics.answer.status = 'hang'
    const hung = await h.call('POST', '/nps-survey/v1/rating', { as: admin, body: { plugin_slug: 'failing', rating: 3 } })
    t.same([hung.status, hung.body.code], [504, 'rest_upstream_timeout'])
    // The server never answers: the 504 is the configured timeout's (its time is not asserted, load stretches it).
    t.same(await h.store.execute("select plugin_slug from nps_surveys where plugin_slug = 'failing'"), [])
  })

  t.test('bad input is a 400 that writes nothing; callers without manage_options are refused', async (t) => {
    for (const body of [{ rating: 5 }, { plugin_slug: '../x', rating: 5 }, { plugin_slug: 'p', rating: 11 }, { plugin_slug: 'p', rating: 'ten' }]) {
      const res = await h.call('POST', '/nps-survey/v1/rating', { as: admin, body })
      t.equal(res.status, 400, JSON.stringify(body))
      t.equal(res.body.code, 'rest_invalid_param')
    }
    t.same(await h.store.execute("select plugin_slug from nps_surveys where plugin_slug = 'p'"), [])
    t.equal(metrics.received.filter((r) => r.body?.plugin_slug === 'p' || r.body?.plugin_slug === '../x').length, 0, 'nothing invalid is sent')
    const asEditor = await h.call('POST', '/nps-survey/v1/rating', { as: editor, body: { plugin_slug: 'p', rating: 5 } })
    t.equal(asEditor.status, 403)
    t.equal(asEditor.body.code, 'gt_rest_cannot_access')
    const anon = await h.call('POST', '/nps-survey/v1/dismiss-nps-survey', { body: { plugin_slug: 'p' } })
    t.equal(anon.status, 401)
  })

  t.test('its tables are migrated with its own migrations table', async (t) => {
    t.same(await h.store.execute('select count(*)::int as n from drizzle.__migrations_cms_builder'), [{ n: 2 }])
    t.same(h.platform.packages(), ['@cms/core', '@cms/builder'])
  })
})

t.test('without CMS_UPSTREAM_NPS_SURVEY_URL a rating is a 503 naming it (after validation and the permission check)', async (t) => {
  const h = await testApp({ packages: [builderPackage], namespaces: ['cms/v2', 'nps-survey/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const res = await h.call('POST', '/nps-survey/v1/rating', { as: admin, body: { plugin_slug: 'hdrftr', rating: 9 } })
  t.same([res.status, res.body.code, res.body.data.setting], [503, 'rest_upstream_unconfigured', 'CMS_UPSTREAM_NPS_SURVEY_URL'])
  t.match(res.body.message, /CMS_UPSTREAM_NPS_SURVEY_URL/)
  t.equal((await h.call('POST', '/nps-survey/v1/rating', { as: admin, body: { plugin_slug: 'hdrftr', rating: 12 } })).status, 400)
  t.equal((await h.call('POST', '/nps-survey/v1/rating', { as: await h.caller('editor'), body: { plugin_slug: 'hdrftr', rating: 9 } })).status, 403)
  t.equal((await h.call('POST', '/nps-survey/v1/rating', { body: { plugin_slug: 'hdrftr', rating: 9 } })).status, 401)
  t.same(await h.store.execute('select plugin_slug from nps_surveys'), [])
  const dismissed = await h.call('POST', '/nps-survey/v1/dismiss-nps-survey', { as: admin, body: { plugin_slug: 'hdrftr' } })
  t.equal(dismissed.status, 200, 'dismissing needs no outside service')
})
