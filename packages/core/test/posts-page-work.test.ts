// A made list page's own work (issue 35), counted, never timed: the posts of
// the answer are objects V8 keeps in fast mode when they are serialized (a
// copy made key by key under computed names becomes a dictionary past 16
// keys, slower to fill, weigh and serialize: rest's context.ts), and the
// page's links encode their routes once, not again for every post
// (post-format.ts `restUrlWithQuery`). The bytes are the conformance tests'.
import t from 'tap'
import { setFlagsFromString } from 'node:v8'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'

setFlagsFromString('--allow-natives-syntax')
// eslint-disable-next-line no-new-func
const fastMode = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean

const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'], horizon: true }))
t.teardown(() => h.app.close())
const { admin } = h.users
// 20 posts: a page of 2 and a page of 10 both link to a next page.
for (let i = 0; i < 20; i++) {
  const made = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `Post ${i}`, content: `<p>Content ${i}</p>`, status: 'publish' } })
  if (made.status !== 201) throw new Error(`seeding: ${made.status}`)
}

let n = 0
/** A page made afresh (a parameter that never repeats), with what `during` saw while it was answered. */
async function page<T> (query: Record<string, string>, during: { start: () => void, stop: () => T }): Promise<{ body: any[], text: string, seen: T }> {
  during.start()
  let seen: T
  let res
  try {
    res = await h.call('GET', '/cms/v2/posts', { as: admin, query: { ...query, nocache: String(++n) } })
  } finally {
    seen = during.stop()
  }
  t.equal(res.status, 200)
  return { body: res.body, text: res.text, seen }
}

t.test('the posts of a page are serialized from objects in fast mode', async (t) => {
  const stringify = JSON.stringify
  let serialized: unknown[] | undefined
  const watch = {
    start: () => {
      JSON.stringify = function (value: unknown, ...rest: unknown[]) {
        if (Array.isArray(value) && value.length === 10) serialized = value
        return (stringify as (...a: unknown[]) => string)(value, ...rest)
      } as typeof JSON.stringify
    },
    stop: () => { JSON.stringify = stringify }
  }
  for (const context of ['view', 'edit']) {
    serialized = undefined
    const { body, text } = await page({ per_page: '10', context }, watch)
    t.equal(body.length, 10)
    t.ok(serialized !== undefined, `${context}: the page was serialized on the request thread`)
    t.equal(stringify(serialized), text, `${context}: the objects serialized are the answer`)
    const posts = serialized as unknown as Array<Record<string, unknown>>
    t.ok(Object.keys(posts[0]!).length > 16, `${context}: a post has more than 16 keys (${Object.keys(posts[0]!).length})`)
    t.same(posts.map(fastMode), posts.map(() => true), `${context}: every post in fast mode`)
  }
})

t.test("the page's links encode their routes once, not for every post", async (t) => {
  const encode = globalThis.encodeURIComponent
  let calls = 0
  const watch = {
    start: () => {
      calls = 0
      globalThis.encodeURIComponent = (text: string | number | boolean) => {
        calls++
        return encode(text)
      }
    },
    stop: () => {
      globalThis.encodeURIComponent = encode
      return calls
    }
  }
  await page({ per_page: '10' }, watch) // anything encoded once is encoded
  const two = await page({ per_page: '2' }, watch)
  const ten = await page({ per_page: '10' }, watch)
  t.equal(two.body.length, 2)
  t.equal(ten.body.length, 10)
  t.equal(ten.seen, two.seen, `a page of 10 posts encodes as much as a page of 2 (${two.seen} calls; before: 12 more a post, three encodings for each of four links)`)
})
