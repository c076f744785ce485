/**
 * Revisioned meta of a megabyte's order (a post's footnotes) on the request
 * thread (issue 27): an update that makes a revision and an autosave beside
 * it compare that meta and copy it without writing it whole as JSON there.
 * Counts JSON.stringify calls over 64 KiB, never times them.
 */
import t from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { largeStringifies, testApp } from '../src/testing.js'

t.test('long revisioned meta', async (t) => {
  const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor } = h.users
  const notes = (n: string): string => JSON.stringify(Array.from({ length: 4000 }, (_, i) => ({ id: `${n}${i}`, content: `Note ${i} of ${n}, long enough.` })))
  const first = notes('a')
  const second = notes('b')
  const third = notes('c')
  t.ok(first.length > 128 * 1024, `footnotes of ${first.length} characters`)
  const created = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Notes', content: 'x', status: 'publish', meta: { footnotes: first } } })
  t.equal(created.status, 201)
  const id = created.body.id as number

  const update = { meta: { footnotes: second } }
  const autosave = { content: 'y', meta: { footnotes: third } }
  const { sizes } = await largeStringifies([JSON.stringify(update), JSON.stringify(autosave)], async () => {
    const updated = await h.call('POST', `/cms/v2/posts/${id}`, { as: admin, body: update })
    t.equal(updated.status, 200, 'updated')
    // Again: the revision's meta is compared with the post's, and nothing differs.
    t.equal((await h.call('POST', `/cms/v2/posts/${id}`, { as: admin, body: update })).status, 200, 'updated again')
    const saved = await h.call('POST', `/cms/v2/posts/${id}/autosaves`, { as: editor, body: autosave })
    t.equal(saved.status, 200, 'autosaved')
  })
  t.same(sizes, [], 'no JSON.stringify over 64 KiB on the request thread')

  const revisions = await h.call('GET', `/cms/v2/posts/${id}/revisions`, { as: admin })
  const made = revisions.body.filter((r: any) => String(r.slug).includes('revision'))
  t.equal(made.length, 1, 'one revision: the repeated update made none')
  t.equal(made[0].meta.footnotes, second, 'the revision holds the footnotes as sent')
  const autosaves = await h.call('GET', `/cms/v2/posts/${id}/autosaves`, { as: admin })
  t.equal(autosaves.body[0].meta.footnotes, third, 'the autosave holds its footnotes as sent')
})
