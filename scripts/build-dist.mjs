#!/usr/bin/env node
/**
 * Compiles every workspace package's src/ to dist/ (the production image's
 * build stage; nothing here is needed to develop or test, which run the
 * TypeScript through tsx).
 *
 *   node scripts/build-dist.mjs             compile to dist/
 *   node scripts/build-dist.mjs --exports   also point each package.json's
 *                                           exports (and cms.plugin) at dist/ (in the image's
 *                                           copy of the tree, never in a checkout)
 *
 * Each file is transpiled on its own (the workspace type-checks with
 * isolatedModules, so a per-file transpile gives what tsc would): no type
 * check here, `tsc -p tsconfig.typecheck.json` does that. dist/ sits at the
 * depth of src/, so paths a module builds from import.meta.url
 * (`../migrations`, a worker `.mjs` beside it) hold there too; files that are
 * not TypeScript (.mjs workers, .json data) are copied as they are.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rewrite = process.argv.includes('--exports')

/** Workspace package directories: packages/* and apps/*. */
function packageDirs () {
  const out = []
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name)
      if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src'))) out.push(dir)
    }
  }
  return out
}

function * files (dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield * files(path)
    else yield path
  }
}

const options = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  verbatimModuleSyntax: true,
  sourceMap: false
}

let compiled = 0
for (const dir of packageDirs()) {
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
    const out = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file, reportDiagnostics: true })
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
}
process.stdout.write(`build-dist: ${compiled} files compiled${rewrite ? ', exports point at dist/' : ''}\n`)
