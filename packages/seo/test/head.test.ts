/**
 * Part 5: GET /seo/v1/get_head through HTTP, for every kind of URL the
 * site has (post with a featured image, page, category, tag, author, home,
 * search, date archive, post-type archive) and the 404 head (another host,
 * an unknown path, a draft, a private post, a future post), the JSON-LD
 * graph parsed from the html, escaping, the option that turns the route
 * off, and the bounds of `url`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { definePackage, type ContributionApi } from '@cms/core'
import { testApp, type TestCaller } from '@cms/testing'
import { HEAD_SERVICE, postHead, preloadPostHeads, seoPackage } from '../src/index.js'

/** A package with a post type that has an archive (`?post_type=product`). */
const shop: { api?: ContributionApi } = {}
const shopPackage = definePackage({
  name: '@cms/test-shop',
  dependencies: ['@cms/core'],
  namespaces: ['test-shop/v1'],
  contribute (api) {
    shop.api = api
    api.postType({ slug: 'product', name: 'Products', hasArchive: true, viewable: true })
  }
})

const PNG = readFileSync(new URL('./fixtures/social-1200x630.png', import.meta.url))
const H = 'http://cms.test'

/** The JSON-LD of a head's html, parsed from the script element's text. */
function graphOf (html: string): any[] {
  const m = /<script type="application\/ld\+json" class="seo-schema-graph">([^<]*)<\/script>/.exec(html)
  if (m === null) throw new Error('no JSON-LD script in the html')
  const parsed = JSON.parse(m[1]!)
  if (parsed['@context'] !== 'https://schema.org') throw new Error('no schema.org context')
  return parsed['@graph']
}
const byType = (graph: any[], type: string): any => graph.find((n) => [n['@type']].flat().includes(type))

