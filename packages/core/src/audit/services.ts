/** The services as the audit folder knows them: the platform's, with the audit log. */
import type { PlatformServices } from '../platform/services.js'
import type { AuditLog } from './store.js'

export interface AuditServices extends PlatformServices {
  /** The audit log of every write (audit/store.ts): its queue, reader and prune. */
  audit: AuditLog
}
