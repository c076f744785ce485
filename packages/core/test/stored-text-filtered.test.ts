/**
 * Every field a user stores is filtered for writers without `unfiltered_html`
 * (issue #11, item 4): users' display name, description, first and last name
 * and nickname (served publicly by the users route, `_embed` and oEmbed's
 * `author_name`), and registered meta (footnotes, a package's keys) through the
 * sanitizer their declaration carries.
 */
import t from 'tap'
import { call } from '@cms/rest/testing'
import { testApp, createCaller } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const SCRIPT = '<script>alert(1)</script>Eve <b onclick="steal()">Bold</b><img src=x onerror=alert(2)>'

t.test('users text fields and meta are filtered on save', async (t) => {
  const h = await testApp({ packages: [packageMeta], namespaces: ['oembed/1.0', 'cms/v2'] })
  t.teardown(() => h.app.close())
  const admin = await createCaller(h.store, 'administrator', { login: 'admin', displayName: 'Ada Admin' })
  const subscriber = await createCaller(h.store, 'subscriber', { login: 'sub' })
  const contributor = await createCaller(h.store, 'contributor', { login: 'contrib' })
  const noScript = (t: Tap, value: unknown, what: string): void => {
    t.type(value, 'string', `${what} is a string`)
    t.notMatch(String(value), /<script|onclick|onerror|<img/i, `${what}: no script, handler or image`)
  }
  type Tap = typeof t

  t.test("a subscriber's own profile fields", async (t) => {
    const fields = { name: SCRIPT, description: SCRIPT, first_name: SCRIPT, last_name: SCRIPT, nickname: SCRIPT }
    const saved = await call(h.app, 'POST', '/cms/v2/users/me', { as: subscriber, body: fields })
    t.equal(saved.status, 200, JSON.stringify(saved.body))
    for (const key of Object.keys(fields)) noScript(t, saved.body[key], `answer's ${key}`)
    t.equal(saved.body.name, 'Eve <b>Bold</b>', 'the allowed inline markup and the text stay')
    t.equal(saved.body.description, 'Eve <b>Bold</b>')

    const mine = await call(h.app, 'GET', '/cms/v2/users/me', { as: subscriber, query: { context: 'edit' } })
    for (const key of Object.keys(fields)) noScript(t, mine.body[key], `stored ${key}`)

    // Served to everyone once the subscriber is shown as the author of a published post.
    const post = await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'By Eve', status: 'publish', author: subscriber.user.id } })
    t.equal(post.status, 201, JSON.stringify(post.body))
    const user = await call(h.app, 'GET', `/cms/v2/users/${subscriber.user.id}`)
    t.equal(user.status, 200)
    noScript(t, user.body.name, 'users route name')
    noScript(t, user.body.description, 'users route description')
    const embedded = await call(h.app, 'GET', `/cms/v2/posts/${post.body.id}`, { query: { _embed: '1' } })
    noScript(t, embedded.body._embedded.author[0].name, '_embed author name')
    t.equal(embedded.body._embedded.author[0].name, 'Eve <b>Bold</b>')
    const oembed = await call(h.app, 'GET', '/oembed/1.0/embed', { query: { url: post.body.link } })
    t.equal(oembed.status, 200, JSON.stringify(oembed.body))
    noScript(t, oembed.body.author_name, 'oEmbed author_name')
    const xml = await call(h.app, 'GET', '/oembed/1.0/embed', { query: { url: post.body.link, format: 'xml' } })
    t.notMatch(xml.text, /<script|onclick/i, 'oEmbed XML')
  })

  t.test("a subscriber's application password names", async (t) => {
    const made = await call(h.app, 'POST', '/cms/v2/users/me/application-passwords', { as: subscriber, body: { name: `${SCRIPT} app` } })
    t.equal(made.status, 201, JSON.stringify(made.body))
    t.equal(made.body.name, 'Eve <b>Bold</b> app')
    const renamed = await call(h.app, 'POST', `/cms/v2/users/me/application-passwords/${made.body.uuid}`, { as: subscriber, body: { name: '<script>x</script>Renamed' } })
    t.equal(renamed.status, 200, JSON.stringify(renamed.body))
    t.equal(renamed.body.name, 'Renamed')
  })

  t.test('an administrator (unfiltered_html) may store markup', async (t) => {
    const saved = await call(h.app, 'POST', `/cms/v2/users/${subscriber.user.id}`, { as: admin, body: { description: '<script>ok()</script>' } })
    t.equal(saved.status, 200)
    t.equal(saved.body.description, '<script>ok()</script>')
  })

  t.test('a user created by an administrator keeps the markup the administrator gave', async (t) => {
    const made = await call(h.app, 'POST', '/cms/v2/users', {
      as: admin,
      body: { username: 'made', email: 'made@example.com', password: 'secret-pass', name: '<em>Made</em>', nickname: '<i>m</i>' }
    })
    t.equal(made.status, 201, JSON.stringify(made.body))
    t.equal(made.body.name, '<em>Made</em>')
  })

  t.test("a contributor's footnotes and builder data", async (t) => {
    const footnotes = JSON.stringify([
      { id: 'Note-1', content: 'See <a href="javascript:alert(1)" onclick="x()">this</a><script>alert(2)</script> and <em>that</em>' },
      { id: 'n2', content: '' },
      'not an object'
    ])
    // The fixture's neutral sanitizer (fixtures/package-meta.ts); the builder's own rules are tested in packages/builder.
    const builder = JSON.stringify(['<script>alert(3)</script><p onmouseover="x()">Hi</p>', 'Plain & <strong>strong</strong>', 3])
    const made = await call(h.app, 'POST', '/cms/v2/posts', { as: contributor, body: { title: 'Notes', meta: { footnotes, _builder_data: builder } } })
    t.equal(made.status, 201, JSON.stringify(made.body))
    const read = await call(h.app, 'GET', `/cms/v2/posts/${made.body.id}`, { as: contributor, query: { context: 'edit' } })
    const notes = JSON.parse(read.body.meta.footnotes)
    t.same(notes, [{ id: 'note-1', content: 'See <a>this</a> and <em>that</em>' }], 'footnotes: kses on each content, keys sanitized, empty and malformed entries dropped')
    const data = JSON.parse(read.body.meta._builder_data)
    t.same(data, ['<p>Hi</p>', 'Plain &amp; <strong>strong</strong>', 3], "a registered key's value goes through the sanitizer its declaration names")

    const invalid = await call(h.app, 'POST', `/cms/v2/posts/${made.body.id}`, { as: contributor, body: { meta: { _builder_data: '[{"id": "x",' } } })
    t.equal(invalid.status, 400, 'builder data that is not JSON is refused')
    t.equal(invalid.body.code, 'rest_invalid_param')
    const after = await call(h.app, 'GET', `/cms/v2/posts/${made.body.id}`, { as: contributor, query: { context: 'edit' } })
    t.same(JSON.parse(after.body.meta._builder_data), data, 'and nothing was written')

    const updated = await call(h.app, 'POST', `/cms/v2/posts/${made.body.id}`, { as: contributor, body: { meta: { footnotes: '<script>x</script>' } } })
    t.equal(updated.status, 200)
    t.equal(updated.body.meta.footnotes, '', 'footnotes that are not JSON are stored empty (as the core does)')
  })

  t.test("an editor's builder data is kept as written", async (t) => {
    const builder = JSON.stringify([{ id: 'a', settings: { html: '<script>ok()</script>' } }])
    const made = await call(h.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Raw', meta: { _builder_data: builder, footnotes: '[{"id":"a","content":"<script>ok()</script>"}]' } } })
    t.equal(made.status, 201)
    t.equal(made.body.meta._builder_data, builder)
    t.equal(made.body.meta.footnotes, '[{"id":"a","content":"<script>ok()</script>"}]')
  })
})