t.test('get_head', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seo-head-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const h = await testApp({ packages: [seoPackage, shopPackage], namespaces: ['cms/v2', 'seo/v1', 'test-shop/v1'], contentDir: dir })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const writer = await h.caller('author')
  await h.call('POST', `/cms/v2/users/${writer.id}`, { as: admin, body: { name: 'Ada Writer' } })
  await h.call('POST', `/cms/v2/users/${admin.id}`, { as: admin, body: { name: 'Shop Admin' } })
  await h.call('POST', '/cms/v2/settings', { as: admin, body: { title: 'Boot Shop', description: 'Boots for every season' } })

  const head = async (url: string, as?: TestCaller): Promise<{ status: number, body: any }> => await h.call('GET', '/seo/v1/get_head', { query: { url }, ...(as === undefined ? {} : { as }) })
  const upload = await h.app.inject({
    method: 'POST',
    url: '/cms-json/cms/v2/media',
    headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="social.png"', authorization: admin.headers.authorization! },
    payload: PNG
  })
  t.equal(upload.statusCode, 201, 'image uploaded')
  const image = JSON.parse(upload.body)
  const news = (await h.call('POST', '/cms/v2/categories', { as: admin, body: { name: 'News', description: 'What is <b>new</b>' } })).body
  const winter = (await h.call('POST', '/cms/v2/tags', { as: admin, body: { name: 'Winter' } })).body
  const made = async (type: 'posts' | 'pages', body: Record<string, unknown>, as = writer): Promise<any> => {
    const res = await h.call('POST', `/cms/v2/${type}`, { as, body: { status: 'publish', ...body } })
    t.equal(res.status, 201, `made ${String(body.title)}`)
    return res.body
  }
  const post = await made('posts', {
    title: 'Winter boots',
    content: '<p>Warm boots keep your feet dry in the snow and slush all winter long.</p>',
    excerpt: 'Which boots to wear this winter.',
    featured_media: image.id,
    categories: [news.id],
    tags: [winter.id],
    meta: { '_seo_estimated-reading-time-minutes': '3' }
  }, admin)
  const page = await made('pages', { title: 'About us', content: '<p>We sell boots.</p>' }, admin)
  const custom = await made('posts', { title: 'Custom', content: '<p>Body text here.</p>', meta: { _seo_title: 'Own %%title%% %%sep%% here', _seo_metadesc: 'My own description', '_seo_meta-robots-noindex': '1' } }, admin)
  const hostile = await made('posts', { title: 'Hi', meta: { _seo_title: '</title><script>alert(1)</script> "quoted" \'single\' & more', _seo_metadesc: '"><img src=x onerror=alert(1)> </script><script>x()</script>' } }, admin)
  const locked = await made('posts', { title: 'Locked', content: '<p>Secret body words</p>', excerpt: 'Secret excerpt', password: 'pw', featured_media: image.id }, admin)
  const draft = await made('posts', { title: 'Draft title', content: '<p>Unpublished words</p>', status: 'draft' }, admin)
  const secret = await made('posts', { title: 'Private title', content: '<p>Private words</p>', status: 'private' }, admin)
  const later = await made('posts', { title: 'Future title', status: 'future', date: '2099-01-01T00:00:00' }, admin)
  t.equal(later.status, 'future')

  t.test('a post with a featured image', async (t) => {
    const res = await head(post.link)
    t.equal(res.status, 200)
    t.equal(res.body.status, 200)
    const j = res.body.json
    t.equal(post.link, `${H}/?p=${post.id}`)
    t.equal(j.title, 'Winter boots - Boot Shop', 'the post template %%title%% %%page%% %%sep%% %%sitename%%')
    t.notOk('description' in j, 'no meta description without one or a template')
    t.same(j.robots, { index: 'index', follow: 'follow', 'max-snippet': 'max-snippet:-1', 'max-image-preview': 'max-image-preview:large', 'max-video-preview': 'max-video-preview:-1' })
    t.equal(j.canonical, post.link)
    t.same([j.og_locale, j.og_type, j.og_title, j.og_url, j.og_site_name], ['en_US', 'article', 'Winter boots - Boot Shop', post.link, 'Boot Shop'])
    t.equal(j.og_description, 'Which boots to wear this winter.', 'the excerpt')
    t.match(j.article_published_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/)
    t.notOk('article_modified_time' in j, 'not modified since it was published')
    t.same(j.og_image, [{ width: 1200, height: 630, url: image.source_url, type: 'image/png' }], 'size and type from the media library')
    t.equal(j.author, 'Shop Admin')
    t.equal(j.twitter_card, 'summary_large_image')
    t.same(j.twitter_misc, { 'Written by': 'Shop Admin', 'Est. reading time': '3 minutes' })

    const html: string = res.body.html
    t.match(html, /^<title>Winter boots - Boot Shop<\/title>$/m)
    t.match(html, `<link rel="canonical" href="${post.link.replace('&', '&amp;')}" />`)
    t.match(html, '<meta property="og:image:width" content="1200" />')
    t.match(html, '<meta property="og:image:type" content="image/png" />')
    t.match(html, '<meta name="twitter:label2" content="Est. reading time" />')

    const graph = graphOf(html)
    t.same(graph, j.schema['@graph'], 'the html carries the same graph')
    const article = byType(graph, 'Article')
    const webPage = byType(graph, 'WebPage')
    const website = byType(graph, 'WebSite')
    const org = byType(graph, 'Organization')
    const img = byType(graph, 'ImageObject')
    const crumbs = byType(graph, 'BreadcrumbList')
    const person = byType(graph, 'Person')
    t.ok(article && webPage && website && org && img && crumbs && person, 'Article, WebPage, WebSite, Organization, ImageObject, BreadcrumbList, Person')
    const ids = new Set(graph.map((n) => n['@id']))
    t.equal(ids.size, graph.length, 'one node per @id')
    t.equal(webPage['@id'], post.link)
    t.equal(article.isPartOf['@id'], webPage['@id'])
    t.equal(article.mainEntityOfPage['@id'], webPage['@id'])
    t.equal(article.author['@id'], person['@id'])
    t.equal(article.publisher['@id'], org['@id'])
    t.equal(article.image['@id'], img['@id'])
    t.same(article.articleSection, ['News'])
    t.same(article.keywords, ['Winter'])
    t.equal(webPage.isPartOf['@id'], website['@id'])
    t.equal(webPage.primaryImageOfPage['@id'], img['@id'])
    t.equal(webPage.breadcrumb['@id'], crumbs['@id'])
    t.equal(website.publisher['@id'], org['@id'])
    t.same([img.url, img.width, img.height], [image.source_url, 1200, 630])
    t.same(crumbs.itemListElement.map((i: any) => [i.position, i.name, i.item]), [[1, 'Home', `${H}/`], [2, 'Winter boots', undefined]])
    for (const n of graph) for (const ref of Object.values(n).filter((v: any) => v?.['@id'] !== undefined && Object.keys(v).length === 1)) t.ok(ids.has((ref as any)['@id']), `${String(n['@type'])} links to a node of the graph`)
  })

  t.test('a page; the same object from postHead', async (t) => {
    const res = await head(page.link)
    t.equal(res.status, 200)
    const j = res.body.json
    t.equal(page.link, `${H}/?page_id=${page.id}`)
    t.same([j.title, j.og_type, j.canonical, j.og_description], ['About us - Boot Shop', 'article', page.link, 'We sell boots.'])
    t.notOk('article_published_time' in j, 'no published time on a page')
    const graph = graphOf(res.body.html)
    t.notOk(byType(graph, 'Article'), 'no Article for a page')
    t.equal(byType(graph, 'WebPage')['@id'], page.link)
    t.equal(byType(graph, 'ImageObject'), undefined, 'no image')
    t.equal((await head(`${H}/?p=${page.id}`)).status, 404, 'a page is not ?p=')
    t.equal((await head(`${H}/?page_id=${post.id}`)).status, 404, 'a post is not ?page_id=')

    // What cms/v2 posts and pages carry as seo_head_json: the same object, built from an id.
    const req = { memo: memo(), baseUrl: H, horizon: async () => undefined, epoch: async () => undefined } as any
    const heads = h.platform.service(HEAD_SERVICE)!
    const built = await postHead(heads, req, page.id)
    t.same(built?.json, j)
    t.same((await postHead(heads, req, post.id))?.json, (await head(post.link)).body.json)
    t.same((await postHead(heads, req, draft.id))?.json.title, 'Draft title - Boot Shop', 'any status: the caller decides who sees it')
    t.same((await postHead(heads, req, secret.id))?.json.robots, { index: 'noindex', follow: 'follow' }, 'a private post is never indexed')
    t.equal(await postHead(heads, req, 999999), undefined)
    t.equal(await postHead(heads, req, image.id), undefined, 'media items have no head')
    // A list: its posts read at once beforehand, then the same heads.
    const listReq = { memo: memo(), baseUrl: H, horizon: async () => undefined, epoch: async () => undefined } as any
    await preloadPostHeads(heads, listReq, [post.id, page.id, 999999])
    t.same((await postHead(heads, listReq, page.id))?.json, j, 'preloaded: the same head')
    t.same((await postHead(heads, listReq, post.id))?.json, (await head(post.link)).body.json)
  })

  t.test('a child page: its parents in the breadcrumb; a static front page', async (t) => {
    const team = await made('pages', { title: 'Team', parent: page.id }, admin)
    const crumbs = byType(graphOf((await head(team.link)).body.html), 'BreadcrumbList')
    t.same(crumbs.itemListElement.map((i: any) => [i.position, i.name, i.item]), [[1, 'Home', `${H}/`], [2, 'About us', page.link], [3, 'Team', undefined]])

    await h.call('POST', '/cms/v2/settings', { as: admin, body: { show_on_front: 'page', page_on_front: page.id } })
    t.teardown(async () => { await h.call('POST', '/cms/v2/settings', { as: admin, body: { show_on_front: 'posts', page_on_front: 0 } }) })
    for (const url of [`${H}/`, page.link]) {
      const front = (await head(url)).body.json
      t.same([front.title, front.og_type, front.canonical, front.og_url], ['Boot Shop - Boots for every season', 'website', `${H}/`, `${H}/`], url)
      const graph = front.schema['@graph']
      t.equal(byType(graph, 'WebPage')['@id'], `${H}/`)
      t.same(byType(graph, 'BreadcrumbList').itemListElement.map((i: any) => i.name), ['Home'])
    }
  })

  t.test('SEO fields win over the templates; noindex', async (t) => {
    await new Promise((resolve) => setTimeout(resolve, 1100))
    await h.call('POST', `/cms/v2/posts/${custom.id}`, { as: admin, body: { content: '<p>Body text, changed.</p>' } })
    const j = (await head(custom.link)).body.json
    t.match(j.article_modified_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/, 'modified after it was published')
    t.not(j.article_modified_time, j.article_published_time)
    t.equal(j.title, 'Own Custom - here', 'the post\'s own title, its variables replaced')
    t.equal(j.description, 'My own description')
    t.equal(j.og_description, 'My own description')
    t.same(j.robots, { index: 'noindex', follow: 'follow' })
    t.notOk('canonical' in j, 'no canonical on a noindexed page')
    t.equal(j.og_url, custom.link)
  })

  t.test('escaping', async (t) => {
    const res = await head(hostile.link)
    const html: string = res.body.html
    t.equal(res.body.json.title, '</title><script>alert(1)</script> "quoted" \'single\' & more', 'json keeps the text')
    t.match(html, '<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot; &#039;single&#039; &amp; more</title>')
    t.match(html, '<meta name="description" content="&quot;&gt;&lt;img src=x onerror=alert(1)&gt; &lt;/script&gt;&lt;script&gt;x()&lt;/script&gt;" />')
    t.notMatch(html, /<script>/, 'no script element besides the JSON-LD')
    t.notMatch(html, /<img/)
    t.equal(html.match(/<\/script>/g)?.length, 1, 'only the JSON-LD script closes')
    t.equal(html.match(/<title>/g)?.length, 1)
    t.equal(byType(graphOf(html), 'WebPage').name, res.body.json.title, 'the JSON-LD parses back to the text')
    t.equal(byType(graphOf(html), 'WebPage').description, res.body.json.description)
  })

  t.test('a password-protected post shows nothing of its content', async (t) => {
    const res = await head(locked.link)
    t.equal(res.status, 200)
    const all = JSON.stringify(res.body)
    t.notMatch(all, /Secret/)
    t.notOk('og_image' in res.body.json, 'no image either')
    t.equal(byType(graphOf(res.body.html), 'Article').wordCount, 0)
  })

  t.test('category, tag, author, home, search, date, post-type archive', async (t) => {
    const cat = await head(news.link)
    t.equal(news.link, `${H}/?cat=${news.id}`)
    t.same([cat.status, cat.body.json.title, cat.body.json.og_description, cat.body.json.canonical], [200, 'News Archives - Boot Shop', 'What is new', news.link])
    t.same(byType(graphOf(cat.body.html), 'CollectionPage')['@id'], news.link)
    const tag = await head(winter.link)
    t.same([tag.status, tag.body.json.title], [200, 'Winter Archives - Boot Shop'])
    const snow = (await h.call('POST', '/cms/v2/tags', { as: admin, body: { name: '雪' } })).body
    t.match(snow.link, /\?tag=%e9%9b%aa$/)
    const snowTag = await head(snow.link)
    t.same([snowTag.status, snowTag.body.json.title], [200, '雪 Archives - Boot Shop'], 'a slug of escaped letters')

    const authorLink = `${H}/?author=${writer.id}`
    t.equal((await head(authorLink)).status, 404, 'an author without published posts is not shown (as cms/v2 hides them)')
    await made('posts', { title: 'By Ada' })
    t.equal((await h.call('GET', `/cms/v2/users/${writer.id}`)).body.link, authorLink, 'the link cms/v2 gives')
    const author = await head(authorLink)
    t.equal(author.status, 200)
    t.same([author.body.json.title, author.body.json.og_type], ['Ada Writer, Author at Boot Shop', 'profile'])
    const profile = graphOf(author.body.html)
    t.equal(byType(profile, 'ProfilePage')['@id'], authorLink)
    t.equal(byType(profile, 'Person').mainEntityOfPage['@id'], authorLink)
    t.notMatch(author.body.html, new RegExp(writer.login), 'the login is not shown')

    for (const url of [`${H}/`, H, `${H}/?utm_source=x`, `${H}/index.php`]) {
      const home = await head(url)
      t.same([home.status, home.body.json.title, home.body.json.og_type, home.body.json.canonical], [200, 'Boot Shop - Boots for every season', 'website', `${H}/`], url)
      t.equal(home.body.json.og_description, 'Boots for every season')
      t.equal(byType(graphOf(home.body.html), 'CollectionPage')['@id'], `${H}/`)
    }

    const search = await head(`${H}/?s=warm+boots`)
    t.same([search.status, search.body.json.title], [200, 'You searched for warm boots - Boot Shop'])
    t.same(search.body.json.robots, { index: 'noindex', follow: 'follow' })
    t.same(byType(graphOf(search.body.html), 'SearchResultsPage')['@type'], ['CollectionPage', 'SearchResultsPage'])

    const now = new Date(post.date_gmt + 'Z')
    const y = now.getUTCFullYear()
    const m = String(now.getUTCMonth() + 1).padStart(2, '0')
    const d = String(now.getUTCDate()).padStart(2, '0')
    const month = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'][now.getUTCMonth()]
    for (const [url, label] of [[`${H}/?m=${y}${m}`, `${month} ${y}`], [`${H}/${y}/${m}/`, `${month} ${y}`], [`${H}/?m=${y}`, String(y)], [`${H}/?year=${y}&monthnum=${Number(m)}&day=${Number(d)}`, `${month} ${Number(d)}, ${y}`], [`${H}/${y}/${m}/${d}/`, `${month} ${Number(d)}, ${y}`]]) {
      const date = await head(url!)
      t.same([date.status, date.body.json.title, date.body.json.robots.index], [200, `${label} - Boot Shop`, 'noindex'], String(url))
    }
    t.equal((await head(`${H}/?m=1999`)).status, 404, 'a year without posts')
    t.equal((await head(`${H}/${y}/13/`)).status, 404, 'no month 13')

    t.equal((await head(`${H}/?post_type=nope`)).status, 404, 'no such post type')
    t.equal((await head(`${H}/?post_type=page`)).status, 404, 'a type without an archive')
    const products = await head(`${H}/?post_type=product`)
    t.same([products.status, products.body.json.title, products.body.json.canonical], [200, 'Products Archive - Boot Shop', `${H}/?post_type=product`])
    t.ok(byType(graphOf(products.body.html), 'CollectionPage'))
    const boot = await shop.api!.content.createPost({ type: 'product', title: 'Snow boot', status: 'publish', author: admin.id, content: '<p>A boot.</p>', siteUrl: H })
    const one = await head(`${H}/?p=${boot.id}`)
    t.same([one.status, one.body.json.title, one.body.json.og_type], [200, 'Snow boot - Boot Shop', 'article'], 'a post of another type: the post template')
    t.notOk(byType(graphOf(one.body.html), 'Article'), 'Article only for posts')
  })

  t.test('the 404 head', async (t) => {
    const cases: Array<[string, string]> = [
      ['https://elsewhere.example/?p=' + String(post.id), 'another host'],
      [`${H}:8080/?p=${post.id}`, 'another port'],
      [`${H}/no/such/path`, 'an unknown path'],
      [`${H}/?p=999999`, 'no such post'],
      [`${H}/?p=abc`, 'not an id'],
      [draft.link ?? `${H}/?p=${draft.id}`, 'a draft'],
      [`${H}/?p=${draft.id}`, 'a draft'],
      [`${H}/?p=${secret.id}`, 'a private post'],
      [`${H}/?p=${later.id}`, 'a future post'],
      [`${H}/?attachment_id=${image.id}`, 'a media page'],
      [`${H}/?cat=999999`, 'no such category'],
      [`${H}/?tag=nope`, 'no such tag'],
      [`${H}/?author=999999`, 'no such author'],
      [`ftp://cms.test/?p=${post.id}`, 'not http']
    ]
    for (const [url, why] of cases) {
      const res = await head(url)
      t.same([res.status, res.body.status, res.body.json.title], [404, 404, 'Page not found - Boot Shop'], why)
      t.same([res.body.code, typeof res.body.message, res.body.data], ['seo_head_not_found', 'string', { status: 404 }], `${why}: in the error shape too`)
      t.same(res.body.json.robots, { index: 'noindex', follow: 'follow' }, why)
      t.notMatch(JSON.stringify(res.body), /Draft title|Unpublished|Private title|Private words|Future title/, `${why}: nothing of it leaks`)
    }
    const res = await head(`${H}/no/such/path`)
    t.same(graphOf(res.body.html).map((n) => n['@type']), ['WebSite', 'Organization'])
    t.equal((await head(`${H}/?p=${secret.id}`, admin)).status, 404, 'the head is the anonymous page, whoever asks')
  })

  t.test('site representation: a person', async (t) => {
    await h.platform.services.options.write('seo_site_representation', { company_or_person: 'person', company_name: '', company_logo_id: 0, person_user_id: admin.id })
    t.teardown(async () => { await h.platform.services.options.reset('seo_site_representation') })
    const graph = graphOf((await head(post.link)).body.html)
    t.notOk(byType(graph, 'Organization') !== undefined && byType(graph, 'Organization')['@type'] === 'Organization', 'no Organization node')
    const site = byType(graph, 'WebSite')
    const publisher = graph.find((n) => n['@id'] === site.publisher['@id'])
    t.same(publisher['@type'], ['Person', 'Organization'])
    t.equal(byType(graph, 'Article').publisher['@id'], publisher['@id'])
    t.equal(byType(graph, 'Article').author['@id'], publisher['@id'], 'the author is the person the site represents: one node')
    t.equal(graph.filter((n) => n['@id'] === publisher['@id']).length, 1)
  })

  t.test('templates from the option', async (t) => {
    await h.platform.services.options.write('seo_titles', { separator: '|', 'title-page': '%%title%% %%sep%% %%sitedesc%%', 'metadesc-page': 'About %%sitename%%' })
    t.teardown(async () => { await h.platform.services.options.reset('seo_titles') })
    const j = (await head(page.link)).body.json
    t.same([j.title, j.description], ['About us | Boots for every season', 'About Boot Shop'])
    await h.platform.services.options.write('seo_titles', { 'title-page': 'Best %%title%% of %%currentyear%%' })
    const year = String(new Date().getUTCFullYear())
    t.equal((await head(page.link)).body.json.title, `Best About us of ${year}`, 'the current year, as the real product fills it')
  })

  t.test('url: required, an absolute URL, bounded', async (t) => {
    for (const url of ['not a url', '/relative/path', `${H}/${'a'.repeat(2100)}`, 'http://[bad/']) {
      const res = await head(url)
      t.same([res.status, res.body.code], [400, 'rest_invalid_param'], url.slice(0, 40))
    }
    const none = await h.call('GET', '/seo/v1/get_head')
    t.same([none.status, none.body.code], [400, 'rest_missing_callback_param'])
  })

  t.test('the option turns the route off', async (t) => {
    await h.platform.services.options.write('seo_enable_headless_rest_endpoints', false)
    const off = await head(post.link)
    t.same([off.status, off.body.code, off.body.data.status], [404, 'rest_no_route', 404])
    await h.platform.services.options.write('seo_enable_headless_rest_endpoints', true)
    t.equal((await head(post.link)).status, 200, 'on again')
  })
})

