/**
 * Downloading a large rollback archive: the gateway on a real PostgreSQL
 * streams a 200 MB archive (`GET /rollback/v1/archives/{id}/download`) to a
 * client that reads it as it comes. The gateway's resident memory growth at
 * its peak over what it held just before (from /proc every 20 ms). Target:
 * growth under 32 MB (the file is never read whole into memory).
 *
 *   pnpm --filter @cms/bench bench:rollback-download              # 200 MB, three downloads
 *   pnpm --filter @cms/bench bench:rollback-download --mb 50 --runs 1
 */
import { parseArgs } from 'node:util'
import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import pg from 'pg'
import { startDatabase } from './database.js'
import { createAdmin } from './seed.js'
import { startGateway } from './services.js'

const { values: opts } = parseArgs({
  options: {
    mb: { type: 'string', default: '200' },
    runs: { type: 'string', default: '3' },
    'database-url': { type: 'string' }
  }
})
const size = Number(opts.mb) * 1024 * 1024
const runs = Number(opts.runs)
const TARGET_MB = 32

/** Writes `size` bytes (1 MiB chunks) and answers their SHA-256, as the backup step records it. */
async function writeArchive (file: string): Promise<string> {
  const chunk = randomBytes(1024 * 1024)
  const hash = createHash('sha256')
  const out = createWriteStream(file)
  for (let written = 0; written < size; written += chunk.length) {
    const part = chunk.subarray(0, Math.min(chunk.length, size - written))
    hash.update(part)
    if (!out.write(part)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  return hash.digest('hex')
}

async function main (): Promise<void> {
  const content = mkdtempSync(join(tmpdir(), 'cms-bench-archives-'))
  process.env.CMS_CONTENT_DIR = content
  const db = await startDatabase(opts['database-url'])
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined
  const results: Array<{ seconds: number, mbPerSecond: number, growthMb: number }> = []
  try {
    await db.reset()
    const admin = await createAdmin(db.url)
    gateway = await startGateway(db.url)
    mkdirSync(join(content, 'rollback-archives'), { recursive: true })
    const sha = await writeArchive(join(content, 'rollback-archives', 'big-1.0.0.zip'))
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    const { rows } = await client.query(`insert into rollback_archives (type, slug, name, version, user_id, file, file_size, sha256)
      values ('plugin', 'big', 'Big', '1.0.0', $1, 'rollback-archives/big-1.0.0.zip', $2, $3) returning id`, [admin.id, size, sha])
    await client.end()
    const url = `${gateway.url}/cms-json/rollback/v1/archives/${rows[0].id as number}/download`
    const auth = `Basic ${Buffer.from(`${admin.login}:${admin.password}`).toString('base64')}`
    // A small ranged read first: the code paths are loaded before anything is measured.
    await (await fetch(url, { headers: { authorization: auth, range: 'bytes=0-1023' } })).arrayBuffer()
    for (let i = 0; i < runs; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      const g = gateway
      const before = g.rss()
      let peak = before
      const timer = setInterval(() => { peak = Math.max(peak, g.rss()) }, 20)
      const started = performance.now()
      const res = await fetch(url, { headers: { authorization: auth } })
      if (res.status !== 200 || res.body === null) throw new Error(`download answered ${res.status}`)
      const hash = createHash('sha256')
      let received = 0
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        received += chunk.length
        hash.update(chunk)
      }
      const seconds = (performance.now() - started) / 1000
      clearInterval(timer)
      peak = Math.max(peak, g.rss())
      if (received !== size || hash.digest('hex') !== sha) throw new Error(`received ${received} bytes, not the archive's ${size}`)
      if (res.headers.get('etag') !== `"${sha}"`) throw new Error(`ETag ${String(res.headers.get('etag'))}`)
      results.push({ seconds, mbPerSecond: size / 1048576 / seconds, growthMb: (peak - before) / 1048576 })
    }
  } finally {
    await gateway?.stop()
    await db.stop()
    rmSync(content, { recursive: true, force: true })
  }
  console.log(`rollback archive download of ${opts.mb} MB, ${runs} run(s)`)
  console.log('run   seconds   MB/s   peak memory growth (MB)')
  results.forEach((r, i) => { console.log(`${String(i + 1).padEnd(5)} ${r.seconds.toFixed(2).padStart(7)} ${r.mbPerSecond.toFixed(1).padStart(6)}   ${r.growthMb.toFixed(1)}`) })
  const worst = Math.max(...results.map((r) => r.growthMb))
  console.log(`target: growth under ${TARGET_MB} MB: ${worst < TARGET_MB ? 'met' : 'NOT met'} (worst ${worst.toFixed(1)} MB)`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
