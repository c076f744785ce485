/**
 * Users, their meta and their application passwords in the store. Routes,
 * the CLI, the authorization page and other modules' tests go through
 * these functions; they validate what they write and throw `RestError`s
 * (400) for bad input, so every caller reports the same messages.
 */
import { randomUUID } from 'node:crypto'
import { and, asc, count, desc, eq, inArray, notInArray, or, sql, type AnyColumn, type SQL } from 'drizzle-orm'
import { dbOf, type Queryable, type Store } from '@cms/store'
import { isRole, type Role } from './capabilities.js'
import { applicationPasswords, userMeta, users } from './schema.js'
import { generateAppPassword, hashAccountPassword, keyedHash } from './passwords.js'
import { siteKey } from '../platform/site-keys/index.js'
import { appPasswordErrors, userErrors } from './errors.js'
import { handleDeletedUserContent, hasPublishedPostsCondition, type UserContentHandler } from './authors.js'
import { checkSearchLength } from '../base/search-bound.js'

export interface UserRecord {
  id: number
  login: string
  email: string
  displayName: string
  nicename: string
  url: string
  description: string
  roles: Role[]
  registered: Date
  /** Whether an account password is set (the sign-in page needs one). */
  hasPassword: boolean
}

export interface NewUser {
  login: string
  email: string
  roles: readonly string[]
  password?: string
  displayName?: string
  /** The slug; derived from the login when absent. */
  nicename?: string
  url?: string
  description?: string
  /** Profile fields kept as user meta: first_name, last_name, nickname, locale. */
  profile?: Partial<Record<ProfileField, string>>
  /** Registered user meta (already validated), written in the same transaction. */
  meta?: Record<string, unknown>
}

export const PROFILE_FIELDS = ['first_name', 'last_name', 'nickname', 'locale'] as const
export type ProfileField = typeof PROFILE_FIELDS[number]

export interface UserChanges {
  email?: string
  displayName?: string
  nicename?: string
  url?: string
  description?: string
  roles?: readonly string[]
  password?: string
  profile?: Partial<Record<ProfileField, string>>
  /** Registered user meta (already validated; null removes a key), written in the same transaction. */
  meta?: Record<string, unknown>
}

const LOGIN = /^[A-Za-z0-9_.@-]+(?: [A-Za-z0-9_.@-]+)*$/
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** PostgreSQL text cannot hold NUL characters: they are dropped from anything stored or searched. */
export function text (value: string): string {
  return value.includes('\u0000') ? value.replace(/\u0000/g, '') : value
}

/** The same for every string inside a JSON value (user meta). */
function jsonText (value: unknown): unknown {
  if (typeof value === 'string') return text(value)
  if (Array.isArray(value)) return value.map(jsonText)
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), jsonText(v)]))
  }
  return value
}

/** Ids outside PostgreSQL's integer range match no user. */
const isId = (id: number): boolean => Number.isSafeInteger(id) && id > 0 && id <= 2147483647

export function isEmail (value: string): boolean {
  return value.length <= 254 && EMAIL.test(value)
}

export function isUuid (value: string): boolean {
  return UUID.test(value)
}

const userColumns = {
  id: users.id,
  login: users.login,
  email: users.email,
  displayName: users.displayName,
  nicename: users.nicename,
  url: users.url,
  description: users.description,
  roles: users.roles,
  registered: users.registered,
  hasPassword: sql<boolean>`${users.passHash} is not null`.mapWith(Boolean)
}

function toRecord (row: { roles: string[] } & Omit<UserRecord, 'roles'>): UserRecord {
  return { ...row, roles: row.roles.filter(isRole) }
}

// --- validation -------------------------------------------------------------

function checkLogin (login: string): string {
  const value = text(login).trim().replace(/\s+/g, ' ')
  if (value === '') throw userErrors.empty_user_login()
  if (value.length > 60) throw userErrors.user_login_too_long()
  if (!LOGIN.test(value)) throw userErrors.rest_user_invalid_username()
  return value
}

function checkEmail (email: string): string {
  const value = email.trim()
  if (!isEmail(value)) throw userErrors.rest_user_invalid_email()
  return value
}

