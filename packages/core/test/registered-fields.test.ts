/**
 * Registered fields (`api.registerField`, fields.ts) through HTTP: a package
 * written here adds to posts and pages a read-only field computed per page
 * of a list (`getMany`), an edit-only field, and a writable field kept in
 * the package's own table. Item, list, `_fields`, contexts, embeds, the
 * schema (OPTIONS, index, OpenAPI), batch, validated writes that leave no
 * trace when refused, and kept anonymous answers after a stored write.
 */
import t, { type Test } from 'tap'
import { sql } from 'drizzle-orm'
import { RestError } from '@cms/rest'
import { setOption } from '@cms/store'
import { definePackage, FieldRegistry } from '../src/index.js'
import { testApp, createCaller } from '../src/testing.js'

interface Calls { get: number, getMany: number, edit: number, users: number, terms: number }

/** What a package author writes: three fields on posts and pages. */
function fieldsPackage (calls: Calls) {
  return definePackage({
    name: '@cms/fields-fixture',
    dependencies: ['@cms/core'],
    namespaces: [],
    contribute (api) {
      const ratingsOf = async (ids: number[]): Promise<Map<number, number>> => {
        if (ids.length === 0) return new Map()
        const rows = await api.services.store.execute<{ post_id: number, rating: number }>(
          sql`select post_id, rating from fixture_ratings where post_id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`)
        return new Map(rows.map((r) => [Number(r.post_id), Number(r.rating)]))
      }
      // Users: read-only fields, a page of a list at once.
      api.registerField('user', 'badge', {
        schema: { type: 'string', description: 'A badge of the user.', context: ['view', 'edit', 'embed'] },
        get: (object) => `badge-${String(object.id)}`,
        getMany: async (objects) => { calls.users++; return objects.map((o) => `badge-${String(o.id)}`) }
      })
      // Terms, by taxonomy: read-only, a page of a list at once.
      for (const taxonomy of ['category', 'post_tag'] as const) {
        api.registerField(taxonomy, 'name_upper', {
          schema: { type: 'string', description: 'The name in capitals.', context: ['view', 'edit', 'embed'] },
          get: (object) => String(object.name).toUpperCase(),
          getMany: async (objects) => { calls.terms++; return objects.map((o) => String(o.name).toUpperCase()) }
        })
      }
      for (const type of ['post', 'page'] as const) {
        // Read-only, also in embedded answers; a page of a list asks once.
        api.registerField(type, 'title_length', {
          schema: { type: 'integer', description: 'Length of the raw title.', context: ['view', 'edit', 'embed'] },
          get: (object) => { calls.get++; return String((object.title as { raw: string }).raw).length },
          getMany: async (objects) => { calls.getMany++; return objects.map((o) => String((o.title as { raw: string }).raw).length) }
        })
        api.registerField(type, 'editor_note', {
          schema: { type: 'string', description: 'Shown to editors only.', context: ['edit'] },
          get: (object, ctx) => { calls.edit++; return `note for ${String(object.id)} as ${ctx.req.user.id}` }
        })
        // Only in answers to signed-in callers (as a site option would turn a field on).
        api.registerField(type, 'signed_in', {
          schema: { type: 'boolean', description: 'Present for signed-in callers.' },
          when: (ctx) => ctx.req.user.id !== 0,
          get: () => true
        })
        // Writable, kept in the package's table; the value 3 is refused by the package itself after the row is written.
        api.registerField<number | null>(type, 'rating', {
          schema: { type: ['integer', 'null'], minimum: 1, maximum: 5, description: 'A rating from 1 to 5.' },
          get: async (object) => (await ratingsOf([object.id as number])).get(object.id as number) ?? null,
          getMany: async (objects) => {
            const found = await ratingsOf(objects.map((o) => o.id as number))
            return objects.map((o) => found.get(o.id as number) ?? null)
          },
          update: async (value, object, ctx) => {
            await ctx.tx.execute(sql`delete from fixture_ratings where post_id = ${object.id}`)
            if (value !== null) await ctx.tx.execute(sql`insert into fixture_ratings (post_id, rating) values (${object.id}, ${value})`)
            if (value === 3) throw new RestError('fixture_no_three', 'Three is not a rating.', 400)
          }
        })
      }
    }
  })
}

async function fieldsApp (t: Test) {
  const calls: Calls = { get: 0, getMany: 0, edit: 0, users: 0, terms: 0 }
  const h = await testApp({ packages: [fieldsPackage(calls)], namespaces: ['cms/v2'], openapi: { title: 'fields', version: '0' } })
  t.teardown(() => h.app.close())
  await h.store.execute(sql`create table fixture_ratings (post_id integer primary key, rating integer not null)`)
  await setOption(h.store, 'timezone_string', 'UTC')
  const admin = await createCaller(h.store, 'administrator', { login: 'admin' })
  return { app: h.app, store: h.store, calls, admin, call: h.call }
}

