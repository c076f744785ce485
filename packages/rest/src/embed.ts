/**
 * `_embed`: links marked embeddable are fetched through dispatch (as the
 * same caller, in `embed` context) and placed under `_embedded`, parallel to
 * `_links`. Each href is fetched once per response.
 */
import { argsOf, type RestRequest } from './route.js'
import { splitPath } from './dispatch.js'
import { CURIE, LINK_REL_BASE, routeOfHref, type Links } from './links.js'

/** `true` for every relation, a list of compact relation names, or undefined when not asked. */
export function parseEmbed (value: unknown): true | string[] | undefined {
  if (value === undefined) return undefined
  if (value === '' || value === '1' || value === 'true' || value === true) return true
  const list = Array.isArray(value) ? value.map(String) : String(value).split(',')
  return list.map((s) => s.trim()).filter((s) => s !== '')
}

function compactRel (name: string): string {
  return name.startsWith(LINK_REL_BASE) ? `${CURIE}:${name.slice(LINK_REL_BASE.length)}` : name
}

const fetched = new WeakMap<RestRequest, Map<string, Promise<unknown>>>()

export async function embedLinks (
  links: Links,
  which: true | string[],
  req: RestRequest
): Promise<Record<string, unknown[]> | undefined> {
  let cache = fetched.get(req)
  if (cache === undefined) {
    cache = new Map()
    fetched.set(req, cache)
  }
  const out: Record<string, unknown[]> = {}
  for (const [name, list] of Object.entries(links)) {
    const compact = compactRel(name)
    if (which !== true && !which.includes(compact)) continue
    if (!list.some((l) => l.embeddable === true)) continue
    const entries = await Promise.all(list.map(async (link) => {
      if (link.embeddable !== true) return []
      const path = routeOfHref(link.href, req.baseUrl)
      if (path === null) return []
      const target = embedTarget(path, req)
      let pending = cache.get(target)
      if (pending === undefined) {
        pending = req.dispatch({ method: 'GET', path: target }).then((res) => res.body)
        cache.set(target, pending)
      }
      return await pending
    }))
    if (entries.every((e) => Array.isArray(e) && e.length === 0)) continue
    out[compact] = entries
  }
  return Object.keys(out).length === 0 ? undefined : out
}

/** The href as an embedded GET: `context=embed`, and the largest page the target route allows. */
function embedTarget (path: string, req: RestRequest): string {
  const { pathname, search } = splitPath(path)
  const params = new URLSearchParams(search)
  if (!params.has('context')) params.set('context', 'embed')
  if (!params.has('per_page')) {
    const match = req.registry.match('GET', pathname)
    const perPage = match === null ? undefined : argsOf(match.endpoint).find((a) => a.name === 'per_page')
    if (typeof perPage?.schema.maximum === 'number') params.set('per_page', String(perPage.schema.maximum))
  }
  return `${pathname}?${params.toString()}`
}
