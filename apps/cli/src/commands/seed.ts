/**
 * `cms seed demo`: a small site worth looking at. Every item goes through
 * the REST routes of the service's own app, built in this process on the
 * CLI's store (or through the running service's socket), so it is checked
 * and stored exactly as a client's would be: users of each role (made
 * directly, with an application password for the administrator), then
 * categories, tags, images (made here, with their sizes), posts and pages.
 */
import { randomBytes } from 'node:crypto'
import { deflateSync } from 'node:zlib'
import { parseArgs } from 'node:util'
import { createApplicationPassword, createUser, findUserByLogin, ROLES } from '@cms/core/accounts'
import { parseOrUsage, UsageError, withStore, type CommandGroup } from '../command.js'

const usage = `Usage:
  cms seed demo [--json]

Adds a demo site: a user of each role (demo-administrator, demo-editor, ...;
their passwords printed once), three categories, four tags, two images,
six posts (one pending review, by the contributor) and two pages. Refused
when demo-administrator exists already (the demo is added once).

Flags:
  --json      print JSON instead of text
  -h, --help  show this help`

const CATEGORIES = [
  { name: 'News', description: 'What happened this week' },
  { name: 'Guides', description: 'How to get things done' },
  { name: 'Releases', description: 'New versions and what they bring' }
]
const TAGS = ['getting-started', 'rest', 'performance', 'design']
const IMAGES = [
  { file: 'harbour.png', width: 1600, height: 900, rgb: [30, 90, 140], title: 'The harbour at dawn' },
  { file: 'workshop.png', width: 1200, height: 1200, rgb: [160, 110, 60], title: 'In the workshop' }
] as const

/** A PNG of a vertical gradient from `rgb` to white (the service makes its sizes as for any upload). */
function png (width: number, height: number, rgb: readonly number[]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (buf: Buffer): number => {
    let c = 0xffffffff
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(data.length, 0)
    head.write(type, 4)
    const tail = Buffer.alloc(4)
    tail.writeUInt32BE(crc(Buffer.concat([head.subarray(4), data])), 0)
    return Buffer.concat([head, data, tail])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const raw = Buffer.alloc((width * 3 + 1) * height)
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1)
    const f = y / height
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) raw[row + 1 + x * 3 + c] = Math.round(rgb[c]! + (255 - rgb[c]!) * f)
    }
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))])
}
const paragraphs = (...texts: string[]): string => texts.map((t) => `<!-- wp:paragraph -->\n<p>${t}</p>\n<!-- /wp:paragraph -->`).join('\n\n')

