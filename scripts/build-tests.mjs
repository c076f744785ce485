#!/usr/bin/env node
/**
 * Compiles the workspace's test trees (each package's test/ folder: the test
 * files, their helpers and fixtures) to plain JavaScript, so that the test
 * command runs a test file with no module hooks at all
 * (scripts/test-run.mjs). Node 20 runs `module.register` hooks on a thread
 * of their own, and every import of a process crosses to it and back
 * (resolve, then load): a test process that loads tap and
 * `@cms/core/testing` spent 2.9 s of CPU through the loader
 * (scripts/test-loader.mjs) against 1.9 s as plain JavaScript.
 *
 *   node scripts/build-tests.mjs     compile what changed since the last run
 *
 * `<package>/test/x.test.ts` becomes `<package>/node_modules/.cms-test/test/x.test.mjs`
 * (inside node_modules: ignored by git and every check, and bare imports
 * such as `tap` resolve from there as from test/). Each file is transpiled on
 * its own, as test-hooks.mjs does, and its module specifiers point where the
 * loader would have gone: a workspace package's `src/` module (`@cms/core`,
 * `../src/x.js`) to its compiled twin in `dist/` (scripts/build-dist.mjs), a
 * test tree's TypeScript to its compiled twin, anything else (JSON, .mjs) to
 * the file itself. `import.meta.url` (and `dirname`, `filename`) name the
 * original `.ts` file, so the paths a test builds from it (fixtures, the
 * CLI's main) are the ones it builds when run through the loader or tsx, and
 * an inline source map gives the original's lines to stack traces and tap's
 * diagnostics (`--enable-source-maps`).
 *
 * A test whose imports reach TypeScript that has no compiled form (bench/src,
 * scripts/*.ts) is left to the loader. The manifest
 * (node_modules/.cms-test/manifest.json at the root) says, per test file,
 * what to run. A file is transpiled again when its content or its package's
 * set of files changes, or when this script does.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { files, packageDirs, root, workspaceTargets } from './dist-state.mjs'

const MANIFEST = join(root, 'node_modules', '.cms-test', 'manifest.json')
const outDirOf = (dir) => join(dir, 'node_modules', '.cms-test')

const workspace = new Set(packageDirs())
const dirs = [...workspace].filter((dir) => existsSync(join(dir, 'test')))
const sources = dirs.flatMap((dir) => [...files(join(dir, 'test'))]).filter((f) => /\.m?ts$/.test(f) && !f.endsWith('.d.ts'))
const known = new Set(sources)
const targets = workspaceTargets()
// Part of every file's key: this script, and what bare workspace names resolve to.
const ENV = createHash('sha256').update(readFileSync(new URL(import.meta.url))).update(JSON.stringify([...targets])).digest('hex')

let previous = {}
try {
  const old = JSON.parse(readFileSync(MANIFEST, 'utf8'))
  if (old.env === ENV) previous = old.files
} catch {}

/** The package folder (packages/x, apps/x) holding `file`, if any. */
function packageOf (file) {
  return dirs.find((dir) => file.startsWith(dir + sep))
}

function outOf (file) {
  const dir = packageOf(file)
  return join(outDirOf(dir), relative(dir, file).replace(/\.m?ts$/, '.mjs'))
}

/**
 * Where a module specifier of `file` leads once compiled: { to } a path, or
 * { bare } for a package name resolved as written, or { ts } for
 * TypeScript nothing compiles (the loader must run the test).
 */
function target (file, spec) {
  // tap's `t` through the package's shim (TAP_SHIM, below): the root test, or the current file's in a batch.
  if (spec === 'tap') return { to: join(outDirOf(packageOf(file)), 'tap.mjs') }
  if (!spec.startsWith('.') && !spec.startsWith('/')) {
    const compiled = targets.get(spec)
    return compiled === undefined ? { bare: true } : { to: compiled }
  }
  const abs = resolve(dirname(file), spec)
  // As the loader resolves: the file as named if it exists, else its TypeScript twin.
  const named = existsSync(abs) ? abs : /\.m?js$/.test(abs) ? abs.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts') : abs
  if (known.has(named)) return { to: outOf(named), test: named }
  // A workspace package's src/ file: its compiled (or copied) twin in dist/.
  const m = /^(.*)[/\\]src[/\\](.+)$/.exec(named)
  if (m !== null && workspace.has(m[1]) && existsSync(named)) return { to: join(m[1], 'dist', m[2].replace(/\.ts$/, '.js')) }
  if (existsSync(named) && !/\.m?ts$/.test(named)) return { to: named }
  return { ts: abs }
}

/** The TypeScript compiler; without it (an install without development dependencies) no test runs compiled. */
async function compiler () {
  try {
    return (await import('typescript')).default
  } catch {
    rmSync(MANIFEST, { force: true })
    process.stdout.write('build-tests: typescript is not installed, nothing compiled\n')
    process.exit(0)
  }
}

/**
 * The `tap` a compiled test tree imports (`<package>/node_modules/.cms-test/tap.mjs`): tap's root test as
 * `import t from 'tap'` gives it, except while scripts/test-batch.mjs runs several files in one process,
 * where it is the subtest standing for the file being run (an ESM live binding: a file reads `t` each
 * time it uses it, so its top-level tests, hooks and teardowns belong to its own subtest).
 */
