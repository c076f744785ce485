/**
 * The packages this gateway (and the command line, through the
 * `@cms/gateway/packages` export) can compose. A profile names namespaces; the
 * packages serving them (and what those depend on) are registered. A
 * namespace no package serves answers its root route only.
 */
import { corePackage, type CmsPackage } from '@cms/core'
import { builderPackage } from '@cms/builder'
import { builderOnePackage } from '@cms/builder-one'
import { hdrftrPackage } from '@cms/hdrftr'
import { seoPackage } from '@cms/seo'
import { registryPackage } from '@cms/registry'
import { themesPackage } from '@cms/themes'
import { rollbackPackage } from '@cms/rollback'
import { assistantPackage } from '@cms/assistant'
import { addonsPackage } from '@cms/addons'

export const installedPackages: readonly CmsPackage[] = [corePackage, builderPackage, seoPackage, hdrftrPackage, builderOnePackage, registryPackage, themesPackage, rollbackPackage, assistantPackage, addonsPackage]
