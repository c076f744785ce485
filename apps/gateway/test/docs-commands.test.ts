/**
 * Every command of the README and docs/**.md runs, so the documentation
 * cannot drift from the service. The ```sh / ```bash / ```console blocks
 * (harness/doc-blocks.ts) run against one service started as the README
 * starts it: the block marked `<!-- docs-test: start -->` gives the settings
 * (the first administrator and the application password file), the start
 * command is the README's (harness/service.ts), from a fresh directory
 * standing for the repository root (its `.data`: the embedded database, or a
 * fresh PostgreSQL database when CMS_TEST_DATABASE_URL is set). Files run in
 * reading order (README, then docs/ by path), each file's blocks in order in
 * one shell (harness/doc-shell.ts), starting with the README's `$CMS` and
 * `$AUTH`, so the state a file leaves is the next one's, as for a reader.
 * A block that cannot run here says why in a `<!-- docs-test: not run
 * (reason) -->` marker; they are counted and printed.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { createServer } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, testDatabaseUrl } from '@cms/store/testing'
import { blocksOf, docBlocks, type DocBlock } from './harness/doc-blocks.js'
import { localAddresses, runFileBlocks } from './harness/doc-shell.js'
import { freePort } from './harness/free-port.js'
import { ROOT, serviceEnv, startService, stopService } from './harness/service.js'

const START_COMMAND = 'npx -y pnpm@10.34.8 start'

// The variables the README's walk-through sets; every guide's commands use them.
const PRELUDE = `CMS=http://127.0.0.1:8080/cms-json
AUTH="admin:$(cat .data/admin-app-password)"`

/** The settings the start block gives, as its shell sets them (quotes, continuations). */
function startSettings (block: DocBlock): Record<string, string> {
  const text = block.text.trim()
  if (!text.endsWith(START_COMMAND)) throw new Error(`${block.file}:${block.line}: the start block must end with the README's start command (${START_COMMAND})`)
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', text.slice(0, -START_COMMAND.length) + 'env -0'], { env: {}, encoding: 'utf8' })
  const settings: Record<string, string> = {}
  for (const pair of out.split('\0')) {
    const eq = pair.indexOf('=')
    const name = pair.slice(0, eq)
    if (eq > 0 && !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(name)) settings[name] = pair.slice(eq + 1)
  }
  return settings
}

/** A small real image for the media examples' `@photo.jpg` (sharp, as the core has it). */
async function writePhoto (file: string): Promise<void> {
  const sharp = createRequire(join(ROOT, 'packages/core/package.json'))('sharp') as (o: unknown) => { jpeg: () => { toFile: (f: string) => Promise<unknown> } }
  await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 40 } } }).jpeg().toFile(file)
}

const blocks = docBlocks(ROOT)
const starts = blocks.filter((b) => b.marker.kind === 'start')

t.test('the documentation\'s commands run as written', async (t) => {
  t.equal(starts.length, 1, 'one block starts the service (<!-- docs-test: start -->)')
  const settings = startSettings(starts[0]!)
  t.ok(settings.CMS_ADMIN_APP_PASSWORD_FILE, 'the start block writes the first application password to a file')

  // The directory the reader starts from: relative settings (.data) resolve there.
  const cwd = mkdtempSync(join(tmpdir(), 'cms-docs-'))
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }))
  const port = await freePort()
  // The webhooks guide's receiver (https://hooks.example.com) is this one, on loopback: the
  // service may deliver there (CMS_OUTBOUND_ALLOW), as a deployment allows a private receiver.
  const receiver = createServer((req, res) => { req.resume().on('end', () => res.writeHead(204).end()) })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { receiver.closeAllConnections(); receiver.close() })
  const receiverPort = (receiver.address() as { port: number }).port
  const rewrite = localAddresses(port, receiverPort)
  const env = serviceEnv(undefined, port, { ...settings, CMS_OUTBOUND_ALLOW: '127.0.0.1' })
  if (testDatabaseUrl() !== undefined) {
    const db = await createTestDatabase()
    t.teardown(db.drop)
    env.DATABASE_URL = db.url
  }
  await writePhoto(join(cwd, 'photo.jpg'))
  let clock = Date.now()
  const service = await startService(env, cwd)
  const timings = [`service started in ${((Date.now() - clock) / 1000).toFixed(1)} s`]
  t.teardown(async () => { await stopService(service) })

  const files = [...new Set(blocks.map((b) => b.file))]
  const summary: string[] = []
  let ran = 0
  let skipped = 0
  for (const file of files) {
    const own = blocks.filter((b) => b.file === file)
    const run = own.filter((b) => b.marker.kind === 'run')
    const notRun = own.filter((b) => b.marker.kind === 'not run')
    ran += run.length
    skipped += notRun.length
    summary.push(`${file}: ${run.length} run, ${notRun.length} not run${own.length > run.length + notRun.length ? ', 1 starts the service' : ''}`)
    for (const b of notRun) summary.push(`  ${b.file}:${b.line} not run: ${(b.marker as { reason: string }).reason}`)
    if (run.length === 0) continue
    clock = Date.now()
    const { failures, curls } = await runFileBlocks(run, { cwd, root: ROOT, rewrite, env: { ...env, PORT: undefined }, prelude: rewrite(PRELUDE) })
    timings.push(`${file} in ${((Date.now() - clock) / 1000).toFixed(1)} s`)
    t.same(failures, [], `${file}: ${run.length} blocks, ${curls} curl requests, as written`)
  }
  // The checks themselves, on a document of their own: a wrong shown output (a console session's),
  // an error answer and an unset variable are each reported at their line; a marked block is not run.
  const selfCheck = blocksOf('self-check.md', [
    '# Self-check', '', '```console', '$ curl -s "$CMS/cms/v2/posts/1?_fields=id"', '{"id":2}', '```', '',
    '```sh', 'curl -s "$CMS/cms/v2/posts/999999"', 'echo "$UNSET_IN_THE_DOCS"', '```',
    '<!-- docs-test: not run (a synopsis) -->', '```sh', 'cms <placeholder>', '```'
  ].join('\n'))
  t.same(selfCheck.map((b) => b.marker), [{ kind: 'run' }, { kind: 'run' }, { kind: 'not run', reason: 'a synopsis' }], 'the markers are read')
  const self = await runFileBlocks(selfCheck.slice(0, 2), { cwd, root: ROOT, rewrite, env: { ...env, PORT: undefined }, prelude: rewrite(PRELUDE) })
  t.match(self.failures, [
    /^self-check\.md:10: exited 1\n.*UNSET_IN_THE_DOCS: unbound variable/s,
    /^self-check\.md:5: the output differs from the one shown: \$\.id: shown 2, got 1/,
    /^self-check\.md:9: answered 404: \{"code":"rest_post_invalid_id"/
  ], 'the checker reports a wrong output, an error answer and an unset variable, at their lines')
  t.equal(self.failures.length, 3, 'and nothing else')

  t.comment(`${ran} blocks run, ${skipped} not run (marked), 1 starts the service\n${summary.join('\n')}\n${timings.join(', ')}`)
  t.ok(blocks.some((b) => b.file === 'README.md' && b.marker.kind === 'run' && b.text.includes('curl')), 'the README\'s walk-through is among the blocks run')
})
