/**
 * Totals and prev/next links of a paged list, as the core builds them: the
 * request's own query parameters appended to the collection URL, `page`
 * replaced in place or appended last.
 */
import qs from 'qs'
import type { RestError } from './errors.js'

export interface PageInfo {
  total: number
  perPage: number
  page: number
}

export function totalPages ({ total, perPage }: Pick<PageInfo, 'total' | 'perPage'>): number {
  return perPage > 0 ? Math.ceil(total / perPage) : (total > 0 ? 1 : 0)
}

/**
 * Throws the family's declared `<prefix>_invalid_page_number` error (a
 * factory of its catalogue) when the page is past the end.
 */
export function checkPage (info: PageInfo, pastTheEnd: () => RestError): void {
  if (info.total > 0 && info.page > totalPages(info)) throw pastTheEnd()
}

const QS_OPTIONS: qs.IStringifyOptions = { arrayFormat: 'brackets', encodeValuesOnly: false, format: 'RFC1738' }

/**
 * One key or value as qs's RFC 1738 format writes it: encodeURIComponent
 * leaves `!`, `'` and `*` as they are, qs percent-encodes them, and a space
 * is `+`. Undefined for a lone surrogate (encodeURIComponent refuses it).
 */
function encodePart (text: string): string | undefined {
  let out: string
  try {
    out = encodeURIComponent(text)
  } catch {
    return undefined
  }
  return /[!'*]|%20/.test(out) ? out.replace(/[!'*]|%20/g, (c) => c === '%20' ? '+' : `%${c.charCodeAt(0).toString(16).toUpperCase()}`) : out
}

/**
 * The query string of a page link, byte for byte what qs's stringify gives
 * with these options. Built here for the flat queries of nearly every list
 * (strings and numbers): qs's general walk was about 1 % of a signed-in
 * page's CPU. Arrays, objects and anything else go to qs.
 */
function encodeQuery (query: Record<string, unknown>): string {
  let out = ''
  for (const key of Object.keys(query)) {
    const value = query[key]
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined
    if (text === undefined) return qs.stringify(query, QS_OPTIONS)
    const k = encodePart(key)
    const v = encodePart(text)
    if (k === undefined || v === undefined) return qs.stringify(query, QS_OPTIONS)
    out += `${out === '' ? '' : '&'}${k}=${v}`
  }
  return out
}

export function paginationHeaders (
  info: PageInfo,
  baseUrl: string,
  route: string,
  query: Record<string, unknown>
): Record<string, string | number> {
  const pages = totalPages(info)
  const headers: Record<string, string | number> = { 'X-CMS-Total': info.total, 'X-CMS-TotalPages': pages }
  const link = (page: number): string => {
    const params: Record<string, unknown> = { rest_route: route }
    for (const [k, v] of Object.entries(query)) {
      if (k === 'rest_route') continue
      params[k] = k === 'page' ? page : v
    }
    if (!('page' in query)) params.page = page
    return `${baseUrl}/index.php?${encodeQuery(params)}`
  }
  const links: string[] = []
  if (info.page > 1) links.push(`<${link(Math.max(0, Math.min(info.page - 1, pages)))}>; rel="prev"`)
  if (pages > info.page) links.push(`<${link(info.page + 1)}>; rel="next"`)
  if (links.length > 0) headers.Link = links.join(', ')
  return headers
}

/** `paginationHeaders` of the list the request asked for: its route's own path and query. */
export function pageHeaders (req: { readonly baseUrl: string, readonly routePath: string, readonly query: Record<string, unknown> }, info: PageInfo): Record<string, string | number> {
  return paginationHeaders(info, req.baseUrl, req.routePath, req.query)
}
