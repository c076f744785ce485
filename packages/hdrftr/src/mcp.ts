/**
 * hdrftr/v1 AI tools, profile B (builder-family.md §7): the plugin's
 * abilities (what an AI agent may do through the site's abilities API and
 * the plugin's MCP server) and the settings that govern them, kept in the
 * `hdrftr_mcp_settings` option.
 *
 *   GET  mcp-settings   the five settings merged with their defaults, plus
 *                       computed fields (which APIs are active, the MCP
 *                       server's URL, how many abilities there are)
 *   POST mcp-settings   a JSON object; only the five keys are taken
 *                       (booleans cast, `disabled_abilities` a list of
 *                       names), the others kept; a body that is not an
 *                       object is `400 invalid_params`. The first time a
 *                       setting is turned on is a usage event.
 *   GET  mcp-abilities  the abilities registered with the site's abilities
 *                       API: none, as the plugin answers without one (this
 *                       service has no abilities API: cms-abilities/v1 serves
 *                       its root only), so nothing is listed that cannot run
 *
 * Administrators only (`manage_options`).
 */
import { Type, type Static } from '@sinclair/typebox'
import { endpoint, isPlainObject, route, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import type { PackageApi, PackageOption } from '@cms/core'
import { mayManageSettings } from './access.js'
import { hdrftrErrors } from './errors.js'
import type { UsageEvents } from './usage-events.js'

const KEYS = ['enable_abilities', 'allow_modifications', 'dedicated_server', 'assistant_enabled', 'disabled_abilities'] as const

export const MCP_SETTINGS = Type.Object({
  enable_abilities: Type.Boolean(),
  allow_modifications: Type.Boolean(),
  dedicated_server: Type.Boolean(),
  assistant_enabled: Type.Boolean(),
  disabled_abilities: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200 })
}, { additionalProperties: false })
type McpSettings = Static<typeof MCP_SETTINGS>

export const MCP_DEFAULTS: McpSettings = { enable_abilities: false, allow_modifications: true, dedicated_server: false, assistant_enabled: false, disabled_abilities: [] }

export function declareMcpOption (api: PackageApi): PackageOption<typeof MCP_SETTINGS> {
  return api.option('hdrftr_mcp_settings', MCP_SETTINGS, { default: MCP_DEFAULTS, description: 'The header/footer plugin\'s AI tools settings (abilities, MCP server, assistant).' })
}

/** As the product casts: false, 0, "", "0", "false", "no", "off" and null are false; other scalars true. */
function castBoolean (key: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value
  if (value === null) return false
  if (typeof value === 'number') return value !== 0
  if (typeof value === 'string') return !['', '0', 'false', 'no', 'off'].includes(value.trim().toLowerCase())
  throw hdrftrErrors.invalid_params({ params: { [key]: `${key} must be a boolean.` } })
}

function abilityNames (value: unknown): string[] {
  if (!Array.isArray(value) || value.length > 200 || !value.every((v) => typeof v === 'string' && v.length <= 200)) {
    throw hdrftrErrors.invalid_params({ params: { disabled_abilities: 'disabled_abilities must be a list of at most 200 ability names.' } })
  }
  return [...new Set(value as string[])]
}

export interface McpEnvironment {
  /** Whether the assistant plugin is active on this site. */
  assistantActive: (req: RestRequest<any>) => Promise<boolean>
  /** Whether an MCP adapter plugin is active on this site. */
  mcpAdapterActive: () => Promise<boolean>
}

export function mcpRoutes (option: PackageOption<typeof MCP_SETTINGS>, usage: UsageEvents, env: McpEnvironment): RelativeRouteDecl[] {
  const current = async (): Promise<McpSettings> => ({ ...MCP_DEFAULTS, ...await option.get() })

  return [
    route({
      path: '/mcp-settings',
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: {},
          summary: 'The AI tools settings with the computed fields',
          response: Type.Object({ is_abilities_api_active: Type.Boolean(), is_mcp_adapter_active: Type.Boolean(), is_assistant_active: Type.Boolean(), dedicated_server_url: Type.Union([Type.String(), Type.Null()]), total_abilities: Type.Integer() }, { description: 'The stored settings and the computed fields.' }),
          permission: mayManageSettings,
          handler: async (req) => {
            const settings = await current()
            return {
              ...settings,
              // What this service has: no abilities API (cms-abilities/v1 serves its root only)
              // and no dedicated MCP server, so nothing to point at.
              is_abilities_api_active: false,
              is_mcp_adapter_active: await env.mcpAdapterActive(),
              is_assistant_active: await env.assistantActive(req),
              dedicated_server_url: null,
              // Abilities registered with an abilities API: none here (see mcp-abilities).
              total_abilities: 0
            }
          }
        }),
        endpoint({
          methods: ['POST'],
          args: {},
          summary: 'Save the AI tools settings (the five keys only)',
          response: Type.Object({ success: Type.Boolean(), settings: Type.Object({}, { description: 'The settings as saved.' }) }),
          permission: mayManageSettings,
          handler: async (req) => {
            const body = req.sentBody
            if (!isPlainObject(body)) throw hdrftrErrors.invalid_params()
            const before = await current()
            const next: McpSettings = { ...before }
            for (const key of KEYS) {
              if (!Object.hasOwn(body, key)) continue
              if (key === 'disabled_abilities') next.disabled_abilities = abilityNames(body[key])
              else next[key] = castBoolean(key, body[key])
            }
            const saved = await option.set(next)
            for (const key of ['enable_abilities', 'dedicated_server', 'assistant_enabled'] as const) {
              if (saved[key] && !before[key]) await usage.once(`mcp_${key}`)
            }
            return { success: true, settings: saved }
          }
        })
      ]
    }),
    route({
      path: '/mcp-abilities',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The plugin\'s abilities registered with the abilities API (none: this service has no abilities API)',
        response: Type.Array(Type.Object({ name: Type.String(), full_name: Type.String(), label: Type.String(), description: Type.String(), category: Type.String(), source: Type.String(), readonly: Type.Boolean(), destructive: Type.Boolean(), is_enabled: Type.Boolean() })),
        permission: mayManageSettings,
        // As the plugin answers without an ability registry: nothing an agent could not run is listed.
        handler: async () => []
      })]
    })
  ]
}
