/**
 * The core as a package like the others: cms/v2 (content, users,
 * application passwords), oembed/1.0, the site index `/` and `/batch/v1`,
 * the sign-in and authorization pages, scheduled publishing, the
 * lifecycle-event worker, webhook deliveries, and its migrations. It serves in every process.
 */
import { ATTACHMENT_POST_TYPE } from './content/media/media.js'
import { Type } from '@sinclair/typebox'
import { batchRoutes } from './batch/index.js'
import { cmsV2Namespace } from './cms-v2.js'
import { startContentJobs } from './content/index.js'
import { coreMigrations } from './migrations.js'
import { oembedNamespace } from './oembed/index.js'
import { definePackage } from './platform.js'
import { siteRoutes } from './site.js'
import { authorizePage } from './users/index.js'
import { hasAnyUser } from './users/store.js'
import { isContentRoute, maintenanceHold } from './platform/maintenance.js'
import { rateLimits } from './platform/rate-limits/limits.js'
import { WEBHOOK_LISTENERS } from './webhooks/index.js'
import { textPool } from './text/text-pool.js'

export const corePackage = definePackage({
  name: '@cms/core',
  namespaces: ['cms/v2', 'oembed/1.0'],
  // Webhooks: every lifecycle event becomes a delivery per subscription (webhooks/index.ts).
  listeners: WEBHOOK_LISTENERS,
  options: Type.Object({
    /** Mount the sign-in and application authorization pages under /cms-admin/. */
    adminPages: Type.Boolean({ default: true })
  }, { additionalProperties: false }),
  contribute (api) {
    api.migrations(coreMigrations.folder)
    // Attachments are a type of the core's: listed after posts and pages, before any package's types.
    api.postType(ATTACHMENT_POST_TYPE)
  },
  async serve (api, options, app) {
    const { services } = api
    api.namespace('cms/v2', () => cmsV2Namespace(services).routes)
    api.namespace('oembed/1.0', () => oembedNamespace(services).routes)
    api.routes(() => [...siteRoutes(services), ...batchRoutes(services)])
    api.background('scheduled publishing', () => startContentJobs(services))
    // Any replica may run it: events are taken with FOR UPDATE SKIP LOCKED (events/index.ts).
    // It also prunes delivered events, so it runs whether or not this process has listeners.
    const webhooks = services.webhooks
    for (const name of Object.keys(WEBHOOK_LISTENERS)) api.on(name, async (event, batch) => { await webhooks.enqueue(event, batch.epoch('webhooks')) })
    // Any replica may run it: deliveries are taken with FOR UPDATE SKIP LOCKED and a lease (webhooks/store.ts).
    api.background('webhook deliveries', () => webhooks.start((message, err) => { app.log.error({ err }, message) }))
    api.background('lifecycle events', () => services.events.start((message, err) => { app.log.error({ err }, message) }))
    // Before any route it limits is added (the sign-in form's, then the kernel's).
    if (services.settings.rateLimits?.enabled === true) await rateLimits(app, { store: services.store, settings: services.settings.rateLimits })
    // The audit log's queue reports to the app's log; its retention prune may run on any replica (audit/store.ts).
    services.audit.logTo((message, err) => { app.log.error({ err }, message) })
    api.background('audit log retention', () => services.audit.start())
    // Entries still queued are written before the app (and its store) closes.
    app.addHook('onClose', async () => { await services.audit.flush() })
    if (options.adminPages) await app.register(authorizePage, { services })
    // Maintenance mode (maintenance.ts): anonymous content reads wait; signed-in callers do not.
    // On the content routes only, as each is added (the kernel mounts them after the packages).
    const hold = maintenanceHold(services.maintenance)
    app.addHook('onRoute', (route) => {
      if (isContentRoute(route)) route.preHandler = [...[route.preHandler ?? []].flat(), hold]
    })
    // What the first large text would load beside a request, loaded before the app takes any (text-pool.ts `warm`):
    // onReady is awaited before listening (onListen runs beside the first requests).
    app.addHook('onReady', async () => {
      await textPool.warm().catch((err: unknown) => { app.log.warn({ err }, 'could not load the text filter ahead') })
    })
    app.addHook('onListen', async () => {
      try {
        if (!(await hasAnyUser(services.store))) {
          // The embedded database admits one process: the CLI needs the service stopped.
          app.log.warn(services.store.kind === 'pglite'
            ? 'No user exists yet. Create the first administrator: start with CMS_ADMIN_LOGIN, CMS_ADMIN_EMAIL and CMS_ADMIN_PASSWORD set, or stop the service and run: npx -y pnpm@10.34.8 cms user create <login> --email <address> --role administrator'
            : 'No user exists yet. Create the first administrator: npx -y pnpm@10.34.8 cms user create <login> --email <address> --role administrator (or start with CMS_ADMIN_LOGIN, CMS_ADMIN_EMAIL and CMS_ADMIN_PASSWORD set)')
        }
      } catch (err) {
        app.log.warn({ err }, 'could not check for users')
      }
    })
  }
})
