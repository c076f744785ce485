/**
 * The sign-in and authorization pages as the composed gateway mounts them:
 * they read their own forms whatever order the packages and the kernel are
 * registered in, and a body they cannot read is a 4xx page, never a 500.
 */
import t from 'tap'
import { createUser } from '@cms/core'
import { gatewayApp } from './helpers.js'

t.test('the sign-in form posts through the composed gateway', async (t) => {
  const { app, store, close } = await gatewayApp()
  t.teardown(close)
  await createUser(store, { login: 'dora', email: 'dora@example.com', roles: ['editor'], password: 'dora-secret-pw' })

  const form = await app.inject({ method: 'GET', url: '/cms-admin/login' })
  t.equal(form.statusCode, 200)
  const nonce = /^cms_signin_nonce=([^;]*)/.exec([form.headers['set-cookie'] ?? []].flat()[0]!)![1]
  const csrf = /name="csrf" value="([^"]*)"/.exec(form.body)![1]!
  const post = async (payload: string, contentType: string): Promise<{ statusCode: number, body: string, headers: Record<string, unknown> }> =>
    await app.inject({ method: 'POST', url: '/cms-admin/login', headers: { 'content-type': contentType, cookie: `cms_signin_nonce=${nonce}` }, payload })

  const wrong = await post(new URLSearchParams({ csrf, log: 'dora', pwd: 'not-it' }).toString(), 'application/x-www-form-urlencoded')
  t.equal(wrong.statusCode, 401, 'a wrong password is refused by the form, not by the parser')

  const unreadable = await post('<x/>', 'application/xml')
  t.equal(unreadable.statusCode, 415, 'a body type the page does not read is a 415')
  t.match(unreadable.body, /The form could not be read/)

  const right = await post(new URLSearchParams({ csrf, log: 'dora', pwd: 'dora-secret-pw' }).toString(), 'application/x-www-form-urlencoded')
  t.equal(right.statusCode, 303, 'the right password signs in')
  t.match(String([right.headers['set-cookie']].flat().join('\n')), /cms_session=/)
})
