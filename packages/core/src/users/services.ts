/** The services as the users folder knows them: the audit log's (the sign-in forms record theirs), with roles and what deleting a user does to their content. */
import type { AuditServices } from '../audit/services.js'
import type { RoleRegistry } from './capabilities.js'
import type { UserContentHandler } from './authors.js'

export interface UserServices extends AuditServices {
  /** The roles and the capabilities each grants (the core's five, plus packages' grants). */
  roles: RoleRegistry
  /** What deleting a user does to their posts (the content module's answer, given to the users module). */
  userContent: UserContentHandler
}
