/**
 * builder-one/v1 themes (builder-family.md §6), through the package
 * registry:
 *
 *   POST themes                 `install_themes` (and `switch_themes` for `status: active`;
 *                               `forbidden`): installs from the package source (and switches
 *                               to it); already installed `409 conflict`, not offered `404 not_found`
 *   POST themes/{slug}/activate `switch_themes` (`forbidden`): not installed `404 not_found`,
 *                               already active `400 bad_request`
 *
 * Both answer `{status: 'success', message}`. Registry failures keep their
 * answers (503 source not configured, 502, 409 operation in progress,
 * `400 rest_invalid_package`).
 */
import { endpoint, Enum, invalidParam, route, type RelativeRouteDecl } from '@cms/rest'
import { Type } from '@sinclair/typebox'
import type { PackageRegistry } from '@cms/registry'
import { both, needs } from './access.js'
import { oneErrors } from './errors.js'
import { registryCall } from './plugins.js'

const SLUG = '[\\w-]+'
/** The pattern as the index shows it is unanchored (as the real product's is): the whole slug is checked here. */
const WHOLE_SLUG = /^[\w-]{1,100}$/

export function themeRoutes (registry: PackageRegistry): RelativeRouteDecl[] {
  const maySwitch = needs('switch_themes', oneErrors.forbidden, 'Sorry, you are not allowed to switch themes on this site.')
  return [
    route({
      path: '/themes',
      endpoints: [endpoint({
        methods: ['POST'],
        args: {
          slug: Type.String({ description: 'The theme to install.', pattern: SLUG, maxLength: 100 }),
          status: Enum(['inactive', 'active'] as const, { description: 'Switch to the theme after installing.', default: 'inactive' })
        },
        summary: 'Install a theme from the package source',
        response: Type.Object({ status: Type.Literal('success'), message: Type.String() }),
        permission: both(needs('install_themes', oneErrors.forbidden, 'Sorry, you are not allowed to install themes on this site.'), maySwitch, (req) => req.params.status === 'active').probing({ body: { slug: 'probe-theme' } }),
        handler: async (req) => {
          if (!WHOLE_SLUG.test(req.params.slug)) throw invalidParam('slug', 'slug must be word characters and hyphens only.')
          await registryCall('Theme', async () => await registry.install('theme', req.params.slug, { activate: req.params.status === 'active', actor: { userId: req.user.id } }),
            () => oneErrors.conflict(undefined, 'Theme already installed.'))
          return { status: 'success', message: 'Theme installed successfully.' }
        }
      })]
    }),
    route({
      path: '/themes/{slug}/activate',
      vars: { slug: SLUG },
      endpoints: [endpoint({
        methods: ['POST'],
        args: { slug: Type.String({ description: 'The theme to switch to.', pattern: SLUG, maxLength: 100 }) },
        summary: 'Switch to an installed theme',
        response: Type.Object({ status: Type.Literal('success'), message: Type.String() }),
        permission: maySwitch.probing({ vars: { slug: 'probe-theme' } }),
        handler: async (req) => {
          const theme = await registry.get('theme', req.params.slug)
          if (theme === null) throw oneErrors.not_found(undefined, 'Theme not found.')
          if (theme.status === 'active') throw oneErrors.bad_request(undefined, 'Theme is already active.')
          await registryCall('Theme', async () => await registry.activate('theme', req.params.slug, { actor: { userId: req.user.id } }), () => oneErrors.bad_request())
          return { status: 'success', message: 'Theme activated successfully.' }
        }
      })]
    })
  ]
}
