/**
 * `bench:import --smoke`: the import bench on 20 posts, so the command
 * cannot rot. It needs PostgreSQL: the server of CMS_TEST_DATABASE_URL, or
 * the binaries to start one.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

t.test('bench:import --smoke imports the file it writes and reports the cost', async (t) => {
  const out = join(mkdtempSync(join(tmpdir(), 'cms-bench-import-')), 'import.json')
  // Run as this test runs (tsx, or under the test command its loader of the compiled sources), as smoke.test.ts does.
  const args = [...process.execArgv, 'bench/src/import.ts', '--smoke', '--out', out]
  const db = process.env.CMS_TEST_DATABASE_URL
  const started = db === undefined || db === ''
  if (!started) args.push('--database-url', db)
  // The bench checks what was imported (posts, comments, attachments; a second run changing nothing) and exits 1 otherwise.
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, timeout: 460_000, maxBuffer: 10 * 1024 * 1024 })
  t.match(stdout, /\| run \| seconds \| posts\/s \|/, 'prints the table')
  t.match(stdout, /Imported from http:\/\/old\.example: created \d+, updated 0, unchanged 0, skipped 0, failed 0/)
  const result = JSON.parse(readFileSync(out, 'utf8')) as {
    conditions: { posts: number, attachments: number, database: string, loadAverage: { start: number, end: number } }
    rows: Array<{ run: string, seconds: number, postsPerSecond?: number, cliCpuSeconds: number, dbCpuSeconds?: number, peakRssMb: number }>
  }
  t.same([result.conditions.posts, result.conditions.attachments], [20, 2])
  if (started) t.equal(result.conditions.database, 'fsync=on, synchronous_commit=on', 'a server the bench starts is durable')
  t.same(result.rows.map((r) => r.run), ['empty export (fixed cost)', 'import', 'second run (nothing changed)'])
  for (const row of result.rows) {
    t.ok(row.seconds > 0 && row.cliCpuSeconds > 0, `${row.run}: time and the CLI's CPU read`)
    t.ok(row.peakRssMb > 0, `${row.run}: the CLI's peak memory read`)
    if (started) t.ok(row.dbCpuSeconds! >= 0, `${row.run}: PostgreSQL's CPU read`)
    else t.equal(row.dbCpuSeconds, undefined, `${row.run}: no PostgreSQL CPU for a server it did not start`)
  }
  t.ok(result.rows[1]!.postsPerSecond! > 0, 'posts a second')
})
