/**
 * The shape of an audit entry, alone in its module: the writer (store.ts)
 * and the outbox (outbox.ts) both need it, and each needs the other's code.
 */
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
