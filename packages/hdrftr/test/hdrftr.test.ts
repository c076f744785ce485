/**
 * hdrftr/v1 through HTTP (builder-family.md §7): the routes each profile
 * serves, who may call them, the widget catalogue, the newsletter webhook
 * against a local stand-in of the subscription service (and without it),
 * the AI tools settings and the learning progress of each user.
 */
import t from 'tap'
import { registryPackage } from '@cms/registry'
import { scratchDir, standIn, testApp, type TestApp } from '@cms/testing'
import { hdrftrPackage } from '../src/index.js'
import { CHAPTERS } from '../src/learn.js'
import { WIDGETS } from '../src/widgets.js'

const H = '/hdrftr/v1'
const COMMON = ['widgets', 'plugins', 'recommended-plugins', 'templates', 'email-webhook']
const PROFILE_B = ['mcp-abilities', 'mcp-settings', 'get-learn-chapters', 'update-learn-progress']

async function app (opts: { learn?: boolean, env?: Record<string, string> } = {}): Promise<TestApp> {
  return await testApp({
    packages: [registryPackage, hdrftrPackage],
    namespaces: ['cms/v2', 'hdrftr/v1', 'cms-abilities/v1'],
    contentDir: await scratchDir('hdrftr-content'),
    ...(opts.learn === true ? { namespaceOptions: { 'hdrftr/v1': { learnRoutes: true } } } : {}),
    ...(opts.env === undefined ? {} : { env: opts.env })
  })
}

async function option (h: TestApp, name: string): Promise<unknown> {
  const rows = await h.store.execute<{ value: unknown }>(`select value from options where name = '${name}'`)
  return rows[0]?.value
}

t.test('the routes of each profile', async (t) => {
  for (const learn of [false, true]) {
    const h = await app({ learn })
    t.teardown(h.close)
    const index = await h.call('GET', H)
    const routes = Object.keys(index.body.routes).sort()
    const expected = [H, ...COMMON.map((r) => `${H}/${r}`), ...(learn ? PROFILE_B.map((r) => `${H}/${r}`) : [])].sort()
    t.same(routes, expected, `profile ${learn ? 'B' : 'A'} serves its routes`)
    if (!learn) {
      const admin = await h.caller('administrator')
      const gone = await h.call('GET', `${H}/get-learn-chapters`, { as: admin })
      t.same([gone.status, gone.body.code], [404, 'rest_no_route'], 'profile A has no learning routes')
    }
  }
})

