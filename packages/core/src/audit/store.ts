/**
 * The audit log: its writer, its reader and its retention prune.
 *
 * How an entry is written, and what can be lost.
 *
 * A write that committed something: its entry commits with it. While the
 * endpoint runs, the first transaction it commits (through
 * `store.transaction`, whoever opened it: a core route, a package's route,
 * a command line) or the post create's statement also inserts one
 * `audit_outbox` row: the entry as known before the answer, keyed by a
 * uuid (outbox.ts). The outbox has no index but its key, so the write never
 * waits on audit_log's indexes, locks or retention prune, and never fails
 * with them. Once answered, the entry with its real outcome is queued
 * (below), and the statement that inserts it deletes the row by its key
 * (inserting the entry only if the delete found it). Killed between the
 * commit and that statement (a crash, `kill -9`, lost power), the row stays
 * and any replica moves it into audit_log after `orphanGraceMs` (default
 * 60 s; checked every `moveEveryMs`), recording what the commit implies:
 * status 200 and error_code `unanswered` (the write took effect; its answer
 * is unknown), the time of the write's transaction, the object id of the
 * path (of a create: the id written). Exactly once: whichever statement
 * deletes the row records it; the others find it gone.
 *
 * A write that committed nothing (refused: 4xx before or in the handler, a
 * validation error, a 5xx that rolled back) has no transaction to ride:
 * its entry is only queued, and may be lost as below. So are the entries
 * of writes whose changes were made by single statements outside
 * `store.transaction` (other than the post create): their change is not
 * durable with its entry.
 *
 * The queue: entries go to a queue in this process (synchronously, no
 * I/O) and are inserted in batches (one statement of up to `batch`
 * entries) `flushMs` after the first entry queued, or at once when `batch`
 * are waiting; the statement's text is the same for every batch size, a
 * named statement planned once per connection (`appendAuditEntries`).
 * For entries without an outbox row:
 * - they are lost if the process dies between the answer and the flush: at
 *   most `flushMs` (default 1 s) of this process's refused writes; closing
 *   the app (SIGTERM, `app.close()`) flushes them;
 * - while the table is slow or unreachable, entries past `maxQueued`
 *   (default 10,000) are dropped, counted, and the count logged;
 * - a flush that fails is logged (with how many entries it lost) and never
 *   reaches the caller of the write, who was answered before it ran.
 * For entries with one, a drop or a failed flush loses only their outcome:
 * the row is moved later as unanswered.
 * A command line (apps/cli) runs as one write (`runCommand`): what it
 * commits carries its row, and its entry with its exit code replaces it.
 *
 * Append-only: the audit migration's trigger refuses UPDATE, TRUNCATE, and
 * DELETE outside `prune`, which marks its own transaction
 * (`cms.audit_prune`). Any replica may prune at the same time as another:
 * each deletes a batch of rows older than the retention that no other
 * holds (`FOR UPDATE SKIP LOCKED`). The outbox's trigger (migration
 * 0015) refuses UPDATE, TRUNCATE, and DELETE outside a move
 * (`cms.audit_move`).
 */
