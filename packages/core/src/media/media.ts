/**
 * `/cms/v2/media`: the media library. Attachments are posts of type
 * `attachment` (the posts' store, query, schema fields, capabilities and
 * writes); what they add is their file. Uploads arrive as a raw body named
 * by Content-Disposition or as a multipart form, streamed to a work file,
 * identified by their content, stored with their image sizes, then
 * recorded; a refused upload leaves no file and no row. Deleting needs
 * `force` (attachments have no trash) and removes the files.
 */
import { basename, extname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createWriteStream } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { mkdir, rm } from 'node:fs/promises'
import { Type } from '@sinclair/typebox'
import { eq } from 'drizzle-orm'
import { argsOf, check, checkPage, ContextArg, endpoint, Enum, everyone, restUrl, route, RestResponse, validateArgs, who, type Links, type Principal, type RelativeRouteDecl, type RestError, type RestRequest, pageHeaders, createdAt } from '@cms/rest'
import type { Store } from '@cms/store'
import type { Services } from '../services.js'
import { ATTACHMENT_META, ATTACHMENT_TYPE, canEdit, canRead, capObject, contentErrors, deleteArgs, deletePostFully, denied, fileUrl, formatGmt, formatLocal, getMeta, getPost, htmlClass, invalidParam, metaResponse, nowSeconds, parseRequestDate, permalink, posts, preparePost, readRule, renderedContent, renderedExcerpt, renderedTitle, requestSettings, runListQuery, sanitizeSlug, setMeta, textParam, uniquePostSlug, writePost, type ListQuery, type PostRow, type PostTypeDefinition, type SiteSettings } from '../content/index.js'
import { mediaErrors } from './errors.js'
import { mediaTypeOf, RESIZABLE } from './file-types.js'
import { mediaItemSchema, mediaListArgs, mediaWriteArgs } from './media-schema.js'
import { IMAGE_SIZES, makeSizes, type MadeImage } from './sizes.js'
import type { MediaPlace } from './place.js'
import type { MediaStorage } from './storage.js'
import { identify, receiveBody, type ReceivedFile } from './upload.js'

/** The `attachment` post type as the core declares it: no archive, not in menus, created by `upload_files`. */
export const ATTACHMENT_POST_TYPE: PostTypeDefinition = {
  slug: ATTACHMENT_TYPE.type,
  name: 'Media',
  singularName: 'Media',
  restBase: ATTACHMENT_TYPE.restBase,
  supports: ['title', 'author', 'comments'],
  icon: 'admin-media',
  showInNavMenus: false,
  capabilities: { create_posts: 'upload_files' }
}

/** One size of an image as stored in its metadata. */
interface StoredSize { file: string, width: number, height: number, mime_type: string, filesize: number }

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

interface Attachment { key: string, mime: string, alt: string, metadata: AttachmentMetadata | undefined }

function attachmentOf (meta: Record<string, unknown>): Attachment {
  const metadata = meta[ATTACHMENT_META.metadata]
  return {
    key: typeof meta[ATTACHMENT_META.file] === 'string' ? meta[ATTACHMENT_META.file] as string : '',
    mime: typeof meta[ATTACHMENT_META.mime] === 'string' ? meta[ATTACHMENT_META.mime] as string : 'application/octet-stream',
    alt: typeof meta[ATTACHMENT_META.alt] === 'string' ? meta[ATTACHMENT_META.alt] as string : '',
    metadata: typeof metadata === 'object' && metadata !== null ? metadata as AttachmentMetadata : undefined
  }
}

/** Every stored key of an attachment: its file, the original it replaced, its sizes. */
function keysOf (a: Attachment): string[] {
  if (a.key === '') return []
  const folder = a.key.includes('/') ? a.key.slice(0, a.key.lastIndexOf('/') + 1) : ''
  const keys = [a.key]
  if (a.metadata?.original_image !== undefined) keys.push(folder + a.metadata.original_image)
  for (const size of Object.values(a.metadata?.sizes ?? {})) keys.push(folder + size.file)
  return [...new Set(keys)]
}

/** Text without tags or control characters (alt text), in one pass. */
export function plainText (value: string): string {
  let out = ''
  let inTag = false
  for (const ch of value) {
    if (ch === '<') inTag = true
    else if (ch === '>' && inTag) inTag = false
    else if (!inTag) out += ch
  }

  return out.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '').replace(/\s+/g, ' ').trim()
}

