/**
 * The services as the platform layer knows them: the store, the
 * deployment's settings, and the registries packages extend (meta,
 * fields, options, lifecycle events, activation, upstreams). Each folder
 * above adds what it brings (users/services.ts, audit/services.ts,
 * content/services.ts, webhooks/services.ts); services.ts at the top
 * composes them all. A folder types its routes with its own layer's
 * services, so no folder imports one above it (scripts/folder-cycles.mjs).
 */
import type { Store } from '@cms/store'
import type { TextLimits } from '@cms/rest'
import type { TextPoolSettings } from '../text/text-pool.js'
import type { MetaRegistry } from './meta.js'
import type { FieldRegistry } from './fields.js'
import type { Upstreams } from './upstream.js'
import type { PackageOptions } from './package-options.js'
import type { LifecycleEvents } from './events/index.js'
import type { SiteActivation } from './activation.js'
import type { PackageSettings } from './package-settings.js'
import type { MaintenanceMode } from './maintenance.js'
import type { RateLimitOptions } from './rate-limits/limits.js'

/** Settings of the deployment that namespace packages read (profile, content dir...). */
export interface PlatformSettings {
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
  /** The admin front end's base URL (`CMS_ADMIN_URL`); unset: admin links are null or left out (admin-links.ts). */
  adminUrl?: string
  /** Rate limits (`CMS_RATE_LIMIT*`, platform/rate-limits); unset or not enabled: none. */
  rateLimits?: RateLimitOptions['settings']
}

export interface PlatformServices {
  store: Store
  settings: PlatformSettings
  /** The registered post meta (the core's keys, then each package's). */
  meta: MetaRegistry
  /** The registered user meta (packages' keys; shown under `meta` in cms/v2 users once one is registered). */
  userMeta: MetaRegistry
  /** The registered comment meta (packages' keys; the `meta` field of cms/v2 comments). */
  commentMeta: MetaRegistry
  /** Fields packages added to cms/v2 posts, pages and users (`api.registerField`, see fields.ts). */
  fields: FieldRegistry
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
}
