/**
 * Reads a live site through its REST API (the interface this service
 * speaks: `cms/v2`, or the core CMS's `wp/v2`), page by page through the
 * SSRF-guarded outbound client: users, categories, tags, media, posts,
 * pages, then comments. With a user and an application password, in the
 * edit context (raw text, drafts, private content, emails); without, what
 * anyone may read.
 */
import type { OutboundClient } from '@cms/core'
import type { SourceCommentRecord, SourcePost, SourceRecord, SourceTerm, SourceUser } from './model.js'

export interface RestSource {
  outbound: OutboundClient
  user?: string
  password?: string
  /** Told after each page: records read, records the source says it has (so far). */
  onPage?: (read: number, total: number) => void
}

const PER_PAGE = 100
/** A page of 100 posts with their content. */
const MAX_PAGE_BYTES = 64 * 1024 * 1024

const str = (v: unknown): string => typeof v === 'string' ? v : typeof v === 'number' ? String(v) : ''
/** A rendered-or-raw field (`{raw, rendered}` in the edit context). */
const text = (v: unknown): string => typeof v === 'object' && v !== null ? str((v as { raw?: unknown }).raw ?? (v as { rendered?: unknown }).rendered) : str(v)
const date = (v: unknown): string => str(v).replace(/Z$/, '').slice(0, 19)

export async function * readRest (root: string, src: RestSource): AsyncGenerator<SourceRecord> {
  const base = root.replace(/\/+$/, '')
  const headers: Record<string, string> = { accept: 'application/json' }
  if (src.user !== undefined && src.password !== undefined) headers.authorization = `Basic ${Buffer.from(`${src.user}:${src.password}`).toString('base64')}`
  const get = async (path: string): Promise<{ body: any, total: number }> => {
    const url = `${base}/${path}`
    const res = await src.outbound.fetch(url, { headers, maxBytes: MAX_PAGE_BYTES, timeoutMs: 60_000 }).catch((err: Error & { failure?: string }) => {
      throw new Error(`${url}: ${err.message}${err.failure === 'blocked' ? ' (--allow-private reaches an address inside your own network)' : ''}`)
    })
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${res.text().slice(0, 200)}`)
    const total = Number(res.headers['x-cms-total'] ?? res.headers['x-wp-total'] ?? 0)
    return { body: JSON.parse(res.text()), total: Number.isFinite(total) ? total : 0 }
  }
  const index = (await get('')).body as { namespaces?: string[], url?: string, home?: string }
  const ns = index.namespaces?.includes('cms/v2') === true ? 'cms/v2' : index.namespaces?.includes('wp/v2') === true ? 'wp/v2' : undefined
  if (ns === undefined) throw new Error(`${base} is not the root of a REST API with cms/v2 or wp/v2`)
  yield { kind: 'site', url: str(index.home ?? index.url).replace(/\/+$/, '') || new URL(base).origin }
  const signedIn = headers.authorization !== undefined
  const context = signedIn ? 'edit' : 'view'
  let read = 0
  let known = 0
  async function * pages (path: string, query: string): AsyncGenerator<any> {
    for (let page = 1; ; page++) {
      const { body, total } = await get(`${ns!}/${path}?${query}&per_page=${PER_PAGE}&page=${page}&orderby=id&order=asc&context=${context}`)
      if (page === 1) known += total
      if (!Array.isArray(body)) throw new Error(`${path}: not a list`)
      for (const item of body) yield item
      read += body.length
      src.onPage?.(read, known)
      if (body.length < PER_PAGE) return
    }
  }
  for await (const u of pages('users', '')) yield userOf(u)
  for await (const t of pages('categories', 'hide_empty=false')) yield termOf('category', t)
  for await (const t of pages('tags', 'hide_empty=false')) yield termOf('post_tag', t)
  const status = signedIn ? 'status=publish,future,draft,pending,private' : ''
  for await (const m of pages('media', signedIn ? 'status=inherit,private' : '')) yield postOf('attachment', m)
  for await (const p of pages('posts', status)) yield postOf('post', p)
  for await (const p of pages('pages', status)) yield postOf('page', p)
  for await (const c of pages('comments', signedIn ? 'status=all' : '')) yield commentOf(c)
}

function userOf (u: any): SourceUser {
  const login = str(u.username) || str(u.slug)
  return { kind: 'user', key: str(u.id), login, email: str(u.email), displayName: str(u.name), firstName: str(u.first_name), lastName: str(u.last_name), ...(Array.isArray(u.roles) ? { roles: u.roles.map(str) } : {}) }
}

function termOf (kind: 'category' | 'post_tag', t: any): SourceTerm {
  const parent = Number(t.parent ?? 0)
  return { kind, key: str(t.id), slug: str(t.slug), name: str(t.name), description: str(t.description), ...(parent > 0 ? { parent: String(parent) } : {}) }
}

function postOf (type: string, p: any): SourcePost {
  // The API shows every registered key, unset ones as their default: empty values carry nothing.
  const shown: Record<string, unknown> = typeof p.meta === 'object' && p.meta !== null && !Array.isArray(p.meta) ? p.meta : {}
  const meta = Object.fromEntries(Object.entries(shown).filter(([, v]) => v !== '' && v !== null && !(Array.isArray(v) && v.length === 0)))
  if (Number(p.featured_media ?? 0) > 0) meta._thumbnail_id = String(p.featured_media)
  if (type === 'attachment' && str(p.alt_text) !== '') meta._wp_attachment_image_alt = str(p.alt_text)
  const parent = Number(type === 'attachment' ? p.post ?? 0 : p.parent ?? 0)
  const post: SourcePost = {
    kind: 'post',
    key: str(p.id),
    type,
    title: text(p.title),
    content: type === 'attachment' ? text(p.description) : text(p.content),
    excerpt: type === 'attachment' ? text(p.caption) : text(p.excerpt),
    status: type === 'attachment' ? 'inherit' : str(p.status),
    date: date(p.date),
    slug: str(p.slug),
    menuOrder: Number(p.menu_order ?? 0) || 0,
    password: str(p.password),
    sticky: p.sticky === true,
    format: str(p.format) === 'standard' ? '' : str(p.format),
    commentStatus: str(p.comment_status) || 'open',
    pingStatus: str(p.ping_status) || 'open',
    categories: Array.isArray(p.categories) ? p.categories.map(str) : [],
    tags: Array.isArray(p.tags) ? p.tags.map(str) : [],
    meta,
    comments: []
  }
  if (p.date_gmt != null && str(p.date_gmt) !== '') post.dateGmt = date(p.date_gmt)
  if (parent > 0) post.parent = String(parent)
  if (Number(p.author ?? 0) > 0) post.author = String(p.author)
  if (str(p.link) !== '') post.link = str(p.link)
  if (type === 'attachment' && str(p.source_url) !== '') post.fileUrl = str(p.source_url)
  return post
}

function commentOf (c: any): SourceCommentRecord {
  const parent = Number(c.parent ?? 0)
  return {
    kind: 'comment',
    key: str(c.id),
    post: str(c.post),
    ...(parent > 0 ? { parent: String(parent) } : {}),
    authorName: str(c.author_name),
    authorEmail: str(c.author_email),
    authorUrl: str(c.author_url),
    authorIp: str(c.author_ip),
    dateGmt: date(c.date_gmt),
    content: text(c.content),
    status: (['approved', 'hold', 'spam', 'trash'] as const).find((s) => s === c.status) ?? 'hold',
    type: str(c.type) || 'comment'
  }
}