/** Whether the caller may read the attachment: an inherited status follows its parent (public when unattached). */
async function canReadMedia (store: Store, user: Principal, post: PostRow, parents?: Map<number, PostRow | undefined>): Promise<boolean> {
  if (post.status !== 'inherit') return canRead(user, post)
  if (post.parent === 0) return true
  const parent = parents !== undefined ? parents.get(post.parent) : await getPost(store, post.parent)
  if (parent === undefined || parent.type === 'attachment') return true
  return canRead(user, parent)
}

interface FormatOptions { req: RestRequest, settings: SiteSettings, context: string, store: Store }

function mediaLinks (post: PostRow, opts: FormatOptions): Links {
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

export async function formatMedia (post: PostRow, meta: Record<string, unknown>, opts: FormatOptions): Promise<Record<string, unknown>> {
  const { settings, context } = opts
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
    title: { raw: post.title, rendered: await renderedTitle(post.title) },
    author: post.author,
    comment_status: post.commentStatus,
    ping_status: post.pingStatus,
    template: post.template,
    meta: metaResponse(settings.meta, meta)
  }
  if (context === 'edit') {
    out.permalink_template = link
    out.generated_slug = await uniquePostSlug(opts.store, post.slug !== '' ? post.slug : sanitizeSlug(post.title, String(post.id)), {
      id: post.id, type: post.type, parent: post.parent, hierarchical: false
    })
  }
  out.class_list = [`post-${post.id}`, 'attachment', 'type-attachment', `status-${post.status}`, 'hentry', ...(a.mime === '' ? [] : [htmlClass(a.mime.replace('/', '-'))])]
  out.description = { raw: post.content, rendered: await renderedContent(post.content, settings.useSmilies) }
  out.caption = { raw: post.excerpt, rendered: post.excerpt === '' ? '' : await renderedExcerpt(post.excerpt, '', undefined, settings.useSmilies) }
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
  out._links = mediaLinks(post, opts)
  return out
}

/** Files made for an attachment and stored; `undo()` removes them all. */
interface StoredFiles { key: string, metadata: AttachmentMetadata, undo: () => Promise<void> }

/** The `YYYY/MM` folder of an upload at `now`. */
function folderOf (now: Date): string {
  return `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}`
}

/** Stores the sizes made from an image in the attached file's folder, named after its stem. */
async function storeSizes (storage: MediaStorage, key: string, ext: string, made: MadeImage, stored: string[]): Promise<Record<string, StoredSize>> {
  const folder = key.slice(0, key.lastIndexOf('/'))
  const stem = basename(key, extname(key))
  const sizes: Record<string, StoredSize> = {}
  for (const size of made.sizes) {
    const sizeKey = await storage.putUnique(folder, `${stem}-${size.width}x${size.height}.${ext}`, size.path)
    stored.push(sizeKey)
    sizes[size.size] = { file: basename(sizeKey), width: size.width, height: size.height, mime_type: size.mime, filesize: size.bytes }
  }
  return sizes
}

/**
 * Identifies a received file, makes its sizes, and stores it all under
 * `uploads/YYYY/MM/`. On failure nothing stays stored; the work files are
 * the caller's to remove.
 */
async function storeUpload (place: MediaPlace, file: ReceivedFile, now: Date): Promise<StoredFiles & { mime: string, name: string }> {
  const { mime, ext } = await identify(file)
  const stem = basename(file.name, extname(file.name))
  const name = `${stem}.${ext}`
  await mkdir(place.work, { recursive: true })
  const made = RESIZABLE.has(mime) ? await makeSizes(file.path, ext, mime, place.work, place.images) : undefined
  const stored: string[] = []
  const undo = async (): Promise<void> => { await place.storage.remove(stored) }
  try {
    const folder = folderOf(now)
    const size = file.size
    const original = await place.storage.putUnique(folder, name, file.path)
    stored.push(original)
    let key = original
    if (made?.rotated !== undefined) {
      key = await place.storage.putUnique(folder, `${basename(original, `.${ext}`)}-rotated.${ext}`, made.rotated.path)
      stored.push(key)
    }
    const metadata: AttachmentMetadata = { file: key, filesize: made?.rotated?.bytes ?? size }
    if (made !== undefined) {
      metadata.width = made.width
      metadata.height = made.height
      metadata.sizes = await storeSizes(place.storage, key, ext, made, stored)
      if (key !== original) metadata.original_image = basename(original)
    }
    return { key, metadata, undo, mime, name }
  } catch (err) {
    await undo()
    throw err
  } finally {
    if (made !== undefined) await Promise.all([made.rotated, ...made.sizes].map(async (m) => { if (m !== undefined) await rm(m.path, { force: true }) }))
  }
}