function checkRoles (roles: readonly string[]): Role[] {
  for (const role of roles) {
    if (!isRole(role)) throw userErrors.rest_user_invalid_role(undefined, `The role ${role} does not exist.`)
  }
  return [...new Set(roles as Role[])]
}

export function checkAccountPassword (password: string): string {
  if (password === '') throw userErrors.rest_user_invalid_password()
  if (password.includes('\\')) throw userErrors.rest_user_invalid_password(undefined, 'Passwords cannot contain the "\\" character.')
  return password
}

/** A URL-safe slug: lower case, letters, digits, `_` and `-`. */
export function slugify (value: string): string {
  return value
    .normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
}

/**
 * Kept as given when it is an http(s) URL; a bare host gets `http://`;
 * anything else is dropped. At most 100 characters, as the core's column
 * holds (checked first: nothing longer is parsed or stored).
 */
function cleanUrl (url: string): string {
  const value = text(url).trim()
  if (value === '') return ''
  // Characters as mb_strlen() counts them; past 200 code units there are surely more than 100.
  if (value.length > 100 && (value.length > 200 || [...value].length > 100)) throw userErrors.user_url_too_long()
  const candidate = /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `http://${value}`
  try {
    const parsed = new URL(candidate)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? candidate : ''
  } catch {
    return ''
  }
}

async function uniqueNicename (db: Queryable, base: string, exceptId?: number): Promise<string> {
  const stem = base === '' ? 'user' : base
  const rows = await db.select({ nicename: users.nicename, id: users.id }).from(users)
    .where(or(eq(users.nicename, stem), sql`${users.nicename} like ${`${stem.replace(/[\\%_]/g, '\\$&')}-%`}`))
  const taken = new Set(rows.filter((r) => r.id !== exceptId).map((r) => r.nicename))
  if (!taken.has(stem)) return stem
  for (let n = 2; ; n++) {
    const candidate = `${stem.slice(0, 50 - String(n).length - 1)}-${n}`
    if (!taken.has(candidate)) return candidate
  }
}

function uniqueViolation (err: unknown): string | undefined {
  const e = err as { code?: string, constraint?: string, cause?: { code?: string, constraint?: string } }
  const code = e.cause?.code ?? e.code
  if (code !== '23505') return undefined
  return e.cause?.constraint ?? e.constraint ?? ''
}

function throwConflict (constraint: string): never {
  if (constraint.includes('login')) throw userErrors.existing_user_login()
  if (constraint.includes('email')) throw userErrors.existing_user_email()
  if (constraint.includes('nicename')) throw userErrors.rest_user_invalid_slug()
  throw userErrors.existing_user_login()
}

// --- users -----------------------------------------------------------------

export async function createUser (store: Store, input: NewUser): Promise<UserRecord> {
  const login = checkLogin(input.login)
  const email = checkEmail(input.email)
  const roles = checkRoles(input.roles)
  const url = cleanUrl(input.url ?? '')
  const passHash = input.password === undefined ? null : await hashAccountPassword(checkAccountPassword(input.password))
  const wantedSlug = input.nicename === undefined || input.nicename === '' ? slugify(login) : slugify(input.nicename)

  for (let attempt = 0; ; attempt++) {
    try {
      return await store.transaction(async (tx) => {
        const clash = await tx.select({ login: users.login, email: users.email }).from(users)
          .where(or(sql`lower(${users.login}) = lower(${login})`, sql`lower(${users.email}) = lower(${email})`))
        if (clash.some((c) => c.login.toLowerCase() === login.toLowerCase())) throw userErrors.existing_user_login()
        if (clash.length > 0) throw userErrors.existing_user_email()
        const nicename = await uniqueNicename(tx, wantedSlug)
        const [row] = await tx.insert(users).values({
          login,
          email,
          displayName: text(input.displayName ?? login),
          nicename,
          url,
          description: text(input.description ?? ''),
          passHash,
          roles
        }).returning(userColumns)
        const profile = { nickname: login, ...input.profile }
        for (const [key, value] of Object.entries({ ...profile, ...input.meta })) {
          if (value !== undefined) await setUserMeta(tx, row!.id, key, value)
        }
        return toRecord(row!)
      })
    } catch (err) {
      const constraint = uniqueViolation(err)
      // A concurrent insert took the slug between our check and the insert: pick again.
      if (constraint !== undefined && constraint.includes('nicename') && attempt < 3 && input.nicename === undefined) continue
      if (constraint !== undefined) throwConflict(constraint)
      throw err
    }
  }
}

