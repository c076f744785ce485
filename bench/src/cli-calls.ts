/**
 * What one CLI call costs, beside the running service and without it: on a
 * fresh embedded database (PGlite) by default, where the CLI reaches the
 * running service's database through its Unix socket, or on PostgreSQL.
 *
 *   pnpm bench:cli                                  # embedded database, fresh data directory
 *   pnpm bench:cli --database-url postgres://...    # PostgreSQL (a fresh database is best)
 *   pnpm bench:cli --rounds 5                       # each call repeated (median printed)
 *
 * The service runs compiled (`node scripts/start.mjs`, built before the clock
 * starts); the CLI runs as `pnpm cms` runs it (`node scripts/cms.mjs`), and
 * once through pnpm itself to show the wrapper's share. Each line: the
 * command, the wall time from spawn to exit and the CPU time of the call and
 * its children (read from this process's children's times), medians over
 * the rounds. Every call must succeed, and the application password the CLI
 * makes is tried against the service (200 on `users/me`), so a figure is
 * never that of a refusal.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { startGateway } from './services.js'
import { median } from './median.js'

const { values: opts } = parseArgs({ options: { 'database-url': { type: 'string', default: '' }, rounds: { type: 'string', default: '3' } } })
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const rounds = Math.max(1, Number(opts.rounds) || 3)
const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-cli-'))
const env = { ...process.env, CMS_DATA_DIR: dataDir, DATABASE_URL: opts['database-url'], LOG_LEVEL: 'warn' }

/** CPU seconds of this process's waited-for children so far (cutime + cstime of /proc/self/stat). */
function childrenCpu (): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
  // Fields 16 and 17 of stat (cutime, cstime) are 13 and 14 after the command name.
  return (Number(fields[13]) + Number(fields[14])) / 100
}

interface Call { wall: number, cpu: number, out: string }

function call (command: string[], viaPnpm = false): Call {
  const argv = viaPnpm ? ['-y', 'pnpm@10.34.8', '-s', 'cms', ...command] : ['scripts/cms.mjs', ...command]
  const cpu = childrenCpu()
  const started = performance.now()
  const r = spawnSync(viaPnpm ? 'npx' : process.execPath, argv, { cwd: ROOT, env, encoding: 'utf8' })
  const wall = (performance.now() - started) / 1000
  if (r.status !== 0) throw new Error(`cms ${command.join(' ')} exited ${r.status}: ${r.stdout}${r.stderr}`)
  return { wall, cpu: childrenCpu() - cpu, out: r.stdout }
}

const lines: string[] = []
function measure (label: string, command: (round: number) => string[], viaPnpm = false): string {
  const calls = Array.from({ length: rounds }, (_, i) => call(command(i), viaPnpm))
  lines.push(`${label.padEnd(44)} ${median(calls.map((c) => c.wall)).toFixed(2).padStart(6)} s wall ${median(calls.map((c) => c.cpu)).toFixed(2).padStart(6)} s CPU`)
  return calls.at(-1)!.out
}

// Compiled once before any clock (scripts/cms.mjs then only checks it is current).
const build = spawnSync(process.execPath, ['scripts/build-dist.mjs'], { cwd: ROOT, encoding: 'utf8' })
if (build.status !== 0) throw new Error(`build-dist failed: ${build.stdout}${build.stderr}`)

try {
  call(['migrate'])
  measure('status (no service)', () => ['status'])
  measure('user list (no service)', () => ['user', 'list'])

  const service = await startGateway(opts['database-url'], [], ROOT, { CMS_DATA_DIR: dataDir })
  try {
    measure('status (service running)', () => ['status'])
    measure('user create (service running)', (i) => ['user', 'create', `bench-${i}`, '--email', `bench-${i}@example.com`, '--role', 'editor', '--password', 'bench-password-123'])
    const out = measure('app-password create --json (service running)', (i) => ['app-password', 'create', `bench-${i}`, 'bench', '--json'])
    measure('user list (service running)', () => ['user', 'list'])
    measure('status through pnpm (service running)', () => ['status'], true)

    const { password } = JSON.parse(out) as { password: string }
    const me = await fetch(`${service.url}/cms-json/cms/v2/users/me`, { headers: { authorization: `Basic ${Buffer.from(`bench-${rounds - 1}:${password}`).toString('base64')}` } })
    if (me.status !== 200) throw new Error(`the application password the CLI made answers ${me.status}`)
  } finally {
    await service.stop()
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}

console.log(`CLI calls on ${opts['database-url'] === '' ? 'the embedded database (PGlite; beside the service: through its socket)' : 'PostgreSQL'}, median of ${rounds}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
for (const line of lines) console.log(line)