/** The post-shaped parameters of a media write (description is the content, caption the excerpt). */
function postParams (p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...p }
  delete out.content
  delete out.excerpt
  delete out.featured_media
  delete out.password
  if (p.description !== undefined) out.content = textParam(p.description) ?? ''
  if (p.caption !== undefined) out.excerpt = textParam(p.caption) ?? ''
  return out
}

/** Checks a `post` (parent) the caller attaches a file to: it must exist and be theirs to edit. */
async function checkParent (store: Store, user: Principal, parent: unknown): Promise<void> {
  if (parent === undefined || parent === null || parent === 0) return
  const post = await getPost(store, Number(parent))
  if (post === undefined || post.type === 'attachment' || post.type === 'revision' || !canEdit(user, post)) {
    throw denied(mediaErrors.rest_cannot_edit(), user.id)
  }
}

export interface NewAttachment {
  file: ReceivedFile
  params: Record<string, unknown>
  user: Principal
  settings: SiteSettings
}

/**
 * Stores an uploaded file and records its attachment (the route and the
 * command line both come here). The work file is removed whatever happens.
 */
export async function createAttachment (services: Services, { file, params, user, settings }: NewAttachment): Promise<PostRow> {
  const store = services.store
  const place = services.media
  try {
    const now = nowSeconds()
    const title = typeof textParam(params.title) === 'string' ? params.title : basename(file.name, extname(file.name))
    const prepared = await preparePost(store, ATTACHMENT_TYPE, postParams({ ...params, title, status: params.status ?? 'inherit' }), user, settings, undefined, now)
    const stored = await storeUpload(place, file, now)
    try {
      prepared.row.parent = typeof params.post === 'number' ? params.post : 0
      prepared.meta = {
        set: {
          ...prepared.meta?.set,
          [ATTACHMENT_META.file]: stored.key,
          [ATTACHMENT_META.metadata]: stored.metadata,
          [ATTACHMENT_META.mime]: stored.mime,
          ...(typeof params.alt_text === 'string' ? { [ATTACHMENT_META.alt]: plainText(params.alt_text) } : {})
        },
        remove: prepared.meta?.remove ?? []
      }
      const { post } = await writePost(store, ATTACHMENT_TYPE, prepared, user, settings, undefined, { revision: false }, now)
      return post
    } catch (err) {
      await stored.undo()
      throw err
    }
  } finally {
    await file.remove()
  }
}

/** Makes an image's sizes again from its stored original; old size files are replaced. */
async function regenerateSizes (services: Services, post: PostRow, a: Attachment): Promise<void> {
  const place = services.media
  if (!RESIZABLE.has(a.mime) || a.metadata === undefined || a.key === '') throw mediaErrors.rest_image_not_edited()
  await mkdir(place.work, { recursive: true })
  const path = join(place.work, randomUUID())
  try {
    await pipeline(place.storage.read(a.key), createWriteStream(path, { flags: 'wx' }))
    const ext = extname(a.key).slice(1)
    const made = await makeSizes(path, ext, a.mime, place.work, place.images)
    const stored: string[] = []
    try {
      const old = Object.values(a.metadata.sizes ?? {}).map((s) => a.key.slice(0, a.key.lastIndexOf('/') + 1) + s.file)
      await place.storage.remove(old)
      const sizes = await storeSizes(place.storage, a.key, ext, { ...made, rotated: undefined }, stored)
      const metadata = { ...a.metadata, width: made.width, height: made.height, sizes }
      await services.store.transaction(async (tx) => { await setMeta(tx, post.id, { [ATTACHMENT_META.metadata]: metadata }) })
    } catch (err) {
      await place.storage.remove(stored)
      throw err
    } finally {
      await Promise.all([made.rotated, ...made.sizes].map(async (m) => { if (m !== undefined) await rm(m.path, { force: true }) }))
    }
  } finally {
    await rm(path, { force: true })
  }
}

