/**
 * What this server serves: the namespaces, their root routes (`GET
 * /cms/v2`), the discovery index per base URL, and the route serving a
 * method and path for in-process dispatch (router.ts).
 */
import { Type } from '@sinclair/typebox'
import { kernelErrors } from './errors.js'
import type { Registry, RestRequest, RouteDecl } from './route.js'
import { routeFinder } from './router.js'
import { everyone } from './permission.js'
import { routesIndex } from './discovery.js'
import { restUrl } from './links.js'
import { NAMESPACE_DESCRIPTION } from './response-schemas.js'
import type { RemoteNamespaces } from './remote.js'
import type { Activation } from './options.js'

const NONE: ReadonlySet<string> = new Set()

export function buildRegistry (
  routes: RouteDecl[],
  namespaces: string[],
  byNamespace: Map<string, RouteDecl[]>,
  siteRoutes: RouteDecl[],
  remote: RemoteNamespaces,
  activation?: Activation
): Registry {
  // The index depends only on the base URL of the request: built once per base URL.
  const cache = new Map<string, Record<string, unknown>>()
  // The router HTTP requests go through, for in-process requests (router.ts).
  const find = routeFinder(routes)
  return {
    namespaces,
    index (baseUrl, namespace, off = NONE, help = false) {
      const key = `${baseUrl}\0${namespace ?? ''}\0${remote.version()}\0${[...off].join(' ')}\0${help ? 'help' : ''}`
      let cached = cache.get(key)
      if (cached === undefined) {
        // A remote namespace lists the routes its service listed (only its root until they are known).
        const of = (ns: string): Record<string, unknown> => remote.namespaces.includes(ns)
          ? remote.index(ns, baseUrl) ?? routesIndex([namespaceRoot(ns, byNamespace)], { baseUrl })
          : routesIndex(byNamespace.get(ns) ?? [], { baseUrl, off, help })
        cached = namespace !== undefined
          ? of(namespace)
          : Object.assign(routesIndex(siteRoutes, { baseUrl, off }), ...namespaces.filter((ns) => !off.has(ns)).map(of)) as Record<string, unknown>
        if (cache.size > 64) cache.clear()
        cache.set(key, cached)
      }
      return cached
    },
    off: activation === undefined
      ? async () => NONE
      : async (req) => await req.memo('kernel:off', async () => await activation.off(async () => await req.epoch('activation'))),
    match (method, path) {
      return find(method, path) ?? remote.match(method, path === '/' ? '/' : path.replace(/\/+$/, ''))
    }
  }
}

/** The root route of a namespace: its name and its routes' index. */
export function namespaceRoot (name: string, all: Map<string, RouteDecl[]>): RouteDecl {
  return {
    namespace: name,
    path: `/${name}`,
    endpoints: [{
      methods: ['GET'],
      args: {
        namespace: Type.Unsafe<string>({ default: name }),
        context: Type.Unsafe<string>({ default: 'view' })
      },
      summary: `Describe the ${name} namespace and its routes`,
      response: NAMESPACE_DESCRIPTION,
      example: { response: namespaceExample(name) },
      permission: everyone,
      cache: 'public',
      handler: async (req: RestRequest) => {
        const wanted = String(req.params.namespace)
        const off = await req.registry.off(req)
        if (!all.has(wanted) || off.has(wanted)) throw kernelErrors.rest_invalid_namespace()
        const help = req.params.context === 'help'
        return {
          namespace: wanted,
          // A namespace's routes with their help (every argument described) are built once too: 10-24 ms for the core's.
          routes: req.registry.index(req.baseUrl, wanted, off, help),
          _links: { up: [{ href: restUrl(req.baseUrl, '/') }] }
        }
      }
    }]
  }
}

/** What the namespace root answers on a site at https://cms.example.com, its routes cut to its own, for the OpenAPI document. */
function namespaceExample (name: string): Record<string, unknown> {
  const api = 'https://cms.example.com/index.php?rest_route='
  return {
    namespace: name,
    routes: {
      [`/${name}`]: {
        namespace: name,
        methods: ['GET'],
        endpoints: [{ methods: ['GET'], args: { namespace: { default: name, required: false }, context: { default: 'view', required: false } } }],
        _links: { self: [{ href: `${api}/${name}` }] }
      }
    },
    _links: { up: [{ href: `${api}/` }] }
  }
}
