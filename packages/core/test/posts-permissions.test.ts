/**
 * The permission matrix of the five roles and anonymous callers for posts
 * and pages: list, read, create, publish, edit own and others', delete.
 */
import t, { type Test } from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp, type TestUser } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

type Who = 'anonymous' | 'subscriber' | 'contributor' | 'author' | 'editor' | 'admin'
const WHO: Who[] = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'admin']

t.test('permission matrix', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const u = h.users
  const accounts: Record<Who, TestUser | undefined> = {
    anonymous: undefined, subscriber: u.subscriber, contributor: u.contributor, author: u.author, editor: u.editor, admin: u.admin
  }
  const call = h.call

  const post = async (as: TestUser, body: Record<string, unknown>, type = 'posts'): Promise<number> => {
    const res = await call('POST', `/cms/v2/${type}`, { as, body })
    if (res.status !== 201) throw new Error(JSON.stringify(res.body))
    return res.body.id
  }

  /** Runs one action as every caller and compares the statuses. */
  const matrix = async (t: Test, name: string, expected: Record<Who, number>, action: (as: TestUser | undefined, who: Who) => Promise<{ status: number, body: any }>): Promise<void> => {
    for (const who of WHO) {
      const res = await action(accounts[who], who)
      t.equal(res.status, expected[who], `${name}: ${who}${res.status >= 400 ? ` (${String(res.body?.code)})` : ''}`)
    }
  }

  const published = await post(u.admin, { title: 'Public', status: 'publish' })
  const authorsDraft = await post(u.author, { title: 'Draft of author' })
  const authorsPrivate = await post(u.author, { title: 'Private of author', status: 'private' })
  const futurePost = await post(u.admin, { title: 'Future', status: 'future', date_gmt: '2099-01-01T00:00:00' })

  t.test('list and read', async (t) => {
    await matrix(t, 'list', { anonymous: 200, subscriber: 200, contributor: 200, author: 200, editor: 200, admin: 200 },
      async (as) => await call('GET', '/cms/v2/posts', { as }))
    await matrix(t, 'read published', { anonymous: 200, subscriber: 200, contributor: 200, author: 200, editor: 200, admin: 200 },
      async (as) => await call('GET', `/cms/v2/posts/${published}`, { as }))
    await matrix(t, "read the author's draft", { anonymous: 401, subscriber: 403, contributor: 403, author: 200, editor: 200, admin: 200 },
      async (as) => await call('GET', `/cms/v2/posts/${authorsDraft}`, { as }))
    await matrix(t, "read the author's private post", { anonymous: 401, subscriber: 403, contributor: 403, author: 200, editor: 200, admin: 200 },
      async (as) => await call('GET', `/cms/v2/posts/${authorsPrivate}`, { as }))
    await matrix(t, 'read a scheduled post', { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 200, admin: 200 },
      async (as) => await call('GET', `/cms/v2/posts/${futurePost}`, { as }))
    const anon = await call('GET', `/cms/v2/posts/${authorsDraft}`)
    t.equal(anon.body.code, 'rest_forbidden')
    t.equal(anon.body.message, 'Sorry, you are not allowed to do that.')
    await matrix(t, 'list in edit context', { anonymous: 401, subscriber: 403, contributor: 200, author: 200, editor: 200, admin: 200 },
      async (as) => await call('GET', '/cms/v2/posts', { as, query: { context: 'edit' } }))
  })

  t.test('create and publish', async (t) => {
    await matrix(t, 'create a draft', { anonymous: 401, subscriber: 403, contributor: 201, author: 201, editor: 201, admin: 201 },
      async (as) => await call('POST', '/cms/v2/posts', { as, body: { title: 'New' } }))
    await matrix(t, 'create pending', { anonymous: 401, subscriber: 403, contributor: 201, author: 201, editor: 201, admin: 201 },
      async (as) => await call('POST', '/cms/v2/posts', { as, body: { title: 'New', status: 'pending' } }))
    await matrix(t, 'publish', { anonymous: 401, subscriber: 403, contributor: 403, author: 201, editor: 201, admin: 201 },
      async (as) => await call('POST', '/cms/v2/posts', { as, body: { title: 'New', status: 'publish' } }))
    await matrix(t, 'make sticky', { anonymous: 401, subscriber: 403, contributor: 403, author: 201, editor: 201, admin: 201 },
      async (as) => await call('POST', '/cms/v2/posts', { as, body: { title: 'New', sticky: true } }))
    await matrix(t, 'create as another author', { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 201, admin: 201 },
      async (as) => await call('POST', '/cms/v2/posts', { as, body: { title: 'New', author: u.author2.id } }))
    await matrix(t, 'create a page', { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 201, admin: 201 },
      async (as) => await call('POST', '/cms/v2/pages', { as, body: { title: 'New page' } }))
  })

  t.test('edit own and others', async (t) => {
    await matrix(t, 'edit own draft', { anonymous: 401, subscriber: 403, contributor: 200, author: 200, editor: 200, admin: 200 },
      async (as, who) => {
        if (as === undefined || who === 'subscriber') return await call('POST', `/cms/v2/posts/${authorsDraft}`, { as, body: { title: 'x' } })
        const own = await post(as, { title: 'Own draft' })
        return await call('POST', `/cms/v2/posts/${own}`, { as, body: { title: 'Edited' } })
      })
    await matrix(t, 'edit own published', { anonymous: 401, subscriber: 403, contributor: 403, author: 200, editor: 200, admin: 200 },
      async (as, who) => {
        if (as === undefined || who === 'subscriber') return await call('POST', `/cms/v2/posts/${published}`, { as, body: { title: 'x' } })
        // A contributor's post published by an editor.
        const own = await post(as, { title: 'Own' })
        await call('POST', `/cms/v2/posts/${own}`, { as: u.admin, body: { status: 'publish' } })
        return await call('POST', `/cms/v2/posts/${own}`, { as, body: { title: 'Edited' } })
      })
    await matrix(t, "edit another's published post", { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 200, admin: 200 },
      async (as) => await call('POST', `/cms/v2/posts/${published}`, { as, body: { excerpt: 'edited' } }))
    await matrix(t, "edit another's draft", { anonymous: 401, subscriber: 403, contributor: 403, author: 200, editor: 200, admin: 200 },
      async (as, who) => await call('PATCH', `/cms/v2/posts/${who === 'author' ? await post(u.author, { title: 'self' }) : authorsDraft}`, { as, body: { excerpt: 'edited' } }))
    const denied = await call('POST', `/cms/v2/posts/${published}`, { as: u.contributor, body: { title: 'x' } })
    t.equal(denied.body.code, 'rest_cannot_edit')
  })

  t.test('delete', async (t) => {
    await matrix(t, 'delete own draft', { anonymous: 401, subscriber: 403, contributor: 200, author: 200, editor: 200, admin: 200 },
      async (as, who) => {
        const target = as === undefined || who === 'subscriber' ? authorsDraft : await post(as, { title: 'Mine' })
        return await call('DELETE', `/cms/v2/posts/${target}`, { as })
      })
    await matrix(t, "delete another's published post", { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 200, admin: 200 },
      async (as) => await call('DELETE', `/cms/v2/posts/${await post(u.admin, { title: 'Theirs', status: 'publish' })}`, { as, query: { force: 'true' } }))
    const front = await post(u.admin, { title: 'Front page' }, 'pages')
    await call('POST', `/cms/v2/pages/${front}`, { as: u.admin, body: { status: 'publish' } })
    const { setOption } = await import('@cms/store')
    await setOption(h.store, 'page_on_front', front)
    const byEditor = await call('DELETE', `/cms/v2/pages/${front}`, { as: u.editor })
    t.equal(byEditor.status, 403, 'the front page needs manage_options')
    const byAdmin = await call('DELETE', `/cms/v2/pages/${front}`, { as: u.admin })
    t.equal(byAdmin.status, 200)
  })
})
