#!/usr/bin/env node
/**
 * Compiles every workspace package's src/ to dist/: what `pnpm start` and
 * the CLI run (scripts/start.mjs, scripts/cms.mjs) and the production image's
 * build stage. Tests and `pnpm dev` run the TypeScript through tsx instead.
 *
 *   node scripts/build-dist.mjs             compile the packages whose sources
 *                                           changed since their last build
 *                                           (dist/.stamp); --force: all of them
 *   node scripts/build-dist.mjs --exports   also point each package.json's
 *                                           exports (and cms.plugin) at dist/ (in the image's
 *                                           copy of the tree, never in a checkout)
 *
 * In a checkout each package.json's exports name src/*.ts (what tsx and the
 * type-check read), so the compiled files import other workspace packages by
 * a relative path to their dist/ (`@cms/store` becomes
 * `../../../packages/store/dist/index.js`) and plain Node runs them without a
 * loader. With --exports the names stay bare: the manifests point at dist/.
 *
 * Each file is transpiled on its own (the workspace type-checks with
 * isolatedModules, so a per-file transpile gives what tsc would): no type
 * check here, `tsc -p tsconfig.typecheck.json` does that. dist/ sits at the
 * depth of src/, so paths a module builds from import.meta.url
 * (`../migrations`, a worker `.mjs` beside it) hold there too; files that are
 * not TypeScript (.mjs workers, .json data) are copied as they are.
 *
 * One build runs at a time per checkout (a lock under node_modules/.cache/cms,
 * `lockBuild`): a second waits, then compiles what is still stale (nothing).
 *
 * Then, in a checkout, the embedded database's migrated template
 * (apps/cli/src/pglite-template.ts, in a child process) when something was
 * compiled or there is none: a new data directory is copied from it instead
 * of running initdb and every migration. CMS_PGLITE_TEMPLATES=off skips it.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { files, packageDirs, root, stalePackages, stampOf, stampPath, workspaceTargets } from './dist-state.mjs'

const rewrite = process.argv.includes('--exports')
const mode = rewrite ? 'exports' : 'checkout'

/** A lock whose holder's pid is unknown (not written yet) or whose age passed this is another's no longer. */
const LOCK_UNNAMED_MS = 10_000
const LOCK_MAX_MS = 30 * 60 * 1000

/** Whether the lock directory's holder still runs (its pid answers; a lock too old is taken over). */
function lockHeld (lock) {
  let since
  try { since = statSync(lock).mtimeMs } catch { return false }
  if (Date.now() - since > LOCK_MAX_MS) return false
  let pid
  try { pid = Number(readFileSync(join(lock, 'pid'), 'utf8')) } catch { return Date.now() - since < LOCK_UNNAMED_MS }
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

/**
 * One build at a time per checkout: two starters finding dist/ stale at once
 * (the docs test starts profiles A and B together; replicas of `pnpm start`)
 * both ran this script, and each removed the dist/ the other was writing
 * (ENOENT). The lock is a directory (made atomically) holding its holder's
 * pid under node_modules/.cache/cms; it goes when this process exits, and a
 * holder that is gone (its pid answers no more) or 30 minutes old is taken
 * over. A starter that waited finds the packages built and compiles nothing.
 */
function lockBuild () {
  const lock = join(root, 'node_modules', '.cache', 'cms', 'build-dist.lock')
  mkdirSync(dirname(lock), { recursive: true })
  const pause = new Int32Array(new SharedArrayBuffer(4))
  let told = false
  for (;;) {
    try {
      mkdirSync(lock)
      process.on('exit', () => { rmSync(lock, { recursive: true, force: true }) })
      writeFileSync(join(lock, 'pid'), String(process.pid))
      return
    } catch (err) {
      if (err.code !== 'EEXIST') throw err
    }
    if (!lockHeld(lock)) {
      rmSync(lock, { recursive: true, force: true })
      continue
    }
    if (!told) process.stdout.write('build-dist: waiting for the build another process runs\n')
    told = true
    Atomics.wait(pause, 0, 0, 100)
  }
}

lockBuild()

const force = process.argv.includes('--force') || rewrite
const todo = force ? packageDirs() : stalePackages(mode)

/** The migrated template of the embedded database, made or checked by the compiled CLI (it says when it made one). */
function pgliteTemplate () {
  if (rewrite || process.env.CMS_PGLITE_TEMPLATES?.trim() === 'off') return
  const made = spawnSync(process.execPath, [join(root, 'apps', 'cli', 'dist', 'pglite-template.js')], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CMS_PACKAGES_PATH: '' } })
  if (made.error !== undefined) process.stderr.write(`build-dist: no migrated template (${made.error.message})\n`)
}

