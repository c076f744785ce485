/**
 * Users, roles, application passwords and the audit log's writer, without
 * the rest of the core: what the CLI's account commands import
 * (`@cms/core/accounts`), so a `cms user list` loads neither the REST
 * kernel nor the content code (importing the whole core was most of a
 * call's CPU).
 */
export { ROLES, isRole, type Role } from './users/capabilities.js'
export * from './users/store.js'
export { chunkPassword } from './users/passwords.js'
export { appendAuditEntries, type AuditEntry } from './audit/store.js'
export { carryOn, runWrite, UNANSWERED, type PendingWrite } from './audit/outbox.js'
