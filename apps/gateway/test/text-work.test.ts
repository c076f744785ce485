/**
 * Heavy text work runs off the request thread (issue 27): a large post's
 * filtering and rendering, builder data's many strings and meta values go
 * to the core's text pool, and while that work runs the event loop answers
 * other requests. Nothing here measures time: each check orders events
 * (a `/healthz` sent once the work has started is answered before the work
 * ends, which cannot happen when the work holds the loop) and counts where
 * the work ran. Users' profile text, comments and titles go there too. Also: a full pool answers 503 with `Retry-After`, and the
 * builder data's limits come from the deployment's settings.
 */
import t from 'tap'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse as Response } from 'fastify'
import { createCaller } from '@cms/core/testing'
import { INLINE_MAX_CHARS, textPool, type TextWorkEvent } from '@cms/core'
import { gatewayApp } from './helpers.js'

const json = { 'content-type': 'application/json' }

/** A post content of about `chars` characters with markup to filter (a script in each paragraph). */
const bigHtml = (chars: number): string => '<p>Some <b>text</b> &amp; a <a href="https://example.com/">link</a><script>alert(1)</script></p>\n'.repeat(Math.ceil(chars / 90))

/**
 * Sends `request`; once a task of `task` starts in the pool, sends
 * `/healthz`. Answers the order in which the health answer, the task's end
 * and the request's answer came, and the request's answer.
 */
async function whileWorking (app: FastifyInstance, task: TextWorkEvent['task'], request: InjectOptions): Promise<{ order: string[], res: Response, health: number }> {
  const order: string[] = []
  let health: Promise<number> | undefined
  const stop = textPool.watch((e) => {
    if (e.task !== task || e.where !== 'pool') return
    if (e.phase === 'start' && health === undefined) {
      order.push('work started')
      health = app.inject({ method: 'GET', url: '/healthz' }).then((r) => { order.push('healthz answered'); return r.statusCode })
    }
    if (e.phase === 'end') order.push('work ended')
  })
  try {
    const res = await app.inject(request)
    order.push('request answered')
    return { order, res, health: await (health ?? Promise.resolve(0)) }
  } finally {
    stop()
  }
}

