/**
 * `/cms/v2/media` over HTTP on a real database and a real uploads
 * directory: uploads as a raw body and as a multipart form, who may upload,
 * refused types and sizes leaving no file and no row, image sizes (EXIF
 * orientation applied), served files, featured images, delete and
 * post-process.
 */
import t from 'tap'
import { mkdtempSync, readdirSync, statSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { sql } from 'drizzle-orm'
import type { Answer } from '@cms/rest/testing'
import { statementsDuring } from '@cms/store/testing'
import { withContentUsers, type ContentHarness } from './fixtures/content/harness.js'
import { testApp, type TestUser } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'
import { textPool } from '../src/text/text-pool.js'

/** Every file under a directory (the work directory included). */
function filesUnder (dir: string): string[] {
  const out: string[] = []
  const walk = (d: string): void => {
    let names: string[]
    try { names = readdirSync(d) } catch { return }
    for (const name of names) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out.push(p.slice(dir.length + 1))
    }
  }
  walk(dir)
  return out.sort()
}

async function attachmentCount (h: ContentHarness): Promise<number> {
  const rows = await h.store.execute<{ n: number }>(sql`select count(*)::int as n from posts where type = 'attachment'`)
  return rows[0]!.n
}

async function jpeg (width: number, height: number, orientation?: number): Promise<Buffer> {
  let img = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } }).jpeg()
  if (orientation !== undefined) img = img.withMetadata({ orientation })
  return await img.toBuffer()
}

async function png (width: number, height: number): Promise<Buffer> {
  return await sharp({ create: { width, height, channels: 4, background: { r: 0, g: 90, b: 200, alpha: 0.5 } } }).png().toBuffer()
}

interface Upload { name: string, type: string, data: Buffer }

