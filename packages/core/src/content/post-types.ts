/**
 * The two content types served under cms/v2 and what differs between them,
 * plus the site settings every content route reads.
 */
import { getOptions, type Queryable, type Store } from '@cms/store'
import type { MetaRegistry } from '../platform/meta.js'

export interface PostType {
  type: 'post' | 'page' | 'attachment'
  restBase: 'posts' | 'pages' | 'media'
  hierarchical: boolean
  /** Query argument of the plain permalink: `?p=ID`, `?page_id=ID` or `?attachment_id=ID`. */
  linkParam: 'p' | 'page_id' | 'attachment_id'
  /** Sticky, format, categories and tags exist only for posts. */
  hasTerms: boolean
}

export const POST_TYPE: PostType = { type: 'post', restBase: 'posts', hierarchical: false, linkParam: 'p', hasTerms: true }
export const PAGE_TYPE: PostType = { type: 'page', restBase: 'pages', hierarchical: true, linkParam: 'page_id', hasTerms: false }
/**
 * Uploaded files (`/cms/v2/media`): posts of their own type, with the
 * posts' capabilities; `parent` is the post a file was uploaded to.
 */
export const ATTACHMENT_TYPE: PostType = { type: 'attachment', restBase: 'media', hierarchical: false, linkParam: 'attachment_id', hasTerms: false }

/** Meta keys of an attachment (protected: never shown in `meta`). */
export const ATTACHMENT_META = {
  /** The stored file's key under the uploads root, `2026/11/photo.jpg`. */
  file: '_cms_attached_file',
  /** width, height, file, filesize, sizes, original_image. */
  metadata: '_cms_attachment_metadata',
  alt: '_cms_attachment_image_alt',
  /** The sniffed MIME type (the posts table has no column for it). */
  mime: '_cms_mime_type'
} as const

export function postTypeOf (type: string): PostType | undefined {
  return type === 'post' ? POST_TYPE : type === 'page' ? PAGE_TYPE : undefined
}

export const POST_FORMATS = ['standard', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'] as const
export const WRITE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const
export const LIST_STATUSES = [
  'publish', 'future', 'draft', 'pending', 'private', 'trash', 'auto-draft', 'inherit',
  'request-pending', 'request-confirmed', 'request-failed', 'request-completed', 'any'
] as const
/** Statuses whose posts keep no date of their own until one is given. */
export const FLOATING_STATUSES = new Set(['draft', 'pending', 'auto-draft'])
/** What `status=any` lists. */
export const ANY_STATUSES = ['publish', 'future', 'draft', 'pending', 'private']

/** Templates a theme offers, per type: none by default (`""` is always accepted). */
const templates: Record<string, Set<string>> = { post: new Set(), page: new Set(), attachment: new Set() }

/** Lets another module (a theme or the page builder) offer templates. */
export function allowTemplates (type: 'post' | 'page' | 'attachment', names: readonly string[]): void {
  for (const name of names) templates[type]!.add(name)
}

export function allowedTemplates (type: string): string[] {
  return [...(templates[type] ?? [])]
}

export interface SiteSettings {
  /** The app's registered post meta. */
  meta: MetaRegistry
  /** The home URL for links in answers: the `home` option, else the request's base URL. */
  home: string
  /**
   * The home URL for what is stored (a post's `guid`): the `home` option, else
   * the configured site URL; never derived from request headers.
   */
  storedHome: string
  timeZone: string
  defaultCategory: number
  defaultCommentStatus: string
  defaultPingStatus: string
  pageOnFront: number
  pageForPosts: number
  /** Text smilies are shown as emoji (`use_smilies`). */
  useSmilies: boolean
}

/** The settings content routes need, read fresh (tests and admins change them at any time). */
export async function siteSettings (db: Store | Queryable, site: { baseUrl: string, siteUrl: string }, meta: MetaRegistry): Promise<SiteSettings> {
  const o = await getOptions(db, ['home', 'timezone_string', 'default_category', 'default_comment_status', 'default_ping_status', 'page_on_front', 'page_for_posts', 'use_smilies'])
  return {
    meta,
    home: o.home === '' ? site.baseUrl : o.home,
    storedHome: o.home === '' ? site.siteUrl : o.home,
    timeZone: o.timezone_string,
    defaultCategory: Number(o.default_category),
    defaultCommentStatus: o.default_comment_status,
    defaultPingStatus: o.default_ping_status,
    pageOnFront: Number(o.page_on_front),
    pageForPosts: Number(o.page_for_posts),
    useSmilies: Number(o.use_smilies) === 1
  }
}

/** Plain permalink of a post of any type. */
export function permalink (home: string, type: string, id: number): string {
  return `${permalinkPrefix(home, type)}${id}`
}

/** A plain permalink without its id. */
export function permalinkPrefix (home: string, type: string): string {
  return `${home}/?${type === 'page' ? 'page_id' : type === 'attachment' ? 'attachment_id' : 'p'}=`
}
