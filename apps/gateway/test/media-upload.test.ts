/**
 * Uploads the way the block editor sends them, with the editor's own
 * client (`@wordpress/api-fetch`) over a real loopback port: a FormData
 * body with a `file` part and fields (as its media upload does), and a raw
 * body named by Content-Disposition (as the core's other clients do); the
 * stored file is fetched back byte-equal from its `source_url`.
 *
 * test-all: alone (it adds middleware to `@wordpress/api-fetch`'s one chain for the whole process, as a page
 * does: in a batch, an earlier file's root URL, a closed port, stays first in the chain).
 */
import t from 'tap'
import apiFetchModule from '@wordpress/api-fetch'
import { gatewayApp, listenLoopback } from './helpers.js'
import { createCaller } from '@cms/core/testing'

// A CommonJS package: its default export is the module object to the type checker, the function at run time.
const apiFetch = ((apiFetchModule as unknown as { default?: unknown }).default ?? apiFetchModule) as typeof apiFetchModule.default

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

t.test('the block editor client uploads media', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' } })
  t.teardown(h.close)
  const base = await listenLoopback(h.app)
  const author = await createCaller(h.store, 'author')
  const contributor = await createCaller(h.store, 'contributor')
  // The service's links use its configured base URL; files are fetched from the port it listens on.
  const local = (url: string): string => url.replace(/^https?:\/\/[^/]+/, base)

  apiFetch.use(apiFetch.createRootURLMiddleware(`${base}/cms-json/`))
  const as = (caller: { headers: Record<string, string> }) => ({ headers: caller.headers })

  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'pixel.png')
  form.append('title', 'A pixel')
  form.append('alt_text', 'One pixel')
  const made = await apiFetch<Record<string, any>>({ path: '/cms/v2/media', method: 'POST', body: form, ...as(author) })
  t.equal(made.title.raw, 'A pixel')
  t.equal(made.alt_text, 'One pixel')
  t.equal(made.mime_type, 'image/png')
  t.same([made.media_details.width, made.media_details.height], [1, 1])
  const served = await fetch(local(made.source_url))
  t.equal(served.status, 200)
  t.equal(served.headers.get('content-type'), 'image/png')
  t.equal(served.headers.get('x-content-type-options'), 'nosniff')
  t.ok(Buffer.from(await served.arrayBuffer()).equals(PNG), 'byte-equal')

  const rawMade = await apiFetch<Record<string, any>>({
    path: '/cms/v2/media',
    method: 'POST',
    body: new Blob([new Uint8Array(PNG)], { type: 'image/png' }),
    headers: { ...author.headers, 'Content-Type': 'image/png', 'Content-Disposition': 'attachment; filename="raw pixel.png"' }
  })
  t.match(rawMade.source_url, /\/raw-pixel\.png$/)
  t.ok(Buffer.from(await (await fetch(local(rawMade.source_url))).arrayBuffer()).equals(PNG), 'raw upload byte-equal')

  const post = await apiFetch<Record<string, any>>({ path: '/cms/v2/posts', method: 'POST', data: { title: 'Illustrated', status: 'publish', featured_media: made.id }, ...as(author) })
  t.equal(post.featured_media, made.id)
  const embedded = await apiFetch<Record<string, any>>({ path: `/cms/v2/posts/${post.id}?_embed=cms:featuredmedia` })
  t.equal(embedded._embedded['cms:featuredmedia'][0].source_url, made.source_url)

  await t.rejects(apiFetch({ path: '/cms/v2/media', method: 'POST', body: form, ...as(contributor) }), { code: 'rest_cannot_create', data: { status: 403 } })
  await t.rejects(apiFetch({ path: '/cms/v2/media', method: 'POST', body: form }), { code: 'rest_cannot_create', data: { status: 401 } })
})