const TAP_SHIM = `// Written by scripts/build-tests.mjs: see its TAP_SHIM.
import root from 'tap'
let t = root
export { t as default }
/** Sets the test a compiled file's \`t\` stands for (scripts/test-batch.mjs); none: the root. */
export function setCurrentTest (test) { t = test ?? root }
`
for (const dir of dirs) {
  const shim = join(outDirOf(dir), 'tap.mjs')
  let old = ''
  try { old = readFileSync(shim, 'utf8') } catch {}
  if (old !== TAP_SHIM) {
    mkdirSync(dirname(shim), { recursive: true })
    writeFileSync(`${shim}.${process.pid}`, TAP_SHIM)
    renameSync(`${shim}.${process.pid}`, shim)
  }
}

let ts
const manifest = { env: ENV, files: {} }
let compiled = 0
for (const file of sources) {
  const source = readFileSync(file, 'utf8')
  const hash = createHash('sha256').update(source).digest('hex')
  const out = outOf(file)
  const old = previous[file]
  // Reused while its content is the same and each of its specifiers still leads where it led (a file added or removed).
  if (old !== undefined && old.hash === hash && existsSync(out) && old.specs.every(([spec, where]) => JSON.stringify(target(file, spec)) === where)) {
    manifest.files[file] = old
    continue
  }
  ts ??= await compiler()
  const edges = []
  const missing = []
  const specs = []
  const link = (node, f) => {
    if (node === undefined || !ts.isStringLiteral(node)) return undefined
    const where = target(file, node.text)
    specs.push([node.text, JSON.stringify(where)])
    if (where.bare) return undefined
    if (where.ts !== undefined) { missing.push(relative(root, where.ts)); return undefined }
    if (where.test !== undefined) edges.push(where.test)
    let rel = relative(dirname(out), where.to)
    if (!rel.startsWith('.')) rel = `./${rel}`
    return f.createStringLiteral(rel.split(sep).join('/'))
  }
  // After the compiler dropped type-only imports: what is left is what runs.
  const relink = (context) => {
    const f = context.factory
    const visit = (node) => {
      if (ts.isImportDeclaration(node)) {
        const spec = link(node.moduleSpecifier, f)
        if (spec !== undefined) return f.updateImportDeclaration(node, node.modifiers, node.importClause, spec, node.attributes)
      } else if (ts.isExportDeclaration(node)) {
        const spec = link(node.moduleSpecifier, f)
        if (spec !== undefined) return f.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, spec, node.attributes)
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const spec = link(node.arguments[0], f)
        if (spec !== undefined) return f.updateCallExpression(node, node.expression, node.typeArguments, [spec, ...node.arguments.slice(1)])
      }
      return ts.visitEachChild(node, visit, context)
    }
    return (sourceFile) => ts.visitNode(sourceFile, visit)
  }
  // import.meta.url and its kin name the original file.
  const url = pathToFileURL(file).href
  const meta = { url, filename: file, dirname: dirname(file) }
  const original = (context) => {
    const f = context.factory
    const visit = (node) => {
      if (ts.isPropertyAccessExpression(node) && ts.isMetaProperty(node.expression) && node.expression.keywordToken === ts.SyntaxKind.ImportKeyword) {
        if (node.name.text === 'resolve') missing.push('import.meta.resolve')
        const value = meta[node.name.text]
        if (value !== undefined) return f.createStringLiteral(value)
      }
      return ts.visitEachChild(node, visit, context)
    }
    return (sourceFile) => ts.visitNode(sourceFile, visit)
  }
  const result = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true, inlineSourceMap: true, inlineSources: true },
    transformers: { before: [original], after: [relink] }
  })
  // The source map names the original by its URL (the output lives elsewhere).
  const code = result.outputText.replace(/\/\/# sourceMappingURL=data:application\/json;base64,(\S+)\s*$/, (_, b64) => {
    const map = JSON.parse(Buffer.from(b64, 'base64').toString('utf8'))
    map.sources = [url]
    delete map.sourceRoot
    return `//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`
  })
  mkdirSync(dirname(out), { recursive: true })
  const partial = `${out}.${process.pid}`
  writeFileSync(partial, code)
  renameSync(partial, out)
  manifest.files[file] = { hash, out, edges, missing, specs }
  compiled++
}

// A test runs compiled when nothing it imports (transitively) lacks a compiled form.
function loaderReason (file) {
  const seen = new Set([file])
  const todo = [file]
  while (todo.length > 0) {
    const entry = manifest.files[todo.pop()]
    if (entry.missing.length > 0) return entry.missing[0]
    for (const next of entry.edges) if (!seen.has(next)) { seen.add(next); todo.push(next) }
  }
  return null
}
for (const file of sources) manifest.files[file].loader = loaderReason(file)

mkdirSync(dirname(MANIFEST), { recursive: true })
writeFileSync(`${MANIFEST}.${process.pid}`, JSON.stringify(manifest, null, 1))
renameSync(`${MANIFEST}.${process.pid}`, MANIFEST)
const left = sources.filter((f) => manifest.files[f].loader !== null && /\.test\.m?ts$/.test(f))
process.stdout.write(`build-tests: ${compiled} of ${sources.length} test-tree files compiled${left.length > 0 ? `; through the loader: ${left.map((f) => `${relative(root, f)} (${manifest.files[f].loader})`).join(', ')}` : ''}\n`)
