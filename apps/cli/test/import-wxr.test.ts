// `cms import wxr`: an export file the test writes with every feature
// (import-fixtures.ts), its attachment files from a local server, into a
// fresh site; read back through the service (profile B, so the SEO
// package's importer maps the source SEO plugin's meta); a second run
// changes nothing; a run stopped part way resumes; --dry-run writes nothing.
import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openTestStore } from '@cms/store/testing'
import { coreMigrations, createApplicationPassword, createUser } from '@cms/core'
import { buildApp, loadSettings } from '@cms/gateway'
import { inProcess } from './helpers.js'
import { fileServer, fullExport } from './import-fixtures.js'

t.test('cms import wxr', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-import-wxr-'))
  const db = await openTestStore({ migrations: [coreMigrations] })
  const files = await fileServer()
  t.teardown(async () => {
    await files.close()
    await db.close()
    await rm(dir, { recursive: true, force: true })
  })
  const env = { CMS_CONTENT_DIR: join(dir, 'content'), CMS_BASE_URL: 'http://cms.test', CMS_OUTBOUND_ALLOW: '127.0.0.1' }
  const { exec } = inProcess(db, env)
  const admin = await createUser(db, { login: 'admin', email: 'admin@cms.test', roles: ['administrator'] })
  const file = join(dir, 'export.xml')
  writeFileSync(file, fullExport(files.url))

  const dry = await exec(['import', 'wxr', file, '--dry-run'])
  t.equal(dry.code, 0, dry.stderr)
  t.match(dry.stdout, /would create post 20 "Grüße aus Köln — 東京"/)
  t.match(dry.stdout, /would create comment 101 on post 20/)
  t.match(dry.stdout, /Dry run \(nothing written\) from http:\/\/old\.example: created 16, updated 0, unchanged 0, skipped 2, failed 0/)
  t.equal((await db.execute<{ n: number }>("select count(*)::int as n from posts where type <> 'revision'"))[0]!.n, 0, 'a dry run writes nothing')

  // Interrupted after 6 records (users and terms and one post), then resumed.
  const first = await exec(['import', 'wxr', file, '--stop-after', '6', '--batch', '4'])
  t.equal(first.code, 0, first.stdout + first.stderr)
  t.match(first.stdout, /created 8, updated 0, unchanged 0, skipped 0, failed 0\n/)
  t.match(first.stdout, / {2}post {8}created 1,/)
  t.match(first.stdout, /Stopped early/)
  const resumed = await exec(['import', 'wxr', file, '--batch', '4'])
  t.equal(resumed.code, 1, 'a file failed: exit code 1')
  t.match(resumed.stdout, /Imported from http:\/\/old\.example: created 7, updated 0, unchanged 8, skipped 2, failed 1/)
  t.match(resumed.stdout, /attachment 11 "Gone": .*missing\.png answered 404/)
  t.match(resumed.stdout, /post: status trash is not imported \(1\)/)
  t.match(resumed.stdout, /nav_menu_item: type nav_menu_item is not imported \(1\)/)

  const again = await exec(['import', 'wxr', file])
  t.equal(again.code, 1, 'the missing file fails again')
  t.match(again.stdout, /created 0, updated 0, unchanged 15, skipped 2, failed 1/, 'a second run changes nothing')
  const hits = files.hits()
  t.equal((await exec(['import', 'wxr', file, '--dry-run'])).stdout.match(/would /g)?.length ?? 0, 1, 'only the failed attachment would be created')
  t.equal(files.hits(), hits, 'a dry run fetches nothing')

  // What the site now holds, through the service (profile B: the SEO package too).
  const app = await buildApp(loadSettings({ ...env, CMS_DEPLOYMENT: 'B' }), { store: db, jobs: false, logger: false })
  t.teardown(async () => { await app.close() })
  const key = await createApplicationPassword(db, admin.id, { name: 'test' })
  const auth = `Basic ${Buffer.from(`admin:${key.password}`).toString('base64')}`
  const get = async (path: string): Promise<any> => {
    const res = await app.inject({ method: 'GET', url: `/cms-json${path}`, headers: { authorization: auth } })
    t.equal(res.statusCode, 200, `${path}: ${res.body.slice(0, 200)}`)
    return res.json()
  }
  const posts = await get('/cms/v2/posts?context=edit&status=publish,future,draft,private,pending&per_page=100')
  const bySlug = new Map<string, any>(posts.map((p: any) => [p.slug, p]))
  const main = bySlug.get('gruesse')
  t.equal(main.title.raw, 'Grüße aus Köln — 東京')
  t.equal(main.sticky, true)
  t.equal(main.format, 'aside')
  t.equal(main.date_gmt, '2020-01-02T10:00:00')
  const cats = await get('/cms/v2/categories?per_page=100&hide_empty=false')
  const news = cats.find((c: any) => c.slug === 'news')
  const local = cats.find((c: any) => c.slug === 'local-news')
  t.equal(local.parent, news.id, 'category hierarchy')
  t.same(main.categories, [local.id])
  const tags = await get('/cms/v2/tags?hide_empty=false')
  t.same(tags.map((x: any) => x.name), ['Émigré'])
  t.same(main.tags, [tags[0].id])
  const media = await get('/cms/v2/media?context=edit')
  t.equal(media.length, 1)
  const photo = media[0]
  t.equal(main.featured_media, photo.id, 'the featured image through the id map')
  t.equal(photo.post, main.id, 'the attachment attached to its post')
  t.equal(photo.alt_text, 'Alt text')
  t.match(photo.source_url, /^http:\/\/cms\.test\/cms-content\/uploads\/.*photo\.png$/)
  const users = await get('/cms/v2/users?context=edit')
  const zoe = users.find((u: any) => u.username === 'zoe')
  t.equal(zoe.name, 'Zoë Ångström')
  const secret = bySlug.get('secret')
  t.equal(secret.password, 'open sesame')
  t.equal(secret.author, zoe.id)
  t.equal(bySlug.get('tomorrow').status, 'future')
  t.equal(bySlug.get('tomorrow').date_gmt, '2099-05-01T09:00:00')
  t.equal(bySlug.get('unfinished').status, 'draft')
  t.notOk(bySlug.has('binned'))
  const pages = await get('/cms/v2/pages?context=edit&per_page=100')
  const page = new Map<string, any>(pages.map((p: any) => [p.slug, p]))
  t.equal(page.get('team').parent, page.get('about').id, 'the page tree')
  t.equal(page.get('jobs').parent, page.get('team').id)
  t.same([page.get('about').menu_order, page.get('team').menu_order], [1, 2])
  // Links rewritten: the uploads file (a resized copy's URL), a page linked before it was imported, ?p=, image ids.
  const content = main.content.raw as string
  t.notMatch(content, /old\.example|127\.0\.0\.1/, 'no link to the old site is left')
  t.ok(content.includes(photo.source_url), 'the file URL is the new one')
  t.ok(content.includes(page.get('team').link), 'a link to a page imported later')
  t.ok(content.includes(secret.link), '?p= links')
  t.ok(content.includes(`wp-image-${photo.id}`) && content.includes(`{"id":${photo.id}}`), 'image ids')
  // Meta: registered (builder) through the routes, unregistered kept as-is.
  t.equal(main.meta._builder_edit_mode, 'builder')
  t.same(JSON.parse(main.meta._builder_data), [{ id: 'a1', elType: 'section', elements: [] }])
  const kept = await db.execute<{ value: unknown }>(`select value from post_meta where post_id = ${Number(main.id)} and key = 'custom_field'`)
  t.equal(kept[0]?.value, 'kept as-is: a:1:{s:3:"key";s:5:"value";}')
  // Comments, threaded, their status kept.
  const comments = await get(`/cms/v2/comments?post=${Number(main.id)}&context=edit&status=all`)
  t.equal(comments.length, 2, JSON.stringify(comments))
  const parent = comments.find((c: any) => c.author_name === 'Jürgen')
  const reply = comments.find((c: any) => c.author_name === 'Åsa')
  t.equal(reply.parent, parent.id)
  t.same([parent.status, reply.status], ['approved', 'hold'])
  t.equal(parent.content.raw, 'Schön! 👍')

  // The SEO package's importer maps the source SEO plugin's meta the import kept.
  const seo = await app.inject({ method: 'POST', url: '/cms-json/seo/v1/import/seo-a/posts', headers: { authorization: auth } })
  t.equal(seo.statusCode, 200, seo.body)
  t.match(seo.json().objects.find((o: any) => o.id === main.id), { imported: ['_seo_title', '_seo_metadesc', '_seo_focuskw'] })
  const after = await get(`/cms/v2/posts/${Number(main.id)}?context=edit`)
  t.same([after.meta._seo_title, after.meta._seo_metadesc, after.meta._seo_focuskw], ['%%title%% %%sep%% %%sitename%%', 'Eine Beschreibung', 'köln'])

  // A changed record is updated, nothing else.
  writeFileSync(file, fullExport(files.url).replace('<p>Draft</p>', '<p>Draft, revised</p>'))
  const changed = await exec(['import', 'wxr', file])
  t.match(changed.stdout, /created 0, updated 1, unchanged 14, skipped 2, failed 1/)
})