t.test('read-only fields: item, list with one getMany, contexts, _fields, embeds', async (t) => {
  const h = await fieldsApp(t)
  const { admin, call, calls } = h
  const ids: number[] = []
  for (const title of ['One', 'Three', 'Fifteen chars!!']) {
    const res = await call('POST', '/cms/v2/posts', { as: admin, body: { title, status: 'publish' } })
    t.equal(res.status, 201, JSON.stringify(res.body))
    ids.push(res.body.id)
  }
  const edits = calls.edit
  const one = await call('GET', `/cms/v2/posts/${ids[0]!}`)
  t.equal(one.body.title_length, 3, 'the field in an anonymous item')
  t.equal(one.body.rating, null, 'a writable field with nothing stored')
  t.notOk('editor_note' in one.body, 'an edit-only field is absent from the view context')
  t.notOk('signed_in' in one.body, 'a field whose `when` says no is absent')
  t.equal(calls.edit, edits, 'and not computed there')

  const edit = await call('GET', `/cms/v2/posts/${ids[0]!}`, { as: admin, query: 'context=edit' })
  t.match(edit.body.editor_note, /^note for \d+ as \d+$/, 'present in the edit context')
  t.equal(edit.body.title_length, 3)
  t.equal(edit.body.signed_in, true, 'and present when it says yes')

  const before = { ...calls }
  const list = await call('GET', '/cms/v2/posts')
  t.same(list.body.map((p: any) => p.title_length).sort((a: number, b: number) => a - b), [3, 5, 15], 'every item of a list')
  t.equal(calls.getMany - before.getMany, 1, 'a page of a list is one getMany')
  t.equal(calls.get - before.get, 0, 'and no per-item get')

  const picked = { ...calls }
  const only = await call('GET', '/cms/v2/posts', { query: '_fields=id,rating' })
  t.same(Object.keys(only.body[0]).sort(), ['id', 'rating'], '_fields keeps what it names')
  t.same([calls.get, calls.getMany], [picked.get, picked.getMany], 'a field _fields leaves out is not computed')
  const nested = await call('GET', `/cms/v2/posts/${ids[1]!}`, { query: '_fields=title_length' })
  t.same(nested.body, { title_length: 5 })

  // Pages too; an embedded parent shows the field declared for the embed context.
  const parent = await call('POST', '/cms/v2/pages', { as: admin, body: { title: 'Parent', status: 'publish' } })
  const child = await call('POST', '/cms/v2/pages', { as: admin, body: { title: 'Child', status: 'publish', parent: parent.body.id } })
  const page = await call('GET', `/cms/v2/pages/${child.body.id as number}`, { query: '_embed=up' })
  t.equal(page.body.title_length, 5, 'a page has the field')
  t.equal(page.body._embedded.up[0].title_length, 6, 'the embedded parent (embed context) has it')
  t.notOk('rating' in page.body._embedded.up[0], 'a field without the embed context is absent from embeds')

  // Drafts stay unreadable to anonymous callers: no field leaks through.
  const draft = await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Draft', status: 'draft' } })
  t.equal((await call('GET', `/cms/v2/posts/${draft.body.id as number}`)).status, 401)
})

t.test('the schema shows the fields: OPTIONS, the index, OpenAPI', async (t) => {
  const { app, call } = await fieldsApp(t)
  const options = await call('OPTIONS', '/cms/v2/posts')
  const props = options.body.schema.properties
  t.match(props.title_length, { type: 'integer', readonly: true, context: ['view', 'edit', 'embed'] })
  t.match(props.editor_note, { type: 'string', readonly: true, context: ['edit'] })
  t.match(props.rating, { type: ['integer', 'null'], minimum: 1, maximum: 5, readonly: false, context: ['view', 'edit'] })
  const post = options.body.endpoints.find((e: any) => e.methods.includes('POST'))
  t.ok(post.args.rating !== undefined, 'the writable field is an argument of create')
  t.notOk('title_length' in post.args, 'a read-only field is not')
  t.ok((await call('OPTIONS', '/cms/v2/pages')).body.schema.properties.rating !== undefined, 'pages too')

  const index = await call('GET', '/cms/v2')
  const update = index.body.routes['/cms/v2/posts/(?P<id>[\\d]+)'].endpoints.find((e: any) => e.methods.includes('PATCH'))
  t.match(update.args.rating, { type: ['integer', 'null'], minimum: 1, maximum: 5 }, 'the index shows the argument')

  const doc = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body)
  const body = doc.paths['/cms-json/cms/v2/posts'].post.requestBody.content['application/json'].schema
  t.ok(body.properties.rating !== undefined, 'OpenAPI shows the writable field')
})

