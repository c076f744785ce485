/**
 * The audit outbox: a write's entry committed with the write itself.
 *
 * While a write endpoint runs, its entry as known before the answer (who,
 * from where, which route, the arguments sent; the outcome the commit
 * implies) waits in an AsyncLocalStorage (`runWrite`, the kernel's `around`
 * seam, or a command line's `runCommand`). The first transaction the write
 * commits through `store.transaction` carries it: the store's commit hook
 * (`@cms/store` onCommit) inserts one `audit_outbox` row, keyed by a random
 * uuid, before that transaction's COMMIT, whoever opened the transaction
 * (a core route, a package's route, a command): none of them knows. The
 * post create, a statement of its own, carries it in that statement
 * (`outboxPart`, a CTE of `cms_insert_post`'s call): no statement more.
 *
 * Once answered, the entry with its real outcome replaces the row
 * (AuditLog: one statement deletes the row by its key and inserts the
 * entry, only if the delete found it). A row nobody replaced (the process
 * died between the commit and that statement, or the statement failed) is
 * moved by any replica after a grace period (`moveOrphans`), with the
 * outcome the commit implies (PROVISIONAL_STATUS, UNANSWERED). The delete
 * decides who records it: exactly one of them.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import { sql, type SQL } from 'drizzle-orm'
import { executeNamed, onCommit, type CommitHook, type Store } from '@cms/store'
import type { AuditEntry } from './entry.js'

/**
 * What an entry moved without its answer says: the write committed (a
 * success, so 200), and `error_code` tells the answer was never seen.
 */
export const PROVISIONAL_STATUS = 200
export const UNANSWERED = 'unanswered'

/** A write in progress. */
export interface PendingWrite {
  /** The outbox row's key. */
  readonly key: string
  /** Its entry as the commit implies it (worked out when first carried). */
  readonly provisional: () => AuditEntry
  /** A commit carried the row (set once the commit succeeded). */
  carried: boolean
  /** Answered: a commit afterwards (a job the write started) carries nothing. */
  done: boolean
}

const current = new AsyncLocalStorage<PendingWrite>()

/** Runs a write with its entry waiting to be carried by what it commits. */
export async function runWrite<T> (provisional: () => AuditEntry, run: (pending: PendingWrite) => Promise<T>): Promise<T> {
  const pending: PendingWrite = { key: randomUUID(), provisional, carried: false, done: false }
  return await current.run(pending, async () => await run(pending))
}

/** The write in progress, if any. */
export function currentWrite (): PendingWrite | undefined {
  return current.getStore()
}

/** The write in progress whose row no commit carried yet. */
function uncarried (): PendingWrite | undefined {
  const pending = current.getStore()
  return pending === undefined || pending.carried || pending.done ? undefined : pending
}

/** The row's `entry`: audit_log's columns by name (`jsonb_populate_record` reads it back). */
function rowOf (entry: AuditEntry): string {
  return JSON.stringify({
    at: entry.at.toISOString(),
    user_id: entry.userId,
    credential: entry.credential,
    credential_id: entry.credentialId,
    ip: entry.ip,
    method: entry.method,
    route: entry.route,
    path: entry.path,
    object_type: entry.objectType,
    object_id: entry.objectId,
    status: entry.status,
    error_code: entry.errorCode,
    fields: entry.fields,
    values: entry.values
  })
}

/** Inserts the write's row in the transaction about to commit; marks it carried once committed. */
const carry: CommitHook = (tx) => {
  const pending = uncarried()
  if (pending === undefined) return undefined
  // ON CONFLICT: two transactions of one write committing at once carry one row.
  return executeNamed(tx, 'audit_outbox_add', sql`insert into audit_outbox (key, entry) values (${pending.key}::uuid, ${rowOf(pending.provisional())}::jsonb) on conflict (key) do nothing`)
    .then(() => () => { pending.carried = true })
}

/** Stores whose transactions carry rows (each once, whatever number of audit logs use it). */
const hooked = new WeakSet<Store>()

/** Lets `store`'s transactions carry the writes' rows; false when it cannot (a store standing for a transaction). */
export function carryOn (store: Store): boolean {
  if (hooked.has(store)) return true
  try {
    onCommit(store, carry)
  } catch {
    return false
  }
  hooked.add(store)
  return true
}

/**
 * The part of a single statement that writes (the post create) carrying
 * the write's row: a CTE inserting it when `w.written` (the statement's
 * result) says something was written; its object id is the written one's.
 * Its text never changes (a named statement): when `alone` is false (the
 * statement runs in a transaction, whose commit carries the row) or no
 * write is in progress, its parameters (`key`, `entry`) are null and it
 * inserts nothing. Call `done` once the statement wrote: the row is then
 * committed.
 */
export function outboxPart (alone: boolean): { cte: SQL, key: string | null, entry: string | null, done: () => void } {
  const pending = alone ? uncarried() : undefined
  const key = pending?.key ?? null
  const entry = pending === undefined ? null : rowOf(pending.provisional())
  return {
    cte: outboxCte(key, entry),
    key,
    entry,
    done: () => { if (pending !== undefined) pending.carried = true }
  }
}

/**
 * {@link outboxPart}'s CTE with its two parameters given: values, or
 * `sql.placeholder`s for a statement built once (the same text).
 */
export function outboxCte (key: unknown, entry: unknown): SQL {
  return sql`outboxed as (insert into audit_outbox (key, entry)
      select ${key}::uuid, ${entry}::jsonb || jsonb_build_object('object_id', w.written->>'id') from w
      where w.written is not null and ${key}::uuid is not null on conflict (key) do nothing)`
}

/**
 * Moves rows older than `graceMs` (their process is gone, or could not
 * replace them) into audit_log as their commit implied, oldest first, at
 * most `limit`; answers how many. Rows another replica is moving are
 * skipped (`FOR UPDATE SKIP LOCKED`); the delete makes each move once.
 */
export async function moveOrphans (store: Store, graceMs: number, limit: number): Promise<number> {
  const rows = await executeNamed<{ n: number }>(store, 'audit_outbox_orphans', sql`
    with moved as (
      delete from audit_outbox where key in (
        select key from audit_outbox where at < now() - make_interval(secs => ${graceMs / 1000}::float8)
        order by at limit ${limit}::int for update skip locked)
      -- The outbox's trigger lets rows leave only by a move, which says so for its own transaction.
      and set_config('cms.audit_move', 'on', true) = 'on'
      returning at, entry),
    logged as (
      insert into audit_log (at, user_id, credential, credential_id, ip, method, route, path, object_type, object_id, status, error_code, fields, "values")
      select m.at, r.user_id, r.credential, r.credential_id, r.ip, r.method, r.route, r.path, r.object_type, r.object_id, r.status, r.error_code,
        coalesce(r.fields, '{}'), coalesce(r."values", '{}')
      from moved m cross join lateral jsonb_populate_record(null::audit_log, m.entry) r
      returning 1)
    select count(*)::int as n from logged`)
  return Number(rows[0]?.n ?? 0)
}
