/**
 * oEmbed data for this site's own posts and pages. A URL is ours when its
 * host is the site's; the post is found from `?p=`, `?page_id=` or a
 * `rest_route=/cms/v2/posts/{id}` style address, and read through dispatch
 * (`GET /cms/v2/posts/{id}`), so only what the content routes show is used.
 */
import { isPlainObject, type RestRequest } from '@cms/rest'
import { localEmbedHtml } from './html.js'

export interface SiteInfo {
  name: string
  /** Home URL without a trailing slash. */
  home: string
  /** Host names that mean "this site". */
  hosts: string[]
}

export interface LocalReference {
  id: number
  /** Collections to look in, in order. */
  types: Array<'posts' | 'pages'>
}

const bareHost = (host: string): string => host.toLowerCase().replace(/\.$/, '').replace(/^www\./, '')

export function hostOf (url: string): string | null {
  try { return bareHost(new URL(url).hostname) } catch { return null }
}

/** Whether the URL names this site (a relative URL does, as for the core). */
export function isLocalUrl (url: string, site: SiteInfo): boolean {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith('//')) return true
  const host = hostOf(url.startsWith('//') ? `http:${url}` : url)
  return host !== null && site.hosts.includes(host)
}

export function localReference (url: string, site: SiteInfo): LocalReference | null {
  if (!isLocalUrl(url, site)) return null
  const byId = /[?&](p|page_id)=(\d+)/.exec(url)
  if (byId !== null) {
    const id = Number(byId[2])
    return id > 0 ? { id, types: byId[1] === 'p' ? ['posts', 'pages'] : ['pages', 'posts'] } : null
  }
  let route: string | null = null
  try {
    const parsed = new URL(url, 'http://site.invalid')
    route = parsed.searchParams.get('rest_route') ?? (parsed.pathname.startsWith('/cms-json/') ? parsed.pathname.slice('/cms-json'.length) : null)
  } catch {
    return null
  }
  const m = route === null ? null : /^\/cms\/v2\/(posts|pages)\/(\d+)\/?$/i.exec(route)
  if (m === null) return null
  const id = Number(m[2])
  return id > 0 ? { id, types: [m[1]!.toLowerCase() as 'posts' | 'pages'] } : null
}

/** The core's sizes: width between 200 and 600, height 9/16 of it but at least 200. */
export function embedSize (maxwidth: number): { width: number, height: number } {
  const width = Math.min(Math.max(maxwidth, 200), 600)
  return { width, height: Math.max(Math.ceil(width / 16 * 9), 200) }
}

interface PostView {
  id: number
  link?: string
  status?: string
  author?: number
  featured_media?: number
  title?: { rendered?: string }
}

async function readPost (req: RestRequest, ref: LocalReference): Promise<{ post: PostView, type: 'posts' | 'pages' } | null> {
  for (const type of ref.types) {
    const res = await req.dispatch({
      method: 'GET',
      path: `/cms/v2/${type}/${ref.id}`,
      query: { context: 'view', _fields: 'id,link,status,author,featured_media,title' }
    })
    if (res.status === 200 && isPlainObject(res.body)) return { post: res.body as unknown as PostView, type }
  }
  return null
}

/** The author's display name, or null when the users routes do not show the author to this caller. */
async function authorName (req: RestRequest, id: number): Promise<string | null> {
  if (!Number.isInteger(id) || id <= 0) return null
  const res = await req.dispatch({ method: 'GET', path: `/cms/v2/users/${id}`, query: { context: 'embed', _fields: 'id,name' } })
  return res.status === 200 && isPlainObject(res.body) && typeof res.body.name === 'string' ? res.body.name : null
}

async function thumbnail (req: RestRequest, id: number, width: number): Promise<Record<string, unknown>> {
  if (!Number.isInteger(id) || id <= 0) return {}
  const res = await req.dispatch({ method: 'GET', path: `/cms/v2/media/${id}`, query: { context: 'view', _fields: 'source_url,media_details' } })
  if (res.status !== 200 || !isPlainObject(res.body) || typeof res.body.source_url !== 'string') return {}
  const details = isPlainObject(res.body.media_details) ? res.body.media_details : {}
  const w = Number(details.width)
  const h = Number(details.height)
  if (!(w > 0 && h > 0)) return { thumbnail_url: res.body.source_url }
  // The image scaled to fit the embed width, as a sized copy would be.
  const scale = Math.min(1, width / w)
  return { thumbnail_url: res.body.source_url, thumbnail_width: Math.round(w * scale), thumbnail_height: Math.round(h * scale) }
}

/** The oEmbed data of a published post or page of this site, or null when the URL names none. */
export async function localEmbedData (req: RestRequest, url: string, maxwidth: number, site: SiteInfo): Promise<Record<string, unknown> | null> {
  const ref = localReference(url, site)
  if (ref === null) return null
  const found = await readPost(req, ref)
  if (found === null || found.post.status !== 'publish') return null
  const { post, type } = found
  const { width, height } = embedSize(maxwidth)
  const title = post.title?.rendered ?? ''
  const permalink = typeof post.link === 'string' && post.link !== ''
    ? post.link
    : `${site.home}/?${type === 'pages' ? 'page_id' : 'p'}=${post.id}`
  const author = Number(post.author)
  const name = await authorName(req, author)
  return {
    version: '1.0',
    provider_name: site.name,
    provider_url: site.home,
    author_name: name ?? site.name,
    author_url: name === null ? site.home : `${site.home}/?author=${author}`,
    title,
    type: 'rich',
    width,
    height,
    html: localEmbedHtml({ permalink, title, siteName: site.name, width, height }),
    ...await thumbnail(req, Number(post.featured_media), width)
  }
}