t.test('writable fields: validated before any write, in the write transaction, batch', async (t) => {
  const { admin, call, store } = await fieldsApp(t)
  const count = async (): Promise<number> => Number((await store.execute<{ n: number }>(sql`select count(*)::int as n from posts where type = 'post'`))[0]!.n)
  const created = await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Rated', status: 'publish', rating: 4, title_length: 99 } })
  t.equal(created.status, 201)
  t.equal(created.body.rating, 4, 'written on create and answered')
  t.equal(created.body.title_length, 5, 'a read-only field sent is ignored')
  const id = created.body.id as number
  t.equal((await call('GET', `/cms/v2/posts/${id}`)).body.rating, 4, 'read back')

  const n = await count()
  const bad = await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Bad', rating: 9 } })
  t.equal(bad.status, 400)
  t.equal(bad.body.code, 'rest_invalid_param')
  t.ok(bad.body.data.params.rating !== undefined, 'the field named in data.params')
  t.equal(await count(), n, 'no post written')
  const wrongType = await call('POST', `/cms/v2/posts/${id}`, { as: admin, body: { title: 'Changed', rating: 'five' } })
  t.same([wrongType.status, wrongType.body.code], [400, 'rest_invalid_param'])
  const refused = await call('POST', `/cms/v2/posts/${id}`, { as: admin, body: { title: 'Changed', rating: 3 } })
  t.same([refused.status, refused.body.code], [400, 'fixture_no_three'], 'the package refuses in its update')
  const after = await call('GET', `/cms/v2/posts/${id}`, { as: admin, query: 'context=edit' })
  t.same([after.body.title.raw, after.body.rating], ['Rated', 4], 'neither the post nor the field changed')

  const updated = await call('PATCH', `/cms/v2/posts/${id}`, { as: admin, body: { rating: 2 } })
  t.same([updated.status, updated.body.rating], [200, 2], 'an update of the field alone')
  const cleared = await call('PATCH', `/cms/v2/posts/${id}`, { as: admin, body: { rating: null } })
  t.same([cleared.status, cleared.body.rating], [200, null], 'null clears it')
  const page = await call('POST', '/cms/v2/pages', { as: admin, body: { title: 'Rated page', rating: 5 } })
  t.same([page.status, page.body.rating], [201, 5], 'pages too')

  const batch = await call('POST', '/batch/v1', {
    as: admin,
    body: { requests: [{ path: '/cms/v2/posts', body: { title: 'Batched', rating: 1 } }, { method: 'PATCH', path: `/cms/v2/posts/${id}`, body: { rating: 5 } }] }
  })
  t.equal(batch.status, 207)
  t.same(batch.body.responses.map((r: any) => [r.status, r.body.rating]), [[201, 1], [200, 5]], 'batch answers carry the field')
  const n2 = await count()
  const strict = await call('POST', '/batch/v1', {
    as: admin,
    body: { validation: 'require-all-validate', requests: [{ path: '/cms/v2/posts', body: { title: 'Fine', rating: 1 } }, { path: '/cms/v2/posts', body: { title: 'Bad', rating: 0 } }] }
  })
  t.equal(strict.body.failed, 'validation', 'an invalid field value fails batch validation')
  t.equal(await count(), n2, 'and nothing is written')
})

