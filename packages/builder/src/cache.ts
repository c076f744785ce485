/**
 * builder/v1 cache DELETE (builder-family.md §2.12, "Clear Files & Data"):
 * administrators (`manage_options`) clear every derived builder cache the
 * service keeps: the per-post generated CSS and element caches (post meta
 * `_builder_css`, `_builder_element_cache`, `_builder_page_assets`, which
 * clients and importers may have stored). The answer says how many posts
 * had each.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, route, type RelativeRouteDecl, successObject } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { mayManageOptions } from './access.js'

export const DERIVED_META = ['_builder_css', '_builder_element_cache', '_builder_page_assets'] as const

export function cacheRoutes (api: PackageApi): RelativeRouteDecl[] {
  return [route({
    path: '/cache',
    endpoints: [endpoint({
      methods: ['DELETE'],
      args: {},
      summary: "Clear the builder's derived caches",
      response: successObject({ data: Type.Object({ cleared: Type.Record(Type.String(), Type.Integer(), { description: 'How many posts had each cache (meta key).' }) }) }),
      permission: mayManageOptions,
      handler: async () => {
        const cleared: Record<string, number> = {}
        for (const key of DERIVED_META) cleared[key] = await api.content.deleteMetaEverywhere(key)
        return { success: true, data: { cleared } }
      }
    })]
  })]
}
