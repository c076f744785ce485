/**
 * The README's start command on a fresh data directory: the service answers,
 * shuts down on SIGTERM, and keeps its data across a restart.
 */
import t from 'tap'
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './harness/free-port.js'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const PNPM = ['-y', 'pnpm@10.34.8']

function env (dataDir: string, port: number): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, CMS_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' }
  const pg = process.env.CMS_TEST_DATABASE_URL
  if (pg !== undefined && pg !== '') e.DATABASE_URL = pg
  else delete e.DATABASE_URL
  delete e.CMS_BASE_URL
  return e
}

async function start (dataDir: string, port: number): Promise<ChildProcess> {
  // Its own process group, like a terminal job: Ctrl-C or SIGTERM reaches npx, pnpm, tsx and node at once.
  const child = spawn('npx', [...PNPM, 'start'], { cwd: ROOT, env: env(dataDir, port), stdio: ['ignore', 'ignore', 'pipe'], detached: true })
  let stderr = ''
  child.stderr?.on('data', (d) => { stderr += String(d) })
  const deadline = Date.now() + 200_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited early: ${stderr}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`)
      if (res.ok) return child
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  child.kill('SIGKILL')
  throw new Error(`service did not become ready: ${stderr}`)
}

/** Sends SIGTERM to the job; true when every process of it ended (within 2 minutes: only a true hang takes that long). */
async function stop (child: ChildProcess): Promise<boolean> {
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

t.test('the README start command serves and keeps its data across restarts', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-start-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const name = `Persisted ${Date.now()}`

  let child = await start(dataDir, port)
  const first = await (await fetch(`http://127.0.0.1:${port}/index.php?rest_route=/`)).json() as { name: string, url: string }
  t.equal(first.url, `http://127.0.0.1:${port}`, 'answers with its own base URL')
  t.ok(await stop(child), 'stops on SIGTERM')

  const cli = await promisify(execFile)('npx', [...PNPM, 'cms', 'site', 'set', 'name', name], { cwd: ROOT, env: env(dataDir, port) })
  t.equal(cli.stderr.replace(/^npm warn.*\n/gm, ''), '', 'the CLI wrote the option')

  child = await start(dataDir, port)
  const second = await (await fetch(`http://127.0.0.1:${port}/index.php?rest_route=/`)).json() as { name: string }
  t.equal(second.name, name, 'the option written while stopped is served after a restart')
  t.ok(await stop(child))

  child = await start(dataDir, port)
  const third = await (await fetch(`http://127.0.0.1:${port}/index.php?rest_route=/`)).json() as { name: string }
  t.equal(third.name, name, 'and still after another restart')
  t.ok(await stop(child))
})
