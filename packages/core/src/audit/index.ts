/**
 * The audit log: every write through any route (each request of a batch,
 * package routes) and every command line that writes, one entry each
 * (entries.ts), committed with the write in an outbox row (outbox.ts) and
 * replaced by its answered form, queued and inserted in batches (store.ts;
 * what can be lost is said there), append-only in the database (core migration
 * 0011_audit_log), read at `GET /cms/v2/audit-log` (routes.ts), pruned
 * after the retention by a job any replica may run.
 */
import type { WriteObserver } from '@cms/rest'
import { afterJoinedCommit } from '@cms/store'
import { entryOf } from './entries.js'
import { carryOn, currentWrite, PROVISIONAL_STATUS, runWrite, UNANSWERED } from './outbox.js'
import type { AuditLog } from './store.js'

export { auditRoutes } from './routes.js'
export { AuditLog, AUDIT_DEFAULTS, appendAuditEntries, type AuditEntry, type AuditSettings } from './store.js'
export { credentialOf } from './entries.js'

/**
 * The kernel's `onWrite` for this audit log; undefined when it is off (the
 * kernel then reports nothing). Its `around` keeps each write in progress
 * for what it commits to carry (outbox.ts); the report, made inside it,
 * queues the answered entry to replace the carried row.
 */
export function auditObserver (audit: AuditLog): WriteObserver | undefined {
  if (!audit.enabled) return undefined
  const observer: WriteObserver = (record) => {
    // Called inside `around` for the writes the kernel ran (outside it: refused before, no row).
    const pending = currentWrite()
    const entry = entryOf(record)
    const key = pending?.carried === true ? pending.key : null
    // A batch's request in its transaction: queued once the outcome is known (its row is committed or gone).
    const deferred = afterJoinedCommit(audit.store(), (outcome) => {
      if (outcome === 'stood') audit.append(entry, key)
      // Undone with its request: an entry never says a write took effect that did not.
      else if (outcome === 'rolled-back') audit.append(entry.status < 400 ? { ...entry, status: 500, errorCode: 'rest_batch_rolled_back' } : entry, null)
      else audit.append({ ...entry, status: 500, errorCode: 'rest_batch_commit_failed' }, null)
    })
    if (!deferred) audit.append(entry, key)
  }
  observer.around = async (begun, run) => {
    carryOn(audit.store())
    return await runWrite(() => ({ ...entryOf({ ...begun(), status: PROVISIONAL_STATUS, body: null }), errorCode: UNANSWERED }), async (pending) => {
      try {
        return await run()
      } finally {
        pending.done = true
      }
    })
  }
  return observer
}