t.test('profile B', async (t) => {
  const h = await app({ learn: true })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const admin2 = await h.caller('administrator')
  const editor = await h.caller('editor')
  const subscriber = await h.caller('subscriber')

  t.test('every route needs manage_options: 401 anonymous, 403 signed in', async (t) => {
    const calls: Array<[string, string, unknown?]> = [
      ...COMMON.filter((r) => r !== 'email-webhook').map((r): [string, string] => ['GET', r]),
      ['POST', 'email-webhook', { email: 'a@example.com' }],
      ['GET', 'mcp-abilities'], ['GET', 'mcp-settings'], ['POST', 'mcp-settings', {}], ['GET', 'get-learn-chapters'],
      ['POST', 'update-learn-progress', { chapterId: 'create-header', stepId: 'setup-header', completed: true }]
    ]
    for (const [method, path, body] of calls) {
      const anon = await h.call(method, `${H}/${path}`, { body })
      t.equal(anon.status, 401, `${method} ${path} anonymous: 401`)
      for (const who of [editor, subscriber]) {
        t.equal((await h.call(method, `${H}/${path}`, { as: who, body })).status, 403, `${method} ${path} ${who.role}: 403`)
      }
    }
    const anon = await h.call('GET', `${H}/widgets`)
    t.same(anon.body, { code: 'hdrftr_rest_not_allowed', message: 'Sorry, you are not authorized to perform this action.', data: { status: 401 } })
    t.equal((await h.call('GET', `${H}/get-learn-chapters`, { as: editor })).body.code, 'rest_cannot_view')
    t.same(await option(h, 'hdrftr_learn_progress'), undefined)
  })

  t.test('widgets: the catalogue with each free widget\'s activation', async (t) => {
    const res = await h.call('GET', `${H}/widgets`, { as: admin })
    t.equal(res.status, 200)
    t.same(Object.keys(res.body), WIDGETS.map((w) => w.key))
    t.match(res.body.Retina, { slug: 'retina', title: 'Retina Logo', keywords: ['hdrftr', 'retina', 'image', 'logo'], icon: 'hdrftr-icon-retina', title_url: '#', default: true, is_pro: false, category: 'header-footer', is_activate: true })
    t.equal(res.body.Scroll_To_Top.is_activate, false, 'an extension is off until turned on')
    t.equal(res.body.Advanced_Heading.is_pro, true)
    t.notOk('is_activate' in res.body.Advanced_Heading, 'a Pro widget has no activation')
    t.equal(res.body.Infocard.is_new, true)

    const cli = h.platform.services.options
    t.ok(cli.spec('hdrftr_widgets'))
    await h.store.execute('insert into options (name, value) values (\'hdrftr_widgets\', \'{"Retina":"disabled","Scroll_To_Top":"Scroll_To_Top"}\')')
    const after = await h.call('GET', `${H}/widgets`, { as: admin })
    t.equal(after.body.Retina.is_activate, false, 'disabled in the option')
    t.equal(after.body.Scroll_To_Top.is_activate, true, 'turned on in the option')
    t.equal(after.body.Site_Title.is_activate, true, 'absent: its default')
  })

  t.test('email-webhook without the subscription service: 503 naming the setting', async (t) => {
    const res = await h.call('POST', `${H}/email-webhook`, { as: admin, body: { email: 'a@example.com' } })
    t.same([res.status, res.body.code, res.body.data.setting], [503, 'rest_upstream_unconfigured', 'CMS_UPSTREAM_HDRFTR_SUBSCRIPTION_URL'])
    t.equal(await option(h, 'hdrftr_subscription'), undefined, 'nothing set')
    const bad = await h.call('POST', `${H}/email-webhook`, { as: admin, body: { email: 'not an address' } })
    t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'], 'the address is checked first')
  })

  t.test('mcp-settings: defaults, computed fields, saving the five keys', async (t) => {
    const res = await h.call('GET', `${H}/mcp-settings`, { as: admin })
    t.same(res.body, {
      enable_abilities: false,
      allow_modifications: true,
      dedicated_server: false,
      assistant_enabled: false,
      disabled_abilities: [],
      is_abilities_api_active: false,
      is_mcp_adapter_active: false,
      is_assistant_active: false,
      dedicated_server_url: null,
      total_abilities: 0
    }, 'no abilities API, no dedicated server: none counted, no URL')

    for (const body of [[1, 2], 'text', 7]) {
      const bad = await h.call('POST', `${H}/mcp-settings`, { as: admin, body })
      t.same([bad.status, bad.body.code, bad.body.message], [400, 'invalid_params', 'Invalid parameters.'], `a body of ${JSON.stringify(body)} is refused`)
    }
    t.equal(await option(h, 'hdrftr_mcp_settings'), undefined, 'nothing stored')
    const wrong = await h.call('POST', `${H}/mcp-settings`, { as: admin, body: { enable_abilities: { a: 1 } } })
    t.same([wrong.status, wrong.body.code], [400, 'invalid_params'])
    const list = await h.call('POST', `${H}/mcp-settings`, { as: admin, body: { disabled_abilities: 'toggle-widget' } })
    t.same([list.status, list.body.code], [400, 'invalid_params'])

    const saved = await h.call('POST', `${H}/mcp-settings`, { as: admin, body: { enable_abilities: '1', allow_modifications: 0, disabled_abilities: ['toggle-widget', 'hdrftr/delete-template'], other: 'ignored' } })
    t.same(saved.body, { success: true, settings: { enable_abilities: true, allow_modifications: false, dedicated_server: false, assistant_enabled: false, disabled_abilities: ['toggle-widget', 'hdrftr/delete-template'] } })
    t.same(await option(h, 'hdrftr_mcp_settings'), saved.body.settings, 'the five keys stored, nothing else')
    const partial = await h.call('POST', `${H}/mcp-settings`, { as: admin, body: { dedicated_server: true } })
    t.same(partial.body.settings, { ...saved.body.settings, dedicated_server: true }, 'absent keys keep their value')
    t.match(await option(h, 'hdrftr_usage_events'), { mcp_enable_abilities: Number, mcp_dedicated_server: Number }, 'first enables recorded locally')

    // Without an abilities API nothing can run an ability: none is listed, whatever the settings say.
    const abilities = await h.call('GET', `${H}/mcp-abilities`, { as: admin })
    t.same([abilities.status, abilities.body], [200, []], 'no ability listed')
  })

  t.test('learning progress is per user', async (t) => {
    const fresh = await h.call('GET', `${H}/get-learn-chapters`, { as: admin })
    t.equal(fresh.status, 200)
    t.same(fresh.body.map((c: any) => c.id), CHAPTERS.map((c) => c.id))
    t.same(fresh.body[0].steps.map((s: any) => s.id), ['setup-header', 'setup-display-conditions', 'add-header-widgets'])
    t.match(fresh.body[0].steps[0], { learn: { type: 'dialog', content: { type: 'image', data: { src: String, alt: String } } }, action: { label: String, url: String, isExternal: true }, completed: false })
    t.equal(fresh.body.at(-1).steps[0].isPro, true)

    const done = await h.call('POST', `${H}/update-learn-progress`, { as: admin, body: { chapterId: 'create-footer', stepId: 'setup-display-conditions', completed: true } })
    t.same([done.status, done.body], [200, { success: true, message: 'Progress saved successfully.' }])
    const mine = await h.call('GET', `${H}/get-learn-chapters`, { as: admin })
    const footer = mine.body.find((c: any) => c.id === 'create-footer')
    t.same(footer.steps.map((s: any) => s.completed), [false, true, false])
    t.same(mine.body.find((c: any) => c.id === 'create-header').steps.map((s: any) => s.completed), [false, false, false], 'the same step id in another chapter is another step')
    const theirs = await h.call('GET', `${H}/get-learn-chapters`, { as: admin2 })
    t.ok(theirs.body.every((c: any) => c.steps.every((s: any) => s.completed === false)), 'another administrator has their own progress')

    const undo = await h.call('POST', `${H}/update-learn-progress`, { as: admin, body: { chapterId: 'create-footer', stepId: 'setup-display-conditions', completed: false } })
    t.equal(undo.status, 200)
    t.same((await h.call('GET', `${H}/get-learn-chapters`, { as: admin })).body.find((c: any) => c.id === 'create-footer').steps.map((s: any) => s.completed), [false, false, false])

    for (const body of [{ chapterId: 'nope', stepId: 'setup-header', completed: true }, { chapterId: 'create-header', stepId: 'setup-footer', completed: true }]) {
      const bad = await h.call('POST', `${H}/update-learn-progress`, { as: admin, body })
      t.same([bad.status, bad.body.code], [400, 'invalid_step'])
    }
    const missing = await h.call('POST', `${H}/update-learn-progress`, { as: admin, body: { chapterId: 'create-header', stepId: 'setup-header' } })
    t.same([missing.status, missing.body.code, missing.body.data.params], [400, 'rest_missing_callback_param', ['completed']])
    const typed = await h.call('POST', `${H}/update-learn-progress`, { as: admin, body: { chapterId: 'create-header', stepId: 'setup-header', completed: 'maybe' } })
    t.same([typed.status, typed.body.code], [400, 'rest_invalid_param'])
  })

  t.test('saves at once all count; finishing every step is recorded once', async (t) => {
    const all = CHAPTERS.flatMap((c) => c.steps.map((s) => ({ chapterId: c.id, stepId: s.id, completed: true })))
    const answers = await Promise.all(all.map(async (body) => await h.call('POST', `${H}/update-learn-progress`, { as: admin2, body })))
    t.ok(answers.every((a) => a.status === 200))
    const res = await h.call('GET', `${H}/get-learn-chapters`, { as: admin2 })
    t.ok(res.body.every((c: any) => c.steps.every((s: any) => s.completed === true)), 'no save lost')
    const events = await option(h, 'hdrftr_usage_events') as Record<string, number>
    t.type(events.learn_completed, 'number')
    const first = events.learn_completed
    await h.call('POST', `${H}/update-learn-progress`, { as: admin2, body: all[0] })
    t.equal((await option(h, 'hdrftr_usage_events') as Record<string, number>).learn_completed, first, 'recorded once')
  })
})