/** A request memo as the kernel gives one (for postHead called outside a route). */
function memo (): any {
  const cache = new Map<string, Promise<unknown>>()
  return Object.assign(async (key: string, load: () => Promise<unknown>) => {
    if (!cache.has(key)) cache.set(key, load())
    return await cache.get(key)
  }, { forget: (key: string) => { cache.delete(key) } })
}

t.test('date archives are the site\'s calendar days', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  // Auckland is 13 hours ahead in January: 20:00 UTC on December 31 is 09:00 on January 1 there.
  t.equal((await h.call('POST', '/cms/v2/settings', { as: admin, body: { timezone: 'Pacific/Auckland' } })).status, 200)
  const post = await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'New year boots', status: 'publish', date_gmt: '2025-12-31T20:00:00' } })
  t.same([post.status, post.body.date], [201, '2026-01-01T09:00:00'], 'the post\'s date in the site\'s time zone')
  const status = async (query: string): Promise<number> => (await h.call('GET', '/seo/v1/get_head', { query: { url: `${H}/?${query}` } })).status
  t.equal(await status('m=20260101'), 200, 'the local day has the post')
  t.equal(await status('m=202601'), 200, 'and the local month')
  t.equal(await status('m=2026'), 200, 'and the local year')
  t.equal(await status('m=20251231'), 404, 'the UTC day has not')
  t.equal(await status('m=2025'), 404, 'nor the UTC year')
})
