/**
 * @cms/registry: the plugin and theme package registry, a service for other
 * packages (it serves no namespace). A package that manages or reads
 * packages depends on `@cms/registry` and requires the service:
 *
 *   import { packageRegistry } from '@cms/registry'
 *   const registry = api.require(packageRegistry)
 *
 *   api.ts        the API (types, the service key)
 *   registry.ts   install, activate, deactivate, upgrade, delete, the atomic swap, locks, the log
 *   zip.ts        checking, unpacking and writing package zips (yauzl, yazl)
 *   source.ts     the package source (CMS_PACKAGE_SOURCE: a directory or an http(s) URL)
 *   catalogue.ts  what a fresh site has installed
 *   schema.ts     its tables (migrations in ../migrations)
 */
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { definePackage, PACKAGE_DEFAULTS } from '@cms/core'
import { packageRegistry } from './api.js'
import { seedPackagesFor } from './catalogue.js'
import { createRegistry } from './registry.js'

export const registryPackage = definePackage({
  name: '@cms/registry',
  dependencies: ['@cms/core'],
  namespaces: [],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    api.provide(packageRegistry, createRegistry({
      store: api.services.store,
      contentDir: api.contentDir,
      settings: api.services.settings.packages ?? { ...PACKAGE_DEFAULTS },
      seeds: seedPackagesFor(api.serves)
    }))
  }
})

export { packageRegistry } from './api.js'
export type {
  Actor, InstalledPackage, Operation, OperationEntry, PackageManifest, PackageRegistry, PackageSource, PackageStatus, PackageType, ReplaceStep, SourceVersion
} from './api.js'
export { registryErrors } from './errors.js'
export { SEED_PACKAGES, SEED_VERSION } from './catalogue.js'
export { compareVersions, VERSION_PATTERN } from './versions.js'