export async function findUserById (store: Store | Queryable, id: number): Promise<UserRecord | undefined> {
  if (!isId(id)) return undefined
  const rows = await dbOf(store).select(userColumns).from(users).where(eq(users.id, id))
  return rows[0] === undefined ? undefined : toRecord(rows[0])
}

/** By login, else by e-mail address (both without case). */
export async function findUserByLogin (store: Store | Queryable, loginOrEmail: string): Promise<UserRecord | undefined> {
  const value = loginOrEmail.trim()
  if (value === '' || value.includes('\u0000')) return undefined
  const rows = await dbOf(store).select(userColumns).from(users)
    .where(or(sql`lower(${users.login}) = lower(${value})`, sql`lower(${users.email}) = lower(${value})`))
  const row = rows.find((r) => r.login.toLowerCase() === value.toLowerCase()) ?? rows[0]
  return row === undefined ? undefined : toRecord(row)
}

/**
 * For the sign-in page only: the user named by a login or e-mail address
 * with the stored account-password hash, in one query (so a known and an
 * unknown login cost the same).
 */
export async function findUserForSignIn (store: Store, loginOrEmail: string): Promise<{ user: UserRecord, passHash: string | null } | undefined> {
  const value = loginOrEmail.trim()
  if (value === '' || value.includes('\u0000')) return undefined
  const rows = await store.db.select({ ...userColumns, passHash: users.passHash }).from(users)
    .where(or(sql`lower(${users.login}) = lower(${value})`, sql`lower(${users.email}) = lower(${value})`))
  const row = rows.find((r) => r.login.toLowerCase() === value.toLowerCase()) ?? rows[0]
  if (row === undefined) return undefined
  const { passHash, ...user } = row
  return { user: toRecord(user), passHash }
}

export async function hasAnyUser (store: Store): Promise<boolean> {
  const rows = await store.db.select({ id: users.id }).from(users).limit(1)
  return rows.length > 0
}

