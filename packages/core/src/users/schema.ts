/**
 * Tables of the users module: accounts, per-user key/value state,
 * application passwords, and the admin pages' sign-in sessions and
 * throttle (the site's hashing key: platform/site-keys).
 *
 * Imports only drizzle (drizzle-kit loads this file to generate migrations).
 */
import { sql } from 'drizzle-orm'
import { index, integer, pgTable, serial, text, timestamp, unique, uniqueIndex } from 'drizzle-orm/pg-core'
// drizzle's own jsonb parses strings read back a second time ("123" -> 123).
import { jsonb } from '@cms/store/columns'

export const users = pgTable('users', {
  id: serial('id').primaryKey(),
  login: text('login').notNull(),
  email: text('email').notNull(),
  displayName: text('display_name').notNull().default(''),
  nicename: text('nicename').notNull().unique(),
  url: text('url').notNull().default(''),
  description: text('description').notNull().default(''),
  /** scrypt hash of the account password (sign-in page); null: cannot sign in there. */
  passHash: text('pass_hash'),
  roles: text('roles').array().notNull().default(sql`'{}'::text[]`),
  registered: timestamp('registered', { withTimezone: true }).notNull().defaultNow()
}, (t) => [
  // Logins and e-mail addresses compare without case (sign-in, uniqueness).
  uniqueIndex('users_login_lower_key').on(sql`lower(${t.login})`),
  uniqueIndex('users_email_lower_key').on(sql`lower(${t.email})`)
])

/** Per-user state of any namespace (first name, builder preferences, ...). */
export const userMeta = pgTable('user_meta', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  key: text('key').notNull(),
  value: jsonb('value').notNull()
}, (t) => [unique('user_meta_user_key').on(t.userId, t.key)])

export const applicationPasswords = pgTable('application_passwords', {
  /** A v4 UUID (text: the route accepts any `[\w-]+` and must answer 404, not fail). */
  uuid: text('uuid').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  /** '' or the UUID the application gave. */
  appId: text('app_id').notNull().default(''),
  name: text('name').notNull(),
  /** Keyed hash (HMAC-SHA256 with the site key) of the 24 characters, base64url. */
  hash: text('hash').notNull(),
  created: timestamp('created', { withTimezone: true }).notNull().defaultNow(),
  lastUsed: timestamp('last_used', { withTimezone: true }),
  lastIp: text('last_ip')
}, (t) => [index('application_passwords_user_idx').on(t.userId)])

/** Signed-in browser sessions of the admin pages; only a hash of the cookie is kept. */
export const userSessions = pgTable('user_sessions', {
  tokenHash: text('token_hash').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  csrf: text('csrf').notNull(),
  created: timestamp('created', { withTimezone: true }).notNull().defaultNow(),
  expires: timestamp('expires', { withTimezone: true }).notNull()
}, (t) => [index('user_sessions_expires_idx').on(t.expires)])

/** Recent failed sign-ins per login and per client address, to slow guessing down. */
export const signInFailures = pgTable('sign_in_failures', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull().default(0),
  lastFailure: timestamp('last_failure', { withTimezone: true }).notNull().defaultNow()
})
