/**
 * What to test, read from the running app: every route declaration
 * (`app.restRoutes`, registration order), each of its methods, and the
 * arguments each endpoint declares. Nothing here names a route, so a new
 * namespace is covered as soon as it is registered.
 */
import type { FastifyInstance } from 'fastify'
import { argsOf, variablesOf, type ArgInfo, type EndpointDecl, type JsonSchema, type RouteDecl } from '@cms/rest'

export interface Target {
  decl: RouteDecl
  endpoint: EndpointDecl<any>
  method: string
  /** `GET /cms/v2/posts/{id}`: the key of the permission table. */
  key: string
  /** Declared arguments, path variables included when declared as arguments. */
  args: ArgInfo[]
  /** Path variable names, in path order. */
  vars: string[]
}

export function targetsOf (app: FastifyInstance): Target[] {
  const out: Target[] = []
  for (const decl of app.restRoutes) {
    const vars = variablesOf(decl.path)
    for (const endpoint of decl.endpoints) {
      for (const method of endpoint.methods) {
        out.push({ decl, endpoint, method, key: `${method} ${decl.path}`, args: argsOf(endpoint), vars })
      }
    }
  }
  return out
}

/** The arguments that are not path variables (those travel in the URL). */
export function bodyArgs (target: Target): ArgInfo[] {
  return target.args.filter((a) => !target.vars.includes(a.name))
}

/** `/cms/v2/posts/{id}` with raw (already URL-safe) segments for its variables. */
export function fillPath (path: string, vars: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => vars[name] ?? '')
}

export type Addressing = 'pretty' | 'rest_route'

/**
 * The URL of a route path plus a query string (without `?`), in the pretty
 * form (`/cms-json/...`) or the canonical one (`/index.php?rest_route=...`).
 */
export function urlOf (path: string, query: string, addressing: Addressing = 'pretty'): string {
  if (addressing === 'pretty') return `/cms-json${path === '/' ? '/' : path}${query === '' ? '' : `?${query}`}`
  return `/index.php?rest_route=${path}${query === '' ? '' : `&${query}`}`
}

/** A value that matches a path variable's character class (for probes). */
export function sampleVar (charClass: string): string {
  const re = new RegExp(`^(?:${charClass})$`)
  for (const candidate of ['1', 'me', 'probe', 'probe-1', 'abc', 'a1b2c3d4-0000-4000-8000-000000000000']) {
    if (re.test(candidate)) return candidate
  }
  return '1'
}

/** Argument names and formats that take a URL, a path or a file name. */
export function argKind (name: string, schema: JsonSchema): 'url' | 'path' | null {
  const n = name.toLowerCase()
  if (schema.format === 'uri' || /(^|_)(url|uri|href|link|src)$/.test(n) || /^(url|uri)/.test(n)) return 'url'
  if (/(^|_)(path|file|filename|filepath|file_name|dir|directory|folder)$/.test(n) || n === 'files') return 'path'
  return null
}
