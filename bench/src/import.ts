/**
 * `cms import wxr` on a durable PostgreSQL: an export file of N posts the
 * bench writes (categories in a hierarchy, tags, three authors, SEO and
 * other meta, two comments a post, a link to an earlier post in each,
 * a page tree; attachments from a local HTTP server the bench starts when
 * `--attachments` asks), imported by the real CLI as a user runs it
 * (`node scripts/cms.mjs import wxr FILE`, what `pnpm cms` runs: the compiled CLI). Three runs,
 * after one unmeasured run of the empty export (migrations, compile cache):
 * an export with no items (what every import pays before its first record:
 * start, store, migrations checked, the service built), the import, and the
 * same command again (nothing changed: a catch-up run). For each: seconds,
 * posts a second (end to end, and less the fixed cost of the empty run),
 * the CLI's CPU per post (its process tree, read from this process's
 * children times once it has exited) and PostgreSQL's (the postmaster and
 * its backends), the CLI's peak resident memory (VmHWM), the load average.
 *
 *   pnpm --filter @cms/bench bench:import                     # 2,000 posts
 *   pnpm --filter @cms/bench bench:import --posts 500 --attachments 50
 *   pnpm --filter @cms/bench bench:import --smoke --out r.json  # 20 posts (bench/test/import.test.ts)
 *   pnpm --filter @cms/bench bench:import --cpu-prof /tmp/prof   # the import run's CPU profile
 *   pnpm --filter @cms/bench bench:import --statements           # its statements by calls a post
 */
import { execFileSync, spawn } from 'node:child_process'
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { startDatabase } from './database.js'
import { peakRssOf } from './proc.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const { values: opts } = parseArgs({
  options: {
    posts: { type: 'string', default: '2000' },
    attachments: { type: 'string', default: '0' },
    batch: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    /** A CPU profile of the import run (not the others) into this folder. */
    'cpu-prof': { type: 'string' },
    /** The import run's statements, by calls a post (pg_stat_statements loaded on the server it starts). */
    statements: { type: 'boolean', default: false },
    out: { type: 'string' },
    'database-url': { type: 'string' }
  }
})
const POSTS = opts.smoke ? 20 : Number(opts.posts)
const ATTACHMENTS = opts.smoke ? 2 : Number(opts.attachments)
const PAGES = Math.max(3, Math.floor(POSTS / 20))
const SITE = 'http://old.example'
// The command line as `pnpm cms` runs it: compiled (rebuilt first when a source changed).
const CLI = 'scripts/cms.mjs'
// A 1x1 PNG: a file the media library takes (its sizes made), the fetch and store measured, not image work.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

const cdata = (s: string): string => `<![CDATA[${s}]]>`

