/**
 * Posts, pages, their revisions and autosaves, the types, statuses and
 * taxonomies that describe them, categories and tags: the content routes of
 * cms/v2, and the scheduled-publishing job.
 *
 * This module is the content folder's public surface: other folders (media
 * first) import content only from here, never from its modules. Content
 * imports nothing of media (cms-v2.ts places the media routes among these).
 */
import type { RelativeRouteDecl } from '@cms/rest'
import type { ContentServices as Services } from './services.js'
import { autosaveRoutes } from './autosaves.js'
import { PAGE_TYPE, POST_TYPE } from './post-types.js'
import { postRoutes } from './posts.js'
import { revisionRoutes } from './revisions.js'
import { startScheduler, type JobOptions } from './scheduler.js'
import { statusRoutes } from './statuses.js'
import { taxonomyRoutes } from './taxonomies.js'
import { termRoutes } from './terms.js'
import { typeRoutes } from './types.js'

/** Posts and pages with their revisions and autosaves (cms/v2 lists the media routes after these). */
export function postAndPageRoutes (services: Services): RelativeRouteDecl[] {
  return [
    ...postRoutes(services, POST_TYPE),
    ...revisionRoutes(services, POST_TYPE),
    ...autosaveRoutes(services, POST_TYPE),
    ...postRoutes(services, PAGE_TYPE),
    ...revisionRoutes(services, PAGE_TYPE),
    ...autosaveRoutes(services, PAGE_TYPE)
  ]
}

/** What describes content: types, statuses, taxonomies, and the terms. */
export function typeAndTermRoutes (services: Services): RelativeRouteDecl[] {
  return [
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
export { searchRoutes } from './search.js'
export { allowTemplates } from './post-types.js'
export { TypeRegistry, type PostTypeDefinition, type PostTypeInfo, type TaxonomyDefinition, type TaxonomyInfo } from './type-registry.js'

// For the media routes: attachments are posts (their store, query, schema, writes and output).
export { fileUrl, UPLOADS_PATH } from './uploads.js'
export { deletePostFully, getMeta, getPost, ownSlugIds, setMeta, uniquePostSlug, type PostRow } from './post-store.js'
export { ATTACHMENT_META, ATTACHMENT_TYPE, permalink, siteSettings, type SiteSettings } from './post-types.js'
export { deleteArgs, listArgs, postItemSchema } from './post-schema.js'
export { metaResponse, type MetaRegistry } from '../platform/meta.js'
export { formatGmt, formatLocal, nowSeconds, parseRequestDate } from '../base/dates.js'
export { contentErrors, denied } from './errors.js'
export { canEdit, canRead, capObject, fieldsOf } from './post-format.js'
export { readableWhere, readRule, type ReadRule } from './post-query.js'
export { preparePost, textParam, writePost } from './post-write.js'
export { renderedContent, renderedExcerpt, renderedTitle } from './render-cache.js'
export { posts } from './schema.js'
export { htmlClass } from '../text/slugs.js'
export { readPostFor, requestSettings } from './request-reads.js'
export { defineCollection, type Collection, type CollectionAccess, type CollectionConfig, type CollectionView, type CollectionWrites, type EndpointText } from './collection.js'
