/**
 * builder-one/v1 plugins (builder-family.md §6): the supported plugins as
 * the package registry has them, and their move onto the site's one
 * connection. The unified item:
 *
 *   {slug, status: 'active'|'inactive', version, newVersion (string|null),
 *    isMigrated, isConnected, hasOnePackage}
 *
 * `isConnected`: the plugin holds a connection of its own, or is migrated
 * onto the site's connection while the site is connected. `hasOnePackage`:
 * its version ships the one-connection package (slugs.ts).
 *
 *   GET  plugins                      `activate_plugins` (`rest_cannot_view_plugins`): the installed
 *                                     supported plugins, filtered by `status` and `search` when given
 *   POST plugins                      `install_plugins` (and `activate_plugins` for `status: active`):
 *                                     installs from the package source; already installed `400 bad_request`
 *   POST plugins/{slug}/activate      `manage_options` (`unauthorized` / `forbidden`); not installed `404 not_found`
 *   POST plugins/{slug}/deactivate    the same
 *   POST plugins/{slug}/upgrade       `update_plugins` (and `activate_plugins` for `status: active`): the
 *                                     newest version of the source, the status kept or made active; none
 *                                     newer than the installed one `400 bad_request` (nothing replaced)
 *   POST plugins/{slug}/migration/run       `manage_options`, then the ladder: not installed 404, inactive
 *                                     `400 bad_request`, the site not connected `403 rest_forbidden`,
 *                                     too old `409 migration_exception`, its own connection without
 *                                     `force` `422 migration_exception` (with `force`, released first);
 *                                     already migrated: no change
 *   POST plugins/{slug}/migration/rollback  `manage_options`; not installed 404; off the list
 *
 * Registry failures keep their answers (a source not configured `503`, a
 * failed download `502`, another operation on the package `409`, a bad
 * package `400 rest_invalid_package`); a failed install or upgrade leaves
 * what was installed as it was (the registry's guarantee).
 */
import { Type } from '@sinclair/typebox'
import { ContextArg, endpoint, Enum, RestError, route, StringList, type Permission, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import { compareVersions, type InstalledPackage, type PackageRegistry } from '@cms/registry'
import { both, mayManageOptions, mayManagePlugins, needs } from './access.js'
import { oneErrors } from './errors.js'
import { migrationSlugArg, ONE_PACKAGE_SINCE, SUPPORTED_SLUGS, supportedSlugArg } from './slugs.js'
import type { OneState } from './state.js'

const SLUG_CLASS = '[\\w-]+'
const STATUS = ['inactive', 'active'] as const

/** Runs a registry call, answering its "not installed" and "not offered" in the family's words. */
export async function registryCall<T> (what: 'Plugin' | 'Theme', fn: () => Promise<T>, alreadyInstalled: () => RestError): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (!(err instanceof RestError)) throw err
    if (err.code === 'package_not_installed') throw oneErrors.not_found(undefined, `${what} not found.`)
    if (err.code === 'package_version_not_found') throw oneErrors.not_found(undefined, `${what} not found in the package source.`)
    if (err.code === 'package_already_installed') throw alreadyInstalled()
    throw err
  }
}

/** A supported plugin as answered. */
const PLUGIN = Type.Object({
  slug: Type.String(),
  status: Type.String({ description: 'active or inactive.' }),
  version: Type.String(),
  newVersion: Type.Union([Type.String(), Type.Null()], { description: 'A newer version the package source offers, if any.' }),
  isMigrated: Type.Boolean(),
  isConnected: Type.Boolean(),
  hasOnePackage: Type.Boolean()
})

