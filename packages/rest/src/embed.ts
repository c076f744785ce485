/**
 * `_embed`: links marked embeddable are fetched through dispatch (as the
 * same caller, in `embed` context) and placed under `_embedded`, parallel to
 * `_links`. Each href is fetched once per response; a response dispatches at
 * most EMBED_REQUEST_LIMIT of them, EMBED_CONCURRENCY at a time, so a page of
 * a hundred items costs a bounded multiple of a plain page.
 */
import { argsOf } from './arg-marks.js'
import type { RestRequest } from './route.js'
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

/**
 * Distinct sub-requests one response may embed. Relations are met in link
 * order across all items (every item's `author` before any item's terms),
 * so the first relations are embedded for the whole page; links past the
 * limit are left in `_links`, unembedded.
 */
export const EMBED_REQUEST_LIMIT = 100

/** Embedded sub-requests of one response running at once (the others wait their turn). */
export const EMBED_CONCURRENCY = 8

interface EmbedState {
  fetched: Map<string, Promise<unknown>>
  running: number
  waiting: Array<() => void>
}

const states = new WeakMap<RestRequest, EmbedState>()

/** Runs `work` when fewer than EMBED_CONCURRENCY sub-requests of this response are running. */
async function inTurn<T> (state: EmbedState, work: () => Promise<T>): Promise<T> {
  if (state.running >= EMBED_CONCURRENCY) await new Promise<void>((resolve) => state.waiting.push(resolve))
  state.running++
  try {
    return await work()
  } finally {
    state.running--
    state.waiting.shift()?.()
  }
}

export async function embedLinks (
  links: Links,
  which: true | string[],
  req: RestRequest
): Promise<Record<string, unknown[]> | undefined> {
  let state = states.get(req)
  if (state === undefined) {
    state = { fetched: new Map(), running: 0, waiting: [] }
    states.set(req, state)
  }
  const cache = state.fetched
  const turn = state
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
        if (cache.size >= EMBED_REQUEST_LIMIT) return []
        pending = inTurn(turn, async () => (await req.dispatch({ method: 'GET', path: target })).body)
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