export const seedCommand: CommandGroup = {
  name: 'seed',
  summary: 'add a demo site (users of each role, terms, images, posts, pages)',
  writes: ['demo'],
  usage,
  async run (args, ctx) {
    const { values, positionals } = parseOrUsage('seed', () => parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }))
    if (values.help === true) {
      ctx.out(usage)
      return
    }
    if (positionals[0] !== 'demo' || positionals.length !== 1) throw new UsageError('the one seed is "demo": cms seed demo', 'seed')
    // The service's app: loaded for this command only.
    const { buildApp, loadSettings } = await import('@cms/gateway')
    const summary = await withStore(ctx, async (store) => {
      if (await findUserByLogin(store, 'demo-administrator') !== undefined) throw new Error('the demo is there already (demo-administrator exists)')
      const users: Record<string, { id: number, password: string }> = {}
      for (const role of ROLES) {
        const password = randomBytes(12).toString('base64url')
        const user = await createUser(store, { login: `demo-${role}`, email: `${role}@demo.example`, roles: [role], password, displayName: `Demo ${role[0]!.toUpperCase()}${role.slice(1)}` })
        users[role] = { id: user.id, password }
      }
      const admin = await createApplicationPassword(store, users.administrator!.id, { name: 'cms seed demo' })
      const auth = `Basic ${Buffer.from(`demo-administrator:${admin.password}`).toString('base64')}`
      const app = await buildApp(loadSettings(ctx.env), { store, jobs: false, logger: false })
      try {
        const call = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ id: number }> => {
          const payload = Buffer.isBuffer(body) ? body : JSON.stringify(body)
          const res = await app.inject({ method: 'POST', url: `/cms-json${path}`, headers: { authorization: auth, 'content-type': 'application/json', ...headers }, payload })
          if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode} ${res.body.slice(0, 300)}`)
          return res.json() as { id: number }
        }
        const categories = []
        for (const c of CATEGORIES) categories.push((await call('/cms/v2/categories', c)).id)
        const tags = []
        for (const name of TAGS) tags.push((await call('/cms/v2/tags', { name })).id)
        const media = []
        for (const image of IMAGES) {
          const made = await call('/cms/v2/media', png(image.width, image.height, image.rgb), { 'content-type': 'image/png', 'content-disposition': `attachment; filename="${image.file}"` })
          await call(`/cms/v2/media/${made.id}`, { title: image.title, alt_text: image.title, caption: image.title })
          media.push(made.id)
        }
        const posts = [
          { title: 'Welcome to the demo site', author: users.administrator!.id, categories: [categories[0]], tags: [tags[0]], featured_media: media[0], excerpt: 'A first look around.', content: paragraphs('This site was made by <code>cms seed demo</code>.', 'Browse the posts, pages, categories and tags through the REST API.') },
          { title: 'Reading content over REST', author: users.editor!.id, categories: [categories[1]], tags: [tags[0], tags[1]], content: paragraphs('List posts with <code>GET /cms-json/cms/v2/posts</code>.', 'Filter with <code>categories</code>, <code>tags</code> and <code>search</code>.') },
          { title: 'Faster pages with fewer fields', author: users.author!.id, categories: [categories[1]], tags: [tags[1], tags[2]], content: paragraphs('Ask only for what you show: <code>_fields=id,title,link</code>.') },
          { title: 'Version 1.0 is out', author: users.editor!.id, categories: [categories[2]], tags: [tags[2]], featured_media: media[1], content: paragraphs('Everything a first release needs, and nothing more.') },
          { title: 'A workshop tour', author: users.author!.id, categories: [categories[0]], tags: [tags[3]], featured_media: media[1], content: `${paragraphs('Where the things you read about are made.')}\n\n<!-- wp:image {"id":${media[1]}} -->\n<figure class="wp-block-image"><img alt="In the workshop"/></figure>\n<!-- /wp:image -->` },
          { title: 'Notes on design (waiting for review)', author: users.contributor!.id, status: 'pending', categories: [categories[1]], tags: [tags[3]], content: paragraphs('A contributor\'s draft, sent for review.') }
        ]
        const postIds = []
        for (const p of posts) postIds.push((await call('/cms/v2/posts', { status: 'publish', ...p })).id)
        const pages = []
        pages.push((await call('/cms/v2/pages', { title: 'About', status: 'publish', featured_media: media[0], content: paragraphs('We write about building things, and build what we write about.') })).id)
        pages.push((await call('/cms/v2/pages', { title: 'Contact', status: 'publish', parent: pages[0], content: paragraphs('Write to <a href="mailto:hello@demo.example">hello@demo.example</a>.') })).id)
        return { users: Object.fromEntries(Object.entries(users).map(([role, u]) => [`demo-${role}`, u])), applicationPassword: { login: 'demo-administrator', password: admin.password }, categories, tags, media, posts: postIds, pages }
      } finally {
        await app.close()
      }
    })
    if (values.json === true) {
      ctx.out(JSON.stringify(summary))
      return
    }
    ctx.out([
      `Added ${Object.keys(summary.users).length} users, ${summary.categories.length} categories, ${summary.tags.length} tags, ${summary.media.length} images, ${summary.posts.length} posts and ${summary.pages.length} pages.`,
      'Users (sign-in passwords, shown once):',
      ...Object.entries(summary.users).map(([login, u]) => `  ${login.padEnd(20)} ${u.password}`),
      `Application password of demo-administrator (for API clients): ${summary.applicationPassword.password}`
    ].join('\n'))
  }
}
