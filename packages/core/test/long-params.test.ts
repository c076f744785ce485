/**
 * Long texts reach PostgreSQL neither encoded nor copied on the request
 * thread (issue 27): a post's 1.9 MB content (a contributor's, filtered in
 * the text pool; an administrator's, as written), its update and the
 * revision it makes, and a long meta value and its revision's copy are sent
 * as UTF-8 bytes made in the pool, handed to the socket as they are
 * (@cms/store's pg-bind.ts). Counted: the strings of 64 Ki characters or
 * more the pg driver's message writing encodes on this thread
 * (`Buffer.byteLength`, `Buffer.from`, `buf.write`) and the buffers over
 * 64 KiB it copies (`buf.copy`: it copied each parameter into its Bind
 * message). Never timed. On PGlite,
 * which takes parameters in this process, the same writes store the same
 * bytes and nothing is written apart.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { bindCounts, testDatabaseUrl } from '@cms/store/testing'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'

const LONG = 64 * 1024

/** Frames of the pg driver's writing of a statement's messages (pg-protocol's serializer and its buffer writer). */
const DRIVER_WRITE = /pg-protocol[\\/](?:src|dist)[\\/](?:serializer|buffer-writer)\./

/**
 * What the pg driver's writing of messages made this thread encode or copy
 * during `work` that is long: strings of LONG characters or more, buffers
 * over LONG bytes (its reading of long rows, the request's body and the
 * moved strings are other work, not counted here).
 */
async function driverLongWork (work: () => Promise<void>): Promise<string[]> {
  const seen: string[] = []
  const { byteLength, from } = Buffer
  const { write, copy } = Buffer.prototype
  const note = (what: string): void => {
    const stack = new Error().stack ?? ''
    if (DRIVER_WRITE.test(stack)) seen.push(what)
  }
  const text = (s: unknown): s is string => typeof s === 'string' && s.length >= LONG
  Buffer.byteLength = function (s: unknown, ...rest: unknown[]) {
    if (text(s)) note(`byteLength of ${s.length} characters`)
    return (byteLength as (...a: unknown[]) => number)(s, ...rest)
  } as typeof byteLength
  Buffer.from = function (this: unknown, s: unknown, ...rest: unknown[]) {
    if (text(s)) note(`from ${s.length} characters`)
    return (from as (...a: unknown[]) => Buffer).call(this, s, ...rest)
  } as typeof from
  Buffer.prototype.write = function (this: Buffer, s: unknown, ...rest: unknown[]) {
    if (text(s)) note(`write of ${s.length} characters`)
    return (write as (...a: unknown[]) => number).call(this, s, ...rest)
  } as typeof write
  Buffer.prototype.copy = function (this: Buffer, ...args: unknown[]) {
    if (this.length > LONG) note(`copy of ${this.length} bytes`)
    return (copy as (...a: unknown[]) => number).apply(this, args)
  } as typeof copy
  try {
    await work()
  } finally {
    Object.assign(Buffer, { byteLength, from })
    Object.assign(Buffer.prototype, { write, copy })
  }
  return seen
}

/** Regular-expression replaces of long strings run on this thread during `work` (revisions compared texts so). */
async function longReplaces (work: () => Promise<void>): Promise<number> {
  let n = 0
  const { replace } = String.prototype
  // eslint-disable-next-line no-extend-native -- counted for the work only, put back below
  String.prototype.replace = function (this: string, ...args: unknown[]) {
    if (this.length >= LONG) n++
    return (replace as (...a: unknown[]) => string).apply(this, args)
  } as typeof replace
  try {
    await work()
  } finally {
    // eslint-disable-next-line no-extend-native -- the original put back
    String.prototype.replace = replace
  }
  return n
}

const md5 = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex')