/** The channel, with its authors and terms unless `bare` (an export with nothing in it). */
function head (bare = false): string {
  const authors = ['alice', 'bob', 'zoe'].map((login, i) => `<wp:author><wp:author_id>${i + 1}</wp:author_id><wp:author_login>${cdata(login)}</wp:author_login><wp:author_email>${cdata(`${login}@old.example`)}</wp:author_email><wp:author_display_name>${cdata(`${login} Ångström`)}</wp:author_display_name></wp:author>`)
  // Three top-level categories with four children each; thirty tags.
  const categories: string[] = []
  for (let top = 0; top < 3; top++) {
    categories.push(`<wp:category><wp:category_nicename>cat-${top}</wp:category_nicename><wp:category_parent></wp:category_parent><wp:cat_name>${cdata(`Catégorie ${top}`)}</wp:cat_name></wp:category>`)
    for (let c = 0; c < 4; c++) categories.push(`<wp:category><wp:category_nicename>cat-${top}-${c}</wp:category_nicename><wp:category_parent>cat-${top}</wp:category_parent><wp:cat_name>${cdata(`Sous-catégorie ${top}.${c}`)}</wp:cat_name></wp:category>`)
  }
  const tags = Array.from({ length: 30 }, (_, i) => `<wp:tag><wp:tag_slug>tag-${i}</wp:tag_slug><wp:tag_name>${cdata(`Étiquette ${i}`)}</wp:tag_name></wp:tag>`)
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
<title>Old site</title>
<link>${SITE}</link>
<wp:wxr_version>1.2</wp:wxr_version>
<wp:base_site_url>${SITE}</wp:base_site_url>
<wp:base_blog_url>${SITE}</wp:base_blog_url>
${bare ? '' : [...authors, ...categories, ...tags].join('\n')}
`
}
const TAIL = '</channel>\n</rss>\n'

interface Item { id: number, type: string, title: string, slug: string, content: string, parent?: number, creator: string, categories: string[], tags: string[], meta: Record<string, string>, comments: number, attachmentUrl?: string, date: string }

function itemXml (i: Item): string {
  const comments = Array.from({ length: i.comments }, (_, k) => `<wp:comment><wp:comment_id>${i.id * 10 + k}</wp:comment_id><wp:comment_author>${cdata(k === 0 ? 'Jürgen' : 'Åsa')}</wp:comment_author><wp:comment_author_email>c${k}@commenter.example</wp:comment_author_email><wp:comment_author_IP>192.0.2.7</wp:comment_author_IP><wp:comment_date_gmt>${i.date}</wp:comment_date_gmt><wp:comment_content>${cdata(k === 0 ? 'Schön geschrieben 👍' : 'Tack!')}</wp:comment_content><wp:comment_approved>1</wp:comment_approved><wp:comment_type>comment</wp:comment_type><wp:comment_parent>${k === 0 ? 0 : i.id * 10}</wp:comment_parent></wp:comment>`)
  return `<item>
<title>${cdata(i.title)}</title>
<link>${SITE}/${i.slug}/</link>
<dc:creator>${cdata(i.creator)}</dc:creator>
<content:encoded>${cdata(i.content)}</content:encoded>
<excerpt:encoded>${cdata('')}</excerpt:encoded>
<wp:post_id>${i.id}</wp:post_id>
<wp:post_date>${i.date}</wp:post_date>
<wp:post_date_gmt>${i.date}</wp:post_date_gmt>
<wp:comment_status>open</wp:comment_status>
<wp:ping_status>closed</wp:ping_status>
<wp:post_name>${cdata(i.slug)}</wp:post_name>
<wp:status>${i.type === 'attachment' ? 'inherit' : 'publish'}</wp:status>
<wp:post_parent>${i.parent ?? 0}</wp:post_parent>
<wp:menu_order>0</wp:menu_order>
<wp:post_type>${i.type}</wp:post_type>
<wp:post_password></wp:post_password>
<wp:is_sticky>0</wp:is_sticky>
${i.attachmentUrl === undefined ? '' : `<wp:attachment_url>${i.attachmentUrl}</wp:attachment_url>`}
${i.categories.map((c) => `<category domain="category" nicename="${c}">${cdata(c)}</category>`).join('')}${i.tags.map((c) => `<category domain="post_tag" nicename="${c}">${cdata(c)}</category>`).join('')}
${Object.entries(i.meta).map(([k, v]) => `<wp:postmeta><wp:meta_key>${cdata(k)}</wp:meta_key><wp:meta_value>${cdata(v)}</wp:meta_value></wp:postmeta>`).join('')}
${comments.join('\n')}
</item>
`
}

const dateOf = (n: number): string => new Date(Date.UTC(2020, 0, 1) + n * 3_600_000).toISOString().slice(0, 19).replace('T', ' ')

/** Writes the export file: attachments first (as an export lists them by id), then pages, then posts. */
async function writeExport (file: string, files: string): Promise<number> {
  const out = createWriteStream(file)
  const write = async (s: string): Promise<void> => { if (!out.write(s)) await once(out, 'drain') }
  await write(head())
  for (let a = 0; a < ATTACHMENTS; a++) {
    await write(itemXml({ id: 100_000 + a, type: 'attachment', title: `Image ${a}`, slug: `image-${a}`, content: '', creator: 'alice', categories: [], tags: [], meta: { _wp_attachment_image_alt: `Alt ${a}` }, comments: 0, attachmentUrl: `${files}/wp-content/uploads/2020/01/image-${a}.png`, date: dateOf(a) }))
  }
  for (let p = 0; p < PAGES; p++) {
    // A tree: each page under the one before it in groups of three.
    await write(itemXml({ id: 200_000 + p, type: 'page', title: `Page ${p}`, slug: `page-${p}`, content: '<p>Über uns</p>', ...(p % 3 === 0 ? {} : { parent: 200_000 + p - 1 }), creator: 'bob', categories: [], tags: [], meta: {}, comments: 0, date: dateOf(p) }))
  }
  const paragraph = '<!-- wp:paragraph --><p>Grüße aus Köln, 東京の夜, naïve café: lorem ipsum dolor sit amet, consectetur adipiscing elit.</p><!-- /wp:paragraph -->\n'
  for (let n = 1; n <= POSTS; n++) {
    const id = n
    const link = n > 1 ? `<p>See <a href="${SITE}/?p=${n - 1}">the one before</a>.</p>` : ''
    const image = n <= ATTACHMENTS ? `<!-- wp:image {"id":${100_000 + n - 1}} --><figure><img src="${files}/wp-content/uploads/2020/01/image-${n - 1}-300x200.png" class="wp-image-${100_000 + n - 1}"/></figure><!-- /wp:image -->` : ''
    await write(itemXml({
      id,
      type: 'post',
      title: `Post ${n}: Grüße — 東京`,
      slug: `post-${n}`,
      content: paragraph.repeat(6) + link + image,
      creator: ['alice', 'bob', 'zoe'][n % 3]!,
      categories: [`cat-${n % 3}-${n % 4}`],
      tags: [`tag-${n % 30}`, `tag-${(n * 7) % 30}`],
      meta: { _seo_a_title: `#post_title ${n}`, _seo_a_description: `Beschreibung ${n}`, custom_field: `value ${n}`, ...(n <= ATTACHMENTS ? { _thumbnail_id: String(100_000 + n - 1) } : {}) },
      comments: 2,
      date: dateOf(n)
    }))
  }
  out.end(TAIL)
  await once(out, 'finish')
  return statSync(file).size
}

