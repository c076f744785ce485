/**
 * A user's URL holds at most 100 characters, as the core's column does
 * (`user_url_too_long`, 400): a megabyte sent as `url` was parsed, stored
 * and echoed back (seconds per request under load, issue #11). The bound is
 * checked before the password is hashed and before anything is written.
 */
import t from 'tap'
import { call } from '@cms/rest/testing'
import { testApp, createCaller } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

t.test('url: 100 characters kept, 101 or a megabyte refused on create and update', async (t) => {
  const { app, store } = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true })
  t.teardown(() => app.close())
  const admin = await createCaller(store, 'administrator', { login: 'admin' })
  const url100 = 'https://example.com/' + 'a'.repeat(80)
  t.equal(url100.length, 100)
  const body = (login: string, url: string) => ({ username: login, email: `${login}@example.com`, password: 'pw-123456', url })

  const kept = await call(app, 'POST', '/cms/v2/users', { as: admin, body: body('hundred', url100) })
  t.equal(kept.status, 201)
  t.equal(kept.body.url, url100)

  for (const [label, url] of [['101 characters', url100 + 'b'], ['a megabyte', 'https://example.com/' + 'a'.repeat(1_000_000)], ['a megabyte of spaces then a host', ' '.repeat(1_000_000) + 'example.com/' + 'x'.repeat(100)]] as const) {
    const made = await call(app, 'POST', '/cms/v2/users', { as: admin, body: body('long', url) })
    t.equal(made.status, 400, `create, ${label}`)
    t.equal(made.body.code, 'user_url_too_long', label)
    t.equal(made.body.message, 'User URL may not be longer than 100 characters.')
    const changed = await call(app, 'PATCH', `/cms/v2/users/${kept.body.id as number}`, { as: admin, body: { url, name: 'Changed' } })
    t.equal(changed.status, 400, `update, ${label}`)
    t.equal(changed.body.code, 'user_url_too_long')
  }
  const list = await call(app, 'GET', '/cms/v2/users', { as: admin, query: { search: 'long', context: 'edit' } })
  t.same(list.body, [], 'no user was created')
  const after = await call(app, 'GET', `/cms/v2/users/${kept.body.id as number}`, { as: admin, query: { context: 'edit' } })
  t.match(after.body, { url: url100, name: 'hundred' }, 'nothing of a refused update was written')
  // Characters, not UTF-16 code units: 100 astral characters (200 units) are kept.
  const astral = 'https://e.co/' + '😀'.repeat(87)
  const wide = await call(app, 'PATCH', `/cms/v2/users/${kept.body.id as number}`, { as: admin, body: { url: astral } })
  t.equal(wide.status, 200, `${[...astral].length} characters in ${astral.length} code units`)
})
