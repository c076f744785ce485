/**
 * @cms/rollback: rollback/v1, rolling installed plugins and themes back to
 * another version through the package registry (@cms/registry).
 *
 *   archives.ts  archives, archives/{id}/download, archives/{id} (both profiles; B sorts)
 *   process.ts   fetch-info, rollback-steps, process-rollback (profile A)
 *
 * Every replacement of an installed version (an upgrade or a swap, by any
 * route or command) first stores the replaced version as an archive (the
 * registry's `beforeReplace`), keeping `rollback_archives_per_package`
 * (default 25) per package.
 *
 * Profile B (its namespace option `archiveSorting`) runs the later release
 * whose archives list sorts; the reference shows only its archive routes.
 */
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { packageRegistry } from '@cms/registry'
import { archiveRoutes, archiveStore, KEEP_PER_PACKAGE } from './archives.js'
import { processRoutes } from './process.js'

export const rollbackPackage = definePackage({
  name: '@cms/rollback',
  dependencies: ['@cms/core', '@cms/registry'],
  namespaces: ['rollback/v1'],
  // Served while the plugin `rollback` is active (the registry's status).
  activation: [{ type: 'plugin', slug: 'rollback' }],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    const registry = api.require(packageRegistry)
    const { store, maintenance } = api.services
    const keep = api.option('rollback_archives_per_package', Type.Integer({ minimum: 1, maximum: 1000 }), {
      default: KEEP_PER_PACKAGE,
      description: 'Rollback archives kept per plugin or theme; the oldest are removed first.'
    })
    const archives = archiveStore(store, api.contentDir, registry, async () => await keep.get())
    // Every replacement of an installed version, by any route or command, keeps the old one first (both profiles).
    registry.beforeReplace(async (type, slug, actor) => { await archives.backup(type, slug, actor.userId) })
    api.namespace('rollback/v1', (options) => [
      ...archiveRoutes(store, api.contentDir, options),
      ...(options.archiveSorting === true ? [] : processRoutes({ store, registry, maintenance, archives }))
    ])
  }
})
