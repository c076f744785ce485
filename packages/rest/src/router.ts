/**
 * The one router. Fastify routes HTTP requests with find-my-way; requests
 * made in-process (batch, `_embed`, `req.dispatch`) are resolved by
 * Fastify's own copy of find-my-way too, built with the same options
 * (`ROUTER_OPTIONS`) from the same paths the routes are mounted at
 * (`fastifyPathOf`), so a path names the same route whichever way it comes:
 * static segments before variables, a variable's class as its regex,
 * case-insensitive static segments, one trailing slash ignored. (Fastify's
 * `findRoute` says whether a route exists and its parameters, but not which
 * declaration it is.)
 */
import { createRequire } from 'node:module'
import { fastifyPathOf } from './route-path.js'
import type { EndpointDecl, RouteDecl } from './route.js'
import { API_PREFIX } from './addressing.js'
import { ROUTER_OPTIONS } from './options.js'

export interface RouteMatch {
  route: RouteDecl
  endpoint: EndpointDecl<any>
  /** The path variables, as HTTP routing gives them. */
  vars: Record<string, string>
}

/** Finds the declaration and endpoint serving a method and a path relative to the API root (`/cms/v2/posts/7`). */
export type RouteFinder = (method: string, path: string) => RouteMatch | null

/** What the kernel uses of find-my-way. */
interface Router {
  on: (method: string, path: string, handler: () => void, store: Served) => void
  hasRoute: (method: string, path: string) => boolean
  find: (method: string, path: string) => { store: Served, params: Record<string, string | undefined> } | null
}

interface Served { route: RouteDecl, endpoint: EndpointDecl<any> }

// The copy Fastify itself loads (resolved from Fastify's package): the same code and version routes HTTP.
const requireFromHere = createRequire(import.meta.url)
const FindMyWay = createRequire(requireFromHere.resolve('fastify'))('find-my-way') as (options: object) => Router

/**
 * A finder for these routes. `lenient` (a namespace service's routes, read
 * from its index): a route the router refuses is left out instead of
 * stopping the start.
 */
export function routeFinder (routes: readonly RouteDecl[], opts: { lenient?: boolean } = {}): RouteFinder {
  const router = FindMyWay({ ...ROUTER_OPTIONS })
  const noop = (): void => {}
  for (const route of routes) {
    const url = fastifyPathOf(route, API_PREFIX)
    for (const endpoint of route.endpoints) {
      for (const method of endpoint.methods) {
        // As mounted: the first endpoint naming a method serves it.
        try {
          if (!router.hasRoute(method, url)) router.on(method, url, noop, { route, endpoint })
        } catch (err) {
          if (opts.lenient !== true) throw err
        }
      }
    }
  }
  return (method, path) => {
    // The path as written: what would end it (`?`, `#`) or be decoded (`%`) is escaped.
    const found = router.find(method.toUpperCase(), API_PREFIX + path.replace(/[?#%\s]/g, (c) => encodeURIComponent(c)))
    if (found === null) return null
    const vars: Record<string, string> = {}
    for (const [name, value] of Object.entries(found.params)) if (value !== undefined) vars[name] = value
    return { route: found.store.route, endpoint: found.store.endpoint, vars }
  }
}