export async function updateUser (store: Store, id: number, changes: UserChanges): Promise<UserRecord> {
  const set: Partial<typeof users.$inferInsert> = {}
  if (changes.email !== undefined) set.email = checkEmail(changes.email)
  if (changes.displayName !== undefined) set.displayName = text(changes.displayName)
  if (changes.url !== undefined) set.url = cleanUrl(changes.url)
  if (changes.description !== undefined) set.description = text(changes.description)
  if (changes.roles !== undefined) set.roles = checkRoles(changes.roles)
  if (changes.password !== undefined) set.passHash = await hashAccountPassword(checkAccountPassword(changes.password))
  try {
    return await store.transaction(async (tx) => {
      if (set.email !== undefined) {
        const owner = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${set.email})`)
        if (owner.some((o) => o.id !== id)) throw userErrors.rest_user_invalid_email()
      }
      if (changes.nicename !== undefined && changes.nicename !== '') {
        const slug = slugify(changes.nicename)
        if (slug === '') throw userErrors.rest_user_invalid_slug()
        const owner = await tx.select({ id: users.id }).from(users).where(eq(users.nicename, slug))
        if (owner.some((o) => o.id !== id)) throw userErrors.rest_user_invalid_slug()
        set.nicename = slug
      }
      const rows = Object.keys(set).length === 0
        ? await tx.select(userColumns).from(users).where(eq(users.id, id))
        : await tx.update(users).set(set).where(eq(users.id, id)).returning(userColumns)
      if (rows[0] === undefined) throw userErrors.rest_user_invalid_id()
      for (const [key, value] of Object.entries({ ...changes.profile, ...changes.meta })) {
        if (value !== undefined) await setUserMeta(tx, id, key, value)
      }
      return toRecord(rows[0])
    })
  } catch (err) {
    const constraint = uniqueViolation(err)
    if (constraint !== undefined) throwConflict(constraint)
    throw err
  }
}

/**
 * Deletes a user with their meta, application passwords and sessions; their
 * posts go to `reassignTo`, or are deleted when it is null. One transaction.
 * `content` is the content module's handler (`services.userContent`); without
 * it the posts table is changed directly (no term recount).
 */
export async function deleteUser (store: Store, id: number, reassignTo: number | null, content?: UserContentHandler): Promise<boolean> {
  return await store.transaction(async (tx) => {
    await handleDeletedUserContent(store, tx, id, reassignTo, content)
    const gone = await tx.delete(users).where(eq(users.id, id)).returning({ id: users.id })
    return gone.length > 0
  })
}

export type UserOrderBy = 'id' | 'include' | 'name' | 'registered_date' | 'slug' | 'include_slugs' | 'email' | 'url'

export interface UserQuery {
  search?: string
  /** `public`: only id, login, slug and display name are searched (callers who may not list users). */
  searchScope?: 'all' | 'public'
  include?: readonly number[]
  exclude?: readonly number[]
  slugs?: readonly string[]
  roles?: readonly string[]
  /** And (separately) one of these roles: the roles that grant the capabilities asked for. */
  capabilityRoles?: readonly string[]
  /** Users with a role that edits posts (contributor and above). */
  authorsOnly?: boolean
  /** Only users with published posts of these types. */
  publishedIn?: readonly string[]
  orderby?: UserOrderBy
  order?: 'asc' | 'desc'
  limit?: number
  offset?: number
}

const AUTHOR_ROLES = ['administrator', 'editor', 'author', 'contributor']

function likePattern (term: string): string {
  return `%${term.replace(/[\\%_]/g, '\\$&')}%`
}

export async function listUsers (store: Store, q: UserQuery = {}): Promise<{ users: UserRecord[], total: number }> {
  checkSearchLength(q.search)
  const where: SQL[] = []
  const include = q.include?.filter(isId) ?? []
  const exclude = q.exclude?.filter(isId) ?? []
  const slugs = q.slugs?.map(text) ?? []
  if (q.include !== undefined && q.include.length > 0) where.push(include.length === 0 ? sql`false` : inArray(users.id, include))
  if (exclude.length > 0) where.push(notInArray(users.id, exclude))
  if (slugs.length > 0) where.push(inArray(users.nicename, slugs))
  if (q.roles !== undefined && q.roles.length > 0) where.push(sql`${users.roles} && ARRAY[${sql.join(q.roles.map((r) => sql`${text(r)}`), sql`, `)}]::text[]`)
  if (q.capabilityRoles !== undefined) {
    where.push(q.capabilityRoles.length === 0 ? sql`false` : sql`${users.roles} && ARRAY[${sql.join(q.capabilityRoles.map((r) => sql`${r}`), sql`, `)}]::text[]`)
  }
  if (q.authorsOnly === true) where.push(sql`${users.roles} && ARRAY[${sql.join(AUTHOR_ROLES.map((r) => sql`${r}`), sql`, `)}]::text[]`)
  if (q.publishedIn !== undefined) where.push(await hasPublishedPostsCondition(store, users.id, q.publishedIn))
  const term = text(q.search ?? '').trim()
  if (term !== '') {
    // Lower-cased once here: ILIKE lower-cases its pattern again for every row it compares.
    const like = likePattern(term).toLowerCase()
    const matches = (column: AnyColumn): SQL => sql`lower(${column}) like ${like}`
    const columns: SQL[] = [matches(users.login), matches(users.nicename), matches(users.displayName)]
    if (q.searchScope !== 'public') columns.push(matches(users.email), matches(users.url))
    if (/^\d{1,9}$/.test(term)) columns.push(eq(users.id, Number(term)))
    where.push(or(...columns)!)
  }
  const condition = where.length === 0 ? undefined : and(...where)
  const dir = q.order === 'desc' ? desc : asc
  const order: SQL[] = []
  switch (q.orderby ?? 'name') {
    case 'id': order.push(dir(users.id)); break
    case 'include':
      if (include.length > 0) {
        order.push(sql`array_position(ARRAY[${sql.join(include.map((i) => sql`${i}`), sql`, `)}]::int[], ${users.id})`)
      }
      break
    case 'include_slugs':
      if (slugs.length > 0) {
        order.push(sql`array_position(ARRAY[${sql.join(slugs.map((s) => sql`${s}`), sql`, `)}]::text[], ${users.nicename})`)
      }
      break
    case 'name': order.push(dir(users.displayName)); break
    case 'registered_date': order.push(dir(users.registered)); break
    case 'slug': order.push(dir(users.nicename)); break
    case 'email': order.push(dir(users.email)); break
    case 'url': order.push(dir(users.url)); break
  }
  order.push(dir(users.id))
  const rows = await store.db.select(userColumns).from(users).where(condition)
    .orderBy(...order).limit(q.limit ?? 100)
    // Negative offsets read as 0; absurd ones stay within what the database accepts.
    .offset(Math.min(Math.max(0, Math.floor(q.offset ?? 0)), Number.MAX_SAFE_INTEGER))
  const [{ total } = { total: 0 }] = await store.db.select({ total: count() }).from(users).where(condition)
  return { users: rows.map(toRecord), total: Number(total) }
}

// --- user meta -------------------------------------------------------------

export async function getUserMeta<T = unknown> (db: Store | Queryable, userId: number, key: string): Promise<T | undefined> {
  const rows = await dbOf(db).select({ value: userMeta.value }).from(userMeta)
    .where(and(eq(userMeta.userId, userId), eq(userMeta.key, text(key))))
  return rows[0]?.value as T | undefined
}

/** Several keys at once (all of the user's when `keys` is omitted). */
export async function getUserMetas (db: Store | Queryable, userId: number, keys?: readonly string[]): Promise<Record<string, unknown>> {
  if (keys !== undefined && keys.length === 0) return {}
  const rows = await dbOf(db).select({ key: userMeta.key, value: userMeta.value }).from(userMeta)
    .where(keys === undefined ? eq(userMeta.userId, userId) : and(eq(userMeta.userId, userId), inArray(userMeta.key, keys.map(text))))
  return Object.fromEntries(rows.map((r) => [r.key, r.value]))
}

/** Stores a JSON value; `null` or `undefined` removes the key. */
export async function setUserMeta (db: Store | Queryable, userId: number, key: string, value: unknown): Promise<void> {
  if (value === null || value === undefined) {
    await deleteUserMeta(db, userId, key)
    return
  }
  await dbOf(db).insert(userMeta).values({ userId, key: text(key), value: jsonText(value) })
    .onConflictDoUpdate({ target: [userMeta.userId, userMeta.key], set: { value: sql`excluded.value` } })
}

export async function deleteUserMeta (db: Store | Queryable, userId: number, key: string): Promise<boolean> {
  const gone = await dbOf(db).delete(userMeta).where(and(eq(userMeta.userId, userId), eq(userMeta.key, text(key)))).returning({ id: userMeta.id })
  return gone.length > 0
}

/** A package's per-user values in user meta, each read and written whole. */
export interface UserState {
  get: <T>(userId: number, key: string) => Promise<T | undefined>
  set: (userId: number, key: string, value: unknown) => Promise<void>
  remove: (userId: number, key: string) => Promise<void>
  /** Reads the value, changes it with `change` and writes the result, one caller at a time per user and key (two writers both count). */
  update: <T>(userId: number, key: string, change: (current: T | undefined) => T) => Promise<T>
}

export function userState (store: Store): UserState {
  return {
    async get (userId, key) { return await getUserMeta(store, userId, key) },
    async set (userId, key, value) { await setUserMeta(store, userId, key, value) },
    async remove (userId, key) { await deleteUserMeta(store, userId, key) },
    async update (userId, key, change) {
      return await store.transaction(async (tx) => {
        // A row lock would miss the first write of a key: the lock is on (key, user) instead.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}), ${userId})`)
        const next = change(await getUserMeta(tx, userId, key))
        await setUserMeta(tx, userId, key, next)
        return next
      })
    }
  }
}

