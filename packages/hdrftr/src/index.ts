/**
 * @cms/hdrftr: the header/footer plugin's namespace `hdrftr/v1`
 * (builder-family.md §7), one file per route family:
 *
 *   widgets.ts        widgets (the catalogue, activation from `hdrftr_widgets`)
 *   (plugins, recommended-plugins and templates read install status from the
 *   package registry and come with it)
 *   email-webhook.ts  email-webhook (the subscription upstream)
 *   mcp.ts            mcp-settings, mcp-abilities          (profile option `learnRoutes`)
 *   learn.ts          get-learn-chapters, update-learn-progress (profile option `learnRoutes`)
 *
 * Profile B serves the learn and MCP routes (its `hdrftr/v1` option
 * `learnRoutes: true`); profile A the first five. Every route needs
 * `manage_options` (access.ts, permissions.ts). Site state is in options
 * the package declares; learning progress in each user's meta.
 */
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { emailWebhookRoutes, declareSubscriptionOption } from './email-webhook.js'
import { learnRoutes } from './learn.js'
import { declareMcpOption, mcpRoutes } from './mcp.js'
import { hdrftrPermissionCases } from './permissions.js'
import { usageEvents } from './usage-events.js'
import { declareWidgetsOption, widgetRoutes } from './widgets.js'

export const hdrftrPackage = definePackage({
  name: '@cms/hdrftr',
  dependencies: ['@cms/core'],
  namespaces: ['hdrftr/v1'],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    const widgets = declareWidgetsOption(api)
    const subscription = declareSubscriptionOption(api)
    const mcp = declareMcpOption(api)
    const usage = usageEvents(api)
    api.namespace('hdrftr/v1', (options) => [
      ...widgetRoutes(widgets),
      ...emailWebhookRoutes(api, subscription),
      ...(options.learnRoutes === true
        ? [
            ...mcpRoutes(mcp, usage, { assistantActive: async (req) => req.registry.namespaces.includes('assistant/v1'), mcpAdapterActive: async () => false }),
            ...learnRoutes(api, usage, { proInstalled: async () => false })
          ]
        : [])
    ])
    api.permissionCases(hdrftrPermissionCases)
  }
})
