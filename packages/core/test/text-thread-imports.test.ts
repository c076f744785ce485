/**
 * The text pool's threads load none of the kernel (issue 27): each thread
 * imports text-worker.mjs, which loads text-tasks and moved-strings; what
 * those import of `@cms/rest` must be its own entries that import nothing
 * of the kernel (`@cms/rest/moved-strings`, `@cms/rest/json-scan`), never
 * `@cms/rest` itself (Fastify, TypeBox, every route helper, in every thread).
 * Read from the sources' import statements (type-only imports are erased).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const restManifest = JSON.parse(readFileSync(join(root, 'rest/package.json'), 'utf8')) as { exports: Record<string, string> }

/** The files a source imports at run time: relative ones and `@cms/rest` entries (other packages are named, not followed). */
function importsOf (file: string): { files: string[], packages: string[] } {
  const text = readFileSync(file, 'utf8')
  const files: string[] = []
  const packages: string[] = []
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
    const spec = m[1]!
    if (spec.startsWith('.')) files.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
    else if (spec.startsWith('@cms/rest')) {
      const entry = restManifest.exports[spec === '@cms/rest' ? '.' : `./${spec.slice('@cms/rest/'.length)}`]
      packages.push(spec)
      if (entry !== undefined) files.push(join(root, 'rest', entry))
    } else packages.push(spec)
  }
  return { files, packages }
}

t.test('a thread of the text pool imports no module of the kernel', async (t) => {
  const text = join(root, 'core/src/text')
  const todo = [join(text, 'text-tasks.ts'), join(text, 'moved-strings.ts')]
  const seen = new Set<string>()
  const packages = new Set<string>()
  while (todo.length > 0) {
    const file = todo.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const found = importsOf(file)
    for (const p of found.packages) packages.add(p)
    todo.push(...found.files)
  }
  const rest = [...seen].filter((f) => f.startsWith(join(root, 'rest'))).map((f) => relative(root, f)).sort()
  t.same(rest, ['rest/src/errors.ts', 'rest/src/json-scan.ts', 'rest/src/moved-strings.ts'], 'of the kernel, only its leaf entries')
  t.notOk(packages.has('@cms/rest'), 'never the kernel itself')
  t.ok([...seen].every((f) => f.startsWith(text) || f.startsWith(join(root, 'rest/src'))), 'and nothing of the core outside its text modules')
  t.ok(seen.size > 5, `the import closure was walked (${seen.size} files)`)
})
