/**
 * The audit log's table: one row per write through any route (each request
 * of a batch, package routes) and per command line that writes. Rows are
 * only ever added: a trigger refuses every UPDATE, and DELETE outside the
 * retention prune (core migration 0011_audit_log, store.ts).
 *
 * Imports only drizzle (drizzle-kit loads this file to generate migrations).
 */
import { sql } from 'drizzle-orm'
import { bigserial, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
// drizzle's own jsonb parses strings read back a second time ("123" -> 123).
import { jsonb } from '@cms/store/columns'

export const auditLog = pgTable('audit_log', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** When the write was answered (not when the row was flushed). */
  at: timestamp('at', { withTimezone: true, precision: 3, mode: 'date' }).notNull(),
  /** The caller's user id (0: anonymous). */
  userId: integer('user_id').notNull().default(0),
  /** How the caller proved who they are: `app-password`, `cookie`, `cli` or `anonymous`. */
  credential: text('credential').notNull(),
  /** Which credential: the application password's uuid, the OS user of a command line; null when none. */
  credentialId: text('credential_id'),
  ip: text('ip').notNull().default(''),
  /** The method as run (after any override); `CLI` for a command line. */
  method: text('method').notNull(),
  /** The route's pattern (`/cms/v2/posts/(?P<id>[\d]+)`), or the command (`cms user create`). */
  route: text('route').notNull(),
  /** The path as requested (`/cms/v2/posts/12`), or the command line without option values. */
  path: text('path').notNull(),
  /** The route's item schema title (`post`), else its namespace and resource (`builder/v1:documents`). */
  objectType: text('object_type').notNull().default(''),
  objectId: text('object_id'),
  /** The answer's HTTP status (a command line's exit code). */
  status: integer('status').notNull(),
  /** The error's code when the write was refused or failed. */
  errorCode: text('error_code'),
  /** The names of the arguments sent (never their values when secret). */
  fields: text('fields').array().notNull().default(sql`'{}'::text[]`),
  /** The values of the harmless arguments among them (short scalars: ids, numbers, flags, enum choices). */
  values: jsonb('values').notNull().default({})
}, (t) => [
  index('audit_log_at_idx').on(t.at),
  index('audit_log_user_at_idx').on(t.userId, t.at),
  index('audit_log_object_at_idx').on(t.objectType, t.objectId, t.at),
  index('audit_log_route_at_idx').on(t.route, t.at)
])

/**
 * The audit outbox: a write's entry as known before its answer, inserted in
 * the write's own transaction (outbox.ts), so it exists exactly when the
 * write committed. Narrow, with no index but its key: the write never waits
 * on the log's indexes, its retention prune or its locks. Rows are only
 * added, then moved into audit_log (with the answer's outcome when the
 * process that answered is alive, else the outcome the commit implies) by
 * a statement that deletes them; a trigger refuses UPDATE, TRUNCATE, and
 * DELETE outside a move (core migration 0015_audit_outbox).
 */
export const auditOutbox = pgTable('audit_outbox', {
  /** The write's key (a random uuid the process chose), what its answer's entry is matched by. */
  key: uuid('key').primaryKey(),
  /** When the write committed. */
  at: timestamp('at', { withTimezone: true, precision: 3, mode: 'date' }).notNull().defaultNow(),
  /** The entry as known before the answer (audit_log's columns, snake_case). */
  entry: jsonb('entry').notNull()
})
