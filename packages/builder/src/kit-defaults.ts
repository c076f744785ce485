/**
 * builder/v1 kit-elements-defaults (builder-family.md §2.5, "Save as
 * Default"): per element or widget type, the default values of its
 * controls, kept on the kit. GET needs `edit_posts`; POST, PUT and PATCH
 * (alike: each replaces the type's entry) and DELETE `manage_options`.
 * Only real controls of a known type are kept (elements.ts); an unknown
 * type is `400 rest_invalid_param`. Writes answer `{}`.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, invalidParam, route, type RelativeRouteDecl, anyObject } from '@cms/rest'
import { mayEditPosts, mayManageOptions } from './access.js'
import { controlsOf } from './elements.js'
import type { KitStore } from './kit.js'
import { filterStrings } from './sanitize.js'

function knownType (type: string): readonly string[] {
  const controls = controlsOf(type)
  if (controls === undefined) throw invalidParam('type', 'type is not a known element or widget type.')
  return controls
}

export function kitDefaultsRoutes (kits: KitStore): RelativeRouteDecl[] {
  const typeArg = { type: Type.String({ description: 'The element or widget type.' }) }
  return [
    route({
      path: '/kit-elements-defaults',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The default control values of each element type, keyed by type',
        response: Type.Record(Type.String(), anyObject('The control values of the type.'), { description: 'Keyed by element type.' }),
        permission: mayEditPosts,
        handler: async (req) => (await kits.load(req.siteUrl)).defaults
      })]
    }),
    route({
      path: '/kit-elements-defaults/{type}',
      vars: { type: '[\\w_-]+' },
      args: typeArg,
      endpoints: [
        endpoint({
          methods: ['POST', 'PUT', 'PATCH'],
          args: { ...typeArg, settings: Type.Object({}, { description: 'Default values for that type.', additionalProperties: true }) },
          summary: "Replace a type's default control values (unknown controls dropped)",
          response: Type.Object({}, { description: 'An empty object.' }),
          permission: mayManageOptions.because('§2.5 kit element defaults write: manage_options (POST = PUT)').probing({ vars: { type: 'button' }, body: { settings: { text: 'Go' } } }),
          handler: async (req) => {
            const controls = knownType(req.params.type)
            const kept: Record<string, unknown> = {}
            for (const [key, value] of Object.entries(req.params.settings as Record<string, unknown>)) {
              if (controls.includes(key)) kept[key] = value
            }
            const clean = await filterStrings(kept)
            if ('invalid' in clean) throw invalidParam('settings', `settings is ${clean.invalid}.`)
            const kit = await kits.load(req.siteUrl)
            kit.defaults[req.params.type] = clean.value as Record<string, unknown>
            await kits.saveDefaults(kit)
            return {}
          }
        }),
        endpoint({
          methods: ['DELETE'],
          args: typeArg,
          summary: "Remove a type's default control values",
          response: Type.Object({}, { description: 'An empty object.' }),
          permission: mayManageOptions.because('§2.5 kit element defaults delete: manage_options').probing({ vars: { type: 'button' } }),
          handler: async (req) => {
            knownType(req.params.type)
            const kit = await kits.load(req.siteUrl)
            if (Object.hasOwn(kit.defaults, req.params.type)) {
              delete kit.defaults[req.params.type]
              await kits.saveDefaults(kit)
            }
            return {}
          }
        })
      ]
    })
  ]
}
