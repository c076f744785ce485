/** The services as the content folder knows them: the users' (and so the audit log's), with post types and the content reader (uploads: media/services.ts). */
import type { UserServices } from '../users/services.js'
import type { TypeRegistry } from './type-registry.js'
import type { ContentReader } from './reader.js'

export interface ContentServices extends UserServices {
  /** The post types and taxonomies: the core's, then those packages register. */
  types: TypeRegistry
  /** Read functions over the core's content (posts by query, a post with meta and terms, user meta): see reader.ts. */
  content: ContentReader
}
