/**
 * get_tasks / complete_task / action_tracking / workouts through HTTP: the
 * task list follows the site (the sample page deleted by its task really
 * is gone, templates set, the wizard finished, scores below good), an
 * unknown task is a 404 in the error shape, and each route's permission.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

t.test('tasks', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const author = await h.caller('author')
  const options = h.platform.services.options
  const tasks = async (): Promise<Record<string, any>> => {
    const res = await h.call('GET', '/seo/v1/get_tasks', { as: admin })
    t.equal(res.status, 200)
    t.equal(res.body.success, true)
    return res.body.tasks
  }
  const done = async (): Promise<Record<string, boolean>> => Object.fromEntries(Object.entries(await tasks()).map(([id, task]) => [id, task.isCompleted]))

  t.test('the list reflects the site', async (t) => {
    const first = await tasks()
    t.same(Object.keys(first).slice(0, 5), ['complete-ftc', 'create-new-content', 'delete-hello-world', 'delete-sample-page', 'enable-llms-txt'])
    t.match(first['complete-ftc'], { id: 'complete-ftc', duration: 15, priority: 'high', badge: null, isCompleted: false, callToAction: { type: 'link' }, title: String, about: String })
    t.equal(first['improve-content-seo-post'].isParentTask, true)
    t.same(await options.read('seo_action_tracking'), { task_list_first_opened_on: '0.1.0' }, 'the first opening is recorded')
    const empty = await done()
    t.same([empty['create-new-content'], empty['delete-sample-page'], empty['improve-content-seo-post']], [false, true, true], 'no content: nothing to write better, nothing to delete')

    const sample = await h.call('POST', '/cms/v2/pages', { as: admin, body: { title: 'Sample Page', slug: 'sample-page', status: 'publish' } })
    await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Hello world!', slug: 'hello-world', status: 'publish', meta: { _seo_focuskw: 'hello', _seo_linkdex: '40' } } })
    await h.platform.services.events.drain()
    let now = await done()
    t.same([now['delete-sample-page'], now['delete-hello-world'], now['create-new-content'], now['improve-content-seo-post'], now['improve-default-meta-descriptions-post']],
      [false, false, true, false, false], 'sample content found; a recent post; a score below good; no meta description')
    t.same((await tasks())['delete-sample-page'].callToAction, { label: 'Delete the page', type: 'delete', href: null })

    const completed = await h.call('POST', '/seo/v1/complete_task', { as: admin, body: { options: { task: 'delete-sample-page' } } })
    t.same([completed.status, completed.body], [200, { success: true }])
    t.equal((await h.call('GET', `/cms/v2/pages/${String(sample.body.id)}`, { as: admin })).status, 404, 'the sample page is really gone')
    t.equal((await done())['delete-sample-page'], true, 'and its task completes')
    t.equal((await h.call('POST', '/seo/v1/complete_task', { as: admin, body: { options: { task: 'delete-sample-page' } } })).status, 200, 'completing it again is fine')

    await h.call('POST', '/seo/v1/complete_task', { as: admin, body: { options: { task: 'enable-llms-txt' } } })
    t.equal(await options.read('seo_enable_llms_txt'), true)
    await h.call('POST', '/seo/v1/configuration/save_configuration_state', { as: admin, body: { finishedSteps: ['a', 'b', 'c'] } })
    await options.write('seo_titles', { 'title-post': '%%title%% | %%sitename%%' })
    now = await done()
    t.same([now['enable-llms-txt'], now['complete-ftc'], now['set-search-appearance-templates-post'], now['set-search-appearance-templates-page']], [true, true, true, false])
    t.same(await options.read('seo_action_tracking'), { task_list_first_opened_on: '0.1.0', task_first_actioned_on: '0.1.0' })
  })

  t.test('bad input and permissions', async (t) => {
    for (const task of ['no-such-task', 'complete-ftc', 'constructor', '__proto__']) {
      const res = await h.call('POST', '/seo/v1/complete_task', { as: admin, body: { options: { task } } })
      t.same([res.status, res.body.code, res.body.data?.status], [404, 'seo_task_not_found', 404], `${task}: not completable`)
    }
    t.equal((await h.call('POST', '/seo/v1/complete_task', { as: admin, body: {} })).status, 400, 'options required')
    t.equal((await h.call('POST', '/seo/v1/complete_task', { as: admin, body: { options: {} } })).status, 400, 'options.task required')
    t.equal((await h.call('GET', '/seo/v1/get_tasks', { as: admin, query: 'options[limit]=x' })).status, 400, 'options.limit an integer')
    for (const [method, path, body] of [['GET', '/seo/v1/get_tasks', undefined], ['POST', '/seo/v1/complete_task', { options: { task: 'enable-llms-txt' } }], ['POST', '/seo/v1/action_tracking', { action: 'task_list_first_opened_on' }]] as const) {
      t.equal((await h.call(method, path, { body })).status, 401, `${path}: anonymous`)
      t.equal((await h.call(method, path, { as: editor, body })).status, 403, `${path}: editor`)
    }
  })

  t.test('action_tracking', async (t) => {
    t.same((await h.call('POST', '/seo/v1/action_tracking', { as: admin, body: { action: 'frontend_inspector_first_actioned_on' } })).body, { success: true, action: 'frontend_inspector_first_actioned_on' })
    t.equal((await options.read('seo_action_tracking') as any).frontend_inspector_first_actioned_on, '0.1.0')
    const bad = await h.call('POST', '/seo/v1/action_tracking', { as: admin, body: { action: 'tracking' } })
    t.same([bad.status, bad.body.code, bad.body.message], [400, 'seo_invalid_tracked_action', 'The tracked action is invalid'])
    t.equal((await h.call('POST', '/seo/v1/action_tracking', { as: admin, body: {} })).status, 400)
  })

  t.test('workouts', async (t) => {
    t.same((await h.call('GET', '/seo/v1/workouts', { as: editor })).body, { json: { configuration: { finishedSteps: [] } } })
    const state = { configuration: { finishedSteps: ['one'] }, cornerstone: { finishedSteps: [] } }
    t.same((await h.call('POST', '/seo/v1/workouts', { as: editor, body: state })).body, { json: state }, 'stored')
    t.same((await h.call('GET', '/seo/v1/workouts', { as: admin })).body, { json: state })
    t.equal((await h.call('POST', '/seo/v1/workouts', { as: editor, body: { configuration: 'x' } })).status, 400, 'a state of the wrong shape')
    t.equal((await h.call('POST', '/seo/v1/workouts', { as: editor, body: [1] })).status, 400, 'an array')
    t.equal((await h.call('GET', '/seo/v1/workouts', { as: author })).status, 403, 'edit_others_posts')
    t.equal((await h.call('GET', '/seo/v1/workouts')).status, 401)
  })
})
