/**
 * What `_embed` costs (issue #11, item 5): an anonymous
 * `GET /cms/v2/posts?per_page=100&_embed` against the plain list of the same
 * page, each with a cache-busting parameter so every request does its work
 * (no kept answer), on one gateway over one PostgreSQL database, in the same
 * run. Prints both medians and their ratio.
 *
 *   pnpm --filter @cms/bench exec tsx src/embed-cost.ts [--posts 1000] [--authors 5] [--rounds 15] [--database-url postgres://...]
 *
 * The data: `--posts` published posts seeded as the benchmark seeds them
 * (seed.ts: every post in the default category), spread over `--authors`
 * authors made with the CLI. Each embedded page links every post's author,
 * its categories and its tags (the embedded sub-requests are bounded per
 * response by the kernel, rest/src/embed.ts).
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { startDatabase } from './database.js'
import { createAdmin, seedPosts } from './seed.js'
import { startGateway } from './services.js'
import { median } from './median.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const { values: opts } = parseArgs({
  options: {
    posts: { type: 'string', default: '1000' },
    authors: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '15' },
    'database-url': { type: 'string' }
  }
})

async function timed (url: string): Promise<{ ms: number, bytes: number, status: number }> {
  const started = performance.now()
  const res = await fetch(url)
  const body = await res.arrayBuffer()
  return { ms: performance.now() - started, bytes: body.byteLength, status: res.status }
}

async function main (): Promise<void> {
  const posts = Number(opts.posts)
  const authors = Number(opts.authors)
  const rounds = Number(opts.rounds)
  const db = await startDatabase(opts['database-url'])
  try {
    await db.reset()
    const admin = await createAdmin(db.url)
    const gateway = await startGateway(db.url)
    try {
      await seedPosts(db.url, posts, admin.id, gateway.url)
      // More authors: made with the CLI, then the posts shared among them.
      for (let i = 1; i < authors; i++) {
        execFileSync('node', ['--import', 'tsx', 'apps/cli/src/main.ts', 'user', 'create', `author${i}`, '--email', `author${i}@example.com`, '--role', 'author'], {
          cwd: ROOT, env: { ...process.env, DATABASE_URL: db.url }, stdio: 'ignore'
        })
      }
      const client = new pg.Client({ connectionString: db.url })
      await client.connect()
      await client.query(`update posts set author = u.ids[1 + posts.id % array_length(u.ids, 1)]
        from (select array_agg(id order by id) as ids from users) u where posts.type = 'post'`)
      await client.end()

      const page = `${gateway.url}/cms-json/cms/v2/posts?per_page=100`
      // Warm both paths (code, plans, read caches) before timing.
      for (let i = 0; i < 3; i++) { await timed(`${page}&warm=${i}`); await timed(`${page}&_embed&warm=${i}`) }
      const plain: number[] = []
      const embed: number[] = []
      let sizes = { plain: 0, embed: 0 }
      // Interleaved, so both see the same machine load.
      for (let i = 0; i < rounds; i++) {
        const a = await timed(`${page}&bust=${i}`)
        const b = await timed(`${page}&_embed&bust=${i}`)
        if (a.status !== 200 || b.status !== 200) throw new Error(`status ${a.status} / ${b.status}`)
        plain.push(a.ms)
        embed.push(b.ms)
        sizes = { plain: a.bytes, embed: b.bytes }
      }
      const p = median(plain)
      const e = median(embed)
      console.log(`posts ${posts}, authors ${authors}, rounds ${rounds} (medians, anonymous, cache-busting parameter, PostgreSQL)`)
      console.log(`plain list per_page=100:         ${p.toFixed(1)} ms (${sizes.plain} bytes)`)
      console.log(`same page with _embed:           ${e.toFixed(1)} ms (${sizes.embed} bytes)`)
      console.log(`ratio _embed / plain:            ${(e / p).toFixed(1)}`)
    } finally {
      await gateway.stop()
    }
  } finally {
    await db.stop()
  }
}

await main()