t.test('long texts written without being encoded or copied on the request thread', async (t) => {
  const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor, contributor } = h.users
  // Markup the post filter keeps as it is, with characters of two, three and four bytes.
  const content = (n: string): string => `<p>${n}</p>\n${'<p>Zoë <b>bold</b> &amp; a ✓ for 𝄞, line.</p>\n'.repeat(36_000)}`
  const footnotes = (n: string): string => JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: `${n}${i}`, content: `Note ${i} of ${n}: é ✓.` })))
  // Sent as bytes made before the count (the request body is the test's own), answers kept small by `_fields`.
  const send = async (path: string, as: typeof admin, body: unknown): Promise<number> => {
    const payload = Buffer.from(JSON.stringify(body))
    const res = await h.call('POST', `${path}?_fields=id`, { as, payload, headers: { 'content-type': 'application/json' } })
    t.equal(res.status, path.endsWith('posts') ? 201 : 200, `${path}: ${res.text.slice(0, 200)}`)
    return res.body.id as number
  }
  const texts = { a: content('a'), b: content('b'), c: content('c'), d: content('d'), notesA: footnotes('a'), notesB: footnotes('b') }
  t.ok(texts.a.length > 1_600_000 && Buffer.byteLength(texts.a) > 1_850_000, `content of ${texts.a.length} characters, ${Buffer.byteLength(texts.a)} bytes`)
  // Warm the pool's threads first (loading them is not the work counted).
  await send('/cms/v2/posts', contributor, { title: 'warm', content: content('w') })

  const before = { ...bindCounts }
  const ids: Record<string, number> = {}
  let replaces = 0
  const seen = await driverLongWork(async () => {
    ids.contributor = await send('/cms/v2/posts', contributor, { title: 'By a contributor', content: texts.a })
    ids.admin = await send('/cms/v2/posts', admin, { title: 'By an administrator', content: texts.b, status: 'publish', meta: { footnotes: texts.notesA } })
    // An update: its content, and the revision it makes of the post (with its footnotes).
    await send(`/cms/v2/posts/${ids.admin}`, admin, { content: texts.c, meta: { footnotes: texts.notesB } })
    replaces = await longReplaces(async () => {
      // An update of the title alone: its revision holds the content the request did not send (copied by the
      // database; it was encoded again here), compared with the latest revision's (equal: not normalised).
      await send(`/cms/v2/posts/${ids.admin}`, admin, { title: 'Retitled' })
      // An update that only adds whitespace: compared with the latest revision (in the text pool), no revision made.
      await send(`/cms/v2/posts/${ids.admin}`, admin, { content: `${texts.c}\n\n` })
      // Another user's autosave of it, then a second one: compared with the first (in the text pool), written over it.
      await send(`/cms/v2/posts/${ids.admin}/autosaves`, editor, { content: texts.d })
      await send(`/cms/v2/posts/${ids.admin}/autosaves`, editor, { content: texts.a })
    })
  })
  // 2026-11-29, before: 12 (whitespace normalised on this thread: two long texts, three passes each, twice).
  t.equal(replaces, 0, 'no long text normalised on the request thread')
  const pg = testDatabaseUrl() !== undefined
  if (pg) {
    t.same(seen, [], 'PostgreSQL: the driver encoded and copied no long text on the request thread')
    const written = { messages: bindCounts.messages - before.messages, bytes: bindCounts.bytes - before.bytes }
    // Six long contents sent (two creates, two updates, two autosaves); the revisions' copies are made by the database.
    t.ok(written.bytes >= 6 * Buffer.byteLength(texts.a), `the long texts' bytes handed to the socket as they are (${written.messages} statements, ${written.bytes} bytes)`)
  } else {
    t.same({ messages: bindCounts.messages - before.messages }, { messages: 0 }, 'PGlite: given the texts themselves')
  }

  // Stored byte for byte as sent (the filter keeps this markup), on either database.
  const rows = await h.store.execute<{ id: number, slug: string, parent: number, h: string, n: number }>(sql`
    select id, slug, parent, md5(content) as h, octet_length(content) as n from posts
    where id in (${ids.contributor}, ${ids.admin}) or parent = ${ids.admin} order by id`)
  const byId = (id: number): { h: string, n: number } | undefined => rows.find((r) => r.id === id)
  t.same(byId(ids.contributor!), { ...byId(ids.contributor!), h: md5(texts.a), n: Buffer.byteLength(texts.a) }, 'the contributor\'s content')
  t.same(byId(ids.admin!), { ...byId(ids.admin!), h: md5(`${texts.c}\n\n`), n: Buffer.byteLength(texts.c) + 2 }, 'the administrator\'s content, updated')
  const copies = rows.filter((r) => r.parent === ids.admin).map((r) => [r.slug, r.h])
  t.same(copies, [[`${ids.admin}-revision-v1`, md5(texts.c)], [`${ids.admin}-revision-v1`, md5(texts.c)], [`${ids.admin}-autosave-v1`, md5(texts.a)]],
    'the revisions the updates made (none for whitespace alone), the autosave written over')
  const titles = await h.store.execute<{ title: string, guid: string, id: number }>(sql`select id, title, guid from posts where parent = ${ids.admin} order by id`)
  t.same(titles.map((r) => r.title), ['By an administrator', 'Retitled', 'Retitled'], 'each copy with the title of its time')
  for (const r of titles) t.equal(r.guid, `http://cms.test/?p=${r.id}`, 'each copy with its guid')
  const meta = await h.store.execute<{ post_id: number, v: string }>(sql`
    select post_id, value #>> '{}' as v from post_meta where key = 'footnotes' and (post_id = ${ids.admin} or post_id in (select id from posts where parent = ${ids.admin})) order by post_id`)
  t.same(meta.map((m) => m.v === texts.notesA ? 'a' : m.v === texts.notesB ? 'b' : m.v.slice(0, 40)), ['b', 'b', 'b'], 'the footnotes of the post and of its revisions, as sent')
})
