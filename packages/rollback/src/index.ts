/**
 * @cms/rollback: rollback/v1, rolling installed plugins and themes back to
 * another version through the package registry (@cms/registry).
 *
 *   archives.ts  archives, archives/{id}/download, archives/{id} (both profiles; B sorts)
 *   process.ts   fetch-info, rollback-steps, process-rollback (profile A)
 *
 * Profile B (its namespace option `archiveSorting`) runs the later release
 * whose archives list sorts; the reference shows only its archive routes.
 */
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { packageRegistry } from '@cms/registry'
import { archiveRoutes, archiveStore } from './archives.js'
import { processRoutes } from './process.js'

export const rollbackPackage = definePackage({
  name: '@cms/rollback',
  dependencies: ['@cms/core', '@cms/registry'],
  namespaces: ['rollback/v1'],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    const registry = api.require(packageRegistry)
    const { store, maintenance } = api.services
    const archives = archiveStore(store, api.contentDir, registry)
    api.namespace('rollback/v1', (options) => [
      ...archiveRoutes(store, api.contentDir, options),
      ...(options.archiveSorting === true ? [] : processRoutes({ store, registry, maintenance, archives }))
    ])
  }
})