// --- application passwords -------------------------------------------------

export interface AppPasswordRecord {
  uuid: string
  userId: number
  /** '' or a UUID. */
  appId: string
  name: string
  created: Date
  lastUsed: Date | null
  lastIp: string | null
}

const appPasswordColumns = {
  uuid: applicationPasswords.uuid,
  userId: applicationPasswords.userId,
  appId: applicationPasswords.appId,
  name: applicationPasswords.name,
  created: applicationPasswords.created,
  lastUsed: applicationPasswords.lastUsed,
  lastIp: applicationPasswords.lastIp
}

function checkAppName (name: string): string {
  const value = text(name).replace(/[\r\n\t]+/g, ' ').trim()
  if (value === '') throw appPasswordErrors.application_password_empty_name()
  return value
}

/**
 * Creates an application password. The 24-character password is returned
 * once, here; only its keyed hash is stored.
 */
export async function createApplicationPassword (
  store: Store,
  userId: number,
  input: { name: string, appId?: string }
): Promise<{ uuid: string, password: string, item: AppPasswordRecord }> {
  const name = checkAppName(input.name)
  const appId = input.appId ?? ''
  if (appId !== '' && !isUuid(appId)) throw appPasswordErrors.rest_invalid_app_id()
  const password = generateAppPassword()
  const hash = keyedHash(await siteKey(store), password)
  const uuid = randomUUID()
  const [item] = await store.db.insert(applicationPasswords)
    .values({ uuid, userId, appId, name, hash })
    .returning(appPasswordColumns)
  return { uuid, password, item: item! }
}

