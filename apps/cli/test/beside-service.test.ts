/**
 * The CLI beside the running service on the embedded database (issue 34):
 * the service holds PGlite (one process's database) and shares it on the
 * data directory's socket; the CLI, run as a user runs it, creates a user
 * and an application password through that socket, and the service accepts
 * the password at once. Each call's time is printed as a comment, never
 * asserted (docs/benchmarks.md has the figures and their conditions).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { cms } from './helpers.js'
import { startService } from './service.js'

t.test('a user and an application password made with the CLI while the service runs', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-beside-'))
  const env = { CMS_DATA_DIR: dataDir, DATABASE_URL: '' }
  const service = await startService(t, dataDir, { LOG_LEVEL: 'warn' })
  t.teardown(() => { rmSync(dataDir, { recursive: true, force: true }) })

  const timed = async (args: string[]): Promise<Awaited<ReturnType<typeof cms>>> => {
    const started = performance.now()
    const r = await cms(args, env)
    t.comment(`cms ${args.join(' ')}: ${((performance.now() - started) / 1000).toFixed(1)} s`)
    return r
  }

  const created = await timed(['user', 'create', 'admin', '--email', 'admin@example.com', '--role', 'administrator', '--password', 'a long sign-in password', '--json'])
  t.equal(created.code, 0, created.stderr)
  const password = await timed(['app-password', 'create', 'admin', 'beside the service', '--json'])
  t.equal(password.code, 0, password.stderr)
  const { password: secret } = JSON.parse(password.stdout) as { password: string }
  const listed = await timed(['user', 'list', '--json'])
  t.equal(listed.code, 0, listed.stderr)
  t.same((JSON.parse(listed.stdout) as Array<{ login: string }>).map((u) => u.login), ['admin'])

  // The service sees both at once: the same database.
  const me = await fetch(`${service.base}/index.php?rest_route=/cms/v2/users/me&context=edit`, {
    headers: { authorization: `Basic ${Buffer.from(`admin:${secret}`).toString('base64')}` }
  })
  t.equal(me.status, 200)
  t.equal(((await me.json()) as { username?: string }).username, 'admin')
  t.equal(service.exitCode(), null, 'the service still runs')
})
