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

function encodeQuery (query: Record<string, unknown>): string {
  return qs.stringify(query, { arrayFormat: 'brackets', encodeValuesOnly: false, format: 'RFC1738' })
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
