/**
 * `GET /oembed/1.0/embed` (and the proxy for local URLs) on posts and pages
 * created through cms/v2: every field, the size rules, the embed markup,
 * XML output and the not-found answers.
 */
import t from 'tap'
import { setOption } from '@cms/store'
import { call } from '@cms/rest/testing'
import { testApp, createCaller, BASE, type TestUser } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const KEYS = ['version', 'provider_name', 'provider_url', 'author_name', 'author_url', 'title', 'type', 'width', 'height', 'html']

t.test('oEmbed of local posts and pages', async (t) => {
  const h = await testApp({ packages: [packageMeta], namespaces: ['oembed/1.0', 'cms/v2'] })
  t.teardown(() => h.app.close())
  await setOption(h.store, 'name', 'Test Site')
  const admin = await createCaller(h.store, 'administrator', { login: 'admin', displayName: 'Ada Admin' })
  const contributor = await createCaller(h.store, 'contributor', { login: 'contrib' })
  const create = async (type: 'posts' | 'pages', fields: Record<string, unknown>): Promise<any> => {
    const res = await call(h.app, 'POST', `/cms/v2/${type}`, { as: admin, body: fields })
    if (res.status !== 201) throw new Error(`could not create: ${res.text}`)
    return res.body
  }
  const post = await create('posts', { title: 'Hello oEmbed', content: 'Body', status: 'publish' })
  const page = await create('pages', { title: 'About us', content: 'Page body', status: 'publish' })
  const draft = await create('posts', { title: 'Not yet', status: 'draft' })
  const embed = async (query: Record<string, string>, as?: TestUser): ReturnType<typeof call> =>
    await call(h.app, 'GET', '/oembed/1.0/embed', { query, as })

  await t.test('a post: every field, in order', async (t) => {
    t.equal(post.link, `${BASE}/?p=${post.id}`, 'the link cms/v2 emits')
    const res = await embed({ url: post.link })
    t.equal(res.status, 200)
    t.same(Object.keys(res.body), KEYS)
    t.match(res.body, {
      version: '1.0',
      provider_name: 'Test Site',
      provider_url: BASE,
      author_name: 'Ada Admin',
      author_url: `${BASE}/?author=${admin.user.id}`,
      title: 'Hello oEmbed',
      type: 'rich',
      width: 600,
      height: 338
    })
    const html: string = res.body.html
    const m = /^<blockquote class="cms-embedded-content" data-secret="(\w{10})"><a href="([^"]+)">Hello oEmbed<\/a><\/blockquote><iframe sandbox="allow-scripts" security="restricted" src="([^"]+)" width="600" height="338" title="&#8220;Hello oEmbed&#8221; &#8212; Test Site" data-secret="(\w{10})" frameborder="0" marginwidth="0" marginheight="0" scrolling="no" class="cms-embedded-content"><\/iframe><script>[\s\S]+<\/script>$/.exec(html)
    t.ok(m, `the embed markup: ${html}`)
    t.equal(m?.[2], `${BASE}/?p=${post.id}`)
    t.equal(m?.[3], `${BASE}/?p=${post.id}&#038;embed=true#?secret=${m?.[1]}`, 'the iframe shows the embed view')
    t.equal(m?.[4], m?.[1], 'blockquote and iframe share the secret')
    const again = await embed({ url: post.link })
    t.not(/data-secret="(\w{10})"/.exec(again.body.html)?.[1], m?.[1], 'a new secret each time')
    t.equal(res.headers['content-type'], 'application/json; charset=UTF-8')
  })

  await t.test('a page, and the other address forms', async (t) => {
    const res = await embed({ url: `${BASE}/?page_id=${page.id}` })
    t.equal(res.status, 200)
    t.equal(res.body.title, 'About us')
    t.match(res.body.html, `<a href="${BASE}/?page_id=${page.id}">About us</a>`)
    t.equal((await embed({ url: `${BASE}/?p=${page.id}` })).body.title, 'About us', '?p= finds a page too')
    t.equal((await embed({ url: `${BASE}/index.php?rest_route=/cms/v2/posts/${post.id}` })).body.title, 'Hello oEmbed')
    t.equal((await embed({ url: `${BASE}/index.php?rest_route=/cms/v2/pages/${page.id}` })).body.title, 'About us')
    t.equal((await embed({ url: `http://www.cms.test/?p=${post.id}` })).status, 200, 'www. is the same site')
  })

  await t.test('width and height', async (t) => {
    const sizes: Array<[string, number, number]> = [['100', 200, 200], ['400', 400, 225], ['600', 600, 338], ['1000', 600, 338], ['abc', 200, 200], ['-300', 300, 200]]
    for (const [maxwidth, width, height] of sizes) {
      const res = await embed({ url: post.link, maxwidth })
      t.equal(res.body.width, width, `maxwidth ${maxwidth}: width`)
      t.equal(res.body.height, height, `maxwidth ${maxwidth}: height`)
      t.match(res.body.html, `width="${width}" height="${height}"`)
    }
  })

  await t.test('URLs that name nothing embeddable', async (t) => {
    const notFound = { code: 'oembed_invalid_url', message: 'Not Found', data: { status: 404 } }
    for (const url of [draft.link, `${BASE}/?p=999999`, `http://elsewhere.test/?p=${post.id}`, `${BASE}/about`, 'not a url']) {
      const res = await embed({ url }, admin)
      t.equal(res.status, 404, url)
      t.same(res.body, notFound)
    }
    const missing = await embed({})
    t.equal(missing.status, 400)
    t.same(missing.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): url', data: { status: 400, params: ['url'] } })
  })

  await t.test('format=xml', async (t) => {
    const res = await embed({ url: post.link, format: 'xml', maxwidth: '400' })
    t.equal(res.status, 200)
    t.equal(res.headers['content-type'], 'text/xml; charset=UTF-8')
    t.match(res.text, /^<\?xml version="1\.0"\?>\n<oembed><version>1\.0<\/version><provider_name>Test Site<\/provider_name><provider_url>http:\/\/cms\.test<\/provider_url><author_name>Ada Admin<\/author_name>/)
    t.match(res.text, '<title>Hello oEmbed</title><type>rich</type><width>400</width><height>225</height><html>&lt;blockquote class=&quot;cms-embedded-content&quot;')
    t.match(res.text, /&#038;embed=true/, 'entities stay entities')
    t.match(res.text, /<\/html><\/oembed>\n$/)
    t.notMatch(res.text, /<blockquote/, 'the markup is escaped')

    const error = await embed({ url: `${BASE}/?p=999999`, format: 'xml' })
    t.equal(error.status, 404)
    t.equal(error.headers['content-type'], 'text/xml; charset=UTF-8')
    t.equal(error.text, '<?xml version="1.0"?>\n<oembed><code>oembed_invalid_url</code><message>Not Found</message><data><status>404</status></data></oembed>\n')

    const json = await embed({ url: post.link, format: 'yaml' })
    t.equal(json.headers['content-type'], 'application/json; charset=UTF-8', 'anything but xml is JSON')

    const accented = await create('posts', { title: 'Café 🙂 & co', status: 'publish' })
    const xml = await embed({ url: accented.link, format: 'xml' })
    t.match(xml.text, /<title>Caf&#233; &#128578; &#038; co<\/title>|<title>Caf&#233; &#128578; &amp; co<\/title>/, 'non-ASCII as character references')
    t.notMatch(xml.text, /[^\x00-\x7f]/, 'the document is ASCII')
  })

  await t.test('the proxy answers local URLs the same way', async (t) => {
    const anonymous = await call(h.app, 'GET', '/oembed/1.0/proxy', { query: { url: post.link } })
    t.equal(anonymous.status, 401, 'the proxy needs a signed-in editor')
    const res = await call(h.app, 'GET', '/oembed/1.0/proxy', { as: contributor, query: { url: post.link, maxwidth: '300', format: 'xml' } })
    t.equal(res.status, 200)
    t.equal(res.headers['content-type'], 'application/json; charset=UTF-8', 'always JSON')
    t.same(Object.keys(res.body), KEYS)
    t.match(res.body, { title: 'Hello oEmbed', width: 300, height: 200, provider_name: 'Test Site' })
    const missing = await call(h.app, 'GET', '/oembed/1.0/proxy', { as: contributor, query: { url: draft.link } })
    t.equal(missing.status, 404)
    t.equal(missing.body.code, 'oembed_invalid_url')
    const rows = await h.store.execute<{ n: number }>('select count(*)::int as n from oembed_cache')
    t.equal(Number(rows[0]!.n), 0, 'local answers are not cached')
  })
})
