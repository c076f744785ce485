/**
 * A few seconds of the benchmark on tiny data, so the command cannot rot.
 * It needs PostgreSQL: the server of CMS_TEST_DATABASE_URL, or the binaries
 * to start one.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

t.test('pnpm bench --smoke runs every scenario without errors', async (t) => {
  const out = join(mkdtempSync(join(tmpdir(), 'cms-bench-')), 'smoke.json')
  // Run as this test runs (tsx, or the test command's loader of the compiled sources: scripts/test-loader.mjs).
  const args = [...process.execArgv, 'bench/src/run.ts', '--smoke', '--out', out]
  const db = process.env.CMS_TEST_DATABASE_URL
  if (db !== undefined && db !== '') args.push('--database-url', db)
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, timeout: 240_000, maxBuffer: 10 * 1024 * 1024 })
  t.match(stdout, /\| scenario \| caller \| posts \| req\/s/, 'prints the table')
  const result = JSON.parse(readFileSync(out, 'utf8')) as {
    rows: Array<{ scenario: string, caller?: string, database?: string, service: { requests: number, errors: number, cpuUsPerRequest?: number, dbCpuUsPerRequest?: number, idlePercent?: number, peakRssMb?: number }, ratio?: number }>
    peakRssMb: number
  }
  const scenarios = result.rows.map((r) => r.scenario)
  t.same(scenarios.sort(), [
    'authenticated create', 'batch of 25 creates', 'index GET /', 'posts list (per_page=10)', 'posts list, signed in',
    'posts list, signed in, 1 connection', 'search', 'search, signed in', 'search, signed in, 1 connection', 'single post',
    'single post, signed in', 'single post, signed in, 1 connection'
  ].sort())
  // Each anonymous (cached) read has its signed-in (uncached) twin right after it.
  const order = result.rows.map((r) => r.scenario)
  for (const [anonymous, signedIn] of [['posts list (per_page=10)', 'posts list, signed in'], ['single post', 'single post, signed in'], ['search', 'search, signed in']] as const) {
    t.equal(order[order.indexOf(anonymous) + 1], signedIn, `${signedIn} beside ${anonymous}`)
    t.equal(result.rows.find((r) => r.scenario === anonymous)?.caller, 'anonymous (cached)')
    t.equal(result.rows.find((r) => r.scenario === signedIn)?.caller, 'signed in (uncached)')
  }
  // A server the benchmark starts keeps PostgreSQL's default durability.
  if (db === undefined || db === '') {
    for (const row of result.rows) t.equal(row.database, 'fsync=on, synchronous_commit=on', `${row.scenario}: durable database`)
  }
  for (const row of result.rows) {
    t.ok(row.service.requests > 0, `${row.scenario}: requests were served`)
    t.equal(row.service.errors, 0, `${row.scenario}: no errors`)
    t.ok(row.service.cpuUsPerRequest! > 0, `${row.scenario}: the gateway's CPU time was read`)
    t.ok(row.service.peakRssMb! > 0, `${row.scenario}: the gateway's memory was read`)
    t.ok(row.service.idlePercent! >= 0 && row.service.idlePercent! <= 100, `${row.scenario}: the machine's idle share was read`)
    // PostgreSQL's CPU time is read only from a server the benchmark started itself.
    if (db === undefined || db === '') t.ok(row.service.dbCpuUsPerRequest! > 0, `${row.scenario}: PostgreSQL's CPU time was read`)
    else t.equal(row.service.dbCpuUsPerRequest, undefined, `${row.scenario}: no PostgreSQL CPU time for a server it did not start`)
  }
  t.equal(result.peakRssMb, Math.max(...result.rows.map((r) => r.service.peakRssMb!)), 'the peak is the largest of the runs')
})
