/**
 * Two starts at once on a stale dist/ (the docs test starts profiles A and B
 * together): scripts/dist-run.mjs runs scripts/build-dist.mjs in each, and the
 * builds raced (each removed the dist/ the other was writing: ENOENT). Under
 * the build's lock one compiles and the other waits, then finds nothing stale.
 *
 * On a copy of the scripts over a checkout of one package of many files (the
 * real tree's dist/ is left alone: other tests run from it), with the
 * compiler of this install; the template step is off (no CLI in the copy).
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const REPO = fileURLToPath(new URL('../../../', import.meta.url))

/** Runs `file` with node in `cwd`; answers its exit code and both outputs. */
async function run (file: string, cwd: string): Promise<{ code: number | null, out: string }> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd, env: { ...process.env, CMS_PGLITE_TEMPLATES: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => { out += d.toString() })
    child.stderr.on('data', (d: Buffer) => { out += d.toString() })
    child.on('error', reject)
    child.on('close', (code) => { resolve({ code, out }) })
  })
}

t.test('two starts at once on a stale dist: one build, the other waits for it', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'cms-build-dist-lock-'))
  t.teardown(async () => { await rm(root, { recursive: true, force: true }) })
  await mkdir(join(root, 'scripts'))
  for (const f of ['build-dist.mjs', 'dist-state.mjs', 'dist-run.mjs']) await copyFile(join(REPO, 'scripts', f), join(root, 'scripts', f))
  // The compiler only: the lock lives under the copy's own node_modules/.cache.
  await mkdir(join(root, 'node_modules'))
  await symlink(join(REPO, 'node_modules', 'typescript'), join(root, 'node_modules', 'typescript'))
  await mkdir(join(root, 'apps'))
  const pkg = join(root, 'packages', 'many')
  await mkdir(join(pkg, 'src'), { recursive: true })
  await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: '@cms/many', type: 'module', exports: { '.': './src/index.ts' } }))
  // Enough files that a build takes a while: both starts find dist/ stale before either finishes.
  const N = 400
  for (let i = 0; i < N; i++) await writeFile(join(pkg, 'src', `m${i}.ts`), `export const v${i}: number = ${i}\nexport function f${i} (x: number): number { return x + v${i} }\n`)
  await writeFile(join(pkg, 'src', 'index.ts'), Array.from({ length: N }, (_, i) => `export { f${i} } from './m${i}.js'`).join('\n') + '\n')
  // A start: compile what is stale (dist-run.mjs), then load the compiled entry.
  await writeFile(join(root, 'scripts', 'start-many.mjs'), [
    "import { ensureBuilt } from './dist-run.mjs'",
    "const m = await import(ensureBuilt('packages/many/dist/index.js'))",
    "process.stdout.write('started: ' + String(m.f399(1)) + '\\n')"
  ].join('\n') + '\n')

  const [a, b] = await Promise.all([run('scripts/start-many.mjs', root), run('scripts/start-many.mjs', root)])
  t.same([a.code, b.code], [0, 0], `both starts ran\n${a.out}\n${b.out}`)
  t.match(a.out, /started: 400/)
  t.match(b.out, /started: 400/)
  const builds = `${a.out}\n${b.out}`.match(/build-dist: \d+ files of \d+ packages compiled/g) ?? []
  t.same(builds, [`build-dist: ${N + 1} files of 1 packages compiled`], 'one build compiled the package')
  t.notMatch(`${a.out}\n${b.out}`, /ENOENT/, 'no build lost a file to another')
  t.ok(existsSync(join(pkg, 'dist', '.stamp')), 'the stamp written')
  t.notOk(existsSync(join(root, 'node_modules', '.cache', 'cms', 'build-dist.lock')), 'the lock released')
  t.equal((await readFile(join(pkg, 'dist', 'm399.js'), 'utf8')).includes('export const v399 = 399'), true)

  // A second round on a fresh dist: nothing to wait for, nothing compiled.
  const again = await run('scripts/start-many.mjs', root)
  t.same([again.code, /compiled/.test(again.out)], [0, false], again.out)
})