t.test('media', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-media-'))
  const uploads = join(dir, 'uploads')
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['oembed/1.0', 'cms/v2'], contentDir: dir, uploadMaxBytes: 3 * 1024 * 1024 }))
  t.teardown(async () => {
    await h.app.close()
    await rm(dir, { recursive: true, force: true })
  })
  const { admin, author, contributor, editor } = h.users

  const raw = async (file: Upload, as?: TestUser, query = ''): Promise<Answer> => await h.call('POST', `/cms/v2/media${query}`, {
    as,
    headers: { 'content-type': file.type, 'content-disposition': `attachment; filename="${file.name}"` },
    payload: file.data
  })

  const multipart = async (file: Upload, fields: Record<string, string>, as?: TestUser): Promise<Answer> => {
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(file.data)], { type: file.type }), file.name)
    for (const [k, v] of Object.entries(fields)) form.append(k, v)
    const encoded = new Response(form)
    return await h.call('POST', '/cms/v2/media', { as, headers: { 'content-type': encoded.headers.get('content-type')! }, payload: Buffer.from(await encoded.arrayBuffer()) })
  }

  const fetchFile = async (url: string, headers: Record<string, string> = {}): Promise<{ statusCode: number, headers: Record<string, any>, rawPayload: Buffer }> => {
    const path = url.replace('http://cms.test', '')
    return await h.app.inject({ method: 'GET', url: path, headers })
  }

  t.test('an author uploads a raw body; the file is served back byte-equal', async (t) => {
    const data = await jpeg(640, 480)
    const res = await raw({ name: 'Summer photo.jpg', type: 'image/jpeg', data }, author)
    t.equal(res.status, 201, JSON.stringify(res.body))
    const m = res.body
    t.equal(res.headers.location, `http://cms.test/index.php?rest_route=/cms/v2/media/${m.id}`)
    t.equal(m.type, 'attachment')
    t.equal(m.status, 'inherit')
    t.equal(m.author, author.id)
    t.equal(m.media_type, 'image')
    t.equal(m.mime_type, 'image/jpeg')
    t.equal(m.title.raw, 'Summer-photo')
    t.equal(m.slug, 'summer-photo')
    t.equal(m.post, null)
    t.match(m.source_url, /^http:\/\/cms\.test\/cms-content\/uploads\/\d{4}\/\d{2}\/Summer-photo\.jpg$/)
    t.equal(m.media_details.width, 640)
    t.equal(m.media_details.height, 480)
    t.equal(m.media_details.filesize, data.length)
    t.match(m.media_details.file, /^\d{4}\/\d{2}\/Summer-photo\.jpg$/)
    t.same(m.missing_image_sizes, [])

    const served = await fetchFile(m.source_url)
    t.equal(served.statusCode, 200)
    t.ok(served.rawPayload.equals(data), 'byte-equal')
    t.match(served.headers['content-type'], /^image\/jpeg/)
    t.equal(served.headers['x-content-type-options'], 'nosniff')
    t.match(served.headers['cache-control'], /public, max-age=86400/)
    t.ok(served.headers.etag, 'an ETag')
    t.ok(served.headers['last-modified'], 'a Last-Modified')
    const part = await fetchFile(m.source_url, { range: 'bytes=0-9' })
    t.equal(part.statusCode, 206)
    t.equal(part.headers['content-range'], `bytes 0-9/${data.length}`)
    t.ok(part.rawPayload.equals(data.subarray(0, 10)))
    const again = await fetchFile(m.source_url, { 'if-none-match': served.headers.etag })
    t.equal(again.statusCode, 304)

    // The same name again is made unique in its folder.
    const second = await raw({ name: 'Summer photo.jpg', type: 'image/jpeg', data }, author)
    t.equal(second.status, 201)
    t.match(second.body.source_url, /\/Summer-photo-1\.jpg$/)
    t.match(second.body.slug, /^summer-photo-\d+$/)

    const read = await h.call('GET', `/cms/v2/media/${m.id}`)
    t.equal(read.status, 200)
    t.same(Object.keys(read.body), ['id', 'date', 'date_gmt', 'guid', 'modified', 'modified_gmt', 'slug', 'status', 'type', 'link', 'title', 'author',
      'comment_status', 'ping_status', 'template', 'meta', 'class_list', 'description', 'caption', 'alt_text', 'media_type', 'mime_type', 'media_details',
      'post', 'source_url', '_links'])
    const embed = await h.call('GET', `/cms/v2/media/${m.id}`, { query: { context: 'embed' } })
    t.same(Object.keys(embed.body), ['id', 'date', 'slug', 'type', 'link', 'title', 'author', 'caption', 'alt_text', 'media_type', 'mime_type',
      'media_details', 'source_url', '_links'])
  })

  t.test('an author uploads a multipart form with fields', async (t) => {
    const post = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Holder', status: 'draft' } })
    const res = await multipart({ name: 'chart.png', type: 'image/png', data: await png(400, 300) },
      { title: 'A chart', alt_text: 'Bars <b>rising</b>', caption: 'Q3', description: 'Numbers', post: String(post.body.id) }, author)
    t.equal(res.status, 201, JSON.stringify(res.body))
    t.equal(res.body.title.raw, 'A chart')
    t.equal(res.body.alt_text, 'Bars rising', 'tags stripped from alt text')
    t.equal(res.body.caption.raw, 'Q3')
    t.equal(res.body.description.raw, 'Numbers')
    t.equal(res.body.post, post.body.id)
    t.equal(res.body.mime_type, 'image/png')
    const attached = await h.call('GET', '/cms/v2/media', { as: author, query: { parent: post.body.id } })
    t.same(attached.body.map((m: any) => m.id), [res.body.id], 'listed under its parent')
    const bad = await multipart({ name: 'x.png', type: 'image/png', data: await png(10, 10) }, { post: 'nope' }, author)
    t.equal(bad.status, 400)
    t.equal(bad.body.code, 'rest_invalid_param')
    const foreign = await multipart({ name: 'x.png', type: 'image/png', data: await png(10, 10) }, { post: String(post.body.id) }, h.users.author2)
    t.equal(foreign.status, 403, "attaching to another's draft is refused")
    // Found by the fuzz test: a body that is not the form its boundary announces was a 500.
    const notAForm = await h.call('POST', '/cms/v2/media', {
      as: author,
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      payload: JSON.stringify({ date: '2024-W01', slug: '\u0000'.repeat(1000) })
    })
    t.same([notAForm.status, notAForm.body.code], [400, 'rest_upload_no_data'], 'a body that is not the announced form is a 400')
  })

  t.test('uploading needs upload_files', async (t) => {
    const before = filesUnder(uploads)
    const file = { name: 'a.png', type: 'image/png', data: await png(20, 20) }
    for (const [who, as, status] of [['contributor', contributor, 403], ['anonymous', undefined, 401]] as const) {
      const r = await raw(file, as)
      t.equal(r.status, status, `${who}, raw`)
      t.equal(r.body.code, 'rest_cannot_create')
      const m = await multipart(file, {}, as)
      t.equal(m.status, status, `${who}, multipart`)
    }
    t.same(filesUnder(uploads), before, 'nothing written')
  })

  t.test('refused types and sizes leave no file and no row', async (t) => {
    const before = filesUnder(uploads)
    const rows = await attachmentCount(h)
    const html = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>')
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(60), Buffer.from('PE\0\0'), Buffer.alloc(400)])
    const cases: Array<[string, Upload, string]> = [
      ['PHP', { name: 'shell.php', type: 'application/x-php', data: Buffer.from('<?php system($_GET["c"]); ?>') }, 'rest_upload_unknown_error'],
      ['SVG', { name: 'logo.svg', type: 'image/svg+xml', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>') }, 'rest_upload_unknown_error'],
      ['HTML', { name: 'page.html', type: 'text/html', data: html }, 'rest_upload_unknown_error'],
      ['HTML disguised as JPEG', { name: 'cat.jpg', type: 'image/jpeg', data: html }, 'rest_upload_sniff_error'],
      ['PHP disguised as text', { name: 'notes.txt', type: 'text/plain', data: Buffer.from('<?php echo 1; ?>') }, 'rest_upload_sniff_error'],
      ['executable', { name: 'setup.exe', type: 'application/octet-stream', data: exe }, 'rest_upload_unknown_error'],
      ['executable disguised as JPEG', { name: 'setup.jpg', type: 'image/jpeg', data: exe }, 'rest_upload_sniff_error'],
      ['corrupt JPEG', { name: 'broken.jpg', type: 'image/jpeg', data: Buffer.concat([(await jpeg(300, 300)).subarray(0, 200), Buffer.alloc(2000, 7)]) }, 'rest_upload_image_error']
    ]
    for (const [what, file, code] of cases) {
      const r = await raw(file, admin)
      t.equal(r.status, 400, `${what}: raw`)
      t.equal(r.body.code, code, `${what}: ${code}`)
      const m = await multipart(file, {}, admin)
      t.equal(m.status, 400, `${what}: multipart`)
      t.equal(m.body.code, code, `${what}: multipart ${code}`)
    }
    const big = Buffer.alloc(3 * 1024 * 1024 + 10, 1)
    const tooBig = await raw({ name: 'big.txt', type: 'text/plain', data: big }, admin)
    t.equal(tooBig.status, 413)
    t.equal(tooBig.body.code, 'rest_upload_too_large')
    const tooBigForm = await multipart({ name: 'big.txt', type: 'text/plain', data: big }, {}, admin)
    t.equal(tooBigForm.status, 413)
    t.equal(tooBigForm.body.code, 'rest_upload_too_large')
    const noName = await h.call('POST', '/cms/v2/media', { as: admin, headers: { 'content-type': 'image/png' }, payload: await png(5, 5) })
    t.equal(noName.status, 400)
    t.equal(noName.body.code, 'rest_upload_no_content_disposition')
    const empty = await raw({ name: 'e.png', type: 'image/png', data: Buffer.alloc(0) }, admin)
    t.equal(empty.status, 400)
    t.equal(empty.body.code, 'rest_upload_no_data')
    t.same(filesUnder(uploads), before, 'no file left (work files included)')
    t.equal(await attachmentCount(h), rows, 'no row written')
  })

  t.test('file names are sanitized', async (t) => {
    const r = await raw({ name: '../../etc/pass\u0001wd.shell.txt', type: 'text/plain', data: Buffer.from('plain words\n') }, admin)
    t.equal(r.status, 201)
    t.match(r.body.source_url, /\/uploads\/\d{4}\/\d{2}\/passwd-shell\.txt$/)
    t.equal(r.body.mime_type, 'text/plain')
    t.equal(r.body.media_type, 'file')
    t.same(r.body.media_details, { filesize: 12 })
    const mislabelled = await raw({ name: 'really-a-png.jpg', type: 'image/jpeg', data: await png(30, 30) }, admin)
    t.equal(mislabelled.status, 201)
    t.equal(mislabelled.body.mime_type, 'image/png', 'the content decides the type')
    t.match(mislabelled.body.source_url, /really-a-png\.png$/)
  })

  t.test('image sizes of a JPEG and a PNG; EXIF orientation applied', async (t) => {
    const big = await raw({ name: 'wide.jpg', type: 'image/jpeg', data: await jpeg(2000, 1500) }, author)
    t.equal(big.status, 201)
    const sizes = big.body.media_details.sizes
    const dims = (name: string): [number, number] => [sizes[name].width, sizes[name].height]
    t.same(dims('thumbnail'), [150, 150])
    t.same(dims('medium'), [300, 225])
    t.same(dims('medium_large'), [768, 576])
    t.same(dims('large'), [1024, 768])
    t.same(dims('full'), [2000, 1500])
    t.equal(sizes.thumbnail.file, 'wide-150x150.jpg')
    t.equal(sizes.thumbnail.mime_type, 'image/jpeg')
    for (const name of ['thumbnail', 'medium', 'medium_large', 'large']) {
      const f = await fetchFile(sizes[name].source_url)
      t.equal(f.statusCode, 200, `${name} served`)
      const meta = await sharp(f.rawPayload).metadata()
      t.same([meta.width, meta.height], dims(name), `${name} file has its dimensions`)
    }

    const small = await raw({ name: 'small.png', type: 'image/png', data: await png(400, 300) }, author)
    const ps = small.body.media_details.sizes
    t.same(Object.keys(ps).sort(), ['full', 'medium', 'thumbnail'])
    t.same([ps.thumbnail.width, ps.thumbnail.height], [150, 150])
    t.same([ps.medium.width, ps.medium.height], [300, 225])
    t.equal(ps.medium.mime_type, 'image/png')

    // Stored 600x400 with orientation 6 (turn 90° clockwise): upright it is 400x600.
    const turned = await raw({ name: 'portrait.jpg', type: 'image/jpeg', data: await jpeg(600, 400, 6) }, author)
    t.equal(turned.status, 201)
    const td = turned.body.media_details
    t.same([td.width, td.height], [400, 600])
    t.match(turned.body.source_url, /portrait-rotated\.jpg$/)
    t.equal(td.original_image, 'portrait.jpg')
    t.same([td.sizes.medium.width, td.sizes.medium.height], [200, 300])
    for (const name of ['full', 'medium', 'thumbnail']) {
      const f = await fetchFile(td.sizes[name].source_url)
      const meta = await sharp(f.rawPayload).metadata()
      t.same([meta.width, meta.height], [td.sizes[name].width, td.sizes[name].height], `${name} is upright`)
      t.equal(meta.orientation, undefined, `${name} carries no orientation`)
      t.equal(meta.exif, undefined, `${name} carries no EXIF`)
    }

    const again = await h.call('POST', `/cms/v2/media/${big.body.id}/post-process`, { as: author, body: { action: 'create-image-subsizes' } })
    t.equal(again.status, 200)
    t.same(Object.keys(again.body.media_details.sizes).sort(), ['full', 'large', 'medium', 'medium_large', 'thumbnail'])
    t.equal((await fetchFile(again.body.media_details.sizes.large.source_url)).statusCode, 200)

    const images = await h.call('GET', '/cms/v2/media', { query: { media_type: 'image', per_page: 100 } })
    t.ok(images.body.every((m: any) => m.media_type === 'image'))
    t.ok(images.body.some((m: any) => m.id === big.body.id))
    const pngs = await h.call('GET', '/cms/v2/media', { query: { mime_type: 'image/png', per_page: 100 } })
    t.ok(pngs.body.length > 0 && pngs.body.every((m: any) => m.mime_type === 'image/png'))
    const text = await h.call('GET', '/cms/v2/media', { query: { media_type: 'text', per_page: 100 } })
    t.ok(text.body.every((m: any) => m.mime_type.startsWith('text/')))
  })

  t.test('featured_media: set, linked, embedded and shown in oEmbed', async (t) => {
    const media = await raw({ name: 'hero.jpg', type: 'image/jpeg', data: await jpeg(1200, 800) }, editor)
    const bad = await h.call('POST', '/cms/v2/posts', { as: editor, body: { title: 'x', featured_media: 999999 } })
    t.equal(bad.status, 400)
    t.equal(bad.body.code, 'rest_invalid_featured_media')
    const plain = await h.call('POST', '/cms/v2/posts', { as: editor, body: { title: 'plain' } })
    const notMedia = await h.call('POST', '/cms/v2/posts', { as: editor, body: { title: 'x', featured_media: plain.body.id } })
    t.equal(notMedia.status, 400, 'a post id is not a media id')
    const post = await h.call('POST', '/cms/v2/posts', { as: editor, body: { title: 'With image', content: 'c', status: 'publish', featured_media: media.body.id } })
    t.equal(post.status, 201)
    t.equal(post.body.featured_media, media.body.id)
    t.equal(post.body._links['cms:featuredmedia'][0].href, `http://cms.test/index.php?rest_route=/cms/v2/media/${media.body.id}`)
    t.equal(post.body._links['cms:featuredmedia'][0].embeddable, true)
    t.equal(post.body._links['cms:attachment'][0].href, `http://cms.test/index.php?rest_route=%2Fcms%2Fv2%2Fmedia&parent=${post.body.id}`)
    const embedded = await h.call('GET', `/cms/v2/posts/${post.body.id}`, { query: { _embed: '1' } })
    const featured = embedded.body._embedded['cms:featuredmedia'][0]
    t.equal(featured.id, media.body.id)
    t.equal(featured.source_url, media.body.source_url)
    t.equal(featured.media_details.sizes.thumbnail.width, 150)
    const oembed = await h.call('GET', '/oembed/1.0/embed', { query: { url: `http://cms.test/?p=${post.body.id}` } })
    t.equal(oembed.status, 200)
    t.equal(oembed.body.thumbnail_url, media.body.source_url)
    t.equal(oembed.body.thumbnail_width, 600)
    t.equal(oembed.body.thumbnail_height, 400)
    const cleared = await h.call('POST', `/cms/v2/posts/${post.body.id}`, { as: editor, body: { featured_media: 0 } })
    t.equal(cleared.body.featured_media, 0)
    t.notOk(cleared.body._links['cms:featuredmedia'])
  })

  t.test('update and delete', async (t) => {
    const media = await raw({ name: 'doomed.jpg', type: 'image/jpeg', data: await jpeg(500, 500) }, author)
    const id = media.body.id
    const files = [media.body.source_url, ...Object.values(media.body.media_details.sizes).map((s: any) => s.source_url)]
    const upd = await h.call('POST', `/cms/v2/media/${id}`, { as: author, body: { title: 'Renamed', alt_text: 'Alt', caption: 'Cap', description: { raw: 'Desc' } } })
    t.equal(upd.status, 200)
    t.equal(upd.body.title.raw, 'Renamed')
    t.equal(upd.body.alt_text, 'Alt')
    t.equal(upd.body.caption.raw, 'Cap')
    t.equal(upd.body.description.raw, 'Desc')
    t.equal(upd.body.source_url, media.body.source_url, 'the file stays')
    const other = await h.call('POST', `/cms/v2/media/${id}`, { as: h.users.author2, body: { title: 'Mine' } })
    t.equal(other.status, 403)
    const post = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Uses it', status: 'publish', featured_media: id } })

    const soft = await h.call('DELETE', `/cms/v2/media/${id}`, { as: author })
    t.equal(soft.status, 501)
    t.equal(soft.body.code, 'rest_trash_not_supported')
    for (const url of files) t.equal((await fetchFile(url)).statusCode, 200, 'files kept without force')
    const anon = await h.call('DELETE', `/cms/v2/media/${id}`, { query: { force: true } })
    t.equal(anon.status, 401)
    const gone = await h.call('DELETE', `/cms/v2/media/${id}`, { as: author, query: { force: true } })
    t.equal(gone.status, 200)
    t.equal(gone.body.deleted, true)
    t.equal(gone.body.previous.id, id)
    for (const url of files) t.equal((await fetchFile(url)).statusCode, 404, `${url.split('/').pop()} removed`)
    t.equal((await h.call('GET', `/cms/v2/media/${id}`)).status, 404)
    t.equal((await h.call('GET', `/cms/v2/posts/${post.body.id}`)).body.featured_media, 0, 'the post lost its featured image')
  })

  t.test('an edit-context list: the items whose slug is their own found in one statement (issue 35)', async (t) => {
    const made: number[] = []
    for (let i = 0; i < 4; i++) made.push((await raw({ name: `listed ${i}.png`, type: 'image/png', data: await png(8, 8) }, editor)).body.id)
    // Two items share a slug (as an import can leave them).
    await h.store.db.execute(sql`update posts set slug = (select slug from posts where id = ${made[0]!}) where id = ${made[1]!}`)
    const list = async (): Promise<Array<{ id: number, generated_slug: string }>> => {
      const res = await h.call('GET', '/cms/v2/media', { as: admin, query: { context: 'edit', include: made.join(','), orderby: 'include', per_page: '10' } })
      t.equal(res.status, 200)
      return res.body
    }
    let body: Array<{ id: number, generated_slug: string }> = []
    const texts = await statementsDuring(h.store, async () => { body = await list() })
    t.equal(texts.filter((q) => q.trimStart().startsWith('select i.id from unnest(')).length, 1, 'one statement for the page')
    // Only the two sharing a slug look for a free suffix (whether taken, then the candidates).
    const searches = texts.filter((q) => q.trimStart().startsWith('select distinct "slug" from "posts"')).length
    t.ok(searches <= 4, `the items with their own slug ask nothing more (${searches} searches; 6 before: one or two a item)`)
    for (const item of body) {
      const one = await h.call('GET', `/cms/v2/media/${item.id}`, { as: admin, query: { context: 'edit' } })
      t.equal(item.generated_slug, one.body.generated_slug, `item ${item.id} as its own answer says`)
    }
    t.match(body.find((m) => m.id === made[1])!.generated_slug, /-\d+$/, 'a shared slug is suffixed')
  })

  t.test('fields left out of _fields are not computed; the answer is the full one filtered', async (t) => {
    const unique = `${Date.now()}-${Math.random()}`
    const made = await multipart({ name: 'fields.png', type: 'image/png', data: await png(8, 8) }, { title: `Title ${unique}`, caption: `Caption ${unique}`, description: `<p>Description ${unique}</p>` }, editor)
    t.equal(made.status, 201)
    const path = `/cms/v2/media/${made.body.id as number}`
    // Texts never rendered in this process (the upload's answer rendered its own, and the render cache keeps them).
    const fresh = `${unique}-again`
    await h.store.db.execute(sql`update posts set title = ${`Title ${fresh}`}, excerpt = ${`Caption ${fresh}`}, content = ${`<p>Description ${fresh}</p>`} where id = ${made.body.id as number}`)
    const renders = (): number => textPool.counts.inline + textPool.counts.pool
    let before = renders()
    const slim = await h.call('GET', path, { as: admin, query: { context: 'edit', _fields: 'id,source_url' } })
    t.same(Object.keys(slim.body), ['id', 'source_url'])
    t.equal(renders() - before, 0, 'no title, caption or description asked: nothing rendered')
    before = renders()
    const texts = await statementsDuring(h.store, async () => await h.call('GET', path, { as: admin, query: { context: 'edit', _fields: 'id' } }))
    t.notOk(texts.some((q) => q.trimStart().startsWith('select distinct "slug"')), 'no generated slug asked: no slug search')
    const full = await h.call('GET', path, { as: admin, query: { context: 'edit' } })
    t.ok(renders() - before >= 3, 'the full answer renders its title, caption and description')
    for (const fields of ['id,_links', 'generated_slug,class_list', 'caption,title', 'description,_embedded']) {
      const part = await h.call('GET', path, { as: admin, query: { context: 'edit', _fields: fields } })
      const wanted = fields.split(',')
      const expected = Object.fromEntries(Object.entries(full.body).filter(([k]) => wanted.includes(k) || (k === '_links' && wanted.includes('_embedded'))))
      t.same(part.body, expected, `_fields=${fields}: the full answer filtered`)
    }
  })

  t.test('served paths stay inside the uploads directory', async (t) => {
    for (const path of ['/cms-content/uploads/../../etc/passwd', '/cms-content/uploads/%2e%2e/%2e%2e/etc/passwd', '/cms-content/uploads/.work/x', '/cms-content/uploads/']) {
      const r = await h.app.inject({ method: 'GET', url: path })
      t.equal(r.statusCode, 404, path)
    }
  })
})