export function mediaRoutes (services: Services): RelativeRouteDecl[] {
  const { store } = services
  // The type /cms/v2/types lists, as the core registers it (once per deployment).
  if (!services.types.postTypes.has(ATTACHMENT_TYPE.type)) services.types.registerPostType(ATTACHMENT_POST_TYPE)
  const place = services.media
  const schema = mediaItemSchema(services.meta)
  const writeArgs = mediaWriteArgs(services.meta)
  const writeArgInfo = argsOf(endpoint({ methods: ['POST'], args: writeArgs, permission: everyone, handler: () => null }))

  const loadMedia = async (req: RestRequest): Promise<PostRow | undefined> => await req.memo('media:item', async () => {
    const post = await getPost(store, Number(req.params.id))
    return post?.type === 'attachment' ? post : undefined
  })
  const mustLoad = async (req: RestRequest): Promise<PostRow> => {
    const post = await loadMedia(req)
    if (post === undefined) throw contentErrors.rest_post_invalid_id()
    return post
  }
  const contextOf = (req: RestRequest, fallback = 'view'): string => typeof req.params.context === 'string' ? req.params.context : fallback
  const formatOne = async (req: RestRequest, post: PostRow, context: string): Promise<Record<string, unknown>> => {
    const settings = await requestSettings(store, req, services.meta)
    const meta = (await getMeta(store, [post.id])).get(post.id) ?? {}
    return await formatMedia(post, meta, { req, settings, context, store })
  }

  const listPermission = (req: RestRequest): true | RestError => {
    for (const status of (req.params.status ?? []) as string[]) {
      if (status === 'inherit' || status === 'publish') continue
      if (req.user.can('edit_posts') || (status === 'private' && req.user.can('read_private_posts'))) continue
      const code = req.user.id === 0 ? 401 : 403
      return invalidParam('status', 'Status is forbidden.', { code: 'rest_forbidden_status', message: 'Status is forbidden.', data: { status: code } })
    }
    if (req.params.context === 'edit' && !req.user.can('edit_posts')) return denied(contentErrors.rest_forbidden_context(), req.user.id)
    return true
  }

  const list = async (req: RestRequest): Promise<RestResponse> => {
    const p = req.params
    const settings = await requestSettings(store, req, services.meta)
    const search = typeof p.search === 'string' ? p.search : undefined
    const include = (p.include ?? []) as number[]
    if (p.orderby === 'relevance' && (search === undefined || search === '')) throw contentErrors.rest_no_search_term_defined()
    if (p.orderby === 'include' && include.length === 0) throw contentErrors.rest_orderby_include_missing_include()
    const date = (v: unknown): Date | undefined => typeof v === 'string' ? parseRequestDate(v, settings.timeZone) ?? undefined : undefined
    const mimeTypes: string[] = []
    if (typeof p.media_type === 'string') mimeTypes.push(`${p.media_type}/`)
    if (typeof p.mime_type === 'string' && p.mime_type !== '') mimeTypes.push(p.mime_type.includes('/') ? p.mime_type : `${p.mime_type}/`)
    const slugs = Array.isArray(p.slug) ? (p.slug as string[]).map((s) => s.trim()).filter((s) => s !== '') : undefined
    const context = contextOf(req)
    // The posts' readability rule; an inherited status follows the parent post, checked per row below.
    const readable = readRule(req.user, 'attachment', context === 'edit' ? 'edit' : 'read')
    if (context !== 'edit' && !readable.any.includes('inherit')) readable.any.push('inherit')
    const q: ListQuery = {
      type: 'attachment',
      statuses: [...new Set((p.status ?? ['inherit']) as string[])],
      search,
      searchColumns: (p.search_columns ?? []) as string[],
      exact: p.search_semantics === 'exact',
      hideProtected: false,
      readable,
      searchable: null,
      after: date(p.after),
      before: date(p.before),
      modifiedAfter: date(p.modified_after),
      modifiedBefore: date(p.modified_before),
      author: (p.author ?? []) as number[],
      authorExclude: (p.author_exclude ?? []) as number[],
      include,
      exclude: (p.exclude ?? []) as number[],
      slugs,
      parent: (p.parent ?? []) as number[],
      parentExclude: (p.parent_exclude ?? []) as number[],
      // Both filters must hold when both are given.
      mimeTypes: mimeTypes.length === 2 ? [mimeTypes[1]!.startsWith(mimeTypes[0]!) ? mimeTypes[1]! : '\0'] : mimeTypes,
      tax: [],
      taxRelation: 'AND',
      orderby: String(p.orderby ?? 'date'),
      order: p.order === 'asc' ? 'asc' : 'desc',
      perPage: Number(p.per_page ?? 10),
      page: Number(p.page ?? 1),
      offset: typeof p.offset === 'number' ? p.offset : undefined
    }
    const { rows, total } = await runListQuery(store, q)
    const info = { total, perPage: q.perPage!, page: q.page }
    checkPage(info, contentErrors.rest_post_invalid_page_number)
    const parentIds = [...new Set(rows.map((r) => r.parent).filter((id) => id !== 0))]
    const parents = new Map<number, PostRow | undefined>(await Promise.all(parentIds.map(async (id) => [id, await getPost(store, id)] as const)))
    const visible: PostRow[] = []
    for (const post of rows) {
      if (!(await canReadMedia(store, req.user, post, parents))) continue
      if (context === 'edit' && !canEdit(req.user, post)) continue
      visible.push(post)
    }
    const metas = await getMeta(store, visible.map((r) => r.id))
    const opts: FormatOptions = { req, settings, context, store }
    const body = await Promise.all(visible.map(async (post) => await formatMedia(post, metas.get(post.id) ?? {}, opts)))
    return new RestResponse(body, 200, pageHeaders(req, info))
  }

  /** Who may upload, and attach to the post and author given (checked again for multipart fields). */
  const checkUpload = async (req: RestRequest, params: Record<string, unknown>): Promise<true | RestError> => {
    const user = req.user
    if (!user.can('upload_files')) return denied(mediaErrors.rest_cannot_create(), user.id)
    if (typeof params.author === 'number' && params.author !== user.id && !user.can('edit_others_posts')) {
      return denied(contentErrors.rest_cannot_edit_others(), user.id)
    }
    try {
      await checkParent(store, user, params.post)
    } catch (err) {
      return err as RestError
    }
    return true
  }

  const create = async (req: RestRequest): Promise<RestResponse> => {
    const received = await receiveBody(req.body, req.headers, place.work)
    let params: Record<string, unknown>
    try {
      // Fields of a multipart form are arguments like those of the query string, and are checked as such.
      params = Object.keys(received.fields).length === 0
        ? { ...req.params }
        : { ...req.params, ...validateArgs(writeArgInfo, Object.assign(Object.create(null) as Record<string, unknown>, req.query, received.fields)) }
      const allowed = await checkUpload(req, params)
      if (allowed !== true) throw allowed
    } catch (err) {
      await received.file.remove()
      throw err
    }
    const settings = await requestSettings(store, req, services.meta)
    const post = await createAttachment(services, { file: received.file, params, user: req.user, settings })
    const body = await formatOne(req, post, 'edit')
    return createdAt(req, body, post.id)
  }

  const readPermission = async (req: RestRequest): Promise<boolean | RestError> => {
    const post = await loadMedia(req)
    if (post === undefined) return contentErrors.rest_post_invalid_id()
    if (req.params.context === 'edit' && !canEdit(req.user, post)) {
      return denied(contentErrors.rest_forbidden_context(undefined, 'Sorry, you are not allowed to edit this post.'), req.user.id)
    }
    return await canReadMedia(store, req.user, post)
  }

  const read = async (req: RestRequest): Promise<RestResponse> => {
    const post = await mustLoad(req)
    const settings = await requestSettings(store, req, services.meta)
    const body = await formatOne(req, post, contextOf(req))
    return new RestResponse(body, 200, {
      'Last-Modified': post.modifiedGmt.toUTCString(),
      Link: `<${permalink(settings.home, post.type, post.id)}>; rel="alternate"; type=text/html`
    })
  }

  const updatePermission = async (req: RestRequest): Promise<true | RestError> => {
    const post = await loadMedia(req)
    if (post === undefined) return contentErrors.rest_post_invalid_id()
    const user = req.user
    if (!canEdit(user, post)) return denied(contentErrors.rest_cannot_edit(), user.id)
    if (typeof req.params.author === 'number' && req.params.author !== 0 && req.params.author !== user.id && !user.can('edit_others_posts')) {
      return denied(contentErrors.rest_cannot_edit_others(undefined, 'Sorry, you are not allowed to update posts as this user.'), user.id)
    }
    return true
  }

  const update = async (req: RestRequest): Promise<unknown> => {
    const existing = await mustLoad(req)
    const p = req.params
    if (p.post !== undefined && p.post !== existing.parent) await checkParent(store, req.user, p.post)
    const settings = await requestSettings(store, req, services.meta)
    const prepared = await preparePost(store, ATTACHMENT_TYPE, postParams(p), req.user, settings, existing)
    if (typeof p.post === 'number') prepared.row.parent = p.post
    if (typeof p.alt_text === 'string') {
      prepared.meta ??= { set: {}, remove: [] }
      prepared.meta.set[ATTACHMENT_META.alt] = plainText(p.alt_text)
    }
    const { post } = await writePost(store, ATTACHMENT_TYPE, prepared, req.user, settings, existing, { revision: false })
    return await formatOne(req, post, 'edit')
  }

  const deletePermission = async (req: RestRequest): Promise<true | RestError> => {
    const post = await loadMedia(req)
    if (post === undefined) return contentErrors.rest_post_invalid_id()
    const settings = await requestSettings(store, req, services.meta)
    if (!req.user.can('delete_post', capObject(post, settings))) return denied(contentErrors.rest_cannot_delete(), req.user.id)
    return true
  }

  const remove = async (req: RestRequest): Promise<unknown> => {
    const post = await mustLoad(req)
    // Attachments have no trash.
    if (req.params.force !== true) throw contentErrors.rest_trash_not_supported()
    const previous = await formatOne(req, post, 'edit')
    const a = attachmentOf((await getMeta(store, [post.id])).get(post.id) ?? {})
    await store.transaction(async (tx) => {
      // Posts that showed it lose their featured image, as the core deletes their thumbnail reference.
      await tx.update(posts).set({ featuredMedia: 0 }).where(eq(posts.featuredMedia, post.id))
      await deletePostFully(tx, post)
    })
    await place.storage.remove(keysOf(a))
    return { deleted: true, previous }
  }

  const postProcess = async (req: RestRequest): Promise<unknown> => {
    const post = await mustLoad(req)
    const a = attachmentOf((await getMeta(store, [post.id])).get(post.id) ?? {})
    await regenerateSizes(services, post, a)
    return await formatOne(req, (await getPost(store, post.id))!, 'edit')
  }

  // Reading follows the file's status (an unattached upload is public); uploading needs upload_files;
  // editing and deleting another's file (the probe's is an administrator's) edit_others_posts / delete_others_posts.
  const own = { vars: { id: 'media' } }
  const mayEdit = check(updatePermission, who.can('edit_others_posts', "§13 edit_post on another's attachment: edit_others_posts", { ...own, body: { title: 'Probe edit' } }))
  return [
    route({
      path: '/media',
      allowBatch: true,
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], args: mediaListArgs(services.meta), summary: 'List media', cache: 'public', permission: check(listPermission, who.everyone('media lists are public')), handler: list }),
        endpoint({
          methods: ['POST'],
          args: writeArgs,
          summary: 'Upload a file (raw body with Content-Disposition, or multipart/form-data with a `file` part)',
          allowBatch: false,
          streamBody: { maxBytes: () => place.maxBytes, tooLarge: () => mediaErrors.rest_upload_too_large({ max_bytes: place.maxBytes }) },
          permission: check(async (req) => await checkUpload(req, req.params), who.can('upload_files', '§13 uploading needs upload_files (authors and up)')),
          handler: create
        })
      ]
    }),
    route({
      path: '/media/{id}',
      vars: { id: '[\\d]+' },
      // As for posts: an attachment is a post, and the index describes its id the same way.
      args: { id: Type.Optional(Type.Integer({ description: 'Unique identifier for the post.' })) },
      allowBatch: true,
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], args: { context: ContextArg() }, summary: 'Read a media item', cache: 'public', permission: check(readPermission, who.everyone('an unattached upload is as public as a published post', own)), handler: read }),
        endpoint({ methods: ['POST', 'PUT', 'PATCH'], args: writeArgs, summary: 'Update a media item', permission: mayEdit, handler: update }),
        endpoint({ methods: ['DELETE'], args: deleteArgs(), summary: 'Delete a media item and its files (force=true required)', permission: check(deletePermission, who.can('delete_others_posts', "§13 delete_post on another's attachment: delete_others_posts", { ...own, query: { force: true } })), handler: remove })
      ]
    }),
    route({
      path: '/media/{id}/post-process',
      vars: { id: '[\\d]+' },
      allowBatch: true,
      endpoints: [
        endpoint({
          methods: ['POST'],
          args: {
            id: Type.Integer({ description: 'Unique identifier for the attachment.' }),
            action: Enum(['create-image-subsizes'], { description: 'The post-processing action to run.' })
          },
          summary: 'Make the sizes of an image again',
          response: schema,
          permission: mayEdit.because('regenerating sizes is editing the attachment').probing({ body: { action: 'create-image-subsizes' } }),
          handler: postProcess
        })
      ]
    })
  ]
}
