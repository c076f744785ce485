/**
 * Browser sessions of the admin pages (sign-in, authorization page): a
 * random cookie whose SHA-256 is stored with an expiry and a CSRF token,
 * plus the bookkeeping that slows repeated failed sign-ins down.
 */
import { createHash, randomBytes } from 'node:crypto'
import { and, eq, gt, inArray, lt, sql } from 'drizzle-orm'
import type { Store } from '@cms/store'
import { signInFailures, userSessions } from './schema.js'

export const SESSION_TTL_MS = 2 * 24 * 60 * 60 * 1000

const digest = (token: string): string => createHash('sha256').update(token).digest('base64url')

export interface Session {
  userId: number
  csrf: string
  expires: Date
}

export async function createSession (store: Store, userId: number): Promise<{ token: string, session: Session }> {
  const token = randomBytes(32).toString('base64url')
  const session = { userId, csrf: randomBytes(24).toString('base64url'), expires: new Date(Date.now() + SESSION_TTL_MS) }
  await store.db.insert(userSessions).values({ tokenHash: digest(token), ...session })
  // Expired sessions are swept when new ones start (sign-ins are rare).
  await store.db.delete(userSessions).where(lt(userSessions.expires, sql`now()`))
  return { token, session }
}

export async function readSession (store: Store, token: string | undefined): Promise<Session | undefined> {
  if (token === undefined || !/^[\w-]{20,100}$/.test(token)) return undefined
  const rows = await store.db.select({ userId: userSessions.userId, csrf: userSessions.csrf, expires: userSessions.expires })
    .from(userSessions)
    .where(and(eq(userSessions.tokenHash, digest(token)), gt(userSessions.expires, sql`now()`)))
  return rows[0]
}

export async function endSession (store: Store, token: string | undefined): Promise<void> {
  if (token === undefined) return
  await store.db.delete(userSessions).where(eq(userSessions.tokenHash, digest(token)))
}

// --- failed sign-ins ----------------------------------------------------------

/** Failures older than this are forgotten. */
export const FAILURE_WINDOW_MS = 15 * 60 * 1000
/** Failed attempts on one login from one address before that pair must wait out the window. */
export const MAX_FAILURES_PER_LOGIN = 5

export interface ThrottleKeys {
  /** The login tried from this address. */
  pair: string
  /** The client address, across logins. */
  address: string
}

export function throttleKeys (login: string, ip: string): ThrottleKeys {
  // NUL cannot be stored in a text column.
  const name = login.replace(/\u0000/g, '').trim().toLowerCase()
  return { pair: `login:${name}|ip:${ip}`, address: `ip:${ip}` }
}

/** Recent failures per key (0 when none within the window). */
export async function recentFailures (store: Store, keys: ThrottleKeys): Promise<{ pair: number, address: number }> {
  const rows = await store.db.select({ key: signInFailures.key, failures: signInFailures.failures }).from(signInFailures)
    .where(and(
      inArray(signInFailures.key, [keys.pair, keys.address]),
      gt(signInFailures.lastFailure, sql`now() - make_interval(secs => ${FAILURE_WINDOW_MS / 1000})`)
    ))
  const of = (key: string): number => rows.find((r) => r.key === key)?.failures ?? 0
  return { pair: of(keys.pair), address: of(keys.address) }
}

export async function recordFailure (store: Store, keys: ThrottleKeys): Promise<void> {
  for (const key of [keys.pair, keys.address]) {
    await store.db.insert(signInFailures).values({ key, failures: 1 })
      .onConflictDoUpdate({
        target: signInFailures.key,
        set: {
          // A failure after a quiet window starts counting again.
          failures: sql`case when ${signInFailures.lastFailure} < now() - make_interval(secs => ${FAILURE_WINDOW_MS / 1000}) then 1 else ${signInFailures.failures} + 1 end`,
          lastFailure: sql`now()`
        }
      })
  }
}

export async function clearFailures (store: Store, keys: ThrottleKeys): Promise<void> {
  await store.db.delete(signInFailures).where(eq(signInFailures.key, keys.pair))
}

/** How long a failed answer waits: grows with the address's recent failures, capped. */
export function failureDelayMs (addressFailures: number): number {
  return Math.min(400 * Math.max(1, addressFailures), 4000)
}
