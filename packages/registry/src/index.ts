/**
 * @cms/registry: the plugin and theme package registry, a service for other
 * packages (it serves no namespace). A package that manages or reads
 * packages depends on `@cms/registry` and requires the service:
 *
 *   import { packageRegistry } from '@cms/registry'
 *   const registry = api.require(packageRegistry)
 *
 *   api.ts        the API (types, the service key)
 *   files.ts      the files of active packages, served under /cms-content/plugins|themes/<slug>/
 *   registry.ts   install, activate, deactivate, upgrade, delete, the atomic swap, locks, the log
 *   zip.ts        checking, unpacking and writing package zips (yauzl, yazl)
 *   source.ts     the package source (CMS_PACKAGE_SOURCE: a directory or an http(s) URL)
 *   catalogue.ts  what a fresh site has installed
 *   schema.ts     its tables (migrations in ../migrations)
 */
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { definePackage, PACKAGE_DEFAULTS, replyWithFile } from '@cms/core'
import { packageRegistry } from './api.js'
import { seedPackagesFor } from './catalogue.js'
import { PACKAGE_FILE_PATHS, servePackageFile } from './files.js'
import { createRegistry } from './registry.js'

export const registryPackage = definePackage({
  name: '@cms/registry',
  dependencies: ['@cms/core'],
  namespaces: [],
  options: Type.Object({}, { additionalProperties: false }),
  pages: PACKAGE_FILE_PATHS,
  // Registered wherever a package switched by activation is (platform.ts), so every process honours it.
  decidesActivation: true,
  // In every process: the registry is the dependent packages' service.
  contribute (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    const registry = createRegistry({
      store: api.services.store,
      contentDir: api.contentDir,
      settings: api.services.settings.packages ?? { ...PACKAGE_DEFAULTS },
      // The packages of every namespace the deployment serves, here or through another process: a gateway
      // decides whether a remote namespace is listed by the same statuses (platform.ts).
      seeds: seedPackagesFor(api.exposes)
    })
    api.provide(packageRegistry, registry)
    // Which plugins and themes are active decides which packages' namespaces are served (platform.ts).
    api.decidesActivation(registry.activeNow)
    return registry
  },
  // Its files (pages outside the REST prefix), where a package needing it serves.
  serve (_api, _options, app, registry) {
    for (const [url, type] of [[PACKAGE_FILE_PATHS[0], 'plugin'], [PACKAGE_FILE_PATHS[1], 'theme']] as const) {
      app.route({
        method: 'GET',
        url,
        schema: { hide: true } as Record<string, unknown>,
        handler: async (request, reply) => {
          const wanted = String((request.params as Record<string, string>)['*'] ?? '')
          return await replyWithFile(reply, await servePackageFile(registry, type, wanted, request.raw))
        }
      })
    }
  }
})

export { packageRegistry } from './api.js'
export type {
  Actor, InstalledPackage, Operation, OperationEntry, PackageManifest, PackageRegistry, PackageSource, PackageStatus, PackageType, ReplaceStep, SourceVersion
} from './api.js'
export { registryErrors } from './errors.js'
export { SEED_PACKAGES, SEED_VERSION } from './catalogue.js'
export { compareVersions, VERSION_PATTERN } from './versions.js'
