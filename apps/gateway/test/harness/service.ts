/**
 * The service started as a user starts it: the README's start command
 * (`npx -y pnpm@10.34.8 start`) in a child process, on a free port, ready
 * when `/readyz` answers. start.test.ts and docs-commands.test.ts share it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../../..', import.meta.url))
export const PNPM = ['-y', 'pnpm@10.34.8']

/**
 * The environment of a service on `port`: the test's own, on the test database when
 * CMS_TEST_DATABASE_URL is set, else on the embedded one in `dataDir` (undefined: the
 * start directory's `.data`, as the README has it).
 */
export function serviceEnv (dataDir: string | undefined, port: number, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, ...extra, PORT: String(port), LOG_LEVEL: 'warn' }
  if (dataDir !== undefined) e.CMS_DATA_DIR = dataDir
  const pg = process.env.CMS_TEST_DATABASE_URL
  if (pg !== undefined && pg !== '') e.DATABASE_URL = pg
  else delete e.DATABASE_URL
  delete e.CMS_BASE_URL
  // pnpm sets it to the directory it was run from: relative settings (.data, .env) resolve there.
  delete e.INIT_CWD
  return e
}

/** How much of a started service's log is kept (its end). */
const LOG_KEPT = 64 * 1024
const logs = new WeakMap<ChildProcess, () => string>()

/** The end of a service's log (stdout and stderr, as they came), kept since it started. */
export function serviceLog (child: ChildProcess): string {
  return logs.get(child)?.() ?? ''
}

/**
 * Runs the start command from `cwd` (default: the repository root) with `--dir` naming the
 * repository, so relative settings resolve against `cwd` as they would for a user starting
 * from there, and waits until the service answers `/readyz`.
 */
export async function startService (env: NodeJS.ProcessEnv, cwd: string = ROOT): Promise<ChildProcess> {
  // Its own process group, like a terminal job: Ctrl-C or SIGTERM reaches npx, pnpm and node at once.
  const child = spawn('npx', [...PNPM, '--dir', ROOT, 'start'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  // Its log (both streams, the last LOG_KEPT characters), for a test to print when it fails.
  let log = ''
  const keep = (d: Buffer): void => { log = (log + String(d)).slice(-LOG_KEPT) }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  logs.set(child, () => log)
  const deadline = Date.now() + 200_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited early: ${log}`)
    try {
      const res = await fetch(`http://127.0.0.1:${env.PORT}/readyz`)
      if (res.ok) return child
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  process.kill(-child.pid!, 'SIGKILL')
  throw new Error(`service did not become ready: ${log}`)
}

/** Sends SIGTERM to the job; true when every process of it ended (within 2 minutes: only a true hang takes that long). */
export async function stopService (child: ChildProcess): Promise<boolean> {
  const pgid = child.pid!
  process.kill(-pgid, 'SIGTERM')
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    try {
      process.kill(-pgid, 0)
    } catch {
      return true
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  process.kill(-pgid, 'SIGKILL')
  return false
}
