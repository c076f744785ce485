/**
 * The cms/v2 namespace: the content routes first (posts, pages, their
 * revisions and autosaves, media, types, statuses, taxonomies, terms), then users
 * and application passwords, comments, search, the site settings, webhooks
 * and the audit log.
 */
import { defineNamespace, type NamespaceDecl } from '@cms/rest'
import type { Services } from './services.js'
import { postAndPageRoutes, searchRoutes, typeAndTermRoutes } from './content/index.js'
import { mediaRoutes } from './content/media/media.js'
import { userRoutes } from './users/index.js'
import { settingsRoutes } from './settings.js'
import { commentRoutes } from './comments/index.js'
import { webhookRoutes } from './webhooks/index.js'
import { auditRoutes } from './audit/index.js'

export function cmsV2Namespace (services: Services): NamespaceDecl {
  return defineNamespace('cms/v2', [...postAndPageRoutes(services), ...mediaRoutes(services), ...typeAndTermRoutes(services), ...userRoutes(services), ...commentRoutes(services), ...searchRoutes(services), ...settingsRoutes(services), ...webhookRoutes(services), ...auditRoutes(services)])
}
