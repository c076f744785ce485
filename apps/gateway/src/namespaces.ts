/**
 * The packages this gateway (and the command line, through the
 * `@cms/gateway/packages` export) can compose: every package that declares
 * itself in its package.json's `cms` field (discover.ts), found in the
 * workspace's packages/ or among the gateway's dependencies. A profile names
 * namespaces; the packages serving them (and what those depend on) are
 * registered. A namespace no package serves answers its root route only.
 */
import type { CmsPackage } from '@cms/core'
import { discoverPackages } from './discover.js'

export { packagesPathOf, withPackagesUnder } from './discover.js'

export const installedPackages: readonly CmsPackage[] = await discoverPackages()