t.test('work on large texts runs in the pool while the service answers', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B' } })
  t.teardown(h.close)
  const contributor = (await createCaller(h.store, 'contributor')).headers
  const admin = (await createCaller(h.store, 'administrator')).headers

  const content = bigHtml(1_500_000)
  const before = { ...textPool.counts }
  const payload = JSON.stringify({ title: 'Large', content })
  // Strings over 64 KiB whose UTF-8 length this thread measured: the database driver (pg) encoded the filtered content
  // here before; its bytes are made in the pool now, with the filtering (the request's own payload aside).
  const encoded: number[] = []
  const byteLength = Buffer.byteLength
  Buffer.byteLength = ((s: Parameters<typeof byteLength>[0], e?: BufferEncoding) => {
    if (typeof s === 'string' && s.length > 64 * 1024 && s !== payload) encoded.push(s.length)
    return byteLength(s, e)
  }) as typeof byteLength
  let write: Awaited<ReturnType<typeof whileWorking>>
  try {
    write = await whileWorking(h.app, 'filterUtf8', { method: 'POST', url: '/cms-json/cms/v2/posts', headers: { ...contributor, ...json }, payload })
  } finally {
    Buffer.byteLength = byteLength
  }
  t.equal(write.res.statusCode, 201, 'the large post is written')
  t.same(encoded, [], 'no long text encoded as UTF-8 on the request thread')
  const [row] = await h.store.execute<{ content: string }>(`select content from posts where id = ${write.res.json().id as number}`)
  t.equal(row?.content, write.res.json().content.raw, 'the bytes made in the pool are the filtered text')
  t.equal(write.health, 200, '/healthz answers')
  t.same(write.order.slice(0, 3), ['work started', 'healthz answered', 'work ended'], 'the health check is answered while the filter runs')
  t.ok(textPool.counts.pool > before.pool, 'the content was filtered in the pool')
  const id = write.res.json().id as number
  t.notMatch(write.res.json().content.raw, /<script/, 'and filtered')

  // Reading it renders it, in the pool too. The write's answer rendered (and kept) its content: the row is given
  // a content never rendered, as another replica would have written it.
  await h.app.inject({ method: 'POST', url: `/cms-json/cms/v2/posts/${id}`, headers: { ...admin, ...json }, payload: JSON.stringify({ status: 'publish' }) })
  await h.store.execute(`update posts set content = $body$<p>Never rendered</p>\n${content}$body$ where id = ${id}`)
  const read = await whileWorking(h.app, 'renderContent', { method: 'GET', url: `/cms-json/cms/v2/posts/${id}` })
  t.equal(read.res.statusCode, 200)
  t.same(read.order.slice(0, 3), ['work started', 'healthz answered', 'work ended'], 'the health check is answered while the content renders')
  t.match(read.res.json().content.rendered, /<p>Some <strong>|<p>Some <b>/, 'the rendering is the answer')

  // Builder data: many small strings, scanned, parsed, filtered and written back in the pool (one task).
  const data = JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ id: `e${i}`, settings: { title: `<em>t${i}</em><script>x</script>` } })))
  const draft = await h.app.inject({ method: 'POST', url: '/cms-json/cms/v2/posts', headers: { ...contributor, ...json }, payload: JSON.stringify({ title: 'Builder', content: 'x' }) })
  const withData = await whileWorking(h.app, 'filterJson', {
    method: 'POST', url: `/cms-json/cms/v2/posts/${draft.json().id as number}`, headers: { ...contributor, ...json }, payload: JSON.stringify({ meta: { _builder_data: data } })
  })
  t.equal(withData.res.statusCode, 200, 'the builder data is stored')
  t.same(withData.order.slice(0, 3), ['work started', 'healthz answered', 'work ended'], 'the health check is answered while the builder data is filtered')
  const stored = await h.app.inject({ method: 'GET', url: `/cms-json/cms/v2/posts/${draft.json().id as number}?context=edit`, headers: contributor })
  const kept = stored.json().meta._builder_data as string
  t.notMatch(kept, /<script/, 'its strings were filtered')
  t.match(kept, /<em>t4999<\/em>/)
})

t.test('profile text, comments and titles are filtered and rendered in the pool too', async (t) => {
  // Each of these was inline work on the request thread: a subscriber's megabyte description took seconds to filter.
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' } })
  t.teardown(h.close)
  const subscriber = (await createCaller(h.store, 'subscriber')).headers
  const admin = (await createCaller(h.store, 'administrator')).headers
  const text = bigHtml(300_000)

  const profile = await whileWorking(h.app, 'filterOne', {
    method: 'POST', url: '/cms-json/cms/v2/users/me', headers: { ...subscriber, ...json }, payload: JSON.stringify({ description: text })
  })
  t.equal(profile.res.statusCode, 200, 'the description is stored')
  t.same(profile.order.slice(0, 3), ['work started', 'healthz answered', 'work ended'], 'a user\'s description is filtered in the pool')
  t.notMatch(profile.res.json().description, /<script/)

  // A published post's slug is made from its title.
  const published = await whileWorking(h.app, 'slugOf', {
    method: 'POST', url: '/cms-json/cms/v2/posts', headers: { ...admin, ...json }, payload: JSON.stringify({ title: text, content: 'x', status: 'publish' })
  })
  t.equal(published.res.statusCode, 201)
  t.same(published.order.slice(0, 3), ['work started', 'healthz answered', 'work ended'], 'a slug is made from a long title in the pool')
  t.match(published.res.json().slug, /^some-text-a-link/)
  const id = published.res.json().id as number
  // A comment is at most 65,525 characters (the core's column limit): still tens of milliseconds to render.
  const comment = await whileWorking(h.app, 'renderComment', {
    method: 'POST', url: '/cms-json/cms/v2/comments', headers: { ...subscriber, ...json }, payload: JSON.stringify({ post: id, content: bigHtml(60_000) })
  })
  t.equal(comment.res.statusCode, 201, 'the comment is stored')
  t.same(comment.order.slice(0, 3), ['work started', 'healthz answered', 'work ended'], 'a comment is rendered in the pool')

  // The title was rendered (and kept) by the write's answer: a title never rendered, as another replica wrote it.
  await h.store.execute(`update posts set title = $body$<b>Never rendered</b>${text}$body$ where id = ${id}`)
  const read = await whileWorking(h.app, 'renderTitle', { method: 'GET', url: `/cms-json/cms/v2/posts/${id}` })
  t.equal(read.res.statusCode, 200)
  t.same(read.order.slice(0, 3), ['work started', 'healthz answered', 'work ended'], 'a long title is rendered in the pool')
  t.match(read.res.json().title.rendered, /^<b>Never rendered<\/b>/)
})

