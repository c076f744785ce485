/**
 * Link relations: registered relations live under one base URL and are
 * compacted with a curie (`https://api.cms.invalid/term` -> `cms:term`).
 */
export const LINK_REL_BASE = 'https://api.cms.invalid/'
export const CURIE = 'cms'

export interface Link {
  href: string
  embeddable?: boolean
  [attribute: string]: unknown
}

export type Links = Record<string, Link[]>

export function rel (name: string): string {
  return LINK_REL_BASE + name
}

/** Compact names of the relations met so far (a relation's name, made once, is reused as the key). */
const compactNames = new Map<string, string | null>()
/** Past this many distinct relations the names are made each time (a bound on what is kept). */
const COMPACT_NAMES_KEPT = 1024

function compactName (name: string): string | null {
  let compact = compactNames.get(name)
  if (compact === undefined) {
    compact = name.startsWith(LINK_REL_BASE) ? `${CURIE}:${name.slice(LINK_REL_BASE.length)}` : null
    if (compactNames.size < COMPACT_NAMES_KEPT) compactNames.set(name, compact)
  }
  return compact
}

/** The `curies` member every compacted `_links` ends with (shared: answers are only serialized). */
const CURIES: ReadonlyArray<Readonly<Record<string, unknown>>> = Object.freeze([Object.freeze({ name: CURIE, href: `${LINK_REL_BASE}{rel}`, templated: true })])

/**
 * Compacts registered relations and appends `curies` as the last key when
 * any was compacted. Runs for every item of every page: the compact names
 * are kept (a name built anew each time cost more than the rest).
 */
export function compactLinks (links: Links): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  let compacted = false
  for (const name of Object.keys(links)) {
    const compact = compactName(name)
    if (compact === null) {
      out[name] = links[name]
    } else {
      out[compact] = links[name]
      compacted = true
    }
  }
  if (compacted) out.curies = CURIES
  return out
}

/** The URL of a route in the canonical `?rest_route=` form. */
export function restUrl (baseUrl: string, route: string, query?: Record<string, string | number>): string {
  let url = `${baseUrl}/index.php?rest_route=${route}`
  if (query !== undefined) {
    for (const [k, v] of Object.entries(query)) url += `&${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`
  }
  return url
}

/** Turns a link the service emitted back into a path relative to the API root, or null when it is not ours. */
export function routeOfHref (href: string, baseUrl: string): string | null {
  if (!href.startsWith(baseUrl)) return null
  const rest = href.slice(baseUrl.length)
  if (rest.startsWith('/index.php?')) {
    const params = new URLSearchParams(rest.slice('/index.php?'.length))
    const route = params.get('rest_route')
    if (route === null) return null
    params.delete('rest_route')
    const qs = params.toString()
    return qs === '' ? route : `${route}?${qs}`
  }
  if (rest.startsWith('/cms-json/')) return rest.slice('/cms-json'.length)
  return null
}
