/**
 * @cms/assistant: the AI site assistant's namespace `assistant/v1`
 * (seo-rollback-assistant-addons.md §3), one file per route family:
 *
 *   snippets.ts     snippets, snippets/{id}, /artifact, /files, /files/{filename}, /publish, snippets/validate
 *   artifacts.ts    artifacts/{artifact_id}, /rename, /files
 *   dev-mode.ts     dev-mode, dev-mode/status
 *   super-admin.ts  super-admin/status, /opt-in, /execute, /list, /read
 *   site.ts         settings/{name}, website-uuid, cms-options, cms-options/health, consent, token
 *   builder-site.ts builder-kit, /schema, /fonts, builder-library/template-types, builder-library/{id}/sync-type,
 *                   builder-settings/supported-post-types, page-templates (through the builder's service)
 *
 * Snippets and their dev and prod file sets are the package's own tables
 * (schema.ts, ../migrations); the file rules are file-rules.ts; code runs
 * only in the QuickJS sandbox of a worker thread (sandbox.ts,
 * sandbox-worker.mjs). Who may call what: access.ts and each route's `permission`.
 */
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { builderService } from '@cms/builder'
import { USE_ASSISTANT } from './access.js'
import { artifactRoutes } from './artifacts.js'
import { builderSiteRoutes } from './builder-site.js'
import { assistantConfig } from './config.js'
import { devModeRoutes } from './dev-mode.js'
import { snippetStore } from './snippet-store.js'
import { siteRoutes } from './site.js'
import { snippetRoutes } from './snippets.js'
import { superAdminRoutes } from './super-admin.js'

export const assistantPackage = definePackage({
  name: '@cms/assistant',
  dependencies: ['@cms/core', '@cms/builder'],
  namespaces: ['assistant/v1'],
  // Served while the plugin `assistant` is active (the registry's status).
  activation: [{ type: 'plugin', slug: 'assistant' }],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    api.capability(USE_ASSISTANT, ['administrator'])
    const config = assistantConfig(process.env)
    const snippets = snippetStore(api.services)
    const devMode = devModeRoutes(api)
    const superAdmin = superAdminRoutes(api, config)
    const site = siteRoutes(api)
    const builder = api.require(builderService)
    api.namespace('assistant/v1', () => [
      ...snippetRoutes(snippets),
      ...artifactRoutes(snippets),
      ...devMode,
      ...superAdmin,
      ...site,
      ...builderSiteRoutes(api, builder)
    ])
  }
})