export async function listApplicationPasswords (store: Store, userId: number): Promise<AppPasswordRecord[]> {
  return await store.db.select(appPasswordColumns).from(applicationPasswords)
    .where(eq(applicationPasswords.userId, userId))
    .orderBy(asc(applicationPasswords.created), asc(applicationPasswords.uuid))
}

export async function getApplicationPassword (store: Store, userId: number, uuid: string): Promise<AppPasswordRecord | undefined> {
  const rows = await store.db.select(appPasswordColumns).from(applicationPasswords)
    .where(and(eq(applicationPasswords.userId, userId), eq(applicationPasswords.uuid, uuid)))
  return rows[0]
}

/** Renames an application password (the only property that may change). */
export async function updateApplicationPassword (store: Store, userId: number, uuid: string, changes: { name?: string }): Promise<AppPasswordRecord | undefined> {
  if (changes.name === undefined || changes.name.trim() === '') return await getApplicationPassword(store, userId, uuid)
  const rows = await store.db.update(applicationPasswords).set({ name: checkAppName(changes.name) })
    .where(and(eq(applicationPasswords.userId, userId), eq(applicationPasswords.uuid, uuid)))
    .returning(appPasswordColumns)
  return rows[0]
}

/** Deletes one application password; returns what was deleted, if anything. */
export async function revokeApplicationPassword (store: Store, userId: number, uuid: string): Promise<AppPasswordRecord | undefined> {
  const rows = await store.db.delete(applicationPasswords)
    .where(and(eq(applicationPasswords.userId, userId), eq(applicationPasswords.uuid, uuid)))
    .returning(appPasswordColumns)
  return rows[0]
}

export async function revokeAllApplicationPasswords (store: Store, userId: number): Promise<number> {
  const rows = await store.db.delete(applicationPasswords).where(eq(applicationPasswords.userId, userId))
    .returning({ uuid: applicationPasswords.uuid })
  return rows.length
}

/** Records use at most once a day (the condition is in SQL so replicas do not race). */
export async function recordApplicationPasswordUse (store: Store, uuid: string, ip: string): Promise<void> {
  await store.db.update(applicationPasswords).set({ lastUsed: sql`now()`, lastIp: ip })
    .where(and(
      eq(applicationPasswords.uuid, uuid),
      sql`(${applicationPasswords.lastUsed} is null or ${applicationPasswords.lastUsed} < now() - interval '1 day')`
    ))
}
