/**
 * The README's start command on a fresh data directory: the service answers,
 * shuts down on SIGTERM, and keeps its data across a restart.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '@cms/store/testing'
import { PNPM, ROOT, serviceEnv as env, startService, stopService as stop } from './harness/service.js'

const start = async (dataDir: string, port: number) => await startService(env(dataDir, port))

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