/** Attachment files: every `.png` under uploads answers the PNG. */
async function fileServer (): Promise<{ url: string, close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/wp-content/uploads/') === true && req.url.endsWith('.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(PNG)
    else res.writeHead(404).end()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: async () => { await new Promise((resolve) => server.close(resolve)) } }
}

/** CPU of this process's waited-for children (cutime + cstime), in seconds: the CLI's process tree once it has exited. */
function childrenCpu (): number {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[13]) + Number(fields[14])) / 100
}

interface Run { name: string, seconds: number, cliCpu: number, dbCpu: number | undefined, peakRssMb: number, stdout: string, load: number }

/** Runs the CLI as a user does, measuring it. */
async function cli (name: string, args: string[], env: NodeJS.ProcessEnv, dbCpu: () => number | undefined, nodeFlags: string[] = []): Promise<Run> {
  const cpu0 = childrenCpu()
  const db0 = dbCpu()
  const load = loadavg()[0]!
  const started = performance.now()
  const child = spawn('node', [...nodeFlags, CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d })
  let peak = 0
  const timer = setInterval(() => { peak = Math.max(peak, peakRssOf(child.pid)) }, 50)
  const [code] = await once(child, 'exit') as [number | null]
  clearInterval(timer)
  const seconds = (performance.now() - started) / 1000
  const db1 = dbCpu()
  if (code !== 0) throw new Error(`${name}: cms ${args.join(' ')} exited ${String(code)}\n${stdout}\n${stderr}`)
  return { name, seconds, cliCpu: childrenCpu() - cpu0, dbCpu: db0 === undefined || db1 === undefined ? undefined : db1 - db0, peakRssMb: peak / 1048576, stdout, load }
}

