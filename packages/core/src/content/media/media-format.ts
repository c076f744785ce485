/**
 * How a stored attachment becomes a response (the media routes' answers),
 * and what its meta says of its file: the stored keys, the image sizes.
 */
import { basename } from 'node:path'
import { restUrl, wantsField, type Links, type RestRequest } from '@cms/rest'
import type { Store } from '@cms/store'
import { ATTACHMENT_META, canEdit, capObject, fieldsOf, fileUrl, formatGmt, formatLocal, htmlClass, metaResponse, permalink, renderedContent, renderedExcerpt, renderedTitle, uniquePostSlug, type PostRow, type SiteSettings } from '../index.js'
import { textPool } from '../../text/text-pool.js'
import { mediaTypeOf, RESIZABLE } from './file-types.js'
import { IMAGE_SIZES } from './sizes.js'

/** One size of an image as stored in its metadata. */
export interface StoredSize { file: string, width: number, height: number, mime_type: string, filesize: number }

/** What `_cms_attachment_metadata` holds. */
export interface AttachmentMetadata {
  width?: number
  height?: number
  /** The attached file's key. */
  file: string
  filesize: number
  sizes?: Record<string, StoredSize>
  /** The file as uploaded, when an upright copy replaced it (its base name). */
  original_image?: string
}

export interface Attachment { key: string, mime: string, alt: string, metadata: AttachmentMetadata | undefined }

export function attachmentOf (meta: Record<string, unknown>): Attachment {
  const metadata = meta[ATTACHMENT_META.metadata]
  return {
    key: typeof meta[ATTACHMENT_META.file] === 'string' ? meta[ATTACHMENT_META.file] as string : '',
    mime: typeof meta[ATTACHMENT_META.mime] === 'string' ? meta[ATTACHMENT_META.mime] as string : 'application/octet-stream',
    alt: typeof meta[ATTACHMENT_META.alt] === 'string' ? meta[ATTACHMENT_META.alt] as string : '',
    metadata: typeof metadata === 'object' && metadata !== null ? metadata as AttachmentMetadata : undefined
  }
}

/** Every stored key of an attachment: its file, the original it replaced, its sizes. */
export function keysOf (a: Attachment): string[] {
  if (a.key === '') return []
  const folder = a.key.includes('/') ? a.key.slice(0, a.key.lastIndexOf('/') + 1) : ''
  const keys = [a.key]
  if (a.metadata?.original_image !== undefined) keys.push(folder + a.metadata.original_image)
  for (const size of Object.values(a.metadata?.sizes ?? {})) keys.push(folder + size.file)
  return [...new Set(keys)]
}

export interface MediaFormatOptions {
  req: RestRequest
  settings: SiteSettings
  context: string
  store: Store
  /** The slug is the item's own (an edit-context list asks for its page at once: `ownSlugIds`). */
  slugIsUnique?: boolean
}

function mediaLinks (post: PostRow, opts: MediaFormatOptions): Links {
  const { req, settings } = opts
  const base = req.baseUrl
  const allow = ['GET']
  if (canEdit(req.user, post)) allow.push('POST', 'PUT', 'PATCH')
  if (req.user.can('delete_post', capObject(post, settings))) allow.push('DELETE')
  const links: Links = {
    self: [{ href: restUrl(base, `/cms/v2/media/${post.id}`), targetHints: { allow } }],
    collection: [{ href: restUrl(base, '/cms/v2/media') }],
    about: [{ href: restUrl(base, '/cms/v2/types/attachment') }]
  }
  if (post.author !== 0) links.author = [{ embeddable: true, href: restUrl(base, `/cms/v2/users/${post.author}`) }]
  return links
}

