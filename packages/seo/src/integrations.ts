/**
 * Integrations and the analytics connector's local state
 * (seo-rollback-assistant-addons.md §1.3), all `manage_seo_options`:
 *
 *   integrations/set_active                                    switch a known integration on or off
 *   analytics_connector_configuration_permanent_dismissal      the connector's setup widget hidden for good
 *   analytics_connector_manage_consent                         the site's consent to connect the connector
 *   setup_steps_tracking                                       the setup widget's tracked steps
 *
 * The options are state.ts's. Success bodies keep the real shapes
 * (`{"json": {"success": true, "status": 200}}` for set_active); an unknown
 * integration is a 400 (the argument's enum).
 */
import { Type } from '@sinclair/typebox'
import { endpoint, Enum, invalidParam, route, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { mayManageSeo } from './access.js'
import { seoErrors } from './errors.js'
import { INTEGRATIONS, SETUP_TRACKING, updateOption, type SeoOptions } from './state.js'

const YES_NO = ['yes', 'no'] as const
const STAGES = ['install', 'activate', 'setup', 'grantConsent', 'successfullyConnected'] as const
/** Each tracked value's allowed values. */
const TRACKED: Record<keyof typeof SETUP_TRACKING, readonly string[]> = {
  setup_widget_loaded: YES_NO,
  setup_widget_temporarily_dismissed: YES_NO,
  setup_widget_permanently_dismissed: YES_NO,
  first_interaction_stage: STAGES,
  last_interaction_stage: STAGES
}

export function integrationRoutes (api: PackageApi, options: SeoOptions): RelativeRouteDecl[] {
  const setActive = route({
    path: '/integrations/set_active',
    endpoints: [endpoint({
      methods: ['POST'],
      args: {
        active: Type.Boolean({ description: 'On or off.' }),
        integration: Enum(INTEGRATIONS, { description: 'The integration.' })
      },
      summary: 'Switch an integration on or off',
      response: Type.Object({ json: Type.Object({ success: Type.Boolean(), status: Type.Integer() }) }),
      permission: mayManageSeo,
      handler: async (req) => {
        await updateOption(api, options.integrations, (current) => ({ ...current, [req.params.integration]: req.params.active }))
        return { json: { success: true, status: 200 } }
      }
    })]
  })

  const flag = (path: string, arg: 'is_dismissed' | 'consent', option: SeoOptions['analytics_connector_connected'], summary: string): RelativeRouteDecl => route({
    path,
    endpoints: [endpoint({
      methods: ['POST'],
      args: { [arg]: Type.Boolean({ description: summary }) },
      summary,
      response: Type.Object({ success: Type.Boolean() }),
      permission: mayManageSeo,
      handler: async (req) => {
        await option.set(req.params[arg] as boolean)
        return { success: true }
      }
    })]
  })

  const tracking = route({
    path: '/setup_steps_tracking',
    endpoints: [endpoint({
      methods: ['POST'],
      args: {
        setup_widget_loaded: Type.Optional(Enum(YES_NO, { description: 'The setup widget was shown.' })),
        setup_widget_temporarily_dismissed: Type.Optional(Enum(YES_NO, { description: 'The setup widget was dismissed for now.' })),
        setup_widget_permanently_dismissed: Type.Optional(Enum(YES_NO, { description: 'The setup widget was dismissed for good.' })),
        first_interaction_stage: Type.Optional(Enum(STAGES, { description: 'The first stage the user interacted with.' })),
        last_interaction_stage: Type.Optional(Enum(STAGES, { description: 'The last stage the user interacted with.' }))
      },
      summary: 'Record the analytics connector setup widget\'s steps',
      response: Type.Object({ success: Type.Boolean() }),
      permission: mayManageSeo.probing({ body: { setup_widget_loaded: 'yes' } }),
      handler: async (req) => {
        // The declared snake_case names, and the camelCase names real clients send (checked against the same values).
        const body = typeof req.sentBody === 'object' && req.sentBody !== null && !Array.isArray(req.sentBody) ? req.sentBody as Record<string, unknown> : {}
        const given: Record<string, string> = {}
        for (const [snake, camel] of Object.entries(SETUP_TRACKING) as Array<[keyof typeof SETUP_TRACKING, string]>) {
          const value = req.params[snake] ?? (Object.hasOwn(body, camel) ? body[camel] : Object.hasOwn(req.query, camel) ? req.query[camel] : undefined)
          if (value === undefined) continue
          if (typeof value !== 'string' || !TRACKED[snake].includes(value)) throw invalidParam(camel, `${camel} is not one of ${TRACKED[snake].join(', ')}.`)
          given[snake] = value
        }
        if (Object.keys(given).length === 0) throw seoErrors.seo_no_valid_parameters()
        await updateOption(api, options.analytics_connector_tracking, (current) => ({ ...current, ...given }))
        return { success: true }
      }
    })]
  })

  return [
    setActive,
    flag('/analytics_connector_configuration_permanent_dismissal', 'is_dismissed', options.analytics_connector_configuration_permanently_dismissed, 'Hide the analytics connector\'s setup widget for good'),
    flag('/analytics_connector_manage_consent', 'consent', options.analytics_connector_connected, 'Consent to connect the analytics connector'),
    tracking
  ]
}
