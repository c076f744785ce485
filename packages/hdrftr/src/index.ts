/**
 * @cms/hdrftr: the header/footer plugin's namespace `hdrftr/v1`
 * (builder-family.md §7), one file per route family:
 *
 *   widgets.ts        widgets (the catalogue, activation from `hdrftr_widgets`)
 *   plugins.ts        plugins, recommended-plugins, templates (install status from the package registry)
 *   email-webhook.ts  email-webhook (the subscription upstream)
 *   mcp.ts            mcp-settings, mcp-abilities          (profile option `learnRoutes`)
 *   learn.ts          get-learn-chapters, update-learn-progress (profile option `learnRoutes`)
 *
 * Profile B serves the learn and MCP routes (its `hdrftr/v1` option
 * `learnRoutes: true`); profile A the first five. Every route needs
 * `manage_options` (access.ts). Site state is in options
 * the package declares; learning progress in each user's meta; which
 * plugins are installed and active, in the package registry (`@cms/registry`).
 */
import { Type } from '@sinclair/typebox'
import { adminLink, definePackage } from '@cms/core'
import { packageRegistry } from '@cms/registry'
import { emailWebhookRoutes, declareSubscriptionOption } from './email-webhook.js'
import { learnRoutes } from './learn.js'
import { declareMcpOption, mcpRoutes } from './mcp.js'
import { pluginCatalogueRoutes, type InstallStatus } from './plugins.js'
import { usageEvents } from './usage-events.js'
import { declareWidgetsOption, widgetRoutes } from './widgets.js'

export const hdrftrPackage = definePackage({
  name: '@cms/hdrftr',
  dependencies: ['@cms/core', '@cms/registry'],
  namespaces: ['hdrftr/v1'],
  // Served while the plugin `hdrftr` is active (the registry's status).
  activation: [{ type: 'plugin', slug: 'hdrftr' }],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    const widgets = declareWidgetsOption(api)
    const subscription = declareSubscriptionOption(api)
    const mcp = declareMcpOption(api)
    const usage = usageEvents(api)
    const registry = api.require(packageRegistry)
    const statusOf = async (slug: string): Promise<InstallStatus> => {
      const p = await registry.get('plugin', slug)
      return p === null ? 'Install' : p.status === 'active' ? 'Activated' : 'Installed'
    }
    api.namespace('hdrftr/v1', (options) => [
      ...widgetRoutes(widgets),
      ...pluginCatalogueRoutes(statusOf, (page) => adminLink(api.services.settings, page)),
      ...emailWebhookRoutes(api, subscription),
      ...(options.learnRoutes === true
        ? [
            ...mcpRoutes(mcp, usage, { assistantActive: async () => (await statusOf('assistant')) === 'Activated', mcpAdapterActive: async () => (await statusOf('mcp-adapter')) === 'Activated' }),
            ...learnRoutes(api, usage, { proInstalled: async () => (await statusOf('hdrftr-pro')) !== 'Install' })
          ]
        : [])
    ])
  }
})
