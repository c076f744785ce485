/**
 * Finds the installed packages: a package says what it is in its own
 * package.json, so adding one edits nothing here.
 *
 *   "cms": { "plugin": "./src/index.ts", "namespaces": ["notes/v1"] }
 *
 * `plugin` is the module exporting the package (the `definePackage` value
 * whose name is the package.json's), `namespaces` those it serves (checked
 * against the plugin's own list, so the two cannot drift apart). Packages are
 * looked for in two places, so a checkout and the production image find the
 * same ones: the workspace's `packages/*` (a folder added there is found
 * without touching any list), and the gateway's own dependencies (the image,
 * made by `pnpm deploy`, has no workspace, only node_modules). A deployment
 * adds folders of its own with `CMS_PACKAGES_PATH` (withPackagesUnder).
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { CmsPackage } from '@cms/core'
import { baseDirOf } from '@cms/store'

/** The `cms` field of a package's package.json. */
export interface CmsManifest {
  /** The module exporting the package, relative to its folder. */
  plugin: string
  /** The namespaces it serves (may be empty: a package other packages depend on). */
  namespaces: string[]
}

export interface FoundPackage {
  name: string
  /** Its folder (symbolic links resolved). */
  dir: string
  cms: CmsManifest
}

const gatewayDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')

function readManifest (dir: string): { name?: unknown, cms?: unknown, dependencies?: Record<string, string> } | undefined {
  const file = join(dir, 'package.json')
  if (!existsSync(file)) return undefined
  return JSON.parse(readFileSync(file, 'utf8'))
}

function cmsOf (name: string, raw: unknown): CmsManifest {
  const cms = raw as { plugin?: unknown, namespaces?: unknown }
  if (typeof cms.plugin !== 'string' || !Array.isArray(cms.namespaces) || !cms.namespaces.every((ns) => typeof ns === 'string')) {
    throw new Error(`${name}: the "cms" field of its package.json needs "plugin" (a module path) and "namespaces" (a list of strings)`)
  }
  return { plugin: cms.plugin, namespaces: cms.namespaces }
}

/** The workspace root above the gateway (the folder with pnpm-workspace.yaml), if there is one. */
function workspaceRoot (): string | undefined {
  let dir = gatewayDir
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir
    const up = dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

/** The sub-folders of `parents` (dot folders left out), each parent's in name order. */
export function foldersUnder (parents: readonly string[]): string[] {
  const out: string[] = []
  for (const parent of parents) {
    if (!existsSync(parent)) throw new Error(`${parent}: no such directory of packages`)
    for (const entry of readdirSync(parent, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) out.push(join(parent, entry.name))
    }
  }
  return out
}

/** Folders of packages: every `packages/*` of the workspace, then the gateway's dependencies. */
function candidateDirs (): string[] {
  const root = workspaceRoot()
  const out = root === undefined || !existsSync(join(root, 'packages')) ? [] : foldersUnder([join(root, 'packages')])
  for (const dep of Object.keys(readManifest(gatewayDir)?.dependencies ?? {}).sort()) {
    const dir = nodeModulesDir(dep)
    if (dir !== undefined) out.push(dir)
  }
  return out
}

/** Where Node would find `name` from the gateway: the nearest node_modules/<name> above it. */
function nodeModulesDir (name: string): string | undefined {
  let dir = realpathSync(gatewayDir)
  for (;;) {
    const candidate = join(dir, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return candidate
    const up = dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

/** The packages with a `cms` field, each once (by name; the workspace's copy first). */
export function findPackages (dirs: readonly string[] = candidateDirs()): FoundPackage[] {
  const found = new Map<string, FoundPackage>()
  for (const given of dirs) {
    const dir = realpathSync(given)
    const manifest = readManifest(dir)
    if (manifest?.cms === undefined || typeof manifest.name !== 'string' || found.has(manifest.name)) continue
    found.set(manifest.name, { name: manifest.name, dir, cms: cmsOf(manifest.name, manifest.cms) })
  }
  return [...found.values()]
}

function isPackage (value: unknown): value is CmsPackage {
  const p = value as Partial<CmsPackage> | null
  return typeof p === 'object' && p !== null && typeof p.name === 'string' && typeof p.plugin === 'function' && Array.isArray(p.namespaces)
}

/**
 * The plugin module to import: as the manifest names it, or, when the
 * gateway itself runs compiled (scripts/start.mjs, the image), its compiled
 * twin under dist/ (plain Node cannot import TypeScript) when there is one:
 * a package not built yet is imported as written, which a TypeScript loader
 * (tsx, the test loader) can serve, rather than failing on a missing file.
 */
export function pluginPath (found: FoundPackage, compiled = import.meta.url.endsWith('.js')): string {
  const plugin = found.cms.plugin
  if (!compiled || !/^\.\/src\/.*\.ts$/.test(plugin)) return join(found.dir, plugin)
  const twin = join(found.dir, plugin.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '.js'))
  return existsSync(twin) ? twin : join(found.dir, plugin)
}

/** Imports one found package's plugin module and picks the package it exports. */
export async function loadPackage (found: FoundPackage): Promise<CmsPackage> {
  const module = await import(pathToFileURL(pluginPath(found)).href) as Record<string, unknown>
  const pkg = Object.values(module).find((value) => isPackage(value) && value.name === found.name) as CmsPackage | undefined
  if (pkg === undefined) throw new Error(`${found.name}: ${found.cms.plugin} exports no package named ${found.name} (definePackage({ name: '${found.name}', ... }))`)
  const declared = [...found.cms.namespaces].sort().join(', ')
  const served = [...pkg.namespaces].sort().join(', ')
  if (declared !== served) throw new Error(`${found.name}: its package.json's cms.namespaces (${declared}) differ from its plugin's (${served})`)
  return pkg
}

/** The deployment's own package directories (`CMS_PACKAGES_PATH`, comma-separated, relative to the base directory), absolute. */
export function packagesPathOf (env: NodeJS.ProcessEnv): string[] {
  return (env.CMS_PACKAGES_PATH ?? '').split(',').map((d) => d.trim()).filter((d) => d !== '').map((d) => resolve(baseDirOf(env), d))
}

/**
 * What every installed package and those under `parents` (`CMS_PACKAGES_PATH`)
 * say of themselves in their manifests, without importing any code: for
 * readers that need names and namespaces only (`cms status`).
 */
export function packageManifests (parents: readonly string[] = []): FoundPackage[] {
  const installed = findPackages()
  const more = parents.length === 0 ? [] : findPackages(foldersUnder(parents)).filter((p) => !installed.some((q) => q.name === p.name))
  return [...installed, ...more]
}

/** Every installed package, loaded (or those of the package folders `dirs`). */
export async function discoverPackages (dirs?: readonly string[]): Promise<CmsPackage[]> {
  return await Promise.all(findPackages(dirs).map(loadPackage))
}

/**
 * The packages under the deployment's own directories (`CMS_PACKAGES_PATH`),
 * added to the installed ones; a name installed twice stops the start.
 */
export async function withPackagesUnder (installed: readonly CmsPackage[], parents: readonly string[]): Promise<CmsPackage[]> {
  if (parents.length === 0) return [...installed]
  const more = await discoverPackages(foldersUnder(parents))
  const twice = more.filter((p) => installed.some((q) => q.name === p.name)).map((p) => p.name)
  if (twice.length > 0) throw new Error(`CMS_PACKAGES_PATH: ${twice.join(', ')} installed already`)
  return [...installed, ...more]
}
