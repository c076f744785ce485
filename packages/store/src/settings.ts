import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { defaultTemplatesDir } from './template.js'

export interface StoreSettings {
  /** PostgreSQL URL (DATABASE_URL); unset means embedded PGlite. */
  databaseUrl?: string;
  /** Absolute directory of the embedded database (CMS_DATA_DIR). */
  dataDir: string;
  /** `pg` pool size (CMS_DB_POOL_SIZE), when set. */
  poolSize?: number;
  /** Migrated templates a new embedded database is copied from (CMS_PGLITE_TEMPLATES); unset: initdb. */
  templates?: string;
}

/**
 * A setting with a value it cannot take. The message is the one line shown
 * to the person starting the service or the CLI:
 * `CMS_DEPLOYMENT must be A or B, got "C"`.
 */
export class SettingError extends Error {
  readonly code = 'setting_invalid'
  constructor (
    readonly setting: string,
    readonly value: string | undefined,
    allowed: string
  ) {
    super(value === undefined ? `${setting} must be ${allowed}` : `${setting} must be ${allowed}, got ${JSON.stringify(value)}`)
    this.name = 'SettingError'
  }
}

/** The directory relative settings and `.env` are read from: where pnpm was run, else the current one. */
export function baseDirOf (env: NodeJS.ProcessEnv = process.env): string {
  return env.INIT_CWD || process.cwd()
}

/**
 * Adds the settings of the `.env` file in the base directory (or the file
 * named by CMS_ENV_FILE) to `env`, without replacing any variable already
 * set: the service and the CLI read the same file. Returns the file read,
 * or undefined when there is none.
 */
export function loadEnvFile (env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.CMS_ENV_FILE?.trim()
  const file = named ? resolve(baseDirOf(env), named) : join(baseDirOf(env), '.env')
  if (!existsSync(file)) {
    if (named) throw new SettingError('CMS_ENV_FILE', named, 'the path of an existing file')
    return undefined
  }
  const values = parseEnv(readFileSync(file, 'utf8'))
  for (const [name, value] of Object.entries(values)) {
    if (env[name] === undefined) env[name] = value
  }
  return file
}

/** A PostgreSQL URL as it may be shown: without its password. */
export function redactUrl (url: string): string {
  try {
    const u = new URL(url)
    if (u.password !== '') u.password = '***'
    return u.toString()
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@')
  }
}

/**
 * Store settings from the environment:
 * - `DATABASE_URL`: PostgreSQL connection URL (empty = unset);
 * - `CMS_DATA_DIR` (default `.data`): a relative path is resolved against
 *   `INIT_CWD` (set by pnpm to the directory pnpm was run from) or the
 *   current directory, so `pnpm start` and `pnpm cms` share one data dir;
 * - `CMS_DB_POOL_SIZE`: positive integer;
 * - `CMS_PGLITE_TEMPLATES`: the directory of migrated templates a new
 *   embedded database is copied from (default: the one the build makes,
 *   `node_modules/.cache/cms/pglite-templates`), `off` for initdb.
 * A bad value throws a `SettingError`.
 */
export function storeSettingsFromEnv (env: NodeJS.ProcessEnv = process.env): StoreSettings {
  const base = baseDirOf(env)
  const dir = env.CMS_DATA_DIR || '.data'
  const settings: StoreSettings = { dataDir: isAbsolute(dir) ? dir : resolve(base, dir) }
  const url = env.DATABASE_URL?.trim()
  if (url) {
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (parsed === undefined || !/^postgres(ql)?:$/.test(parsed.protocol) || (parsed.hostname === '' && !parsed.searchParams.has('host'))) {
      throw new SettingError('DATABASE_URL', redactUrl(url), 'a postgres://user:password@host:port/database URL (or unset for the embedded database)')
    }
    settings.databaseUrl = url
  }
  const pool = env.CMS_DB_POOL_SIZE?.trim()
  if (pool) {
    const n = Number(pool)
    if (!Number.isInteger(n) || n < 1) throw new SettingError('CMS_DB_POOL_SIZE', pool, 'a positive integer')
    settings.poolSize = n
  }
  const templates = env.CMS_PGLITE_TEMPLATES?.trim() || defaultTemplatesDir
  if (templates !== 'off') settings.templates = isAbsolute(templates) ? templates : resolve(base, templates)
  return settings
}
