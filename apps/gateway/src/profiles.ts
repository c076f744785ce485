/**
 * Deployment profiles are data: one JSON file per profile (its name is the
 * file's, `A.json` is profile A) listing the namespaces it exposes, in the
 * order the index lists them, and per-namespace options handed to the
 * namespace factory. The built-in ones are in apps/gateway/profiles/; a
 * deployment adds its own (or replaces one) with `CMS_PROFILES`, a directory
 * of such files or one file.
 *
 *   { "namespaces": ["cms/v2", "notes/v1"], "options": { "notes/v1": { "limit": 10 } } }
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface Profile {
  name: string
  namespaces: readonly string[]
  /** Per-namespace options handed to the namespace factory. */
  options?: Record<string, Record<string, unknown>>
}

/** The folder of the built-in profiles (beside src/, so dist/ finds it too). */
export const builtInProfiles = fileURLToPath(new URL('../profiles', import.meta.url))

const NAMESPACE = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)+$/

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The first problem of a profile file's content, as `<path> <message>`, or
 * undefined. Checked by hand, not with a TypeBox schema: the CLI reads the
 * profiles on every `cms status`, and TypeBox's modules were a third of
 * that call's CPU.
 */
function problemOf (data: unknown): string | undefined {
  if (!isRecord(data)) return '(root) Expected object'
  const stray = Object.keys(data).find((key) => key !== 'namespaces' && key !== 'options')
  if (stray !== undefined) return `/${stray} Unexpected property`
  const namespaces = data.namespaces
  if (!Array.isArray(namespaces)) return '/namespaces Expected array'
  if (namespaces.length === 0) return '/namespaces Expected array length to be greater or equal to 1'
  for (const [i, ns] of namespaces.entries()) {
    if (typeof ns !== 'string') return `/namespaces/${i} Expected string`
    if (!NAMESPACE.test(ns)) return `/namespaces/${i} Expected string to match '${NAMESPACE.source}'`
  }
  if (new Set(namespaces).size !== namespaces.length) return '/namespaces Expected array elements to be unique'
  if (data.options === undefined) return undefined
  if (!isRecord(data.options)) return '/options Expected object'
  const notObject = Object.keys(data.options).find((ns) => !isRecord((data.options as Record<string, unknown>)[ns]))
  return notObject === undefined ? undefined : `/options/${notObject} Expected object`
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/

/** One profile file, checked: a wrong file stops the start with its path and the first problem. */
export function readProfile (file: string): Profile {
  const name = basename(file, extname(file))
  if (!NAME.test(name)) throw new Error(`profile file ${file}: its name must be letters, digits, - or _ (it names the profile)`)
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`profile file ${file}: ${(err as Error).message}`)
  }
  const problem = problemOf(data)
  if (problem !== undefined) throw new Error(`profile file ${file}: ${problem}`)
  const { namespaces, options } = data as { namespaces: string[], options?: Record<string, Record<string, unknown>> }
  const stray = Object.keys(options ?? {}).filter((ns) => !namespaces.includes(ns))
  if (stray.length > 0) throw new Error(`profile file ${file}: options for namespaces it does not list: ${stray.join(', ')}`)
  return options === undefined ? { name, namespaces } : { name, namespaces, options }
}

/** The profile files of a directory (`*.json`), or the one file given. */
function filesOf (path: string): string[] {
  if (!existsSync(path)) throw new Error(`CMS_PROFILES: ${path} does not exist`)
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path).filter((f) => f.endsWith('.json')).sort().map((f) => join(path, f))
}

/** The built-in profiles, then those under `extra` (a directory or a file; one of the same name replaces a built-in one). */
export function loadProfiles (extra?: string): Record<string, Profile> {
  // No prototype: CMS_DEPLOYMENT=constructor is no profile.
  const out: Record<string, Profile> = Object.create(null)
  for (const file of [...filesOf(builtInProfiles), ...(extra === undefined ? [] : filesOf(extra))]) {
    const profile = readProfile(file)
    out[profile.name] = profile
  }
  return out
}

/** The file that defines profile `name` (the deployment's before the built-in one), if any. */
export function profileFile (name: string, extra?: string): string | undefined {
  const files = [...(extra === undefined ? [] : filesOf(extra)), ...filesOf(builtInProfiles)]
  return files.find((f) => basename(f, extname(f)) === name)
}

/** The built-in profiles. */
export const profiles: Record<string, Profile> = loadProfiles()

/** The profile's namespaces, narrowed to `only` when a namespace service runs a subset. */
export function namespacesOf (profile: Profile, only?: readonly string[]): string[] {
  if (only === undefined || only.length === 0) return [...profile.namespaces]
  const unknown = only.filter((ns) => !profile.namespaces.includes(ns))
  if (unknown.length > 0) {
    throw new Error(`CMS_NAMESPACES names namespaces profile ${profile.name} does not expose: ${unknown.join(', ')}`)
  }
  return profile.namespaces.filter((ns) => only.includes(ns))
}