t.test('kept anonymous answers and ETags follow the stored data a field reads', async (t) => {
  const { admin, call, store } = await fieldsApp(t)
  const id = (await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Kept', status: 'publish', rating: 1 } })).body.id as number
  const first = await call('GET', `/cms/v2/posts/${id}`)
  const again = await call('GET', `/cms/v2/posts/${id}`)
  t.same([first.body.rating, again.body.rating], [1, 1])
  t.equal(first.headers.etag, again.headers.etag)
  t.equal((await call('GET', `/cms/v2/posts/${id}`, { headers: { 'if-none-match': String(first.headers.etag) } })).status, 304)
  t.equal((await call('GET', '/cms/v2/posts')).body[0].rating, 1)

  // A write to the package's table only (the post itself is untouched).
  await store.execute(sql`update fixture_ratings set rating = 5 where post_id = ${id}`)
  const fresh = await call('GET', `/cms/v2/posts/${id}`)
  t.equal(fresh.body.rating, 5, 'the kept item answer is not served after the write')
  t.equal((await call('GET', '/cms/v2/posts')).body[0].rating, 5, 'nor the kept list')
  t.not(fresh.headers.etag, first.headers.etag, 'the ETag changes with the field value')
  t.equal((await call('GET', `/cms/v2/posts/${id}`, { headers: { 'if-none-match': String(first.headers.etag) } })).status, 200, 'the old tag no longer answers 304')
  const fieldsOnly = await call('GET', `/cms/v2/posts/${id}`, { query: 'context=edit', as: admin, headers: { 'if-match': String(fresh.headers.etag) } })
  t.equal(fieldsOnly.status, 200)
  const patched = await call('PATCH', `/cms/v2/posts/${id}`, { as: admin, body: { title: 'Kept 2' }, headers: { 'if-match': String(fieldsOnly.headers.etag) } })
  t.equal(patched.status, 200, 'If-Match with the edit-context tag')
})

t.test('users: read-only fields in items, lists, /users/me, embeds and the schema', async (t) => {
  const { admin, call, calls } = await fieldsApp(t)
  const author = (await call('POST', '/cms/v2/users', { as: admin, body: { username: 'writer', email: 'writer@example.com', password: 'pw-12345678', roles: ['author'] } })).body
  t.equal(author.badge, `badge-${author.id as number}`, 'a created user\'s answer')
  const me = await call('GET', '/cms/v2/users/me', { as: admin })
  t.equal(me.body.badge, `badge-${me.body.id as number}`, '/users/me')
  const before = calls.users
  const list = await call('GET', '/cms/v2/users', { as: admin, query: 'context=edit' })
  t.ok(list.body.length >= 2 && list.body.every((u: any) => u.badge === `badge-${u.id as number}`), 'every user of a list')
  t.equal(calls.users - before, 1, 'one getMany for the page')
  t.match((await call('OPTIONS', '/cms/v2/users')).body.schema.properties.badge, { type: 'string', readonly: true })
  const post = await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'By admin', status: 'publish' } })
  const embedded = await call('GET', `/cms/v2/posts/${post.body.id as number}`, { query: '_embed=author' })
  t.equal(embedded.body._embedded.author[0].badge, `badge-${me.body.id as number}`, 'an embedded author (embed context)')
  const sent = await call('POST', `/cms/v2/users/${author.id as number}`, { as: admin, body: { badge: 'forged', name: 'Writer' } })
  t.same([sent.status, sent.body.badge, sent.body.name], [200, `badge-${author.id as number}`, 'Writer'], 'a sent value is ignored')
  t.throws(() => { new FieldRegistry().register('user', 'rank', { schema: { type: 'string' }, get: () => '', update: async () => {} }) }, /read-only/, 'a user field cannot be writable')
})

t.test('terms: read-only fields on categories and tags, in items, lists, writes, embeds and the schema', async (t) => {
  const { admin, call, calls } = await fieldsApp(t)
  const made = await call('POST', '/cms/v2/categories', { as: admin, body: { name: 'Boots' } })
  t.same([made.status, made.body.name_upper], [201, 'BOOTS'], 'a created category\'s answer')
  const tag = await call('POST', '/cms/v2/tags', { as: admin, body: { name: 'winter', name_upper: 'forged' } })
  t.same([tag.status, tag.body.name_upper], [201, 'WINTER'], 'a tag\'s, a sent value ignored')
  t.equal((await call('GET', `/cms/v2/categories/${made.body.id as number}`)).body.name_upper, 'BOOTS', 'an anonymous item')
  const before = calls.terms
  const list = await call('GET', '/cms/v2/categories')
  t.ok(list.body.length >= 2 && list.body.every((c: any) => c.name_upper === String(c.name).toUpperCase()), 'every category of a list')
  t.equal(calls.terms - before, 1, 'one getMany for the page')
  t.same((await call('GET', '/cms/v2/tags', { query: '_fields=id' })).body.map((t: any) => Object.keys(t)), [['id']], '_fields leaves it out')
  t.equal(calls.terms - before, 1, 'and does not compute it')
  const updated = await call('POST', `/cms/v2/categories/${made.body.id as number}`, { as: admin, body: { name: 'Snow boots' } })
  t.equal(updated.body.name_upper, 'SNOW BOOTS', 'an update\'s answer')
  const post = await call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Tagged', status: 'publish', categories: [made.body.id], tags: [tag.body.id] } })
  const embedded = await call('GET', `/cms/v2/posts/${post.body.id as number}`, { query: '_embed=cms:term' })
  const embeddedTerms = (embedded.body._embedded['cms:term'] as any[][]).flat()
  t.same(embeddedTerms.map((x: any) => x.name_upper).sort(), ['SNOW BOOTS', 'WINTER'], 'embedded terms (embed context)')
  t.match((await call('OPTIONS', '/cms/v2/tags')).body.schema.properties.name_upper, { type: 'string', readonly: true })
  const removed = await call('DELETE', `/cms/v2/tags/${tag.body.id as number}`, { as: admin, query: 'force=true' })
  t.equal(removed.body.previous.name_upper, 'WINTER', 'a deleted term\'s previous answer')
  t.throws(() => { new FieldRegistry().register('category', 'rank', { schema: { type: 'string' }, get: () => '', update: async () => {} }) }, /read-only/, 'a term field cannot be writable')
})
