/**
 * Posts, pages, their revisions and autosaves, the types, statuses and
 * taxonomies that describe them, categories and tags: the content routes of
 * cms/v2, and the scheduled-publishing job.
 */
import type { RelativeRouteDecl } from '@cms/rest'
import type { Services } from '../services.js'
import { mediaRoutes } from '../media/media.js'
import { autosaveRoutes } from './autosaves.js'
import { PAGE_TYPE, POST_TYPE } from './post-types.js'
import { postRoutes } from './posts.js'
import { revisionRoutes } from './revisions.js'
import { startScheduler, type JobOptions } from './scheduler.js'
import { statusRoutes } from './statuses.js'
import { taxonomyRoutes } from './taxonomies.js'
import { termRoutes } from './terms.js'
import { typeRoutes } from './types.js'

export function contentRoutes (services: Services): RelativeRouteDecl[] {
  return [
    ...postRoutes(services, POST_TYPE),
    ...revisionRoutes(services, POST_TYPE),
    ...autosaveRoutes(services, POST_TYPE),
    ...postRoutes(services, PAGE_TYPE),
    ...revisionRoutes(services, PAGE_TYPE),
    ...autosaveRoutes(services, PAGE_TYPE),
    ...mediaRoutes(services),
    ...typeRoutes(services),
    ...statusRoutes(services),
    ...taxonomyRoutes(services),
    ...termRoutes(services)
  ]
}

/** Background jobs of the content module (scheduled publishing); returns a stop function. */
export function startContentJobs (services: Services, opts: JobOptions = {}): () => Promise<void> {
  return startScheduler(services.store, { intervalMs: services.settings.schedulerIntervalMs, ...opts })
}

export { publishDuePosts } from './scheduler.js'
export { allowTemplates } from './post-types.js'
export { TypeRegistry, type PostTypeDefinition, type PostTypeInfo, type TaxonomyDefinition, type TaxonomyInfo } from './type-registry.js'
