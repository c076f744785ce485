// `cms import rest`: the service itself, started on a port as the source
// (profile B, so the source SEO plugin's meta is registered there and
// shown), seeded through its API; imported with an application password
// (drafts, private content) into a second database through the outbound
// client (--allow-private: the source is on loopback); a second run
// changes nothing; without --allow-private the address is refused.
import t from 'tap'
import { mkdtempSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, openTestStore } from '@cms/store/testing'
import { coreMigrations, createApplicationPassword, createUser } from '@cms/core'
import { buildApp, loadSettings } from '@cms/gateway'
import { inProcess } from './helpers.js'
import { PNG } from './import-fixtures.js'

t.test('cms import rest', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-import-rest-'))
  const source = await openTestStore({ migrations: [coreMigrations] })
  const target = await openTestStore({ migrations: [coreMigrations] })
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const app = await buildApp(loadSettings({ CMS_DEPLOYMENT: 'B', CMS_BASE_URL: origin, CMS_CONTENT_DIR: join(dir, 'source') }), { store: source, jobs: false, logger: false })
  await app.listen({ port, host: '127.0.0.1' })
  t.teardown(async () => {
    await app.close()
    await source.close()
    await target.close()
    await rm(dir, { recursive: true, force: true })
  })

  // The source site, seeded through its API.
  const owner = await createUser(source, { login: 'olga', email: 'olga@old.example', roles: ['administrator'], displayName: 'Olga Øster' })
  const key = await createApplicationPassword(source, owner.id, { name: 'export' })
  const auth = `Basic ${Buffer.from(`olga:${key.password}`).toString('base64')}`
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<any> => {
    const res = await app.inject({ method: 'POST', url: `/cms-json/cms/v2${path}`, headers: { authorization: auth, 'content-type': 'application/json', ...headers }, payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) })
    t.ok(res.statusCode < 300, `${path}: ${res.statusCode} ${res.body.slice(0, 200)}`)
    return res.json()
  }
  const news = await post('/categories', { name: 'News' })
  const local = await post('/categories', { name: 'Local', parent: news.id })
  const tag = await post('/tags', { name: 'Émigré', slug: 'emigre' })
  const image = await post('/media', PNG, { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="photo.png"' })
  await post(`/media/${image.id}`, { alt_text: 'Alt' })
  const about = await post('/pages', { title: 'About', status: 'publish', menu_order: 1 })
  const team = await post('/pages', { title: 'Team', status: 'publish', parent: about.id, menu_order: 2 })
  const main = await post('/posts', {
    title: 'Grüße — 東京',
    status: 'publish',
    sticky: true,
    format: 'aside',
    categories: [local.id],
    tags: [tag.id],
    featured_media: image.id,
    content: `<p><a href="${team.link}">Team</a> <img src="${image.source_url}" class="wp-image-${image.id}"/></p>`,
    meta: { _seo_a_title: '#post_title', _seo_a_description: 'Beschreibung', _builder_edit_mode: 'builder' }
  })
  await post('/posts', { title: 'Secret', status: 'publish', password: 'open sesame' })
  await post('/posts', { title: 'Tomorrow', status: 'future', date_gmt: '2099-05-01T09:00:00' })
  await post('/posts', { title: 'Unfinished', status: 'draft' })
  await post('/posts', { title: 'Mine', status: 'private' })
  const first = await post('/comments', { post: main.id, content: 'Schön 👍', author_name: 'Jürgen', author_email: 'j@commenter.example' })
  await post('/comments', { post: main.id, parent: first.id, content: 'Tack', author_name: 'Åsa', author_email: 'a@commenter.example', status: 'hold' })

  const env = { CMS_CONTENT_DIR: join(dir, 'target'), CMS_BASE_URL: 'http://cms.test' }
  await createUser(target, { login: 'admin', email: 'admin@cms.test', roles: ['administrator'] })
  const { exec } = inProcess(target, env)
  const args = ['import', 'rest', `${origin}/cms-json`, '--user', 'olga', '--password', key.password]

  const refused = await exec(args)
  t.equal(refused.code, 1, 'a private address is refused without --allow-private')
  t.match(refused.stderr, /cms-json\/: a non-public address \(--allow-private/)

  const done = await exec([...args, '--allow-private'])
  t.equal(done.code, 0, done.stdout + done.stderr)
  t.match(done.stdout, new RegExp(`Imported from ${origin.replace(/\./g, '\\.')}: created \\d+, updated 0, unchanged 0, skipped \\d+, failed 0\\n`))
  for (const [kind, n] of [['post', 5], ['page', 2], ['attachment', 1], ['comment', 2], ['post_tag', 1], ['user', 1]] as const) t.match(done.stdout, new RegExp(`\\n {2}${kind} +created ${n},`), kind)
  const again = await exec([...args, '--allow-private'])
  t.equal(again.code, 0)
  t.match(again.stdout, /: created 0, updated 0, unchanged \d+, skipped 0, failed 0\n/, 'a second run changes nothing')

  // What the target now holds.
  const rows = await target.execute<{ id: number, type: string, title: string, status: string, password: string, sticky: boolean, format: string, parent: number, menu_order: number, featured_media: number, content: string, author: number }>(
    "select id, type, title, status, password, sticky, format, parent, menu_order, featured_media, content, author from posts where type in ('post', 'page', 'attachment') order by id")
  const by = new Map(rows.map((r) => [r.title, r]))
  t.same([...by.keys()].sort(), ['About', 'Grüße — 東京', 'Mine', 'Secret', 'Team', 'Tomorrow', 'Unfinished', 'photo'].sort())
  const m = by.get('Grüße — 東京')!
  t.same([m.status, m.sticky, m.format], ['publish', true, 'aside'])
  t.equal(m.featured_media, by.get('photo')!.id)
  t.equal(by.get('Team')!.parent, by.get('About')!.id)
  t.same([by.get('About')!.menu_order, by.get('Team')!.menu_order], [1, 2])
  t.equal(by.get('Secret')!.password, 'open sesame')
  t.same(['Tomorrow', 'Unfinished', 'Mine'].map((x) => by.get(x)!.status), ['future', 'draft', 'private'])
  t.notMatch(m.content, new RegExp(`127\\.0\\.0\\.1:${port}`), 'links to the source rewritten')
  t.match(m.content, new RegExp(`wp-image-${by.get('photo')!.id}`))
  const olga = await target.execute<{ id: number, display_name: string }>("select id, display_name from users where login = 'olga'")
  t.equal(olga[0]!.display_name, 'Olga Øster')
  t.equal(m.author, olga[0]!.id)
  const terms = await target.execute<{ slug: string, parent: number, id: number }>("select id, slug, parent from terms where slug in ('news', 'local', 'emigre') order by slug")
  t.equal(terms.find((x) => x.slug === 'local')!.parent, terms.find((x) => x.slug === 'news')!.id)
  const meta = await target.execute<{ key: string, value: unknown }>(`select key, value from post_meta where post_id = ${m.id} and key like '\\_seo\\_a\\_%' order by key`)
  t.same(meta.map((x) => [x.key, x.value]), [['_seo_a_description', 'Beschreibung'], ['_seo_a_title', '#post_title']], 'the source SEO meta kept')
  const comments = await target.execute<{ author_name: string, status: string, parent: number, id: number }>(`select id, author_name, status, parent from comments where post_id = ${m.id} order by id`)
  t.same(comments.map((c) => [c.author_name, c.status]), [['Jürgen', 'approved'], ['Åsa', 'hold']])
  t.equal(comments[1]!.parent, comments[0]!.id)
})
