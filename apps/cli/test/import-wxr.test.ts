// `cms import wxr`: an export file the test writes with every feature
// (import-fixtures.ts), its attachment files from a local server, into a
// fresh site; read back through the service (profile B, so the SEO
// package's importer maps the source SEO plugin's meta); a run interrupted
// mid-batch resumes; a second run changes nothing; --dry-run writes
// nothing. Then, on the same database from another source site: authors
// mapped by --authors, files over the size and pixel limits, a bad command
// line.
import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { openTestStore } from '@cms/store/testing'
import { coreMigrations, createApplicationPassword, createUser } from '@cms/core'
import { buildApp, loadSettings } from '@cms/gateway'
import { importMigrations } from '../src/import/map.js'
import { inProcess } from './helpers.js'
import { fileServer, fullExport, head, itemXml, TAIL } from './import-fixtures.js'

/** A terminal as the progress bar sees one: what it drew, kept. */
class Terminal extends Writable {
  text = ''
  readonly isTTY = true
  readonly columns = 160
  override _write (chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += String(chunk)
    done()
  }
}

t.test('cms import wxr', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-import-wxr-'))
  // The import's own migrations in the template too: one migrated store for every part of this file.
  const db = await openTestStore({ migrations: [coreMigrations, importMigrations] })
  let onPhoto: (() => void) | undefined
  const files = await fileServer((name) => { if (name === 'photo.png') onPhoto?.() })
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

  // Interrupted in its third batch of 4 (users and categories; the tag and posts 20-22; posts 23-25 and the
  // photo): the photo is fetched before the batch's transaction, which writes post 23, then rolls back.
  const interrupt = new AbortController()
  onPhoto = () => { interrupt.abort() }
  const first = await exec(['import', 'wxr', file, '--batch', '4'], { signal: interrupt.signal })
  onPhoto = undefined
  t.equal(first.code, 130, `interrupted: exit code 130 ${first.stdout}${first.stderr}`)
  t.match(first.stdout, /: created 10, updated 0, unchanged 0, skipped 0, failed 0\n/, 'two whole batches counted (and post 20\'s two comments)')
  t.match(first.stdout, / {2}post {8}created 3,/)
  t.match(first.stdout, /Interrupted: the batch under way was rolled back/)
  const left = await db.execute<{ slug: string }>("select slug from posts where type in ('post', 'page', 'attachment') order by id")
  t.same(left.map((r) => r.slug), ['gruesse', 'secret', 'tomorrow'], 'post 23, written in the third batch, rolled back with it')
  const mapRows = await db.execute<{ n: number }>('select count(*)::int as n from import_map')
  t.equal(mapRows[0]!.n, 10, 'the id map holds what the two batches wrote, nothing more')
  // Resumed: a bar on a terminal, then the summary.
  const terminal = new Terminal()
  const resumed = await exec(['import', 'wxr', file, '--batch', '4'], { terminal })
  t.equal(resumed.code, 1, 'a file failed: exit code 1')
  t.match(resumed.stdout, /Imported from http:\/\/old\.example: created 5, updated 0, unchanged 10, skipped 2, failed 1/)
  t.match(terminal.text, /100% \| 16 records, [0-9.]+\/s \| created 5, updated 0, unchanged 10, failed 1/, 'the progress bar: the whole file read, records, rate, counts')
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

  // Another source site into the same database (the id map is per site): its author mapped to a user here
  // by --authors, its terms linked to those of the same names; files over the upload limit and over the
  // pixel limit fail their attachments only.
  await t.test('another site: --authors, the size and pixel limits, a bad command line', async (t) => {
    const site = 'http://second.example'
    const limited = inProcess(db, { ...env, CMS_UPLOAD_MAX_BYTES: String(32 * 1024), CMS_IMAGE_MAX_PIXELS: '1000000' })
    const upload = (id: number, name: string): string => itemXml(site, { id, type: 'attachment', title: name, status: 'inherit', slug: name.replace('.', '-'), attachmentUrl: `${files.url}/wp-content/uploads/2020/01/${name}`, creator: 'olduser' })
    const second = join(dir, 'second.xml')
    writeFileSync(second, head(site).replace(/<wp:author>.*<\/wp:author>\n/g, '') +
      '<wp:author><wp:author_login>olduser</wp:author_login><wp:author_email>old@second.example</wp:author_email></wp:author>\n' +
      itemXml(site, { id: 1, title: 'By the old user', slug: 'by-old-user', creator: 'olduser' }) +
      upload(2, 'big.txt') + upload(3, 'bomb.png') + upload(4, 'photo.png') + TAIL)
    const authors = join(dir, 'authors.txt')
    writeFileSync(authors, '# source login = login here\nolduser = admin\n')

    const bad = await limited.exec(['import', 'wxr', second, '--batch', '0'])
    t.equal(bad.code, 2, 'a bad command line: exit code 2')
    t.match(bad.stderr, /--batch takes a whole number of at least 1/)
    const both = await limited.exec(['import', 'wxr', second, '--author', 'admin', '--authors', authors])
    t.equal(both.code, 2)
    const missing = await limited.exec(['import', 'wxr', second, '--authors', join(dir, 'authors-none.txt')])
    t.match(missing.stderr, /no file .*authors-none\.txt \(--authors\)/)

    const done = await limited.exec(['import', 'wxr', second, '--authors', authors])
    t.equal(done.code, 1, 'two files failed: exit code 1')
    t.match(done.stdout, /Imported from http:\/\/second\.example: created 2, updated 0, unchanged 0, skipped 4, failed 2/)
    t.match(done.stdout, /user: mapped to a user here by --authors \(1\)/)
    t.match(done.stdout, /attachment 2 "big\.txt": .*big\.txt: .*(larger|too large|limit)/i, 'over CMS_UPLOAD_MAX_BYTES: failed, with the reason')
    t.match(done.stdout, /attachment 3 "bomb\.png": .*(CMS_IMAGE_MAX_PIXELS|pixels)/i, 'over CMS_IMAGE_MAX_PIXELS: failed, with the reason')
    const rows = await db.execute<{ slug: string, author: number, type: string }>("select slug, author, type from posts where slug in ('by-old-user', 'photo-png', 'big-txt', 'bomb-png') order by slug")
    t.same(rows.map((r) => [r.slug, r.type]), [['by-old-user', 'post'], ['photo-png', 'attachment']], 'the refused files left no attachment')
    t.equal(rows[0]!.author, admin.id, 'the post is the mapped user\'s')
    t.equal((await db.execute<{ n: number }>("select count(*)::int as n from users where login = 'olduser'"))[0]!.n, 0, 'no user made for a mapped author')
  })
})
