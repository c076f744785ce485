import { isAbsolute, resolve } from 'node:path';

export interface StoreSettings {
  /** PostgreSQL URL (DATABASE_URL); unset means embedded PGlite. */
  databaseUrl?: string;
  /** Absolute directory of the embedded database (CMS_DATA_DIR). */
  dataDir: string;
  /** `pg` pool size (CMS_DB_POOL_SIZE), when set. */
  poolSize?: number;
}

/**
 * Store settings from the environment:
 * - `DATABASE_URL`: PostgreSQL connection URL (empty = unset);
 * - `CMS_DATA_DIR` (default `.data`): a relative path is resolved against
 *   `INIT_CWD` (set by pnpm to the directory pnpm was run from) or the
 *   current directory, so `pnpm start` and `pnpm cms` share one data dir;
 * - `CMS_DB_POOL_SIZE`: positive integer.
 */
export function storeSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): StoreSettings {
  const base = env.INIT_CWD || process.cwd();
  const dir = env.CMS_DATA_DIR || '.data';
  const settings: StoreSettings = { dataDir: isAbsolute(dir) ? dir : resolve(base, dir) };
  const url = env.DATABASE_URL?.trim();
  if (url) settings.databaseUrl = url;
  const pool = env.CMS_DB_POOL_SIZE?.trim();
  if (pool) {
    const n = Number(pool);
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`CMS_DB_POOL_SIZE must be a positive integer, got "${pool}"`);
    settings.poolSize = n;
  }
  return settings;
}