/** The REST view of the image metadata: sizes with their URLs, and `full`. */
function mediaDetails (a: Attachment, home: string): Record<string, unknown> {
  const m = a.metadata
  if (m === undefined) return {}
  if (m.width === undefined || m.height === undefined) return { filesize: m.filesize }
  const folder = a.key.includes('/') ? a.key.slice(0, a.key.lastIndexOf('/') + 1) : ''
  const sizes: Record<string, unknown> = {}
  for (const [name, s] of Object.entries(m.sizes ?? {})) {
    sizes[name] = { file: s.file, width: s.width, height: s.height, filesize: s.filesize, mime_type: s.mime_type, source_url: fileUrl(home, folder + s.file) }
  }
  sizes.full = { file: basename(a.key), width: m.width, height: m.height, mime_type: a.mime, source_url: fileUrl(home, a.key) }
  const out: Record<string, unknown> = { width: m.width, height: m.height, file: m.file, filesize: m.filesize, sizes }
  if (m.original_image !== undefined) out.original_image = m.original_image
  return out
}

/**
 * The attachment in the core's key order; the route schema filters it by
 * context. What `_fields` leaves out is not computed (rendered texts, the
 * generated slug, the links), as for posts (formatPost).
 */
export async function formatMedia (post: PostRow, meta: Record<string, unknown>, opts: MediaFormatOptions): Promise<Record<string, unknown>> {
  const { settings, context } = opts
  const fields = fieldsOf(opts.req)
  const tz = settings.timeZone
  const date = post.dateGmt ?? post.modifiedGmt
  const a = attachmentOf(meta)
  const source = a.key === '' ? '' : fileUrl(settings.home, a.key)
  const link = permalink(settings.home, post.type, post.id)
  const out: Record<string, unknown> = {
    id: post.id,
    date: formatLocal(date, tz),
    date_gmt: formatGmt(date),
    guid: { rendered: source, raw: source },
    modified: formatLocal(post.modifiedGmt, tz),
    modified_gmt: formatGmt(post.modifiedGmt),
    slug: post.slug,
    status: post.status,
    type: post.type,
    link,
    ...(wantsField(fields, 'title') ? { title: { raw: post.title, rendered: await renderedTitle(post.title) } } : {}),
    author: post.author,
    comment_status: post.commentStatus,
    ping_status: post.pingStatus,
    template: post.template,
    meta: metaResponse(settings.meta, meta)
  }
  if (context === 'edit') {
    out.permalink_template = link
    if (wantsField(fields, 'generated_slug')) {
      out.generated_slug = opts.slugIsUnique === true && post.slug !== ''
        ? post.slug
        : await uniquePostSlug(opts.store, post.slug !== '' ? post.slug : await textPool.slug(post.title, String(post.id)), {
          id: post.id, type: post.type, parent: post.parent, hierarchical: false
        })
    }
  }
  out.class_list = [`post-${post.id}`, 'attachment', 'type-attachment', `status-${post.status}`, 'hentry', ...(a.mime === '' ? [] : [htmlClass(a.mime.replace('/', '-'))])]
  if (wantsField(fields, 'description')) out.description = { raw: post.content, rendered: await renderedContent(post.content, settings.useSmilies) }
  if (wantsField(fields, 'caption')) {
    out.caption = { raw: post.excerpt, rendered: post.excerpt === '' ? '' : await renderedExcerpt(post.excerpt, '', undefined, settings.useSmilies) }
  }
  out.alt_text = a.alt
  out.media_type = mediaTypeOf(a.mime)
  out.mime_type = a.mime
  out.media_details = mediaDetails(a, settings.home)
  out.post = post.parent === 0 ? null : post.parent
  out.source_url = source
  if (context === 'edit') {
    const made = new Set(Object.keys(a.metadata?.sizes ?? {}))
    const w = a.metadata?.width ?? 0
    const h = a.metadata?.height ?? 0
    out.missing_image_sizes = RESIZABLE.has(a.mime)
      ? IMAGE_SIZES.filter((s) => !made.has(s.name) && (s.crop ? (w > s.width || h > s.height) : ((s.width > 0 && w > s.width) || (s.height > 0 && h > s.height)))).map((s) => s.name)
      : []
  }
  if (wantsField(fields, '_links') || wantsField(fields, '_embedded')) out._links = mediaLinks(post, opts)
  return out
}
