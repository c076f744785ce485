/**
 * Meta values other than strings, large (a package's revisioned settings
 * object of 20,000 members), on the request thread (issue 27): a create, an
 * update that makes a revision, the same update again and an autosave
 * beside them compare that meta (`sameValue`, a walk of `SAME_SLICE`
 * values a turn) and write and copy it (`storedJson`: its JSON a slice of
 * members a turn, its UTF-8 bytes made in the text pool) without writing it
 * whole as JSON there. Counts JSON.stringify calls over 64 KiB (a slice's
 * are, here: 2,000 members of 43 characters) and the comparison's turns,
 * never times them.
 */
import t from 'tap'
import { sql } from 'drizzle-orm'
import { definePackage } from '../src/index.js'
import { sameCounts, sameValue } from '../src/platform/meta.js'
import { withContentUsers } from './fixtures/content/harness.js'
import { largeStringifies, testApp } from '../src/testing.js'

const layoutPackage = definePackage({
  name: '@cms/layout-fixture',
  dependencies: ['@cms/core'],
  namespaces: [],
  contribute (api) {
    api.registerMeta('post', 'fixture_layout', { type: 'object', default: {}, additionalProperties: true, revisioned: true, description: 'A layout.', context: ['edit'] })
  }
})

const layout = (n: string): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`cell${i}`, { text: `${n} ${i} é ✓`, width: i % 12 }]))

t.test('large object meta compared and copied without whole JSON.stringify calls', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [layoutPackage], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor } = h.users
  const [first, second, third] = [layout('a'), layout('b'), layout('c')]
  t.ok(JSON.stringify(first).length > 200_000, `a layout of ${JSON.stringify(first).length} characters`)
  const create = { title: 'Laid out', content: 'x', status: 'publish', meta: { fixture_layout: first } }
  const update = { meta: { fixture_layout: second } }
  const autosave = { content: 'y', meta: { fixture_layout: third } }
  const turns = sameCounts.turns
  const { sizes } = await largeStringifies([create, update, autosave].map((b) => JSON.stringify(b)), async () => {
    const created = await h.call('POST', '/cms/v2/posts', { as: admin, body: create, query: { _fields: 'id' } })
    t.equal(created.status, 201, `created: ${created.text.slice(0, 300)}`)
    const id = created.body.id as number
    t.equal((await h.call('POST', `/cms/v2/posts/${id}`, { as: admin, body: update, query: { _fields: 'id' } })).status, 200, 'updated')
    // Again: the revision's meta is compared with the post's, and nothing differs.
    t.equal((await h.call('POST', `/cms/v2/posts/${id}`, { as: admin, body: update, query: { _fields: 'id' } })).status, 200, 'updated again')
    t.equal((await h.call('POST', `/cms/v2/posts/${id}/autosaves`, { as: editor, body: autosave, query: { _fields: 'id' } })).status, 200, 'autosaved')
    t.context.id = id
  })
  // Written a slice of WALK_SLICE members a turn: over 64 KiB each here (43 characters a member), never the whole.
  const whole = JSON.stringify(first).length
  t.same(sizes.filter((n) => n > whole / 4), [], `no JSON.stringify of the whole layout on the request thread (${sizes.length} slices over 64 KiB)`)
  t.ok(sameCounts.turns - turns >= 3 * 2, `the comparisons walked a slice a turn (${sameCounts.turns - turns} turns)`)

  const id = t.context.id as number
  const stored = await h.store.execute<{ slug: string, value: unknown }>(sql`
    select p.slug, m.value from posts p join post_meta m on m.post_id = p.id and m.key = 'fixture_layout'
    where p.id = ${id} or p.parent = ${id} order by p.id`)
  t.same(stored.map((r) => r.slug.replace(`${id}-`, '')), ['laid-out', 'revision-v1', 'autosave-v1'], 'the post, one revision (the repeated update made none), the autosave')
  const expected = [second, second, third]
  for (const [i, r] of stored.entries()) t.ok(await sameValue(r.value, expected[i]), `${r.slug}: its layout as sent`)
})

t.test('sameValue answers as the JSON texts compare', async (t) => {
  const cases: Array<[unknown, unknown]> = [
    [{ a: 1, b: [1, 2] }, { a: 1, b: [1, 2] }], [{ a: 1, b: 2 }, { b: 2, a: 1 }], [[1, 2], [1, 2, 3]], [[], {}],
    [{ a: undefined, b: 1 }, { b: 1 }], [0, -0], [null, null], [null, 0], ['1', 1], [{ a: '1' }, { a: 1 }],
    [true, 'true'], [undefined, undefined], [undefined, ''], ['x', 'x'], [[{ a: [null] }], [{ a: [null] }]],
    [{ a: { b: { c: 'é' } } }, { a: { b: { c: 'e' } } }], [1.5, 1.5], [Object.create(null), {}]
  ]
  for (const [a, b] of cases) t.equal(await sameValue(a, b), JSON.stringify(a) === JSON.stringify(b), `${JSON.stringify(a)} / ${JSON.stringify(b)}`)
  const big = layout('z')
  const turns = sameCounts.turns
  t.ok(await sameValue(big, layout('z')))
  t.ok(sameCounts.turns - turns >= 15, `30,001 values in ${sameCounts.turns - turns} turns`)
})
