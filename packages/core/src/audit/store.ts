/**
 * The audit log: its writer, its reader and its retention prune.
 *
 * How an entry is written, and what can be lost. A route's write is
 * recorded after it is answered: the entry goes to a queue in this process
 * (synchronously, no I/O), and the queue is inserted in batches (one
 * INSERT of up to `batch` entries) `flushMs` after the first
 * entry queued, or at once when `batch` are waiting; the INSERT's text is
 * the same for every batch size, a named statement planned once per
 * connection (`appendAuditEntries`). This was chosen over
 * the write's own transaction or an outbox row because both put an INSERT
 * on the write's path: the write would wait for the log table, and fail
 * with it; and because the kernel records every write, refused ones
 * included, outside any handler's transaction. The price:
 * - entries queued but not yet inserted are lost if the process dies
 *   (a crash, `kill -9`, the machine losing power) between the answer and
 *   the flush: at most `flushMs` (default 1 s) of writes of this process;
 *   closing the app (SIGTERM, `app.close()`) flushes them;
 * - while the table is slow or unreachable, entries past `maxQueued`
 *   (default 10,000) are dropped, counted, and the count logged;
 * - a flush that fails is logged (with how many entries it lost) and never
 *   reaches the caller of the write, who was answered before it ran.
 * A command line (apps/cli) writes its entry directly (`appendAuditEntries`).
 *
 * Append-only: the audit migration's trigger refuses UPDATE, TRUNCATE, and
 * DELETE outside `prune`, which marks its own transaction
 * (`cms.audit_prune`). Any replica may prune at the same time as another:
 * each deletes a batch of rows older than the retention that no other
 * holds (`FOR UPDATE SKIP LOCKED`).
 */
import { and, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm'
import { executeNamed, type Store } from '@cms/store'
import { auditLog } from './schema.js'
import { repeatEvery } from '../platform/repeat.js'

/** One entry as written. */
export interface AuditEntry {
  at: Date
  userId: number
  /** `app-password`, `cookie`, `cli` or `anonymous`. */
  credential: string
  credentialId: string | null
  ip: string
  method: string
  route: string
  path: string
  objectType: string
  objectId: string | null
  status: number
  errorCode: string | null
  fields: string[]
  values: Record<string, unknown>
}

export type AuditRow = AuditEntry & { id: number }

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
}

export const AUDIT_DEFAULTS = { enabled: true, retentionDays: 90, flushMs: 1000, batch: 200, maxQueued: 10_000, pruneEveryMs: 3_600_000 } as const

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
 * What the queue's flush and the command line use.
 */
export async function appendAuditEntries (store: Store, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return
  const column = <T>(f: (e: AuditEntry) => T): ReturnType<typeof sql.param> => sql.param(entries.map(f))
  await executeNamed(store, 'audit_append', sql`
    insert into audit_log (at, user_id, credential, credential_id, ip, method, route, path, object_type, object_id, status, error_code, fields, "values")
    select e.at, e.user_id, e.credential, e.credential_id, e.ip, e.method, e.route, e.path, e.object_type, e.object_id, e.status, e.error_code,
      array(select jsonb_array_elements_text(e.fields)), e.vals
    from unnest(${column((e) => e.at.toISOString())}::timestamptz[], ${column((e) => e.userId)}::int[], ${column((e) => e.credential)}::text[],
      ${column((e) => e.credentialId)}::text[], ${column((e) => e.ip)}::text[], ${column((e) => e.method)}::text[], ${column((e) => e.route)}::text[],
      ${column((e) => e.path)}::text[], ${column((e) => e.objectType)}::text[], ${column((e) => e.objectId)}::text[], ${column((e) => e.status)}::int[],
      ${column((e) => e.errorCode)}::text[], ${column((e) => JSON.stringify(e.fields))}::jsonb[], ${column((e) => JSON.stringify(e.values))}::jsonb[])
      as e(at, user_id, credential, credential_id, ip, method, route, path, object_type, object_id, status, error_code, fields, vals)`)
}

export class AuditLog {
  readonly settings: Required<AuditSettings>
  private queue: AuditEntry[] = []
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> | undefined
  private dropped = 0
  private log: AuditLogger = () => {}

  constructor (private readonly store: () => Store, settings: Partial<AuditSettings> = {}) {
    const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined))
    this.settings = { ...AUDIT_DEFAULTS, ...given }
  }

  get enabled (): boolean { return this.settings.enabled }

  /** Where flush and prune failures are reported (the app's log). */
  logTo (log: AuditLogger): void { this.log = log }

  /** Entries waiting in this process's queue. */
  get pending (): number { return this.queue.length }

  /** Queues an entry (no I/O); it is inserted within `flushMs`. Never throws. */
  append (entry: AuditEntry): void {
    if (!this.settings.enabled) return
    if (this.queue.length >= this.settings.maxQueued) {
      this.dropped++
      return
    }
    this.queue.push(entry)
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
      try {
        await appendAuditEntries(this.store(), batch)
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
   * The retention prune, every `pruneEveryMs` (and once shortly after
   * start); returns what stops it and flushes the queue.
   */
  start (log?: AuditLogger): () => Promise<void> {
    if (log !== undefined) this.log = log
    const stop = repeatEvery(this.settings.pruneEveryMs, async () => {
      await this.prune().then(
        (n) => { if (n > 0) this.log(`audit log: ${n} entries older than ${this.settings.retentionDays} days pruned`) },
        (err) => { this.log('audit log: prune failed', err) }
      )
    }, { firstMs: Math.min(60_000, this.settings.pruneEveryMs) })
    return async () => {
      await stop()
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
