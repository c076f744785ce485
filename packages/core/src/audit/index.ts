/**
 * The audit log: every write through any route (each request of a batch,
 * package routes) and every command line that writes, one entry each
 * (entries.ts), queued and inserted in batches (store.ts; what can be lost
 * is said there), append-only in the database (core migration
 * 0011_audit_log), read at `GET /cms/v2/audit-log` (routes.ts), pruned
 * after the retention by a job any replica may run.
 */
import type { WriteObserver } from '@cms/rest'
import { entryOf } from './entries.js'
import type { AuditLog } from './store.js'

export { auditRoutes } from './routes.js'
export { AuditLog, AUDIT_DEFAULTS, appendAuditEntries, type AuditEntry, type AuditSettings } from './store.js'
export { credentialOf } from './entries.js'

/** The kernel's `onWrite` for this audit log; undefined when it is off (the kernel then reports nothing). */
export function auditObserver (audit: AuditLog): WriteObserver | undefined {
  if (!audit.enabled) return undefined
  return (record) => { audit.append(entryOf(record)) }
}
