/**
 * Settings of installable plugin and theme packages (read by the package
 * registry, `@cms/registry`), checked at start like every setting:
 *
 *   CMS_PACKAGE_SOURCE       a directory, or an http(s) base URL, laid out as
 *                            plugins/<slug>.<version>.zip and themes/<slug>.<version>.zip
 *                            with an index.json listing the versions (unset: none)
 *   CMS_PACKAGE_MAX_BYTES    the most bytes a package may unpack to (default 256 MiB)
 *   CMS_PACKAGE_MAX_ENTRIES  the most entries a package zip may hold (default 20000)
 */
import { isAbsolute, resolve } from 'node:path'
import { SettingError } from '@cms/store'

export interface PackageSettings {
  /** An absolute directory or an http(s) base URL ending in `/`; undefined when none is set. */
  source?: { kind: 'dir', path: string } | { kind: 'url', url: string }
  maxBytes: number
  maxEntries: number
}

export const PACKAGE_DEFAULTS = { maxBytes: 256 * 1024 * 1024, maxEntries: 20_000 } as const

function integer (env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const given = env[name]
  if (given === undefined || given === '') return fallback
  const value = /^\d{1,12}$/.test(given.trim()) ? Number(given.trim()) : NaN
  if (!(value >= min && value <= max)) throw new SettingError(name, given, `an integer from ${min} to ${max}`)
  return value
}

/** The package settings of `env`; a relative source directory is taken from `baseDir`. */
export function packageSettingsFromEnv (env: Record<string, string | undefined>, baseDir: string = process.cwd()): PackageSettings {
  const out: PackageSettings = {
    maxBytes: integer(env, 'CMS_PACKAGE_MAX_BYTES', PACKAGE_DEFAULTS.maxBytes, 1024, 64 * 1024 * 1024 * 1024),
    maxEntries: integer(env, 'CMS_PACKAGE_MAX_ENTRIES', PACKAGE_DEFAULTS.maxEntries, 1, 10_000_000)
  }
  const source = (env.CMS_PACKAGE_SOURCE ?? '').trim()
  if (source === '') return out
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    let url: URL
    try { url = new URL(source) } catch { throw new SettingError('CMS_PACKAGE_SOURCE', source, 'a directory or an absolute http(s) base URL') }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingError('CMS_PACKAGE_SOURCE', source, 'a directory or an http(s) base URL')
    if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
      throw new SettingError('CMS_PACKAGE_SOURCE', url.origin, 'a base URL without credentials, query or fragment')
    }
    out.source = { kind: 'url', url: url.href.endsWith('/') ? url.href : `${url.href}/` }
  } else {
    out.source = { kind: 'dir', path: isAbsolute(source) ? source : resolve(baseDir, source) }
  }
  return out
}
