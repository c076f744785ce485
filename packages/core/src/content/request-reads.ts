/**
 * What content requests read through the read cache (read-cache.ts): a post
 * by id and list totals, reused by GET requests while nothing is committed
 * (writes read them afresh), and the site settings, reused by every
 * request while the settings epoch stays.
 */
import { reusedBody, type PageInfo, type RestRequest } from '@cms/rest'
import { LRUCache } from 'lru-cache'
import { storeSlot, type Store } from '@cms/store'
import type { MetaRegistry } from '../platform/meta.js'
import type { KnownTotal, ListQuery, TotalCache } from './post-query.js'
import { getPost, idOf, type PostExtrasRow, type PostRow } from './post-store.js'
import { siteSettings, type SiteSettings } from './post-types.js'
import { jsonWeight, readCache, type ReadCache } from '../base/read-cache.js'

/** Posts read by GET requests, reused while nothing is committed (see read-cache.ts). */
export function postCache (store: Store): ReadCache<PostRow | undefined> {
  // 16 MiB of posts: a count alone would not bound them (a post's content may be megabytes).
  return readCache<PostRow | undefined>(store, 'posts', 16 * 1024 * 1024, jsonWeight)
}

/**
 * A post a GET request needs (an embedded term list checks the post it
 * names): read through the same cache as post reads, so a page's embeds
 * reuse the rows the page itself read.
 */
export async function readPostFor (store: Store, req: RestRequest, id: number): Promise<PostRow | undefined> {
  if (req.method !== 'GET') return await getPost(store, id)
  return await postCache(store).get(req, `post:${id}`, async () => await getPost(store, id))
}

/** Loads a post of one type named by a path variable, once per request (the Allow header asks every endpoint), through `req.memo`. */
export interface ItemLoader {
  /** The post, or undefined when there is none of the type. */
  load: (req: RestRequest) => Promise<PostRow | undefined>
  /** After a write: later checks (the Allow header's) read it afresh. */
  forget: (req: RestRequest) => void
}

export function itemLoader (store: Store, type: string, param = 'id'): ItemLoader {
  const keyOf = (req: RestRequest): string => `post:${type}:${param}:${idOf(req.params[param])}`
  return {
    // Reads may reuse a row nothing has changed since; writes always read afresh.
    load: async (req) => await req.memo(keyOf(req), async () => {
      const p = await readPostFor(store, req, idOf(req.params[param]))
      return p !== undefined && p.type === type ? p : undefined
    }),
    forget: (req) => { req.memo.forget(keyOf(req)) }
  }
}

/**
 * The site settings, once per request, reused while the settings epoch
 * stays (writes to options renew it, core migration 0014): a write too
 * reads them as of its start, with no statement while nobody changed them.
 */
export async function requestSettings (store: Store, req: RestRequest, meta: MetaRegistry): Promise<SiteSettings> {
  return await req.memo('content:settings', async () => {
    const settings = await readCache<SiteSettings>(store, 'settings', 16).getUnder(await req.epoch('settings'), req.baseUrl, async () => await siteSettings(store, req, meta))
    // A deactivated package's meta keys are unregistered for this request (the activation's set, kept by its epoch).
    const shown = meta.visible(await req.registry.off(req))
    return shown === settings.meta ? settings : { ...settings, meta: shown }
  })
}

/** A list's page as its query read it: the rows, the total and (asked with extras) each row's extras. */
export interface ListPage { rows: PostRow[], total: number, extras?: Map<number, PostExtrasRow> }

/**
 * List pages by the query their arguments made, reused by GET requests
 * while nothing is committed (read-cache.ts). The key is the query, not the
 * address: an argument the route ignores (a cache-busting `nocache=<n>`),
 * arguments in another order or spelled otherwise find the page that query
 * read. The core CMS keeps its query results the same way in a persistent
 * object cache (keyed by the query's variables, dropped by its last-changed
 * stamp); here a commit anywhere is what drops them. The caller's rights are
 * in the query (`readable`), so only callers who would read the same rows
 * share a page. Shared between requests: not to be changed.
 */
export function pageCache (store: Store): (req: RestRequest, q: ListQuery, withExtras: boolean, read: () => Promise<ListPage>) => Promise<ListPage> {
  // Weighed by their text: a page of long posts weighs what its contents do.
  const pages = readCache<ListPage>(store, 'pages', 8 * 1024 * 1024, (page) => jsonWeight(page.rows) + (page.extras === undefined ? 0 : jsonWeight([...page.extras.values()])))
  return async (req, q, withExtras, read) => req.method === 'GET'
    ? await pages.get(req, `${withExtras ? 'extras' : 'rows'}\0${JSON.stringify(q)}`, read)
    : await read()
}

/** A list's page as answered: the items formatted (with the registered fields), what its paging headers need, and its weight for the budget. */
export interface AnsweredPage { body: Array<Record<string, unknown>>, info: PageInfo, weight: number }

/**
 * List pages as answered, reused by GET requests while nothing is
 * committed: the items one caller's arguments were formatted into, keyed by
 * the caller's rights token (`Principal.keptAs`, as the kernel's kept
 * answers: a caller without one is never reused), the route, the address's
 * base, `_fields` and the validated arguments. The same caller asking again
 * with an argument the route ignores (a cache-busting `nocache=<n>`) or the
 * arguments in another order skips the query, the visibility checks and the
 * formatting, and the kernel writes the bytes it made of these items
 * (`reusedBody`); the paging headers are made for each request (their links
 * repeat its query). A page is kept the second time its key is made: a query
 * that never repeats (a search typed letter by letter) holds nothing.
 */
export function answeredPages (store: Store): (req: RestRequest, make: () => Promise<AnsweredPage>) => Promise<AnsweredPage> {
  const pages = readCache<AnsweredPage>(store, 'answered-pages', 8 * 1024 * 1024, (page) => page.weight)
  const seen = seenKeys(store)
  return async (req, make) => {
    const token = req.user.id === 0 ? 'anonymous' : req.user.keptAs
    if (req.method !== 'GET' || token === undefined) return await make()
    const key = `${token}\0${req.route}\0${req.baseUrl}\0${JSON.stringify(req.query._fields) ?? ''}\0${JSON.stringify(req.params)}`
    const hit = await pages.peek(req, key)
    if (hit !== undefined) return hit
    const page = await make()
    if (seen.delete(key)) {
      reusedBody(page.body)
      await pages.put(req, key, page)
    } else seen.set(key, true)
    return page
  }
}

/** Keys of answered pages made once and not kept (see answeredPages). */
const seenKeys = (store: Store): LRUCache<string, true> => store.local?.(SEEN) ?? new LRUCache<string, true>({ max: 1 })
const SEEN = storeSlot('content/answered-pages-seen', () => new LRUCache<string, true>({ max: 4096 }))

/** List totals, reused by read requests while nothing is committed. */
export function totalCache (store: Store): (req: RestRequest) => TotalCache | undefined {
  const totals = readCache<KnownTotal>(store, 'totals', 500)
  return (req) => req.method !== 'GET'
    ? undefined
    : { get: async (key) => await totals.peek(req, key), set: async (key, total) => { await totals.put(req, key, total) } }
}
