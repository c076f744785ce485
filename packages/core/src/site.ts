/**
 * `GET /`: the site description and the full route table of this deployment.
 */
import { cachedResponse, endpoint, restUrl, route, Untyped, type RouteDecl } from '@cms/rest'
import { getOptions, type Store } from '@cms/store'
import type { Services } from './services.js'

/** Site options change rarely; every replica re-reads them after a short while. */
const OPTIONS_TTL_MS = 2000

export function cachedSiteOptions (store: Store): () => Promise<Awaited<ReturnType<typeof getOptions>>> {
  let value: Awaited<ReturnType<typeof getOptions>> | undefined
  let loadedAt = 0
  return async () => {
    if (value === undefined || Date.now() - loadedAt > OPTIONS_TTL_MS) {
      value = await getOptions(store)
      loadedAt = Date.now()
    }
    return value
  }
}

export function authorizationUrl (baseUrl: string): string {
  return `${baseUrl}/cms-admin/authorize-application.php`
}

export function siteRoutes ({ store }: Services): RouteDecl[] {
  const options = cachedSiteOptions(store)
  return [route({
    namespace: '',
    path: '/',
    endpoints: [endpoint({
      methods: ['GET'],
      args: { context: Untyped<string>({ default: 'view' }) },
      summary: 'Describe the site and every route it serves',
      permission: () => true,
      handler: async (req) => {
        const o = await options()
        const base = req.baseUrl
        // The same options object means the same description: the kernel reuses the bytes.
        return cachedResponse({
          name: o.name,
          description: o.description,
          url: o.url === '' ? base : o.url,
          home: o.home === '' ? base : o.home,
          gmt_offset: String(o.gmt_offset),
          timezone_string: o.timezone_string,
          page_for_posts: Number(o.page_for_posts),
          page_on_front: Number(o.page_on_front),
          show_on_front: o.show_on_front,
          namespaces: req.registry.namespaces,
          authentication: {
            'application-passwords': { endpoints: { authorization: authorizationUrl(base) } }
          },
          routes: req.registry.index(base),
          site_logo: Number(o.site_logo),
          site_icon: Number(o.site_icon),
          site_icon_url: '',
          _links: { help: [{ href: `${base}/docs` }] }
        }, o)
      }
    })]
  })]
}
