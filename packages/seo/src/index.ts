/**
 * @cms/seo: the SEO extension (`seo/v1`, profile B), part 1 of the
 * reference's routes (seo-rollback-assistant-addons.md §1). One file per
 * route family; the rest:
 *
 *   meta.ts          the per-post SEO data (`_seo_*` post meta on cms/v2, edit context)
 *   permissions.ts   who may call what (the gateway's permission matrix probes these)
 *   errors.ts        the error catalogue
 *
 * The capability `manage_seo_options` (the real product's
 * `wpseo_manage_options`) is granted to administrators.
 */
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { registerSeoMeta } from './meta.js'
import { seoPermissionCases } from './permissions.js'

export const MANAGE_SEO = 'manage_seo_options'

export const seoPackage = definePackage({
  name: '@cms/seo',
  dependencies: ['@cms/core'],
  namespaces: ['seo/v1'],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    api.capability(MANAGE_SEO, ['administrator'])
    registerSeoMeta(api)
    api.namespace('seo/v1', () => [])
    api.permissionCases(seoPermissionCases)
  }
})
