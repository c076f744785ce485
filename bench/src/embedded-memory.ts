/**
 * Resident memory of the gateway on the embedded database (PGlite): started
 * on a fresh data directory (the database is created and migrated), asked a
 * few requests, stopped, then started again on the same directory.
 *
 *   pnpm bench:memory                         # PGlite, fresh then restarted
 *   pnpm bench:memory --database-url postgres://...   # the same readings on PostgreSQL, for comparison
 *   pnpm bench:memory --runner tsx            # the TypeScript through tsx, as `pnpm start` ran before
 *   pnpm bench:memory --checkout /other/tree  # another checkout (say, the commit before a change)
 *   pnpm bench:memory --idle 30               # the resident size read again after 30 s without requests (default 10)
 *
 * `--runner dist` (the default) starts `node scripts/start.mjs`, as `pnpm
 * start` does, after compiling what changed (not timed); a checkout without
 * that script is started with `node --import tsx apps/gateway/src/main.ts`.
 * Prints one line per reading: the seconds from the command to the first
 * answer of /readyz, the CPU seconds spent until then (the service and the
 * children it waited for: PGlite's initdb on a fresh start; on a shared
 * machine the figure to compare, as the wall time mostly measures the load), the resident size once ready, after the requests, and
 * the peak (VmHWM, the most the process ever held), in MB, and the processes
 * the command left running (the service alone, or wrappers beside it).
 * "after N s idle" is the resident size read once more after the requests
 * and N seconds without any (what an idle service holds: the memory the
 * requests needed only while they ran given back); the figure just after
 * the requests is printed beside it, unchanged in meaning. A fresh start
 * copies the migrated template when the build made one (its log line says
 * which way the database was made: `CMS_MEMORY_SHOW_LOG=1`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { rssOf, treeCpuOf } from './proc.js'

const { values: opts } = parseArgs({ options: { 'database-url': { type: 'string' }, runner: { type: 'string', default: 'dist' }, checkout: { type: 'string' }, idle: { type: 'string', default: '10' } } })
const idleSeconds = Math.max(0, Number(opts.idle) || 0)
const ROOT = opts.checkout === undefined ? fileURLToPath(new URL('../..', import.meta.url)) : resolve(opts.checkout)
const compiled = opts.runner === 'dist' && existsSync(join(ROOT, 'scripts', 'start.mjs'))
const command = compiled ? ['scripts/start.mjs'] : ['--import', 'tsx', 'apps/gateway/src/main.ts']
if (compiled) spawnSync(process.execPath, ['scripts/build-dist.mjs'], { cwd: ROOT, stdio: 'inherit' })

/** The command lines of a process and of every process below it. */
function treeOf (pid: number): string[] {
  const out: string[] = []
  const walk = (p: number): void => {
    try {
      out.push(readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ').trim())
      for (const task of readdirSync(`/proc/${p}/task`)) {
        for (const child of readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim().split(' ').filter(Boolean)) walk(Number(child))
      }
    } catch {}
  }
  walk(pid)
  return out
}

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

interface Reading { ready: number, afterRequests: number, afterIdle: number, peak: number, startSeconds: number, cpuSeconds: number, log: string, tree: string[] }

async function run (dataDir: string): Promise<Reading> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), CMS_DATA_DIR: dataDir, LOG_LEVEL: 'info', CMS_BASE_URL: base }
  delete env.DATABASE_URL
  if (opts['database-url'] !== undefined) env.DATABASE_URL = opts['database-url']
  const started = Date.now()
  const child: ChildProcess = spawn(process.execPath, command, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
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
    const cpuSeconds = treeCpuOf(child.pid ?? 0)
    const ready = rssOf(child.pid)
    for (const path of ['/index.php?rest_route=/', '/index.php?rest_route=/cms/v2/posts', '/index.php?rest_route=/cms/v2/categories', '/openapi.json']) {
      for (let i = 0; i < 5; i++) await (await fetch(base + path)).arrayBuffer()
    }
    const afterRequests = rssOf(child.pid)
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000))
    return { ready, afterRequests, afterIdle: rssOf(child.pid), peak: peakOf(child.pid), startSeconds, cpuSeconds, log, tree: treeOf(child.pid ?? 0) }
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
    console.log(`${database}, ${compiled ? 'compiled (scripts/start.mjs)' : 'tsx'}, ${label}: ready in ${r.startSeconds.toFixed(1)} s (${r.cpuSeconds.toFixed(1)} s of CPU; load average ${loadavg()[0]!.toFixed(1)}), resident ${mb(r.ready)} when ready, ${mb(r.afterRequests)} just after 20 requests, ${mb(r.afterIdle)} after ${idleSeconds} s idle, peak ${mb(r.peak)}; processes: ${r.tree.length} (${r.tree.map((c) => c.replace(ROOT, '')).join(' | ')})`)
    if (process.env.CMS_MEMORY_SHOW_LOG === '1') console.log(r.log)
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