export function pluginRoutes (registry: PackageRegistry, state: OneState): RelativeRouteDecl[] {
  const supported = new Set<string>(SUPPORTED_SLUGS)

  const itemOf = async (p: InstalledPackage): Promise<Record<string, unknown>> => {
    const [migrated, own, connected] = [await state.migrated.get(), await state.ownConnections.get(), await state.connected()]
    const isMigrated = (migrated as string[]).includes(p.slug)
    return {
      slug: p.slug,
      status: p.status,
      version: p.version,
      newVersion: p.newVersion,
      isMigrated,
      isConnected: Object.hasOwn(own, p.slug) || (isMigrated && connected),
      hasOnePackage: compareVersions(p.version, ONE_PACKAGE_SINCE) >= 0
    }
  }

  /** The installed supported plugin, or `404 not_found`. */
  const installed = async (slug: string): Promise<InstalledPackage> => {
    const p = supported.has(slug) ? await registry.get('plugin', slug) : null
    if (p === null) throw oneErrors.not_found(undefined, 'Plugin not found.')
    return p
  }

  const actor = (req: RestRequest<any>): { userId: number } => ({ userId: req.user.id })
  const wantsActive = (req: RestRequest<any>): boolean => req.params.status === 'active'
  const mayActivate = needs('activate_plugins', oneErrors.rest_cannot_activate_plugin)
  const slugRoute = (path: string, args: Record<string, any>, summary: string, permission: Permission, handler: (req: RestRequest<any>) => Promise<unknown>): RelativeRouteDecl =>
    route({ path, vars: { slug: SLUG_CLASS }, endpoints: [endpoint({ methods: ['POST'], args, summary, response: PLUGIN, permission: permission.probing({ vars: { slug: 'mailer' } }), handler })] })

  return [
    route({
      path: '/plugins',
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: {
            context: ContextArg(),
            search: Type.Optional(Type.String({ description: 'Only plugins whose slug or name contains this.', maxLength: 100 })),
            status: Type.Optional(StringList({ description: 'Only plugins of these statuses.', maxItems: 2 }, { enum: [...STATUS] }))
          },
          summary: 'The installed supported plugins',
          response: Type.Array(PLUGIN),
          permission: needs('activate_plugins', oneErrors.rest_cannot_view_plugins),
          handler: async (req) => {
            const term = (req.params.search ?? '').toLowerCase()
            const statuses = req.params.status
            const out = []
            for (const p of await registry.list({ type: 'plugin' })) {
              if (!supported.has(p.slug)) continue
              if (statuses !== undefined && statuses.length > 0 && !statuses.includes(p.status)) continue
              if (term !== '' && !p.slug.includes(term) && !p.name.toLowerCase().includes(term)) continue
              out.push(await itemOf(p))
            }
            return out
          }
        }),
        endpoint({
          methods: ['POST'],
          args: {
            slug: supportedSlugArg,
            status: Enum(STATUS, { description: 'The status after installing.', default: 'inactive' })
          },
          summary: 'Install a supported plugin from the package source',
          response: PLUGIN,
          permission: both(needs('install_plugins', oneErrors.rest_cannot_install_plugin), mayActivate, wantsActive).probing({ body: { slug: 'mailer' } }),
          handler: async (req) => {
            const slug = req.params.slug
            const p = await registryCall('Plugin', async () => await registry.install('plugin', slug, { activate: req.params.status === 'active', actor: actor(req) }),
              () => oneErrors.bad_request(undefined, 'Destination folder already exists.'))
            return await itemOf(p)
          }
        })
      ]
    }),
    slugRoute('/plugins/{slug}/activate', { slug: supportedSlugArg }, 'Activate a supported plugin', mayManagePlugins, async (req) => {
      await installed(req.params.slug)
      return await itemOf(await registryCall('Plugin', async () => await registry.activate('plugin', req.params.slug, { actor: actor(req) }), () => oneErrors.bad_request()))
    }),
    slugRoute('/plugins/{slug}/deactivate', { slug: supportedSlugArg }, 'Deactivate a supported plugin', mayManagePlugins, async (req) => {
      await installed(req.params.slug)
      return await itemOf(await registryCall('Plugin', async () => await registry.deactivate('plugin', req.params.slug, { actor: actor(req) }), () => oneErrors.bad_request()))
    }),
    slugRoute('/plugins/{slug}/upgrade', {
      slug: Type.String({ description: 'The plugin to upgrade.', pattern: SLUG_CLASS, maxLength: 100 }),
      status: Type.Optional(Enum(['active'] as const, { description: 'Activate the plugin after upgrading.' }))
    }, 'Upgrade a supported plugin to the newest version of the package source',
    both(needs('update_plugins', oneErrors.rest_cannot_update_plugin), mayActivate, wantsActive),
    async (req) => {
      const p = await installed(req.params.slug)
      // The source asked here (its failures keep their 503 / 502): only a version newer than the installed one is
      // an upgrade (the core's upgrader: "at the latest version"), never a move back to an older one.
      const to = (await registry.source.versions('plugin', p.slug)).at(-1)?.version
      if (to === undefined) throw oneErrors.not_found(undefined, 'Plugin not found in the package source.')
      if (compareVersions(to, p.version) <= 0) throw oneErrors.bad_request(undefined, 'The plugin is at the latest version.')
      return await itemOf(await registryCall('Plugin', async () => await registry.upgrade('plugin', req.params.slug, { version: to, activate: req.params.status === 'active', actor: actor(req) }), () => oneErrors.bad_request()))
    }),
    slugRoute('/plugins/{slug}/migration/run', {
      slug: migrationSlugArg,
      force: Type.Boolean({ description: 'Migrate even if the plugin is connected on its own (its connection is released).', default: true })
    }, 'Move a plugin onto the site\'s connection', mayManageOptions, async (req) => {
      const slug: string = req.params.slug
      const p = await installed(slug)
      if (p.status !== 'active') throw oneErrors.bad_request(undefined, 'Plugin is not active.')
      if (!await state.connected()) throw oneErrors.rest_forbidden(undefined, 'The site is not connected.').withStatus(403)
      if ((await state.migrated.get() as string[]).includes(slug)) return await itemOf(p)
      if (compareVersions(p.version, ONE_PACKAGE_SINCE) < 0) throw oneErrors.migration_exception(undefined, 'Plugin version not supported.').withStatus(409)
      const own = await state.ownConnections.get()
      if (Object.hasOwn(own, slug)) {
        if (req.params.force !== true) throw oneErrors.migration_exception(undefined, 'Plugin is already connected.')
        await state.update(state.ownConnections, (current) => Object.fromEntries(Object.entries(current).filter(([k]) => k !== slug)))
      }
      await state.update(state.migrated, (current) => current.includes(slug as never) ? current : [...current, slug as never])
      return await itemOf(p)
    }),
    slugRoute('/plugins/{slug}/migration/rollback', { slug: migrationSlugArg }, 'Move a plugin off the site\'s connection', mayManageOptions, async (req) => {
      const slug: string = req.params.slug
      const p = await installed(slug)
      await state.update(state.migrated, (current) => current.filter((s) => s !== slug))
      return await itemOf(p)
    })
  ]
}