import { and, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm'
import { executeNamed, type Store } from '@cms/store'
import { auditLog } from './schema.js'
import { repeatEvery } from '../base/repeat.js'
import { moveOrphans, UNANSWERED } from './outbox.js'
import type { AuditEntry, AuditRow } from './entry.js'

export type { AuditEntry, AuditRow } from './entry.js'

export interface AuditSettings {
  /** Record writes (`CMS_AUDIT_LOG`, default on). Off: nothing is queued or written; the route still reads. */
  enabled: boolean
  /** How long entries are kept (`CMS_AUDIT_RETENTION_DAYS`, default 90; 0 keeps them forever). */
  retentionDays: number
  /** How long an entry may wait in the queue before it is inserted (default 1000 ms). */
  flushMs?: number
  /** Entries per INSERT; a full batch is flushed at once (default 200). */
  batch?: number
  /** Most entries queued while the table is slow; more are dropped and counted (default 10,000). */
  maxQueued?: number
  /** How often the retention prune runs (default hourly). */
  pruneEveryMs?: number
  /** How old an outbox row nobody replaced must be before any replica moves it as unanswered (default 60 s). */
  orphanGraceMs?: number
  /** How often this process looks for such rows (default 30 s, or `orphanGraceMs` when shorter). */
  moveEveryMs?: number
}

export const AUDIT_DEFAULTS = { enabled: true, retentionDays: 90, flushMs: 1000, batch: 200, maxQueued: 10_000, pruneEveryMs: 3_600_000, orphanGraceMs: 60_000, moveEveryMs: 30_000 } as const
/** Outbox rows one move statement takes. */
const MOVE_BATCH = 500

/** Rows one prune statement deletes (each its own statement, so none runs long). */
const PRUNE_BATCH = 5000
/** Matches counted exactly past the requested page; beyond, the planner's estimate (as post lists do). */
const EXACT_TOTAL_MARGIN = 1000

export type AuditLogger = (message: string, err?: unknown) => void

export interface AuditQuery {
  page: number
  perPage: number
  userId?: number
  credential?: string
  objectType?: string
  objectId?: string
  route?: string
  method?: string
  after?: Date
  before?: Date
}

/**
 * Inserts entries now, in one statement whose text never changes (a named
 * prepared statement: parsed and planned once per connection), the entries
 * given column by column as arrays. A multi-row VALUES list had a text of
 * its own for each batch size, so PostgreSQL parsed and planned every flush
 * anew (up to 56 ms for a batch of 60: bench:profile, docs/benchmarks.md).
 * An entry with an outbox key (`keys`, parallel to `entries`; null: none)
 * replaces that row: the same statement deletes it, and inserts the entry
 * only if it was still there (else a replica moved it already).
 * What the queue's flush and the command line use.
 */
export async function appendAuditEntries (store: Store, entries: readonly AuditEntry[], keys?: ReadonlyArray<string | null>): Promise<void> {
  if (entries.length === 0) return
  const column = <T>(f: (e: AuditEntry, i: number) => T): ReturnType<typeof sql.param> => sql.param(entries.map(f))
  const keyed = column((_, i) => keys?.[i] ?? null)
  await executeNamed(store, 'audit_append', sql`
    with moved as (
      delete from audit_outbox where key = any(${keyed}::uuid[])
      -- The outbox's trigger lets rows leave only by a move, which says so for its own transaction.
      and set_config('cms.audit_move', 'on', true) = 'on'
      returning key)
    insert into audit_log (at, user_id, credential, credential_id, ip, method, route, path, object_type, object_id, status, error_code, fields, "values")
    select e.at, e.user_id, e.credential, e.credential_id, e.ip, e.method, e.route, e.path, e.object_type, e.object_id, e.status, e.error_code,
      array(select jsonb_array_elements_text(e.fields)), e.vals
    from unnest(${column((e) => e.at.toISOString())}::timestamptz[], ${column((e) => e.userId)}::int[], ${column((e) => e.credential)}::text[],
      ${column((e) => e.credentialId)}::text[], ${column((e) => e.ip)}::text[], ${column((e) => e.method)}::text[], ${column((e) => e.route)}::text[],
      ${column((e) => e.path)}::text[], ${column((e) => e.objectType)}::text[], ${column((e) => e.objectId)}::text[], ${column((e) => e.status)}::int[],
      ${column((e) => e.errorCode)}::text[], ${column((e) => JSON.stringify(e.fields))}::jsonb[], ${column((e) => JSON.stringify(e.values))}::jsonb[],
      ${keyed}::uuid[])
      as e(at, user_id, credential, credential_id, ip, method, route, path, object_type, object_id, status, error_code, fields, vals, key)
    where e.key is null or e.key in (select key from moved)`)
}

export class AuditLog {
  readonly settings: Required<AuditSettings>
  private queue: AuditEntry[] = []
  /** The outbox key of each queued entry (null: none), parallel to `queue`. */
  private keys: Array<string | null> = []
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> | undefined
  private dropped = 0
  private log: AuditLogger = () => {}

  constructor (readonly store: () => Store, settings: Partial<AuditSettings> = {}) {
    const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined))
    // Rows are looked for at least as often as they become old enough to move.
    const moveEveryMs = Math.min(AUDIT_DEFAULTS.moveEveryMs, (given.orphanGraceMs as number | undefined) ?? AUDIT_DEFAULTS.orphanGraceMs)
    this.settings = { ...AUDIT_DEFAULTS, moveEveryMs, ...given }
  }

  get enabled (): boolean { return this.settings.enabled }

  /** Where flush and prune failures are reported (the app's log). */
  logTo (log: AuditLogger): void { this.log = log }

  /** Entries waiting in this process's queue. */
  get pending (): number { return this.queue.length }

  /**
   * Queues an entry (no I/O); it is inserted within `flushMs`, replacing
   * the outbox row of `key` when given. Never throws.
   */
  append (entry: AuditEntry, key: string | null = null): void {
    if (!this.settings.enabled) return
    if (this.queue.length >= this.settings.maxQueued) {
      this.dropped++
      return
    }
    this.queue.push(entry)
    this.keys.push(key)
    if (this.queue.length >= this.settings.batch) this.kick()
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => { this.kick() }, this.settings.flushMs)
      // A queued entry never keeps the process alive; closing the app flushes it.
      this.timer.unref()
    }
  }

  private kick (): void {
    clearTimeout(this.timer)
    this.timer = undefined
    void this.flush()
  }

  /**
   * Inserts everything queued so far, a batch per statement; resolves once
   * it is written (or its failure logged). One flush runs at a time: a call
   * during one waits for it, then flushes what came meanwhile.
   */
  async flush (): Promise<void> {
    while (this.flushing !== undefined) await this.flushing
    if (this.queue.length === 0 && this.dropped === 0) return
    this.flushing = this.flushQueued().finally(() => { this.flushing = undefined })
    await this.flushing
  }

  private async flushQueued (): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.dropped > 0) {
      this.log(`audit log: ${this.dropped} entries dropped (the queue was full: the log table is slow or unreachable)`)
      this.dropped = 0
    }
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.settings.batch)
      const keys = this.keys.splice(0, batch.length)
      try {
        await appendAuditEntries(this.store(), batch, keys)
      } catch (err) {
        this.log(`audit log: ${batch.length} entries could not be written`, err)
      }
    }
  }

  /** A page of entries, newest first, and how many match. */
  async list (q: AuditQuery): Promise<{ rows: AuditRow[], total: number }> {
    const where = and(...conditionsOf(q))
    const offset = (q.page - 1) * q.perPage
    const db = this.store().db
    const rows = await db.select().from(auditLog).where(where).orderBy(desc(auditLog.at), desc(auditLog.id)).limit(q.perPage).offset(offset)
    const cap = offset + q.perPage + EXACT_TOTAL_MARGIN
    const [counted] = await this.store().execute<{ n: number }>(sql`select count(*)::int as n from (select 1 from ${auditLog} ${where === undefined ? sql`` : sql`where ${where}`} limit ${cap + 1}) capped`)
    let total = Number(counted?.n ?? 0)
    if (total > cap) total = Math.max(total, await this.estimate(where))
    return { rows: rows.map((r) => ({ ...r, values: (r.values ?? {}) as Record<string, unknown> })), total }
  }

  private async estimate (where: SQL | undefined): Promise<number> {
    const rows = await this.store().execute<Record<string, unknown>>(sql`explain (format json) select 1 from ${auditLog} ${where === undefined ? sql`` : sql`where ${where}`}`)
    let plan = rows[0]?.['QUERY PLAN']
    if (typeof plan === 'string') plan = JSON.parse(plan)
    return Math.round(Number((plan as Array<{ Plan?: { 'Plan Rows'?: number } }> | undefined)?.[0]?.Plan?.['Plan Rows'] ?? 0))
  }

  /**
   * Deletes entries older than the retention, a batch per transaction;
   * answers how many. Safe on any number of replicas at once.
   */
  async prune (): Promise<number> {
    const days = this.settings.retentionDays
    if (days <= 0) return 0
    let pruned = 0
    for (;;) {
      const n = await this.store().transaction(async (tx) => {
        await tx.execute(sql`select set_config('cms.audit_prune', 'on', true)`)
        const deleted = await tx.execute(sql`
          delete from ${auditLog} where id in (
            select id from ${auditLog}
            where at < now() - make_interval(days => ${days})
            order by id
            limit ${PRUNE_BATCH}
            for update skip locked)
          returning id`)
        return rowCount(deleted)
      })
      pruned += n
      if (n < PRUNE_BATCH) return pruned
    }
  }

  /**
   * Moves outbox rows older than `graceMs` (default `orphanGraceMs`) that
   * nobody replaced into the log, as their commit implied; answers how many.
   */
  async moveOrphans (graceMs = this.settings.orphanGraceMs): Promise<number> {
    let moved = 0
    for (;;) {
      const n = await moveOrphans(this.store(), graceMs, MOVE_BATCH)
      moved += n
      if (n < MOVE_BATCH) return moved
    }
  }

  /**
   * The retention prune, every `pruneEveryMs` (and once shortly after
   * start), and the move of orphaned outbox rows, every `moveEveryMs` (and
   * once at start: rows a dead process left); returns what stops them and
   * flushes the queue.
   */
  start (log?: AuditLogger): () => Promise<void> {
    if (log !== undefined) this.log = log
    const stopPrune = repeatEvery(this.settings.pruneEveryMs, async () => {
      await this.prune().then(
        (n) => { if (n > 0) this.log(`audit log: ${n} entries older than ${this.settings.retentionDays} days pruned`) },
        (err) => { this.log('audit log: prune failed', err) }
      )
    }, { firstMs: Math.min(60_000, this.settings.pruneEveryMs) })
    const stopMove = repeatEvery(this.settings.moveEveryMs, async () => {
      await this.moveOrphans().then(
        (n) => { if (n > 0) this.log(`audit log: ${n} entries of writes whose answer was never recorded moved from the outbox (error_code ${UNANSWERED})`) },
        (err) => { this.log('audit log: moving the outbox failed', err) }
      )
    }, { firstMs: 0 })
    return async () => {
      await stopMove()
      await stopPrune()
      await this.flush()
    }
  }
}

function conditionsOf (q: AuditQuery): SQL[] {
  const out: SQL[] = []
  if (q.userId !== undefined) out.push(eq(auditLog.userId, q.userId))
  if (q.credential !== undefined) out.push(eq(auditLog.credential, q.credential))
  if (q.objectType !== undefined) out.push(eq(auditLog.objectType, q.objectType))
  if (q.objectId !== undefined) out.push(eq(auditLog.objectId, q.objectId))
  if (q.route !== undefined) out.push(eq(auditLog.route, q.route))
  if (q.method !== undefined) out.push(eq(auditLog.method, q.method))
  if (q.after !== undefined) out.push(gte(auditLog.at, q.after))
  if (q.before !== undefined) out.push(lte(auditLog.at, q.before))
  return out
}

/** Rows a `returning` statement answered, whichever driver ran it. */
function rowCount (result: unknown): number {
  const r = result as { rows?: unknown[] } | unknown[]
  return Array.isArray(r) ? r.length : (r.rows?.length ?? 0)
}