t.test('email-webhook with the subscription service', async (t) => {
  const service = await standIn()
  t.teardown(service.close)
  const h = await app({ env: { CMS_UPSTREAM_HDRFTR_SUBSCRIPTION_URL: service.url, CMS_UPSTREAM_HDRFTR_SUBSCRIPTION_TOKEN: 'sub-token' } })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')

  service.answer.status = 201
  const res = await h.call('POST', `${H}/email-webhook`, { as: admin, query: { domain: 'site.example' }, body: { email: 'reader@example.com', fname: 'Ada', lname: 'L', isActive: 'true', date: '2026-11-25' } })
  t.same([res.status, res.body], [200, { message: 'success' }])
  t.same(service.received.at(-1), { method: 'POST', path: '/api/', auth: 'Bearer sub-token', body: { email: 'reader@example.com', date: '2026-11-25', fname: 'Ada', lname: 'L', isActive: true, domain: 'site.example' } })
  t.equal(await option(h, 'hdrftr_subscription'), 'done', 'the subscription option set')

  service.answer.status = 204
  t.equal((await h.call('POST', `${H}/email-webhook`, { as: admin, body: { email: 'x@example.com' } })).status, 200, '204 is success')

  await h.store.execute("delete from options where name = 'hdrftr_subscription'")
  service.answer.status = 422
  service.answer.body = { message: 'Address refused' }
  const refused = await h.call('POST', `${H}/email-webhook`, { as: admin, body: { email: 'x@example.com' } })
  t.same([refused.status, refused.body.code, refused.body.message, refused.body.data.upstream_status], [502, 'rest_upstream_error', 'Error in API response: Address refused', 422])
  service.answer.status = 500
  service.answer.body = 'not json'
  const broken = await h.call('POST', `${H}/email-webhook`, { as: admin, body: { email: 'x@example.com' } })
  t.same([broken.status, broken.body.message, broken.body.data.upstream_status], [502, 'Error in API response: Unknown error', 500])
  t.equal(await option(h, 'hdrftr_subscription'), undefined, 'a failure sets nothing')

  const sent = service.received.length
  t.equal((await h.call('POST', `${H}/email-webhook`, { as: editor, body: { email: 'x@example.com' } })).status, 403)
  t.equal((await h.call('POST', `${H}/email-webhook`, { body: { email: 'x@example.com' } })).status, 401)
  for (const body of [{}, { email: 'x@example.com', fname: 'a'.repeat(201) }, { email: 'x@example.com', isActive: 'perhaps' }, { email: ['x@example.com'] }]) {
    t.equal((await h.call('POST', `${H}/email-webhook`, { as: admin, body })).status, 400, `${JSON.stringify(body).slice(0, 60)}: 400`)
  }
  t.equal(service.received.length, sent, 'refused calls reach no service')
})