if (todo.length === 0) {
  process.stdout.write('build-dist: every package is up to date\n')
  let templates = []
  try {
    templates = readdirSync(join(root, 'node_modules', '.cache', 'cms', 'pglite-templates'))
  } catch {}
  if (!templates.some((name) => !name.includes('.partial-'))) pgliteTemplate()
  process.exit(0)
}

let ts
try {
  ts = (await import('typescript')).default
} catch {
  // An install without development dependencies (`--prod`) has no compiler:
  // nothing to build with, and nothing that runs from the checkout either.
  process.stdout.write('build-dist: typescript is not installed, nothing compiled\n')
  process.exit(0)
}

const options = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  verbatimModuleSyntax: true,
  sourceMap: false
}

const targets = rewrite ? new Map() : workspaceTargets()
/**
 * Points the module specifiers of static imports, re-exports and literal
 * dynamic imports of a workspace package at its dist/ (a transformer on the
 * syntax tree: text that merely looks like an import, such as the CLI's
 * scaffold templates, is left as written).
 */
function relinker (target) {
  return (context) => {
    const f = context.factory
    const linked = (node) => {
      if (node === undefined || !ts.isStringLiteral(node)) return undefined
      const file = targets.get(node.text)
      if (file === undefined) return undefined
      let rel = relative(dirname(target), file)
      if (!rel.startsWith('.')) rel = `./${rel}`
      return f.createStringLiteral(rel)
    }
    const visit = (node) => {
      if (ts.isImportDeclaration(node)) {
        const spec = linked(node.moduleSpecifier)
        if (spec !== undefined) return f.updateImportDeclaration(node, node.modifiers, node.importClause, spec, node.attributes)
      } else if (ts.isExportDeclaration(node)) {
        const spec = linked(node.moduleSpecifier)
        if (spec !== undefined) return f.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, spec, node.attributes)
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const spec = linked(node.arguments[0])
        if (spec !== undefined) return f.updateCallExpression(node, node.expression, node.typeArguments, [spec, ...node.arguments.slice(1)])
      }
      return ts.visitEachChild(node, visit, context)
    }
    return (sourceFile) => ts.visitNode(sourceFile, visit)
  }
}

let compiled = 0
for (const dir of todo) {
  const src = join(dir, 'src')
  const dist = join(dir, 'dist')
  rmSync(dist, { recursive: true, force: true })
  for (const file of files(src)) {
    const rel = relative(src, file)
    if (rel.endsWith('.d.ts')) continue
    const target = join(dist, rel.endsWith('.ts') ? `${rel.slice(0, -3)}.js` : rel)
    mkdirSync(dirname(target), { recursive: true })
    if (!rel.endsWith('.ts')) {
      copyFileSync(file, target)
      continue
    }
    const transformers = targets.size === 0 ? undefined : { after: [relinker(target)] }
    const out = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file, reportDiagnostics: true, transformers })
    if (out.diagnostics?.length) {
      process.stderr.write(ts.formatDiagnostics(out.diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }))
      process.exit(1)
    }
    writeFileSync(target, out.outputText)
    compiled++
  }
  if (rewrite) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    const toDist = (value) => typeof value === 'string' ? value.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '.js') : value
    if (manifest.exports !== undefined) {
      manifest.exports = typeof manifest.exports === 'string'
        ? toDist(manifest.exports)
        : Object.fromEntries(Object.entries(manifest.exports).map(([k, v]) => [k, toDist(v)]))
    }
    if (manifest.main !== undefined) manifest.main = toDist(manifest.main)
    // The module the gateway imports to find a package (apps/gateway/src/discover.ts).
    if (manifest.cms?.plugin !== undefined) manifest.cms.plugin = toDist(manifest.cms.plugin)
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  }
  // Last, so an interrupted build is redone.
  writeFileSync(stampPath(dir), stampOf(dir, mode))
}
process.stdout.write(`build-dist: ${compiled} files of ${todo.length} packages compiled${rewrite ? ', exports point at dist/' : ''}\n`)
pgliteTemplate()
