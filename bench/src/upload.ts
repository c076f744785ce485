/**
 * Uploading a large file: the gateway on a real PostgreSQL receives a
 * 20 MB file as a raw body and as a multipart form, streamed to disk. For
 * each: the time, and the gateway's resident memory growth at its peak over
 * what it held just before (read from /proc every 20 ms). Target: growth
 * under 32 MB (the file is never held whole in memory).
 *
 *   pnpm bench:upload                  # 20 MB, three uploads of each form
 *   pnpm bench:upload --mb 50 --runs 1
 */
import { parseArgs } from 'node:util'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { randomBytes } from 'node:crypto'
import { startDatabase } from './database.js'
import { createAdmin } from './seed.js'
import { startGateway } from './services.js'

const { values: opts } = parseArgs({
  options: {
    mb: { type: 'string', default: '20' },
    runs: { type: 'string', default: '3' },
    'database-url': { type: 'string' }
  }
})
const size = Number(opts.mb) * 1024 * 1024
const runs = Number(opts.runs)
const TARGET_MB = 32

/** A PDF by its signature, then `size` bytes in 1 MiB chunks made as they are sent (the client holds one chunk). */
function pdfBody (): Readable {
  const chunk = randomBytes(1024 * 1024)
  let sent = 0
  return new Readable({
    read () {
      if (sent === 0) {
        this.push(Buffer.from('%PDF-1.7\n'))
        sent = 9
        return
      }
      if (sent >= size) {
        this.push(null)
        return
      }
      const n = Math.min(chunk.length, size - sent)
      sent += n
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n))
    }
  })
}

async function multipartBody (): Promise<{ type: string, body: Readable }> {
  const boundary = `----cms-bench-${randomBytes(8).toString('hex')}`
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nBench upload\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.pdf"\r\nContent-Type: application/pdf\r\n\r\n`)
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  async function * parts (): AsyncGenerator<Buffer> {
    yield head
    for await (const chunk of pdfBody()) yield chunk as Buffer
    yield tail
  }
  return { type: `multipart/form-data; boundary=${boundary}`, body: Readable.from(parts()) }
}

async function main (): Promise<void> {
  const content = mkdtempSync(join(tmpdir(), 'cms-bench-uploads-'))
  process.env.CMS_CONTENT_DIR = content
  process.env.CMS_UPLOAD_MAX_BYTES = String(size * 2)
  const db = await startDatabase(opts['database-url'])
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined
  const results: Array<{ form: string, seconds: number, mbPerSecond: number, growthMb: number }> = []
  try {
    await db.reset()
    const admin = await createAdmin(db.url)
    gateway = await startGateway(db.url)
    const auth = `Basic ${Buffer.from(`${admin.login}:${admin.password}`).toString('base64')}`
    // One small upload first: the code paths are loaded before anything is measured.
    await fetch(`${gateway.url}/cms-json/cms/v2/media`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="warm.txt"' },
      body: 'warm up'
    })
    for (let i = 0; i < runs; i++) {
      for (const form of ['raw', 'multipart'] as const) {
        await new Promise((resolve) => setTimeout(resolve, 500))
        const g = gateway
        const before = g.rss()
        let peak = before
        const timer = setInterval(() => { peak = Math.max(peak, g.rss()) }, 20)
        const started = performance.now()
        const { type, body } = form === 'raw'
          ? { type: 'application/pdf', body: pdfBody() }
          : await multipartBody()
        const res = await fetch(`${gateway.url}/cms-json/cms/v2/media`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': type, ...(form === 'raw' ? { 'content-disposition': 'attachment; filename="bench.pdf"' } : {}) },
          body: Readable.toWeb(body) as ReadableStream,
          duplex: 'half'
        } as RequestInit)
        const answer = await res.json() as { id?: number, media_details?: { filesize?: number }, code?: string }
        const seconds = (performance.now() - started) / 1000
        clearInterval(timer)
        peak = Math.max(peak, g.rss())
        if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${JSON.stringify(answer)}`)
        if (answer.media_details?.filesize !== size) throw new Error(`stored ${answer.media_details?.filesize} bytes, sent ${size}`)
        results.push({ form, seconds, mbPerSecond: size / 1048576 / seconds, growthMb: (peak - before) / 1048576 })
      }
    }
  } finally {
    await gateway?.stop()
    await db.stop()
    rmSync(content, { recursive: true, force: true })
  }
  console.log(`upload of ${opts.mb} MB (PDF), ${runs} run(s) per form`)
  console.log('form       seconds   MB/s   peak memory growth (MB)')
  for (const r of results) console.log(`${r.form.padEnd(10)} ${r.seconds.toFixed(2).padStart(7)} ${r.mbPerSecond.toFixed(1).padStart(6)}   ${r.growthMb.toFixed(1)}`)
  const worst = Math.max(...results.map((r) => r.growthMb))
  console.log(`target: growth under ${TARGET_MB} MB: ${worst < TARGET_MB ? 'met' : 'NOT met'} (worst ${worst.toFixed(1)} MB)`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
