/**
 * The package registry's API: what other packages (builder-one's plugin
 * routes, hdrftr's install status, rollback, the themes) call. A package that
 * uses it depends on `@cms/registry` and asks for it while it registers:
 *
 *   const registry = api.require(packageRegistry)
 *   const seo = await registry.get('plugin', 'seo')
 *
 * Installed plugins and themes are directories under the content directory
 * (`plugins/<slug>/`, `themes/<slug>/`) holding a `manifest.json`; the store
 * records each one's status (one theme is active), the operations log and
 * the per-package locks. Errors are RestErrors of `registryErrors`
 * (errors.ts): a caller that words them its own way matches `err.code`.
 */
import { serviceKey } from '@cms/core'

export type PackageType = 'plugin' | 'theme'
export type PackageStatus = 'active' | 'inactive'
export type Operation = 'install' | 'activate' | 'deactivate' | 'upgrade' | 'delete' | 'rollback'

/** `manifest.json` of a package: `name` and `version` at least. */
export interface PackageManifest {
  name: string
  version: string
  /** When given, the slug the package must be installed under. */
  slug?: string
  /** What the package needs (`{"cms": "0.1"}`, other slugs), kept as written. */
  requires?: Record<string, string>
  [key: string]: unknown
}

export interface InstalledPackage {
  type: PackageType
  slug: string
  name: string
  version: string
  /** For themes: `active` for the one active theme. */
  status: PackageStatus
  /** The newest version the package source offers above `version`; null when none, or no source is set or reachable. */
  newVersion: string | null
  manifest: PackageManifest
  /** The package's directory (absolute). */
  dir: string
}

/** Who acts: a user id, 0 for the command line and the site itself. */
export interface Actor { userId: number }

export interface OperationEntry {
  id: number
  /** ISO 8601, UTC. */
  time: string
  userId: number
  operation: Operation
  type: PackageType
  slug: string
  fromVersion: string | null
  toVersion: string | null
  outcome: 'success' | 'failure'
  /** What happened, in words (the error's message on failure). */
  message: string
}

/** One version the package source offers. */
export interface SourceVersion {
  version: string
  /** Its path under the source: `plugins/<slug>.<version>.zip`. */
  file: string
  /** Where it can be downloaded: its address under an http source (a setting without credentials); null for a directory source. */
  url: string | null
}

export interface PackageSource {
  /** Whether `CMS_PACKAGE_SOURCE` is set. */
  configured: () => boolean
  /**
   * The versions the source offers for a package, oldest first (empty when it
   * offers none). Unset source: `503 rest_upstream_unconfigured` naming
   * `CMS_PACKAGE_SOURCE`; an http source that fails: `502 rest_upstream_error`.
   */
  versions: (type: PackageType, slug: string) => Promise<SourceVersion[]>
  /**
   * Copies `<type>s/<slug>.<version>.zip` from the source to `file` (at most
   * the package size limit); the version not offered: `404 package_version_not_found`.
   */
  download: (type: PackageType, slug: string, version: string, file: string) => Promise<{ bytes: number }>
}

/** Run with the installed package about to be replaced and who asked. */
export type ReplaceStep = (type: PackageType, slug: string, actor: Actor) => Promise<void>

export interface PackageRegistry {
  /** Installed packages, plugins then themes, each by slug. */
  list: (filter?: { type?: PackageType, status?: readonly PackageStatus[] }) => Promise<InstalledPackage[]>
  /** One installed package, or null. */
  get: (type: PackageType, slug: string) => Promise<InstalledPackage | null>
  /**
   * Slugs installed right now, read from the content directory without the
   * store (for enums declared when the namespaces are built at start).
   */
  installedSlugs: () => { plugins: string[], themes: string[] }
  /**
   * The directory of an installed package that is active (a theme: the
   * active theme), without reading its manifest or the source; else null.
   */
  activeDir: (type: PackageType, slug: string) => Promise<string | null>
  /**
   * Whether a package is installed and active now (a theme: the active
   * theme), read under the token `validity` answers (the activation epoch,
   * else the commit horizon) and kept until it moves; the same function
   * while nothing changed.
   */
  activeNow: (validity: () => Promise<string | undefined>) => Promise<(type: PackageType, slug: string) => boolean>
  /** The active theme's slug, or null. */
  activeTheme: () => Promise<string | null>

