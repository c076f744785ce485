/**
 * Who is calling: HTTP Basic with a login (or e-mail address) and an
 * application password, else the anonymous caller. Bad credentials are a
 * 401 on every route, public ones included.
 *
 * One indexed query reads the user and all their password hashes; its
 * rows are kept while the credentials epoch stays (`store.snapshot()`: read
 * by the statement of the commit horizon, which every request asks anyway,
 * and renewed by triggers in the transaction of every change to a login, an
 * e-mail address, roles or an application password, core migration 0013),
 * so a revoked password, a changed role or a deleted user is seen by the
 * next request on every replica, and commits of anything else (posts,
 * events) leave the kept rows valid (recording a password's use, at most
 * daily, renews the epoch: the kept row then shows it). Without the
 * epochs table they are kept while nothing at all is committed. The
 * presented password is hashed on every request and compared with every
 * candidate (a dummy when the login is unknown), so a wrong password costs
 * the same whether the login exists or not.
 *
 * A caller verified under a credentials epoch is kept too, by a keyed digest
 * of the whole Authorization header (an HMAC under the site key: never the
 * header, which holds the password, nor anything a password could be
 * recovered from without the key): while the epoch stays, the same header
 * is the same caller, so the header is digested once and nothing else is
 * parsed, hashed or compared. A changed epoch (a revoked password, a
 * changed role) misses and checks afresh; failures are never kept. Such a
 * caller carries a rights token (`rightsToken`) the kernel keeps its
 * answers under: the same user with the same capabilities may be given the
 * same answer while nothing is committed.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { eq, or, sql } from 'drizzle-orm'
import { epochToken, weighedCache, type Principal } from '@cms/rest'
import { storeSlot, type Store } from '@cms/store'
import { anonymousCaller, Caller, isRole, type RoleRegistry } from './capabilities.js'
import { applicationPasswords, users } from './schema.js'
import { keyedHash, normalizeAppPassword, sameHash } from './passwords.js'
import { siteKey } from '../platform/site-keys/index.js'
import { isEmail, recordApplicationPasswordUse } from './store.js'
import { authErrors } from './errors.js'
import { readCache, type ReadCache } from '../base/read-cache.js'
import type { SiteActivation } from '../platform/activation.js'
import type { LRUCache } from 'lru-cache'

const DAY_MS = 24 * 60 * 60 * 1000
const DUMMY_HASH = randomBytes(32).toString('base64url')

export interface BasicCredentials {
  login: string
  password: string
}

/** `Basic base64(login:password)` -> its parts; throws the 401 for anything malformed. */
export function parseBasicAuthorization (header: string): BasicCredentials {
  const match = /^(\S+)(?:\s+(.*))?$/.exec(header.trim())
  if (match === null) throw authErrors.rest_invalid_authorization_header()
  if (match[1]!.toLowerCase() !== 'basic') throw authErrors.rest_unsupported_authorization_scheme()
  const token = (match[2] ?? '').trim()
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token) || token.length % 4 === 1) throw authErrors.rest_invalid_authorization_header()
  const decoded = Buffer.from(token, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) throw authErrors.rest_invalid_authorization_header()
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** The user and password hashes of a login or e-mail address: built once per store, prepared (named). */
function prepareCredentialsQuery (store: Store) {
  const login = sql.placeholder('login')
  return store.db.select({
    id: users.id,
    login: users.login,
    roles: users.roles,
    uuid: applicationPasswords.uuid,
    hash: applicationPasswords.hash,
    lastUsed: applicationPasswords.lastUsed
  }).from(users)
    .leftJoin(applicationPasswords, eq(applicationPasswords.userId, users.id))
    .where(or(sql`lower(${users.login}) = lower(${login}::text)`, sql`lower(${users.email}) = lower(${login}::text)`))
    .prepare('users_credentials')
}

const CREDENTIALS_QUERY = storeSlot('users/credentials-query', prepareCredentialsQuery)

function credentialsQuery (store: Store): ReturnType<typeof prepareCredentialsQuery> {
  return store.local?.(CREDENTIALS_QUERY) ?? prepareCredentialsQuery(store)
}

type CredentialRow = Awaited<ReturnType<ReturnType<typeof prepareCredentialsQuery>['execute']>>[number]

/** The credential rows of logins, by login as sent, while nothing is committed. */
function credentialCache (store: Store): ReadCache<CredentialRow[]> {
  return readCache<CredentialRow[]>(store, 'credentials', 1000)
}

/**
 * Checks credentials against the store; resolves to the caller or throws the 401.
 * `validity`: a token (the credentials epoch, else the commit horizon) taken
 * for this request, under which the credential rows may be reused
 * (undefined: read afresh).
 */
export async function authenticateBasic (store: Store, credentials: BasicCredentials, ip: string, roles?: RoleRegistry, validity?: string): Promise<Caller> {
  return (await verify(store, credentials, ip, roles, validity)).caller
}

