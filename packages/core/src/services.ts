/**
 * What the core's routes and every package are given when a deployment
 * composes them: the store, the deployment's settings, and the registries
 * packages extend while they register (post meta, roles and capabilities).
 * Each layer declares its own part (platform/services.ts, users/, audit/,
 * content/, webhooks/services.ts); this file puts them together.
 */
import { MetaRegistry, registerCoreMeta } from './platform/meta.js'
import { FieldRegistry } from './platform/fields.js'
import { RoleRegistry } from './users/capabilities.js'
import { Upstreams } from './platform/upstream.js'
import { PackageOptions } from './platform/package-options.js'
import { LifecycleEvents, type LifecycleOptions } from './platform/events/index.js'
import { SiteActivation } from './platform/activation.js'
import { contentReader } from './content/reader.js'
import { mediaPlaceOf } from './content/media/place.js'
import { TypeRegistry } from './content/type-registry.js'
import { userContentHandler } from './content/user-content.js'
import { maintenanceMode } from './platform/maintenance.js'
import { textPool } from './text/text-pool.js'
import { AuditLog, type AuditSettings } from './audit/store.js'
import type { WebhookSettings } from './webhooks/settings.js'
import { createWebhookService } from './webhooks/service.js'
import type { PlatformSettings } from './platform/services.js'
import type { WebhookServices } from './webhooks/services.js'
import type { MediaServices } from './content/media/services.js'

export interface Services extends WebhookServices, MediaServices {
  settings: Settings
}

/** The deployment's settings: the platform's, with the audit log's and the webhooks'. */
export interface Settings extends PlatformSettings {
  /** Webhook deliveries: poll, timeout, retries, disabling, retention (`CMS_WEBHOOKS_*`, webhooks/settings.ts). */
  webhooks?: WebhookSettings
  /** The audit log: on or off (`CMS_AUDIT_LOG`), its retention (`CMS_AUDIT_RETENTION_DAYS`); default on, 90 days. */
  audit?: Partial<AuditSettings>
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
