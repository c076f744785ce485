/**
 * The application-password routes over HTTP: the lifecycle (create, use,
 * introspect, list, rename, revoke, refused once revoked), validation, and
 * who may manage whose passwords.
 */
import t from 'tap'
import { basic, call } from '@cms/rest/testing'
import { testApp, createCaller, type TestUser } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const ITEM_FIELDS = ['uuid', 'app_id', 'name', 'created', 'last_used', 'last_ip', '_links']
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('application passwords', async (t) => {
  const { app, store } = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true })
  t.teardown(() => app.close())
  const admin = await createCaller(store, 'administrator', { login: 'admin' })
  const sub = await createCaller(store, 'subscriber', { login: 'sub' })
  const base = `/cms/v2/users/${sub.user.id}/application-passwords`

  t.test('lifecycle', async (t) => {
    const appId = '0e3a6b2c-7d4f-4e1a-9b8c-123456789abc'
    const made = await call(app, 'POST', '/cms/v2/users/me/application-passwords', { as: sub, body: { name: 'Mobile app', app_id: appId } })
    t.equal(made.status, 201)
    const self = `http://cms.test/index.php?rest_route=/cms/v2/users/${sub.user.id}/application-passwords/${made.body.uuid}`
    t.equal(made.headers.location, self, 'Location names the new item by numeric user id')
    t.same(Object.keys(made.body), ['uuid', 'app_id', 'name', 'created', 'last_used', 'last_ip', 'password', '_links'])
    t.match(made.body.uuid, UUID)
    t.match(made.body, { app_id: appId, name: 'Mobile app', last_used: null, last_ip: null })
    t.match(made.body.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
    t.match(made.body.password, /^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/, 'shown once, in groups of four')
    t.same(made.body._links, { self: [{ href: self }] })
    const password: string = made.body.password
    const auth = basic('sub', password)

    const me = await call(app, 'GET', '/cms/v2/users/me', { as: auth })
    t.equal(me.status, 200, 'the new password signs requests in')
    t.equal(me.body.id, sub.user.id)

    const intro = await call(app, 'GET', '/cms/v2/users/me/application-passwords/introspect', { as: auth })
    t.equal(intro.status, 200)
    t.equal(intro.body.uuid, made.body.uuid, 'introspect names the password of this request')
    t.same(Object.keys(intro.body), ITEM_FIELDS, 'never the password itself')
    t.match(intro.body.last_used, /^\d{4}-/, 'its use was recorded')
    t.equal(intro.body.last_ip, '127.0.0.1')
    const introNumeric = await call(app, 'GET', `${base}/introspect`, { as: sub })
    t.equal(introNumeric.body.uuid, sub.uuid, 'the other password introspects as itself')

    const list = await call(app, 'GET', base, { as: sub })
    t.equal(list.status, 200)
    t.same(list.body.map((i: any) => i.uuid).sort(), [sub.uuid, made.body.uuid].sort())
    for (const item of list.body) t.same(Object.keys(item), ITEM_FIELDS, 'listed without passwords')
    t.notOk(JSON.stringify(list.body).includes(password.replace(/ /g, '')))
    const embed = await call(app, 'GET', base, { as: sub, query: { context: 'embed' } })
    t.same(Object.keys(embed.body[0]), ['uuid', 'app_id', 'name', '_links'])

    const one = await call(app, 'GET', `${base}/${made.body.uuid}`, { as: sub })
    t.equal(one.status, 200)
    t.equal(one.body.name, 'Mobile app')

    const renamed = await call(app, 'PATCH', `${base}/${made.body.uuid}`, { as: sub, body: { name: 'Phone' } })
    t.equal(renamed.status, 200)
    t.equal(renamed.body.name, 'Phone')
    t.equal(renamed.body.app_id, appId)
    t.equal((await call(app, 'GET', `${base}/${made.body.uuid}`, { as: sub })).body.name, 'Phone', 'stored')

    const revoked = await call(app, 'DELETE', `${base}/${made.body.uuid}`, { as: sub })
    t.equal(revoked.status, 200)
    t.equal(revoked.body.deleted, true)
    t.match(revoked.body.previous, { uuid: made.body.uuid, name: 'Phone', app_id: appId })
    t.notOk('password' in revoked.body.previous)

    const refused = await call(app, 'GET', '/cms/v2/users/me', { as: auth })
    t.equal(refused.status, 401, 'a revoked password is refused')
    t.same(refused.body, { code: 'incorrect_password', message: 'The provided password is an invalid application password.', data: { status: 401 } })
    const again = await call(app, 'GET', `${base}/${made.body.uuid}`, { as: sub })
    t.same(again.body, { code: 'rest_application_password_not_found', message: 'Application password not found.', data: { status: 404 } })
  })

  t.test('revoking them all', async (t) => {
    const user = await createCaller(store, 'author', { login: 'many' })
    for (const name of ['one', 'two']) {
      t.equal((await call(app, 'POST', '/cms/v2/users/me/application-passwords', { as: user, body: { name } })).status, 201)
    }
    const all = await call(app, 'DELETE', `/cms/v2/users/${user.user.id}/application-passwords`, { as: admin })
    t.same(all.body, { deleted: true, count: 3 })
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: user })).status, 401)
  })

  t.test('validation', async (t) => {
    const post = async (body: Record<string, unknown>): Promise<any> =>
      await call(app, 'POST', '/cms/v2/users/me/application-passwords', { as: sub, body })
    const missing = await post({})
    t.same(missing.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): name', data: { status: 400, params: ['name'] } })
    const blank = await post({ name: '   ' })
    t.equal(blank.status, 400)
    t.equal(blank.body.code, 'rest_invalid_param')
    const empty = await post({ name: '' })
    t.equal(empty.body.data.params.name, 'name must be at least 1 character long.')
    const badAppId = await post({ name: 'x', app_id: 'not-a-uuid' })
    t.equal(badAppId.status, 400)
    t.equal(badAppId.body.data.params.app_id, 'app_id does not match any of the expected formats.')
    const noAppId = await post({ name: 'x', app_id: '' })
    t.equal(noAppId.status, 201)
    t.equal(noAppId.body.app_id, '')
    const twice = await post({ name: 'x' })
    t.equal(twice.status, 201, 'duplicate names are allowed')
    const oddUuid = await call(app, 'GET', `${base}/not_a_uuid`, { as: sub })
    t.equal(oddUuid.status, 404, 'any word characters route to the item and find nothing')
    t.equal(oddUuid.body.code, 'rest_application_password_not_found')
  })

  t.test('who may manage whose passwords', async (t) => {
    const cases: Array<[string, 'GET' | 'POST' | 'DELETE', string, TestUser | undefined, Record<string, unknown> | undefined, number, string]> = [
      ['anonymous, me', 'GET', '/cms/v2/users/me/application-passwords', undefined, undefined, 401, 'rest_not_logged_in'],
      ['anonymous, list', 'GET', base, undefined, undefined, 401, 'rest_cannot_list_application_passwords'],
      ['anonymous, create', 'POST', base, undefined, { name: 'x' }, 401, 'rest_cannot_create_application_passwords'],
      ['subscriber, another user\'s list', 'GET', `/cms/v2/users/${admin.user.id}/application-passwords`, sub, undefined, 403, 'rest_cannot_list_application_passwords'],
      ['subscriber, another user\'s create', 'POST', `/cms/v2/users/${admin.user.id}/application-passwords`, sub, { name: 'x' }, 403, 'rest_cannot_create_application_passwords'],
      ['subscriber, another user\'s delete all', 'DELETE', `/cms/v2/users/${admin.user.id}/application-passwords`, sub, undefined, 403, 'rest_cannot_delete_application_passwords'],
      ['subscriber, another user\'s item', 'GET', `/cms/v2/users/${admin.user.id}/application-passwords/${admin.uuid}`, sub, undefined, 403, 'rest_cannot_read_application_password'],
      ['subscriber, rename another user\'s', 'POST', `/cms/v2/users/${admin.user.id}/application-passwords/${admin.uuid}`, sub, { name: 'x' }, 403, 'rest_cannot_edit_application_password'],
      ['subscriber, revoke another user\'s', 'DELETE', `/cms/v2/users/${admin.user.id}/application-passwords/${admin.uuid}`, sub, undefined, 403, 'rest_cannot_delete_application_password'],
      ['administrator, someone else\'s introspect', 'GET', `${base}/introspect`, admin, undefined, 403, 'rest_cannot_introspect_app_password_for_non_authenticated_user'],
      ['anonymous, introspect', 'GET', `${base}/introspect`, undefined, undefined, 401, 'rest_cannot_introspect_app_password_for_non_authenticated_user'],
      ['unknown user', 'GET', '/cms/v2/users/9999/application-passwords', admin, undefined, 404, 'rest_user_invalid_id'],
      ['user 0', 'GET', '/cms/v2/users/0/application-passwords', admin, undefined, 404, 'rest_user_invalid_id']
    ]
    for (const [what, method, route, auth, body, status, code] of cases) {
      const res = await call(app, method, route, { as: auth, body })
      t.equal(res.status, status, what)
      t.equal(res.body.code, code, what)
      t.equal(res.body.data.status, status, what)
    }
    const introMessage = await call(app, 'GET', `${base}/introspect`, { as: admin })
    t.equal(introMessage.body.message, 'The authenticated application password can only be introspected for the current user.')

    const adminList = await call(app, 'GET', base, { as: admin })
    t.equal(adminList.status, 200, 'administrators manage everyone\'s')
    const adminMade = await call(app, 'POST', base, { as: admin, body: { name: 'made for sub' } })
    t.equal(adminMade.status, 201)
    t.equal((await call(app, 'GET', '/cms/v2/users/me', { as: basic('sub', adminMade.body.password) })).body.id, sub.user.id,
      'a password made by an administrator belongs to its user')
    const editor = await createCaller(store, 'editor', { login: 'ed' })
    t.equal((await call(app, 'GET', base, { as: editor })).status, 403, 'editors do not manage other users')
    t.equal((await call(app, 'GET', '/cms/v2/users/me/application-passwords', { as: editor })).status, 200)
  })
})