  /**
   * Installs a package from the source (the newest version unless `version`
   * is given), optionally activating it. Already installed:
   * `409 package_already_installed`.
   */
  install: (type: PackageType, slug: string, opts: { version?: string, activate?: boolean, actor: Actor }) => Promise<InstalledPackage>
  /** Activates (a theme: switches to it); already active is no change. Not installed: `404 package_not_installed`. */
  activate: (type: PackageType, slug: string, opts: { actor: Actor }) => Promise<InstalledPackage>
  /** Deactivates a plugin (a theme cannot be: `400 package_theme_deactivate`); already inactive is no change. */
  deactivate: (type: PackageType, slug: string, opts: { actor: Actor }) => Promise<InstalledPackage>
  /**
   * Replaces the installed files with another version from the source (the
   * newest unless `version` is given); the status is kept, or made active
   * with `activate`. A failure at any point leaves the previous version.
   */
  upgrade: (type: PackageType, slug: string, opts: { version?: string, activate?: boolean, actor: Actor }) => Promise<InstalledPackage>
  /** Removes an inactive package's directory and record (active: `400 package_is_active`). Answers what was removed. */
  delete: (type: PackageType, slug: string, opts: { actor: Actor }) => Promise<InstalledPackage>

  /** The package source (`CMS_PACKAGE_SOURCE`). */
  readonly source: PackageSource
  /**
   * Checks a package zip without unpacking it: a sound zip, no entry leaving
   * its root (`..`, absolute, symlinks), within the entry and size limits,
   * and a manifest whose slug (when given) and version (when `version` is
   * given) match. Answers the manifest; otherwise `400 rest_invalid_package`.
   */
  inspect: (file: string, expect: { type: PackageType, slug: string, version?: string }) => Promise<PackageManifest>
  /** Writes the installed files of a package as a zip to `file` (under `<slug>/`). */
  archive: (type: PackageType, slug: string, file: string) => Promise<{ bytes: number, version: string }>
  /**
   * The atomic swap: replaces an installed package's files with the zip at
   * `file` (inspected first), unpacked beside the target and renamed into
   * place; the status is kept and the operation logged as `operation`
   * (default `upgrade`). A failure leaves the previous version in place.
   */
  swap: (type: PackageType, slug: string, file: string, opts: { actor: Actor, operation?: Operation, version?: string }) => Promise<InstalledPackage>
  /**
   * Runs `fn` holding the package's lock (one operation per package at a
   * time, across processes); held already: `409 package_operation_in_progress`.
   * Registry calls made inside `fn` share the lock.
   */
  lock: <T>(type: PackageType, slug: string, operation: Operation, fn: () => Promise<T>) => Promise<T>
  /** A new empty scratch directory on the content directory's filesystem; the caller removes it. */
  scratchDir: () => Promise<string>
  /**
   * Adds a step run before any installed version is replaced (an upgrade, a
   * swap, whichever route or command asked), under the package's lock, while
   * the old files are still in place; a step that throws stops the
   * replacement and the old version stays. The rollback package keeps its
   * archives this way, so no caller has to remember to.
   */
  beforeReplace: (step: ReplaceStep) => void

  readonly log: {
    /** Newest first. */
    list: (opts?: { limit?: number, offset?: number }) => Promise<{ entries: OperationEntry[], total: number }>
    /** Empties the log; answers how many entries were removed. */
    clear: () => Promise<number>
    /** Records an operation done outside the registry's own calls (a rollback's steps). */
    record: (entry: Omit<OperationEntry, 'id' | 'time'>) => Promise<void>
  }
}

/** The registry, as packages that depend on `@cms/registry` require it. */
export const packageRegistry = serviceKey<PackageRegistry>('@cms/registry/packages')
