/**
 * What the core's routes and every package are given when a deployment
 * composes them: the store, the deployment's settings, and the registries
 * packages extend while they register (post meta, roles and capabilities).
 */
import type { Store } from '@cms/store'
import type { TextLimits } from '@cms/rest'
import { MetaRegistry, registerCoreMeta } from './platform/meta.js'
import { FieldRegistry } from './platform/fields.js'
import { RoleRegistry } from './users/capabilities.js'
import { Upstreams } from './platform/upstream.js'
import { PackageOptions } from './platform/package-options.js'
import { LifecycleEvents, type LifecycleOptions } from './platform/events/index.js'
import { SiteActivation } from './platform/activation.js'
import { contentReader, type ContentReader } from './content/reader.js'
import type { MediaStorage } from './content/media/storage.js'
import { mediaPlaceOf, type MediaPlace } from './content/media/place.js'
import { TypeRegistry } from './content/type-registry.js'
import { userContentHandler } from './content/user-content.js'
import type { UserContentHandler } from './users/authors.js'
import type { PackageSettings } from './platform/package-settings.js'
import { maintenanceMode, type MaintenanceMode } from './platform/maintenance.js'
import { textPool, type TextPoolSettings } from './text/text-pool.js'
import { AuditLog, type AuditSettings } from './audit/store.js'
import type { RateLimitOptions } from './platform/rate-limits/limits.js'
import type { WebhookSettings } from './webhooks/settings.js'
import { createWebhookService, type WebhookService } from './webhooks/service.js'

export interface Services {
  store: Store
  /** Settings of the deployment that namespace packages read (profile, content dir...). */
  settings: {
    profile: string
    contentDir: string
    /** The largest upload in bytes (`CMS_UPLOAD_MAX_BYTES`, default 64 MiB). */
    uploadMaxBytes?: number
    /** Most pixels an uploaded image may have (`CMS_IMAGE_MAX_PIXELS`, default 50 million). */
    imageMaxPixels?: number
    /** Images processed at once (`CMS_IMAGE_CONCURRENCY`, default 2). */
    imageConcurrency?: number
    /** What JSON a request or a stored value may hold (`CMS_JSON_MAX_DEPTH`, `CMS_TEXT_MAX_STRINGS`); default the kernel's. */
    textLimits?: TextLimits
    /** The text pool's threads and queue (`CMS_TEXT_THREADS`, `CMS_TEXT_QUEUE`; text-pool.ts). */
    textPool?: TextPoolSettings
    /** How often due scheduled posts are published (`CMS_SCHEDULER_INTERVAL_MS`, default 10 s). */
    schedulerIntervalMs?: number
    /** `local` lets the authorization page redirect to plain-http URLs (`CMS_ENVIRONMENT`). */
    environment?: string
    /** Plugin and theme packages: their source and unpacking limits (`CMS_PACKAGE_*`, package-settings.ts). */
    packages?: PackageSettings
    /** Comments from callers who are not signed in are taken (`CMS_COMMENTS_ANONYMOUS=1`; default off). */
    commentsAnonymous?: boolean
    /** Webhook deliveries: poll, timeout, retries, disabling, retention (`CMS_WEBHOOKS_*`, webhooks/settings.ts). */
    webhooks?: WebhookSettings
    /** The admin front end's base URL (`CMS_ADMIN_URL`); unset: admin links are null or left out (admin-links.ts). */
    adminUrl?: string
    /** The audit log: on or off (`CMS_AUDIT_LOG`), its retention (`CMS_AUDIT_RETENTION_DAYS`); default on, 90 days. */
    audit?: Partial<AuditSettings>
    /** Rate limits (`CMS_RATE_LIMIT*`, platform/rate-limits); unset or not enabled: none. */
    rateLimits?: RateLimitOptions['settings']
  }
  /** Where uploaded files live (default: `uploads/` under the content directory). */
  mediaStorage?: MediaStorage
  /** The uploads' storage (`mediaStorage` or the default), work directory and size limit. */
  media: MediaPlace
  /** The post types and taxonomies: the core's, then those packages register. */
  types: TypeRegistry
  /** What deleting a user does to their posts (the content module's answer, given to the users module). */
  userContent: UserContentHandler
  /** The registered post meta (the core's keys, then each package's). */
  meta: MetaRegistry
  /** The registered user meta (packages' keys; shown under `meta` in cms/v2 users once one is registered). */
  userMeta: MetaRegistry
  /** The registered comment meta (packages' keys; the `meta` field of cms/v2 comments). */
  commentMeta: MetaRegistry
  /** Fields packages added to cms/v2 posts, pages and users (`api.registerField`, see fields.ts). */
  fields: FieldRegistry
  /** The roles and the capabilities each grants (the core's five, plus packages' grants). */
  roles: RoleRegistry
  /** Which packages' contributions are off now (a deactivated plugin's: its capabilities and listeners too; activation.ts). */
  activation: SiteActivation
  /** The outside services configured for this deployment (`CMS_UPSTREAM_<NAME>_*`, see upstream.ts). */
  upstreams: Upstreams
  /** The site options packages declared, with their schemas (see package-options.ts). */
  options: PackageOptions
  /** Post and user lifecycle events: the listeners packages registered and the outbox worker (see events/index.ts). */
  events: LifecycleEvents
  /** Maintenance mode: anonymous content reads answer 503 while a package holds it (maintenance.ts). */
  maintenance: MaintenanceMode
  /** The audit log of every write (audit/store.ts): its queue, reader and prune. */
  audit: AuditLog
  /** Webhook deliveries (webhooks/service.ts): the listener's fan-out, the sending worker, the secrets and outbound client the routes share. */
  webhooks: WebhookService
  /** Read functions over the core's content (posts by query, a post with meta and terms, user meta): see content-reader.ts. */
  content: ContentReader
}

/** Services with the core's own registrations: its meta keys and its five roles. Without `upstreams`, none is configured. */
export function createServices (base: Pick<Services, 'store' | 'settings' | 'mediaStorage'> & { upstreams?: Upstreams, events?: LifecycleOptions }): Services {
  const meta = new MetaRegistry()
  registerCoreMeta(meta)
  // The process's one text pool takes the settings of the deployment composed last (one per process in practice).
  textPool.configure(base.settings.textPool)
  const activation = new SiteActivation(() => base.store)
  return { ...base, activation, media: mediaPlaceOf(base.settings, base.mediaStorage), types: new TypeRegistry(), userContent: userContentHandler, meta, userMeta: new MetaRegistry('user'), commentMeta: new MetaRegistry('comment'), fields: new FieldRegistry(), roles: new RoleRegistry(), upstreams: base.upstreams ?? new Upstreams(), options: new PackageOptions(() => base.store), events: new LifecycleEvents(() => base.store, base.events, async (validity) => await activation.off(validity)), content: contentReader(() => base.store), maintenance: maintenanceMode(base.settings.contentDir), audit: new AuditLog(() => base.store, base.settings.audit), webhooks: createWebhookService(() => base.store, base.settings.webhooks) }
}
