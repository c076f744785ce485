// A list's page as answered is reused by the same caller while nothing is
// committed (request-reads.ts `answeredPages`, issue 35): an address that
// differs only by an argument the route ignores (`nocache=<n>`) is answered
// with the items formatted for the same arguments, and the kernel writes the
// bytes it made of them (rest `reusedBody`). Kept the second time a key is
// made; never across callers with other rights; the paging links still
// repeat each request's own query; every commit is seen by the next
// request. Counted (serializations, statements), never timed.
import t from 'tap'
import { serializedAnswers } from '@cms/rest/testing'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'

const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'], horizon: true, audit: { flushMs: 3_600_000, moveEveryMs: 3_600_000 } }))
t.teardown(() => h.app.close())
const { admin, author } = h.users

for (let i = 0; i < 6; i++) {
  const made = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `Post ${i}`, content: `Content ${i}`, status: 'publish' } })
  if (made.status !== 201) throw new Error(`seeding: ${made.status}`)
}
const locked = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Locked', content: 'The secret words', status: 'publish', password: 'open sesame' } })
const draft = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Admin draft', status: 'draft' } })
await h.services.audit.flush()

let n = 0
const fresh = (): string => String(++n)
type Caller = typeof admin

const list = async (query: Record<string, string>, as?: Caller, method = 'GET') => await h.call(method, '/cms/v2/posts', { as, query })

/**
 * Runs the requests until the commit horizon stayed the same from before the
 * first to after the last (a PostgreSQL server other files share moves it);
 * the answers and the serializations the last one made, or undefined when
 * no try found such a window.
 */
async function underOneHorizon (requests: Array<() => ReturnType<typeof list>>): Promise<{ answers: Array<Awaited<ReturnType<typeof list>>>, lastSerialized: number } | undefined> {
  for (let i = 0; i < 40; i++) {
    const before = await h.store.horizon()
    const answers = []
    for (const r of requests.slice(0, -1)) answers.push(await r())
    const counted = serializedAnswers()
    answers.push(await requests.at(-1)!())
    const lastSerialized = serializedAnswers() - counted
    if (await h.store.horizon() === before) return { answers, lastSerialized }
  }
  return undefined
}

t.test('the same arguments with a parameter that never repeats: the page is answered with the bytes made before', async (t) => {
  const seen = await underOneHorizon([
    async () => await list({ per_page: '4', context: 'edit', nocache: fresh() }, admin),
    async () => await list({ per_page: '4', context: 'edit', nocache: fresh() }, admin),
    async () => await list({ per_page: '4', context: 'edit', nocache: fresh() }, admin)
  ])
  if (seen === undefined) {
    t.comment('the horizon moved in every try (other files committing on the server): the reuse was not observed')
  } else {
    const [first, second, third] = seen.answers
    t.equal(seen.lastSerialized, 0, 'the third answer serialized nothing')
    t.equal(third!.text, first!.text, 'the same bytes')
    t.equal(third!.headers.etag, first!.headers.etag, 'the same tag')
    t.equal(second!.text, first!.text)
  }
  // A commit is seen by the next request: a new post leads the list.
  const kept = await list({ per_page: '4', context: 'edit', nocache: fresh() }, admin)
  await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Published since', status: 'publish' } })
  const made = await list({ per_page: '4', context: 'edit', nocache: fresh() }, admin)
  t.not(made.text, kept.text, 'the new post leads the list once committed')
  t.match(made.body[0], { title: { raw: 'Published since' } })
})

t.test('each answer\'s paging links repeat its own query', async (t) => {
  const a = await list({ per_page: '2', nocache: 'first' }, admin)
  const b = await list({ per_page: '2', nocache: 'second' }, admin)
  const c = await list({ per_page: '2', nocache: 'third' }, admin)
  t.equal(c.text, a.text)
  t.match(a.headers.link, /nocache=first/)
  t.match(b.headers.link, /nocache=second/)
  t.match(c.headers.link, /nocache=third/)
  t.notMatch(c.headers.link, /first|second/)
  t.equal(c.headers['x-cms-total'], a.headers['x-cms-total'])
})

t.test('never across callers: a protected post and a draft are shown only to whom they are', async (t) => {
  for (let i = 0; i < 3; i++) {
    const asAdmin = await list({ per_page: '20', context: 'edit', nocache: fresh() }, admin)
    const asAnonymous = await list({ per_page: '20', nocache: fresh() })
    const asAuthor = await list({ per_page: '20', context: 'edit', status: 'draft', nocache: fresh() }, author)
    const asAdminDrafts = await list({ per_page: '20', context: 'edit', status: 'draft', nocache: fresh() }, admin)
    const adminLocked = asAdmin.body.find((p: any) => p.id === locked.body.id)
    const anonymousLocked = asAnonymous.body.find((p: any) => p.id === locked.body.id)
    t.match(adminLocked?.content.rendered, /The secret words/, `round ${i}: the administrator reads the protected content in the edit context`)
    t.equal(anonymousLocked?.content.rendered, '', `round ${i}: an anonymous caller does not`)
    t.equal(asAuthor.status, 200)
    t.notOk(asAuthor.body.some((p: any) => p.id === draft.body.id), `round ${i}: the author is not shown the administrator's draft`)
    t.ok(asAdminDrafts.body.some((p: any) => p.id === draft.body.id), `round ${i}: the administrator is`)
  }
})

t.test('shaping is part of what is reused: _fields, _embed, _envelope, _pretty and HEAD answer as made afresh', async (t) => {
  const whole = await list({ per_page: '3', nocache: fresh() }, admin)
  for (let i = 0; i < 3; i++) {
    const fields = await list({ per_page: '3', _fields: 'id,title', nocache: fresh() }, admin)
    t.same(Object.keys(fields.body[0]).sort(), ['id', 'title'], `round ${i}: _fields`)
    const embedded = await list({ per_page: '3', _embed: 'author', nocache: fresh() }, admin)
    t.ok(embedded.body[0]._embedded?.author !== undefined, `round ${i}: _embed`)
    const enveloped = await list({ per_page: '3', _envelope: '1', nocache: `env${i}` }, admin)
    t.equal(enveloped.body.status, 200)
    t.match(enveloped.body.headers.Link, new RegExp(`nocache=env${i}`), `round ${i}: the envelope's links are its own`)
    const pretty = await list({ per_page: '3', _pretty: '1', nocache: fresh() }, admin)
    t.same(pretty.body, whole.body, `round ${i}: _pretty`)
    t.match(pretty.text, /\n {4}/)
    const plain = await list({ per_page: '3', nocache: fresh() }, admin)
    t.equal(plain.text, whole.text, `round ${i}: the plain page`)
    const head = await list({ per_page: '3', nocache: fresh() }, admin, 'HEAD')
    t.equal(head.status, 200)
    t.equal(head.text, '', `round ${i}: HEAD has no body`)
    t.equal(head.headers['x-cms-total'], whole.headers['x-cms-total'])
  }
})