/** A verified caller and when its application password was last recorded as used (now, if this check recorded it). */
async function verify (store: Store, credentials: BasicCredentials, ip: string, roles?: RoleRegistry, validity?: string): Promise<{ caller: Caller, usedAt: number }> {
  const presented = keyedHash(await siteKey(store), normalizeAppPassword(credentials.password))
  const login = credentials.login.trim()
  // No stored login holds a NUL character (and the database refuses to compare one).
  if (login.includes('\u0000')) throw authErrors.invalid_username()
  const rows = await credentialCache(store).getUnder(validity, login, async () => await credentialsQuery(store).execute({ login }))

  // A login that equals another user's e-mail address names the login's owner.
  const byLogin = rows.find((r) => r.login.toLowerCase() === login.toLowerCase())
  const userId = byLogin?.id ?? rows[0]?.id
  const candidates = rows.filter((r) => r.id === userId)
  // Every candidate is compared (no early exit); with none, a dummy keeps the cost.
  if (candidates.length === 0) sameHash(presented, DUMMY_HASH)
  let matched: typeof rows[number] | undefined
  for (const row of candidates) {
    if (row.hash !== null && sameHash(presented, row.hash) && matched === undefined) matched = row
  }
  if (userId === undefined) throw isEmail(login) ? authErrors.invalid_email() : authErrors.invalid_username()
  if (matched === undefined || matched.uuid === null) throw authErrors.incorrect_password()

  let usedAt = matched.lastUsed?.getTime() ?? 0
  if (Date.now() - usedAt > DAY_MS) {
    try {
      await recordApplicationPasswordUse(store, matched.uuid, ip)
      usedAt = Date.now()
    } catch {
      // Bookkeeping only: a failed write does not refuse valid credentials.
    }
  }
  const keptAs = validity === undefined ? undefined : rightsToken(matched.id, validity, roles)
  return { caller: new Caller(matched.id, matched.login, matched.roles.filter(isRole), matched.uuid, roles, keptAs), usedAt }
}

/** A number for each role registry (a view per activation state included), for rights tokens. */
const registryNumbers = new WeakMap<RoleRegistry, number>()
let registriesNumbered = 0

/**
 * What a verified caller's capabilities come from, as a token the kernel
 * keeps its answers under (`Principal.keptAs`): the user, the credentials
 * epoch it was verified under (renewed by any change to a login, roles or
 * an application password) and the grants in force. Not the credential: two
 * passwords of one user have the same rights (no answer of a `cache:
 * 'public'` endpoint depends on which was sent).
 */
function rightsToken (userId: number, validity: string, roles: RoleRegistry | undefined): string {
  let grants = 0
  if (roles !== undefined) {
    grants = registryNumbers.get(roles) ?? ++registriesNumbered
    registryNumbers.set(roles, grants)
  }
  return `user ${userId} ${validity} grants ${grants}`
}

/** A caller verified under a credentials epoch and role registry (see the top of this file). */
interface Verified { validity: string, roles: RoleRegistry | undefined, caller: Caller, usedAt: number }

/** The verified callers of a store, by the keyed digest of their Authorization header; at most 1,000 (a credential's entry is a few hundred bytes). */
const VERIFIED = storeSlot('users/verified-callers', () => weighedCache<Verified>(1000, () => 1))

/** The keys the verified callers of a store are kept under (tests check that no secret is among them). */
export function verifiedCallerKeys (store: Store): string[] {
  return [...(store.local?.(VERIFIED).keys() ?? [])]
}

/**
 * The digest a verified header is kept under: an HMAC under the site key,
 * apart from the stored passwords' hashes by its prefix (a stored hash is
 * of a password alone).
 */
function headerDigest (key: Buffer, header: string): string {
  return keyedHash(key, `authorization\u0000${header}`)
}

/** The verified callers of a store and the digest of this header among them; undefined for a store that keeps nothing. */
async function keptCallers (store: Store, header: string): Promise<{ verified: LRUCache<string, Verified>, digest: string, hit: Verified | undefined } | undefined> {
  const verified = store.local?.(VERIFIED)
  if (verified === undefined) return undefined
  const digest = headerDigest(await siteKey(store), header)
  return { verified, digest, hit: verified.get(digest) }
}

export function authenticator (services: { store: Store, roles?: RoleRegistry, activation?: SiteActivation }): (request: FastifyRequest) => Promise<Principal> {
  const { store, roles, activation } = services
  return async (request) => {
    const header = request.headers.authorization
    if (header === undefined || header.trim() === '') return anonymousCaller
    const kept = await keptCallers(store, header)
    // A header not verified before is parsed first: a malformed one is refused before any statement.
    const credentials = kept?.hit === undefined ? parseBasicAuthorization(header) : undefined
    const snapshot = await store.snapshot()
    // The pipeline keeps the request's reads under the same snapshot: a read's by its horizon
    // and epochs, a write's by its epochs (its horizon is asked afresh, after what it wrote).
    request.snapshotTaken = snapshot
    // A deactivated package's grants are left out (activation.ts), under the same activation epoch.
    const granted = roles === undefined || activation === undefined ? roles : roles.visible(await activation.off(async () => epochToken(snapshot, 'activation')))
    const validity = epochToken(snapshot, 'credentials')
    const hit = kept?.hit
    if (hit !== undefined && hit.validity === validity && hit.roles === granted && Date.now() - hit.usedAt <= DAY_MS) return hit.caller
    const { caller, usedAt } = await verify(store, credentials ?? parseBasicAuthorization(header), request.ip, granted, validity)
    // Kept only under an epoch (a token the next requests can compare), and only once verified.
    if (kept !== undefined && validity !== undefined) kept.verified.set(kept.digest, { validity, roles: granted, caller, usedAt })
    return caller
  }
}