t.test('small texts stay on the request thread', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' } })
  t.teardown(h.close)
  const contributor = (await createCaller(h.store, 'contributor')).headers
  const before = { ...textPool.counts }
  const res = await h.app.inject({ method: 'POST', url: '/cms-json/cms/v2/posts', headers: { ...contributor, ...json }, payload: JSON.stringify({ title: 'Small', content: '<p>a<script>b</script></p>'.padEnd(INLINE_MAX_CHARS - 10, ' ') }) })
  t.equal(res.statusCode, 201)
  t.equal(textPool.counts.pool, before.pool, 'nothing went to the pool')
  t.ok(textPool.counts.inline > before.inline, 'the filter ran inline')
})

t.test('a full pool answers 503 with Retry-After, and the next request works', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', CMS_TEXT_THREADS: '1', CMS_TEXT_QUEUE: '0' } })
  t.teardown(async () => {
    await h.close()
    // The next app configures its own; the defaults meanwhile.
    textPool.configure()
  })
  const contributor = (await createCaller(h.store, 'contributor')).headers
  const post = async (): Promise<Response> => await h.app.inject({
    method: 'POST', url: '/cms-json/cms/v2/posts', headers: { ...contributor, ...json }, payload: JSON.stringify({ title: 'Large', content: bigHtml(200_000) })
  })
  let second: ReturnType<typeof post> | undefined
  const stop = textPool.watch((e) => { if (e.where === 'pool' && e.phase === 'start') second ??= post() })
  const first = await post()
  stop()
  const refused = await second!
  t.equal(first.statusCode, 201, 'the request holding the thread is served')
  t.equal(refused.statusCode, 503, 'the one finding thread and queue full is refused')
  t.equal(refused.headers['retry-after'], '2', 'and told when to come back')
  t.equal(refused.json().code, 'rest_text_busy')
  t.equal(refused.json().data.limit, 'CMS_TEXT_QUEUE')
  t.equal((await post()).statusCode, 201, 'once the thread is free, the next is served')
})

t.test('builder data is bounded by the deployment\'s text limits', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', CMS_TEXT_MAX_STRINGS: '100' } })
  t.teardown(h.close)
  const contributor = (await createCaller(h.store, 'contributor')).headers
  const draft = await h.app.inject({ method: 'POST', url: '/cms-json/cms/v2/posts', headers: { ...contributor, ...json }, payload: JSON.stringify({ title: 'Builder', content: 'x' }) })
  const send = async (n: number): Promise<Response> => await h.app.inject({
    method: 'POST', url: `/cms-json/cms/v2/posts/${draft.json().id as number}`, headers: { ...contributor, ...json }, payload: JSON.stringify({ meta: { _builder_data: JSON.stringify(Array.from({ length: n }, (_, i) => `s${i}`)) } })
  })
  t.equal((await send(50)).statusCode, 200, 'within CMS_TEXT_MAX_STRINGS')
  const over = await send(150)
  t.equal(over.statusCode, 400, 'past it: refused')
  t.match(over.body, /more than 100 strings/, 'naming the limit')
})
