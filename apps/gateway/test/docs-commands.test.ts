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
 * (reason) -->` marker; they are counted and printed. A ```console block's
 * text outputs are checked as well (harness/doc-shell.ts). When a file
 * fails, the end of the service's log is printed with it.
 * A document marked `<!-- docs-test: profile B -->` runs against a second
 * service (started once, only when such a document exists, beside the first:
 * its own directory and database, its own first administrator), started as
 * the documentation starts profile B: the README's settings plus those of the
 * block that starts `CMS_DEPLOYMENT=B` (the README's "Profiles").
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { createServer } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, freePort, testDatabaseUrl } from '@cms/store/testing'
import { blocksOf, docBlocks, type DocBlock } from './harness/doc-blocks.js'
import { localAddresses, runFileBlocks } from './harness/doc-shell.js'
import { mismatch, parseShown } from './harness/expected-output.js'
import { ROOT, serviceEnv, serviceLog, startService, stopService } from './harness/service.js'

const START_COMMAND = 'npx -y pnpm@10.34.8 start'
/** How much of the service's log a failed file prints (its end). */
const LOG_SHOWN = 16 * 1024

// The variables the README's walk-through sets; every guide's commands use them.
const PRELUDE = `CMS=http://127.0.0.1:8080/cms-json
AUTH="admin:$(cat .data/admin-app-password)"`

