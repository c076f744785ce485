/**
 * theme-a/v1 (builder-family.md §8): `POST|PUT|PATCH /theme-a/v1/reset`
 * resets the theme to its defaults: its stored customisation
 * (`theme_a_settings`) and its generated CSS with the version it was
 * generated for (`theme_a_dynamic_css_output`,
 * `theme_a_dynamic_css_cached_version`). Idempotent. `manage_options`.
 */
import { Type } from '@sinclair/typebox'
import { can, endpoint, route, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'

export function themeAOptions (api: PackageApi): Array<{ reset: () => Promise<void> }> {
  return [
    api.option('theme_a_settings', Type.Record(Type.String(), Type.Unknown()), { default: {}, description: 'Theme A: the customisation made in the customizer (colours, typography, layout).' }),
    api.option('theme_a_dynamic_css_output', Type.String(), { default: '', description: 'Theme A: the CSS generated from its settings.' }),
    api.option('theme_a_dynamic_css_cached_version', Type.String(), { default: '', description: 'Theme A: the theme version the generated CSS was made for.' })
  ]
}

export function themeARoutes (options: Array<{ reset: () => Promise<void> }>): RelativeRouteDecl[] {
  return [route({
    path: '/reset',
    endpoints: [endpoint({
      methods: ['POST', 'PUT', 'PATCH'],
      args: {},
      summary: "Reset the theme's settings and generated CSS to the defaults",
      response: Type.Object({ success: Type.Boolean(), response: Type.String() }),
      permission: can('manage_options', { why: '§8 theme reset: manage_options' }),
      handler: async () => {
        for (const option of options) await option.reset()
        return { success: true, response: 'Settings reset.' }
      }
    })]
  })]
}
