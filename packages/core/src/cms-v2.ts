/**
 * The cms/v2 namespace: the content routes first (posts, pages, their
 * revisions and autosaves, terms), then users and application passwords.
 */
import type { NamespaceDecl } from '@cms/rest'
import type { Services } from './services.js'
import { contentRoutes } from './content/index.js'
import { userRoutes } from './users/index.js'

export function cmsV2Namespace (services: Services): NamespaceDecl {
  return { name: 'cms/v2', routes: [...contentRoutes(services), ...userRoutes(services)] }
}