async function count (url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try { return Number((await client.query<{ n: number }>(sql)).rows[0]!.n) } finally { await client.end() }
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-bench-import-'))
  const files = await fileServer()
  const db = await startDatabase(opts['database-url'], opts.statements ? { options: '-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all' } : {})
  try {
    await db.reset()
    // The database migrated and an administrator made, by the CLI (the import runs as the first administrator).
    for (const args of [['migrate'], ['user', 'create', 'bench', '--email', 'bench@example.com', '--role', 'administrator']]) {
      execFileSync('node', [CLI, ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: db.url }, stdio: 'ignore' })
    }
    const durability = await db.durability()
    const file = join(dir, 'export.xml')
    const bytes = await writeExport(file, files.url)
    const empty = join(dir, 'empty.xml')
    writeFileSync(empty, head(true) + TAIL)
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      CMS_CONTENT_DIR: join(dir, 'content'),
      CMS_BASE_URL: 'http://cms.bench',
      CMS_OUTBOUND_ALLOW: '127.0.0.1'
    }
    const batch = opts.batch === undefined ? [] : ['--batch', opts.batch]
    const dbCpu = (): number | undefined => db.cpu()
    // Unmeasured: the import's migrations applied and the compiled CLI built, as any later run finds them
    // (not for a smoke run, which checks the command, not its figures).
    if (!opts.smoke) await cli('warm-up', ['import', 'wxr', empty], env, dbCpu)
    const fixed = await cli('empty export (fixed cost)', ['import', 'wxr', empty], env, dbCpu)
    if (opts.statements) {
      await db.query('create extension if not exists pg_stat_statements')
      await db.query('select pg_stat_statements_reset()')
    }
    const first = await cli('import', ['import', 'wxr', file, ...batch], env, dbCpu, opts['cpu-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', opts['cpu-prof']])
    const statements = opts.statements ? await db.query('select calls, round(total_exec_time::numeric, 1) as ms, left(regexp_replace(query, \'\\s+\', \' \', \'g\'), 140) as query from pg_stat_statements order by calls desc limit 40') : []
    const again = await cli('second run (nothing changed)', ['import', 'wxr', file, ...batch], env, dbCpu)
    const loadAfter = loadavg()[0]!
    const summary = /Imported from .*/.exec(first.stdout)?.[0] ?? ''
    const posts = await count(db.url, "select count(*)::int as n from posts where type = 'post' and status = 'publish'")
    const comments = await count(db.url, 'select count(*)::int as n from comments')
    const media = await count(db.url, "select count(*)::int as n from posts where type = 'attachment'")
    if (posts !== POSTS || comments !== 2 * POSTS || media !== ATTACHMENTS) throw new Error(`imported ${posts} posts, ${comments} comments, ${media} attachments; expected ${POSTS}, ${2 * POSTS}, ${ATTACHMENTS}\n${first.stdout}`)
    if (!/: created 0, updated 0, unchanged \d+, skipped 0, failed 0/.test(again.stdout)) throw new Error(`the second run changed something:\n${again.stdout}`)

    const perPost = (s: number | undefined): string => s === undefined ? '' : (s * 1000 / POSTS).toFixed(2)
    const rows = [fixed, first, again].map((r) => {
      // Less the fixed cost: meaningless when the run took less than the empty one (the machine's load changed).
      const steady = r === fixed || r.seconds <= fixed.seconds ? undefined : POSTS / (r.seconds - fixed.seconds)
      return {
        run: r.name,
        seconds: r.seconds,
        postsPerSecond: r === fixed ? undefined : POSTS / r.seconds,
        postsPerSecondLessFixed: steady,
        cliCpuMsPerPost: r === fixed ? undefined : Number(perPost(r.cliCpu - fixed.cliCpu)),
        dbCpuMsPerPost: r === fixed || r.dbCpu === undefined || fixed.dbCpu === undefined ? undefined : Number(perPost(r.dbCpu - fixed.dbCpu)),
        cliCpuSeconds: r.cliCpu,
        dbCpuSeconds: r.dbCpu,
        peakRssMb: r.peakRssMb,
        loadAverage: r.load
      }
    })
    const conditions = {
      when: new Date().toISOString(),
      posts: POSTS,
      pages: PAGES,
      attachments: ATTACHMENTS,
      comments: 2 * POSTS,
      fileMb: bytes / 1048576,
      database: durability,
      cores: cpus().length,
      loadAverage: { start: fixed.load, end: loadAfter }
    }
    console.log(`cms import wxr: ${POSTS} posts (${2 * POSTS} comments, 2 tags and 1 category of 15 in a hierarchy each, 3 meta keys), ${PAGES} pages in a tree, ${ATTACHMENTS} attachments (local HTTP server); file ${(bytes / 1048576).toFixed(1)} MB`)
    console.log(`PostgreSQL: ${durability} (${opts['database-url'] === undefined ? 'a durable server started by the bench' : 'the given server'}); ${cpus().length} cores; load average ${fixed.load.toFixed(2)} at the start, ${loadAfter.toFixed(2)} at the end`)
    console.log(summary)
    console.log('| run | seconds | posts/s | posts/s less the fixed cost | CLI CPU ms/post | PostgreSQL CPU ms/post | CLI peak RSS MB | load average |')
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
    const f = (n: number | undefined, d = 1): string => n === undefined ? '' : n.toFixed(d)
    for (const r of rows) console.log(`| ${r.run} | ${f(r.seconds, 2)} | ${f(r.postsPerSecond)} | ${f(r.postsPerSecondLessFixed)} | ${f(r.cliCpuMsPerPost, 2)} | ${f(r.dbCpuMsPerPost, 2)} | ${f(r.peakRssMb, 0)} | ${f(r.loadAverage, 2)} |`)
    if (statements.length > 0) {
      const calls = statements.reduce((n, r) => n + Number(r.calls), 0)
      console.log(`\nThe import run's statements (top 40 by calls; ${(calls / POSTS).toFixed(1)} a post in these):`)
      for (const r of statements) console.log(`${(Number(r.calls) / POSTS).toFixed(2).padStart(7)}/post ${String(r.ms).padStart(9)} ms  ${String(r.query)}`)
    }
    if (opts.out !== undefined) writeFileSync(opts.out, JSON.stringify({ conditions, rows }, null, 2))
  } finally {
    await files.close()
    await db.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
