/**
 * Site settings over REST: the core's settings and those packages register
 * with `showInRest`, manage_options only, each value checked, all written in
 * one transaction (one invalid value writes nothing), the whole set answered.
 */
import t from 'tap'
import { registerOption } from '@cms/store'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

// A package's option shown over REST (registered once per process, as packages do at import).
registerOption('probe_banner', { type: 'string', default: 'off', enum: ['off', 'on'], description: 'Whether the probe banner shows.', showInRest: { title: 'Probe banner' } })

const CORE = [
  'title', 'description', 'url', 'email', 'timezone', 'date_format', 'time_format', 'start_of_week', 'language',
  'use_smilies', 'default_category', 'default_post_format', 'posts_per_page', 'show_on_front', 'page_on_front', 'page_for_posts',
  'default_ping_status', 'default_comment_status', 'site_logo', 'site_icon'
]
// The discussion options comments follow, shown after the core's own so a site manages moderation over REST.
const DISCUSSION = [
  'require_name_email', 'comment_moderation', 'comment_previously_approved', 'comment_max_links', 'moderation_keys', 'disallowed_keys',
  'thread_comments', 'thread_comments_depth', 'close_comments_for_old_posts', 'close_comments_days_old', 'comment_flood_seconds', 'show_avatars'
]

t.test('settings', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor } = h.users
  const call = h.call

  t.test('only manage_options reads and writes them', async (t) => {
    const anonymous = await call('GET', '/cms/v2/settings')
    t.equal(anonymous.status, 401)
    t.same(anonymous.body, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } })
    t.equal((await call('GET', '/cms/v2/settings', { as: editor })).status, 403)
    t.equal((await call('POST', '/cms/v2/settings', { as: editor, body: { title: 'Nope' } })).status, 403)
  })

  t.test('GET answers the whole set, core settings first in the core order', async (t) => {
    const res = await call('GET', '/cms/v2/settings', { as: admin })
    t.equal(res.status, 200)
    t.same(Object.keys(res.body), [...CORE, ...DISCUSSION, 'probe_banner'])
    t.match(res.body, {
      title: 'My CMS Site',
      description: '',
      url: 'http://cms.test',
      email: '',
      timezone: 'UTC',
      date_format: 'F j, Y',
      time_format: 'g:i a',
      start_of_week: 1,
      language: 'en_US',
      use_smilies: true,
      default_category: 1,
      default_post_format: '0',
      posts_per_page: 10,
      show_on_front: 'posts',
      page_on_front: 0,
      page_for_posts: 0,
      default_ping_status: 'open',
      default_comment_status: 'open',
      site_logo: 0,
      site_icon: 0,
      probe_banner: 'off'
    })
  })

  t.test('the index shows the update arguments with their schema', async (t) => {
    const index = await call('GET', '/')
    const entry = index.body.routes['/cms/v2/settings']
    t.same(entry.methods, ['GET', 'POST', 'PUT', 'PATCH'])
    t.same(entry.endpoints[0].args, [])
    const args = entry.endpoints[1].args
    t.same(Object.keys(args), [...CORE, ...DISCUSSION, 'probe_banner'])
    t.same(args.title, { title: 'Title', description: 'Site title.', type: 'string', required: false })
    t.same(args.email, { title: 'Administration Email Address', description: 'This address is used for admin purposes, like new user notification.', type: 'string', format: 'email', required: false })
    t.same(args.default_comment_status.enum, ['open', 'closed'])
    t.same(args.use_smilies, { description: 'Convert emoticons like :-) and :-P to graphics on display.', type: 'boolean', required: false }, 'a switch, as the core shows it')
    t.same(args.probe_banner, { title: 'Probe banner', description: 'Whether the probe banner shows.', type: 'string', enum: ['off', 'on'], required: false })
  })

  t.test('a round trip: one invalid value writes nothing, a valid set writes all', async (t) => {
    const before = (await call('GET', '/cms/v2/settings', { as: admin })).body

    const badType = await call('POST', '/cms/v2/settings', { as: admin, body: { title: 'Changed', timezone: 'Europe/Paris', posts_per_page: 'many', default_ping_status: 'maybe' } })
    t.equal(badType.status, 400)
    t.equal(badType.body.code, 'rest_invalid_param')
    t.same(Object.keys(badType.body.data.params).sort(), ['default_ping_status', 'posts_per_page'], 'every invalid value is named')
    t.equal(badType.body.data.params.posts_per_page, 'posts_per_page is not of type integer.')
    t.equal(badType.body.data.params.default_ping_status, 'default_ping_status is not one of open and closed.')
    t.same((await call('GET', '/cms/v2/settings', { as: admin })).body, before, 'nothing was written')

    const badZone = await call('PUT', '/cms/v2/settings', { as: admin, body: { title: 'Changed', timezone: 'Mars/Olympus_Mons' } })
    t.equal(badZone.status, 400)
    t.same(Object.keys(badZone.body.data.params), ['timezone'])
    const badEmail = await call('PATCH', '/cms/v2/settings', { as: admin, body: { title: 'Changed', email: 'not-an-address' } })
    t.equal(badEmail.body.data.params.email, 'Invalid email address.')
    const badPackage = await call('POST', '/cms/v2/settings', { as: admin, body: { title: 'Changed', probe_banner: 'blink' } })
    t.equal(badPackage.status, 400, "a package's option is checked by its schema too")
    t.same((await call('GET', '/cms/v2/settings', { as: admin })).body, before, 'still nothing was written')

    const change = {
      title: 'Renamed site',
      description: 'A tagline',
      email: 'owner@example.com',
      timezone: 'Europe/Paris',
      start_of_week: 0,
      posts_per_page: '25',
      default_post_format: 'aside',
      default_comment_status: 'closed',
      probe_banner: 'on'
    }
    const saved = await call('POST', '/cms/v2/settings', { as: admin, body: change })
    t.equal(saved.status, 200)
    t.same(Object.keys(saved.body), [...CORE, ...DISCUSSION, 'probe_banner'], 'the answer is the whole set')
    t.match(saved.body, { ...change, posts_per_page: 25 })
    t.same((await call('GET', '/cms/v2/settings', { as: admin })).body, saved.body, 'a read gives what was written')
    const index = await call('GET', '/')
    t.equal(index.body.name, 'Renamed site', 'the site description uses the new title')

    // Sending back what was read changes nothing (the derived site URL stays derived).
    const again = await call('PUT', '/cms/v2/settings', { as: admin, body: saved.body })
    t.equal(again.status, 200)
    t.same(again.body, saved.body)
    const form = await h.app.inject({ method: 'POST', url: '/cms-json/cms/v2/settings', headers: { ...admin.headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'posts_per_page=12&show_on_front=page' })
    t.equal(form.statusCode, 200, 'a form body works too')
    t.match(JSON.parse(form.body), { posts_per_page: 12, show_on_front: 'page' })

    const reset = await call('POST', '/cms/v2/settings', { as: admin, body: { description: null, probe_banner: null } })
    t.equal(reset.body.description, '', 'null resets a setting to its default')
    t.equal(reset.body.probe_banner, 'off')
  })
})
