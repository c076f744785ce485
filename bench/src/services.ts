/**
 * The processes under test: the gateway (started directly with node so its
 * pid is the server's, for memory readings) and the bare Fastify twin.
 * The gateway runs compiled, as `pnpm start` runs it (scripts/start.mjs, its
 * dist/ brought up to date first): what ships, without tsx's wrappers in the
 * profile. A checkout without scripts/start.mjs (older than the compiled
 * start), or `CMS_BENCH_RUNNER=tsx`, runs its TypeScript through tsx.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, writeFileSync, mkdtempSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cpuOf, rssOf } from './proc.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface Service {
  url: string
  /** Resident memory in bytes, 0 once stopped. */
  rss (): number
  /** CPU time used so far (user + system), in seconds: steadier than rates on a shared machine. */
  cpu (): number
  stop (): Promise<void>
}

export interface Captured { status: number, headers: Record<string, string>, body: string }

async function freePort (): Promise<number> {
  return await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

async function waitReady (url: string, child: ChildProcess, log: () => string): Promise<void> {
  // Generous: on a shared, loaded machine a start under tsx has taken over a minute.
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited early: ${log()}`)
    try {
      if ((await fetch(url)).ok) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`not ready: ${log()}`)
}

async function stopChild (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

/**
 * Rate limits on, as in production, but never reached: every figure includes
 * the limiter's counting and headers, and no run measures 429s (thousands of
 * requests a second come from one address). `CMS_RATE_LIMITS=off` in `env`
 * measures without it.
 */
const UNREACHED_LIMITS = { CMS_RATE_LIMIT_READ: '1000000000', CMS_RATE_LIMIT_WRITE: '1000000000', CMS_RATE_LIMIT_EXPENSIVE: '1000000000', CMS_RATE_LIMIT_AUTH: '1000000000' }

/** How a checkout's gateway is started: compiled (built here, before the clock starts) where it can be. */
function gatewayEntry (root: string): string[] {
  if (process.env.CMS_BENCH_RUNNER === 'tsx' || !existsSync(join(root, 'scripts', 'start.mjs'))) return ['--import', 'tsx', 'apps/gateway/src/main.ts']
  const build = spawnSync(process.execPath, ['scripts/build-dist.mjs'], { cwd: root, encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`build-dist failed in ${root}: ${build.stdout}${build.stderr}`)
  return ['scripts/start.mjs']
}

/** The gateway of this checkout, or of another one (`root`: an older commit, for comparisons), with settings of `env` besides the bench's. */
export async function startGateway (databaseUrl: string, nodeFlags: string[] = [], root = ROOT, env: Record<string, string> = {}): Promise<Service> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn('node', [...nodeFlags, ...gatewayEntry(root)], {
    cwd: root,
    env: { ...process.env, ...UNREACHED_LIMITS, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', CMS_BASE_URL: url, ...env },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr?.on('data', (d) => { stderr += String(d) })
  await waitReady(`${url}/readyz`, child, () => stderr)
  return { url, rss: () => rssOf(child.pid), cpu: () => cpuOf(child.pid), stop: async () => { await stopChild(child) } }
}

export async function startTwin (responses: Record<string, Captured>): Promise<Service> {
  const port = await freePort()
  const file = join(mkdtempSync(join(tmpdir(), 'cms-twin-')), 'responses.json')
  writeFileSync(file, JSON.stringify(responses))
  const child = spawn('node', ['--import', 'tsx', fileURLToPath(new URL('./twin.ts', import.meta.url)), file, String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr?.on('data', (d) => { stderr += String(d) })
  const url = `http://127.0.0.1:${port}`
  await waitReady(`${url}/__ready`, child, () => stderr)
  return { url, rss: () => rssOf(child.pid), cpu: () => cpuOf(child.pid), stop: async () => { await stopChild(child) } }
}
