/**
 * Resident memory of the gateway on the embedded database (PGlite): started
 * on a fresh data directory (the database is created and migrated), asked a
 * few requests, stopped, then started again on the same directory.
 *
 *   pnpm bench:memory                         # PGlite, fresh then restarted
 *   pnpm bench:memory --database-url postgres://...   # the same readings on PostgreSQL, for comparison
 *
 * Prints one line per reading: the resident size once ready, after the
 * requests, and the peak (VmHWM, the most the process ever held), in MB.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { rssOf } from './proc.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const { values: opts } = parseArgs({ options: { 'database-url': { type: 'string' } } })

function peakOf (pid: number | undefined): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid ?? 0}/status`, 'utf8'))
    return m === null ? 0 : Number(m[1]) * 1024
  } catch {
    return 0
  }
}

async function freePort (): Promise<number> {
  return await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

interface Reading { ready: number, afterRequests: number, peak: number, startSeconds: number, log: string }

async function run (dataDir: string): Promise<Reading> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), CMS_DATA_DIR: dataDir, LOG_LEVEL: 'info', CMS_BASE_URL: base }
  delete env.DATABASE_URL
  if (opts['database-url'] !== undefined) env.DATABASE_URL = opts['database-url']
  const started = Date.now()
  const child: ChildProcess = spawn('node', ['--import', 'tsx', 'apps/gateway/src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout?.on('data', (d) => { log += String(d) })
  child.stderr?.on('data', (d) => { log += String(d) })
  try {
    const deadline = Date.now() + 600_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the gateway exited: ${log}`)
      if (Date.now() > deadline) throw new Error(`not ready after 600 s: ${log}`)
      const ok = await fetch(`${base}/readyz`).then((r) => r.ok, () => false)
      if (ok) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const startSeconds = (Date.now() - started) / 1000
    const ready = rssOf(child.pid)
    for (const path of ['/index.php?rest_route=/', '/index.php?rest_route=/cms/v2/posts', '/index.php?rest_route=/cms/v2/categories', '/openapi.json']) {
      for (let i = 0; i < 5; i++) await (await fetch(base + path)).arrayBuffer()
    }
    return { ready, afterRequests: rssOf(child.pid), peak: peakOf(child.pid), startSeconds, log }
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  }
}

const mb = (n: number): string => `${Math.round(n / 1024 / 1024)} MB`
const database = opts['database-url'] === undefined ? 'PGlite (embedded)' : 'PostgreSQL'
const dataDir = mkdtempSync(join(tmpdir(), 'cms-memory-'))
try {
  for (const label of ['fresh data directory', 'restart on the same directory']) {
    const r = await run(dataDir)
    console.log(`${database}, ${label}: ready in ${r.startSeconds.toFixed(1)} s, resident ${mb(r.ready)} when ready, ${mb(r.afterRequests)} after 20 requests, peak ${mb(r.peak)}`)
    if (process.env.CMS_MEMORY_SHOW_LOG === '1') console.log(r.log)
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