/** The settings a start block gives before the start command, as its shell sets them (quotes, continuations). */
function settingsOf (block: DocBlock): Record<string, string> {
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
/** The documented start of profile B: a block whose settings before the start command choose it. */
const startsB = blocks.filter((b) => b.text.trim().endsWith(START_COMMAND) && /\bCMS_DEPLOYMENT=B\s/.test(b.text))

interface Started { env: NodeJS.ProcessEnv, cwd: string, rewrite: (text: string) => string, seconds: number, log: () => string }

t.test('the documentation\'s commands run as written', async (t) => {
  t.equal(starts.length, 1, 'one block starts the service (<!-- docs-test: start -->)')
  const settings = settingsOf(starts[0]!)
  t.ok(settings.CMS_ADMIN_APP_PASSWORD_FILE, 'the start block writes the first application password to a file')

  // The webhooks guide's receiver (https://hooks.example.com) is this one, on loopback: the
  // service may deliver there (CMS_OUTBOUND_ALLOW), as a deployment allows a private receiver.
  const receiver = createServer((req, res) => { req.resume().on('end', () => res.writeHead(204).end()) })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { receiver.closeAllConnections(); receiver.close() })
  const receiverPort = (receiver.address() as { port: number }).port

  /** A service started from a fresh directory standing for the repository root (relative settings such as .data resolve there). */
  const start = async (extra: Record<string, string>): Promise<Started> => {
    const cwd = mkdtempSync(join(tmpdir(), 'cms-docs-'))
    t.teardown(() => rmSync(cwd, { recursive: true, force: true }))
    const port = await freePort()
    const env = serviceEnv(undefined, port, { ...settings, ...extra, CMS_OUTBOUND_ALLOW: '127.0.0.1' })
    if (testDatabaseUrl() !== undefined) {
      const db = await createTestDatabase()
      t.teardown(db.drop)
      env.DATABASE_URL = db.url
    }
    await writePhoto(join(cwd, 'photo.jpg'))
    const clock = Date.now()
    const service = await startService(env, cwd)
    t.teardown(async () => { await stopService(service) })
    return { env: { ...env, PORT: undefined }, cwd, rewrite: localAddresses(port, receiverPort), seconds: (Date.now() - clock) / 1000, log: () => serviceLog(service) }
  }

  const profiles = [...new Set(blocks.map((b) => b.profile))]
  t.same(profiles.filter((p) => p !== 'A' && p !== 'B'), [], 'documents run against profile A or B')
  let b: Promise<Started> | undefined
  if (profiles.includes('B')) {
    t.equal(startsB.length, 1, 'one block of the documentation starts profile B (CMS_DEPLOYMENT=B ... start)')
    // Started beside A, awaited before the first profile-B document: the two starts overlap.
    b = start({ ...settingsOf(startsB[0]!), CMS_DEPLOYMENT: 'B' })
    b.catch(() => {}) // awaited below; a failed start is reported there
  }
  const a = await start({})
  const timings = [`service started in ${a.seconds.toFixed(1)} s`]
  const serviceOf = async (profile: string): Promise<Started> => {
    if (profile === 'A') return a
    const started = await b!
    if (!timings.some((l) => l.startsWith('profile B'))) timings.push(`profile B started in ${started.seconds.toFixed(1)} s (beside A)`)
    return started
  }
  const run = async (file: string, fileBlocks: DocBlock[], profile: string): Promise<{ failures: string[], curls: number }> => {
    const s = await serviceOf(profile)
    return await runFileBlocks(fileBlocks, { cwd: s.cwd, root: ROOT, rewrite: s.rewrite, env: s.env, prelude: s.rewrite(PRELUDE) })
  }

  const files = [...new Set(blocks.map((b) => b.file))]
  const summary: string[] = []
  let ran = 0
  let skipped = 0
  // Profile A's documents first (its service is up), then B's: each profile's in reading order.
  for (const profile of ['A', 'B']) {
    for (const file of files) {
      const own = blocks.filter((b) => b.file === file)
      if (own[0]!.profile !== profile) continue
      const runs = own.filter((b) => b.marker.kind === 'run')
      const notRun = own.filter((b) => b.marker.kind === 'not run')
      ran += runs.length
      skipped += notRun.length
      summary.push(`${file}${profile === 'A' ? '' : ` (profile ${profile})`}: ${runs.length} run, ${notRun.length} not run${own.length > runs.length + notRun.length ? ', 1 starts the service' : ''}`)
      for (const b of notRun) summary.push(`  ${b.file}:${b.line} not run: ${(b.marker as { reason: string }).reason}`)
      if (runs.length === 0) continue
      const clock = Date.now()
      const { failures, curls } = await run(file, runs, profile)
      timings.push(`${file} in ${((Date.now() - clock) / 1000).toFixed(1)} s`)
      t.same(failures, [], `${file}: ${runs.length} blocks, ${curls} curl requests, as written${profile === 'A' ? '' : ` (profile ${profile})`}`)
      // What the service logged (kept since it started, its end) tells why a command failed.
      if (failures.length > 0) t.comment(`the service's log (profile ${profile}), its end after ${file}:\n${(await serviceOf(profile)).log().slice(-LOG_SHOWN)}`)
    }
  }
  // The checks themselves, on a document of their own: a wrong shown output (a console session's, JSON
  // and text), an error answer and an unset variable are each reported at their line; a text output
  // with `...` (any lines, any text) matches; a marked block is not run.
  const selfCheck = blocksOf('self-check.md', [
    '# Self-check', '', '```console', '$ curl -s "$CMS/cms/v2/posts/1?_fields=id"', '{"id":2}',
    '$ printf \'analysed 2, unchanged 0\\nmore\\n\'', 'analysed 1, unchanged 0', '...',
    '$ printf \'a  b\\r\\nreset: 41\\n\\nc\\nd\\n\' \\', '  | cat', 'a  b', 'reset: ...', '...', '```', '',
    '```sh', 'curl -s "$CMS/cms/v2/posts/1?_fields=id"', '# "shown as a string..."', '```', '',
    '```sh', 'curl -s "$CMS/cms/v2/posts/999999"', 'echo "$UNSET_IN_THE_DOCS"', '```',
    '<!-- docs-test: not run (a synopsis) -->', '```sh', 'cms <placeholder>', '```'
  ].join('\n'))
  t.same(selfCheck.map((b) => b.marker), [{ kind: 'run' }, { kind: 'run' }, { kind: 'run' }, { kind: 'not run', reason: 'a synopsis' }], 'the markers are read')
  const self = await run('self-check.md', selfCheck.slice(0, 3), 'A')
  t.match(self.failures, [
    /^self-check\.md:23: exited 1\n.*UNSET_IN_THE_DOCS: unbound variable/s,
    /^self-check\.md:5: the output differs from the one shown: \$\.id: shown 2, got 1/,
    /^self-check\.md:18: the output differs from the one shown: \$: shown "shown as a string\.\.\.", got \{"id":1\}/,
    /^self-check\.md:22: answered 404: \{"code":"rest_post_invalid_id"/,
    /^self-check\.md:7: the output differs from the one shown: shown "analysed 1, unchanged 0\\n\.\.\.", got "analysed 2, unchanged 0\\nmore"$/
  ], 'the checker reports a wrong output (JSON, a JSON string or text), an error answer and an unset variable, at their lines')
  t.equal(self.failures.length, 5, 'and nothing else (the text shown with ... matches)')
  // A JSON string shown with `...` (addons.md's mega menu: HTML whose attributes change): any text there.
  const panel = parseShown('"<div class=\\"a\\"><div ...><h3>Our breads</h3></div></div>"')
  t.equal(mismatch(panel, '<div class="a"><div class="b c"><h3>Our breads</h3></div></div>'), undefined, 'a JSON string with ... matches any text there')
  t.match(mismatch(panel, '<div class="a"><div class="b"><h3>Our cakes</h3></div></div>'), /^\$: shown /, 'and not a string that differs elsewhere')
  t.equal(mismatch(parseShown('"whsec_..."'), 'whsec_abc'), undefined, 'a prefix as before')
  if (b !== undefined) {
    // A profile-B document reaches profile B (a B-only namespace answers there; the same block on A is a 404)
    // and is checked the same way: a wrong shown value is reported at its line.
    const selfB = blocksOf('self-check-b.md', [
      '<!-- docs-test: profile B -->', '# Self-check, profile B', '',
      '```sh', 'curl -s -u "$AUTH" "$CMS/assistant/v1/snippets"', '# {"total":-1}', '```'
    ].join('\n'))
    t.same(selfB.map((x) => x.profile), ['B'], 'the profile marker is read')
    t.match((await run('self-check-b.md', selfB, 'B')).failures, [/^self-check-b\.md:6: the output differs from the one shown: \$\.total: shown -1, got \d+$/],
      'a profile-B document runs against profile B and its wrong output is reported')
    t.match((await run('self-check-b.md', selfB, 'A')).failures, [/^self-check-b\.md:6: answered 404: \{"code":"rest_no_route"/, /differs/],
      'the same block against profile A meets no such route')
  }

  t.comment(`${ran} blocks run, ${skipped} not run (marked), 1 starts the service\n${summary.join('\n')}\n${timings.join(', ')}`)
  t.ok(blocks.some((b) => b.file === 'README.md' && b.marker.kind === 'run' && b.text.includes('curl')), 'the README\'s walk-through is among the blocks run')
})
