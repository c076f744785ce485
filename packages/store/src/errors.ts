/**
 * One line for an error met while opening or migrating the store, shared by
 * the service and the CLI so both say the same thing: which server could not
 * be reached and that it came from DATABASE_URL, or that the embedded
 * database is in use. Undefined for errors that are not about reaching the
 * database (the caller shows those as they are).
 */
import { StoreLockedError } from './db.js'
import { redactUrl, SettingError } from './settings.js'

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
}

function codesOf (error: unknown, depth = 0): Array<{ code: string; message: string }> {
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown[] } | null
  if (e === null || typeof e !== 'object' || depth > 5) return []
  const own = typeof e.code === 'string' ? [{ code: e.code, message: String(e.message ?? '') }] : []
  const nested = Array.isArray(e.errors) ? e.errors.flatMap((x) => codesOf(x, depth + 1)) : []
  return [...own, ...nested, ...codesOf(e.cause, depth + 1)]
}

export function storeErrorLine (error: unknown, databaseUrl: string | undefined): string | undefined {
  if (error instanceof StoreLockedError || error instanceof SettingError) return error.message
  if (databaseUrl === undefined) return undefined
  let where = redactUrl(databaseUrl)
  try {
    const u = new URL(databaseUrl)
    where = `${u.hostname || u.searchParams.get('host') || 'localhost'}:${u.port || '5432'}`
  } catch {
    // shown as given, without its password
  }
  const codes = codesOf(error)
  const network = codes.find((c) => NETWORK[c.code] !== undefined)
  if (network !== undefined) return `cannot reach the PostgreSQL server at ${where} (from DATABASE_URL): ${NETWORK[network.code]}`
  const sqlState = codes.find((c) => /^[0-9A-Z]{5}$/.test(c.code))
  if (sqlState !== undefined && /^(28|3D|08|57P)/.test(sqlState.code)) {
    return `the PostgreSQL server at ${where} (from DATABASE_URL) refused the connection: ${sqlState.message}`
  }
  const message = String((error as { message?: unknown } | null)?.message ?? '')
  if (/timeout exceeded when trying to connect|Connection terminated/i.test(message)) {
    return `cannot reach the PostgreSQL server at ${where} (from DATABASE_URL): ${message}`
  }
  return undefined
}

/**
 * Whether an error says the database cannot be reached now (a refused or
 * reset connection, a server shutting down, a pool that cannot connect):
 * answered 503, to be tried again, not 500.
 */
export function isStoreUnavailable (error: unknown, depth = 0): boolean {
  const e = error as { code?: string, message?: string, cause?: unknown, errors?: unknown[] } | null
  if (e === null || typeof e !== 'object' || depth > 5) return false
  const codes = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']
  if (e.code !== undefined && codes.includes(e.code)) return true
  if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable/i.test(e.message ?? '')) return true
  // drizzle wraps driver errors (`Failed query: ...`) with the driver's error as the cause;
  // a refused connection to a host with several addresses is an AggregateError.
  return isStoreUnavailable(e.cause, depth + 1) || (Array.isArray(e.errors) && e.errors.some((x) => isStoreUnavailable(x, depth + 1)))
}
