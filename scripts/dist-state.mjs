/**
 * Whether the compiled tree (each workspace package's dist/) matches its
 * sources, without loading the TypeScript compiler: the start commands ask
 * this on every start and run scripts/build-dist.mjs only when it says no.
 *
 * A package's stamp (dist/.stamp) is a hash of every source file's path,
 * size and modification time, of the package's manifest and of the build
 * script itself; stat-ing a few hundred files takes a few milliseconds.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BUILD_SCRIPTS = ['build-dist.mjs', 'dist-state.mjs'].map((f) => join(root, 'scripts', f))

/** Workspace package directories with sources: packages/* and apps/*. */
export function packageDirs () {
  const out = []
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name)
      if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src'))) out.push(dir)
    }
  }
  return out
}

export function * files (dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield * files(path)
    else yield path
  }
}

/** The stamp the package's dist/ must carry to be current (`mode` tells the two kinds of build apart). */
export function stampOf (dir, mode) {
  const hash = createHash('sha256').update(mode)
  for (const file of [...BUILD_SCRIPTS, join(dir, 'package.json'), ...files(join(dir, 'src'))]) {
    const s = statSync(file)
    hash.update(`${relative(root, file)}\0${s.size}\0${s.mtimeMs}\n`)
  }
  return hash.digest('hex')
}

export function stampPath (dir) {
  return join(dir, 'dist', '.stamp')
}

/** Packages whose dist/ is missing or older than their sources. */
export function stalePackages (mode = 'checkout') {
  return packageDirs().filter((dir) => {
    try {
      return readFileSync(stampPath(dir), 'utf8') !== stampOf(dir, mode)
    } catch {
      return true
    }
  })
}

/** Each workspace package's name and the files its exports name, compiled: '@cms/core/testing' -> abs path. */
export function workspaceTargets () {
  const out = new Map()
  for (const dir of packageDirs()) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    const exports = typeof manifest.exports === 'string' ? { '.': manifest.exports } : (manifest.exports ?? {})
    for (const [key, value] of Object.entries(exports)) {
      if (typeof value !== 'string' || !value.startsWith('./src/')) continue
      const name = key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`
      out.set(name, join(dir, 'dist', value.slice('./src/'.length).replace(/\.ts$/, '.js')))
    }
  }
  return out
}
