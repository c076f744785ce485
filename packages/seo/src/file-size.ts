/**
 * GET /seo/v1/file_size?url= (seo-rollback-assistant-addons.md §1.3): the
 * byte size of a media file of this service, found from its URL through
 * the media library's storage (no network). A URL of another host, or not
 * under the uploads path, is "hosted externally"; a missing or empty file
 * has "unknown reasons": both 404 in the error shape (the real product
 * answers `{"type": "failure"}`). Permission: `manage_options`.
 */
import { Type } from '@sinclair/typebox'
import { can, endpoint, route, type RouteDecl } from '@cms/rest'
import { safeMediaKey, UPLOADS_PATH, type PackageApi } from '@cms/core'
import { seoErrors } from './errors.js'
import { homeUrl } from './indexables.js'

const NS = 'seo/v1'

export function fileSizeRoutes (api: PackageApi): RouteDecl[] {
  return [route({
    namespace: NS,
    path: `/${NS}/file_size`,
    endpoints: [endpoint({
      methods: ['GET'],
      summary: 'The size of a media file of this site',
      response: Type.Object({ type: Type.Literal('success'), size_in_bytes: Type.Integer() }),
      args: { url: Type.String({ description: 'The URL of a media file of this site.' }) },
      permission: can('manage_options', { error: seoErrors.rest_forbidden, why: '§1.3 file size: manage_options', probe: { query: { url: 'http://cms.test/cms-content/uploads/none.png' } } }),
      handler: async (req) => {
        let url: URL
        let site: URL
        try {
          url = new URL(req.params.url)
          site = new URL(`${await homeUrl(api.services.store, req.siteUrl)}/`)
        } catch {
          throw seoErrors.seo_file_hosted_externally()
        }
        const prefix = `${site.pathname.replace(/\/+$/, '')}${UPLOADS_PATH}/`
        if (url.host !== site.host || !url.pathname.startsWith(prefix)) throw seoErrors.seo_file_hosted_externally()
        let key: string | undefined
        try {
          key = safeMediaKey(decodeURIComponent(url.pathname.slice(prefix.length)))
        } catch {
          key = undefined
        }
        const stored = key === undefined ? undefined : await api.services.media.storage.stat(key).catch(() => undefined)
        if (stored === undefined || stored.size === 0) throw seoErrors.seo_file_size_unknown()
        return { type: 'success', size_in_bytes: stored.size }
      }
    })]
  })]
}
