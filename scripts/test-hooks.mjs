/**
 * Module hooks of scripts/test-loader.mjs (they run on the loader's thread).
 *
 * resolve: TypeScript's import of `./x.js` names `./x.ts` when only that
 * exists; a workspace package's `src/` file is answered by its compiled
 * twin in `dist/` (scripts/build-dist.mjs keeps the same layout: `.ts` to
 * `.js`, other files copied), so every module of the workspace is loaded
 * once, compiled, whichever way it was named (`@cms/core`, `../src/x.js`).
 * load: any other `.ts` file (tests, their helpers, bench/) is transpiled on
 * its own (the workspace type-checks with isolatedModules and
 * verbatimModuleSyntax, so this is what tsc would emit), with an inline
 * source map so that stack traces and tap's diagnostics name the test's own
 * lines; the output is cached by content in the temporary directory, so the
 * compiler is loaded only when a test file changed.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = pathToFileURL(join(fileURLToPath(new URL('..', import.meta.url)), '/')).href
const WORKSPACE_SRC = /^(.*\/(?:packages|apps)\/[^/]+)\/src\/(.+)$/
const CACHE = join(tmpdir(), `cms-test-ts-${userInfo().uid}`)
// Part of every cache key: a change of these options (or of this file's way of compiling) must not reuse old output.
const OPTIONS = { target: 'ES2022', module: 'ESNext', verbatimModuleSyntax: true, inlineSourceMap: true, inlineSources: true }
const VERSION = createHash('sha256').update(JSON.stringify(OPTIONS)).update(readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 16)

export async function resolve (specifier, context, next) {
  let resolved
  try {
    resolved = await next(specifier, context)
  } catch (err) {
    const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:')
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !relative || !specifier.endsWith('.js')) throw err
    resolved = await next(`${specifier.slice(0, -3)}.ts`, context)
  }
  if (!resolved.url.startsWith(ROOT) || resolved.url.includes('/node_modules/')) return resolved
  const m = WORKSPACE_SRC.exec(resolved.url)
  if (m === null) return resolved
  const compiled = `${m[1]}/dist/${m[2].replace(/\.ts$/, '.js')}`
  if (!existsSync(fileURLToPath(compiled))) return resolved
  return { ...resolved, url: compiled, format: resolved.format ?? (compiled.endsWith('.js') || compiled.endsWith('.mjs') ? 'module' : undefined), shortCircuit: true }
}

let ts

export async function load (url, context, next) {
  if (!url.startsWith('file:') || !(url.endsWith('.ts') || url.endsWith('.mts'))) return next(url, context)
  const path = fileURLToPath(url)
  const source = readFileSync(path, 'utf8')
  const key = createHash('sha256').update(VERSION).update(path).update('\0').update(source).digest('hex')
  const cached = join(CACHE, `${key}.js`)
  let code
  try {
    code = readFileSync(cached, 'utf8')
  } catch {
    ts ??= (await import('typescript')).default
    const options = { ...OPTIONS, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext }
    code = ts.transpileModule(source, { fileName: path, compilerOptions: options }).outputText
    // Written aside and renamed: test files run side by side and may compile the same file at once.
    mkdirSync(CACHE, { recursive: true })
    const partial = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`
    writeFileSync(partial, code)
    renameSync(partial, cached)
  }
  return { format: 'module', source: code, shortCircuit: true }
}
