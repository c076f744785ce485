/**
 * An attachment's files: an upload identified, its image sizes made and
 * stored under `uploads/YYYY/MM/`, then recorded as a post of type
 * `attachment` (the route and the command line both come here); a refused
 * upload leaves no file and no row. Also the sizes made again from the
 * stored original (`post-process`).
 */
import { basename, extname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createWriteStream } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { mkdir, rm } from 'node:fs/promises'
import type { Principal } from '@cms/rest'
import type { Store } from '@cms/store'
import type { MediaServices as Services } from './services.js'
import { ATTACHMENT_META, ATTACHMENT_TYPE, canEdit, denied, getPost, nowSeconds, preparePost, setMeta, textParam, writePost, type PostRow, type SiteSettings } from '../index.js'
import { mediaErrors } from './errors.js'
import { RESIZABLE } from './file-types.js'
import type { Attachment, AttachmentMetadata, StoredSize } from './media-format.js'
import { makeSizes, type MadeImage } from './sizes.js'
import type { MediaPlace } from './place.js'
import type { MediaStorage } from './storage.js'
import { identify, type ReceivedFile } from './upload.js'

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
export function postParams (p: Record<string, unknown>): Record<string, unknown> {
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
export async function checkParent (store: Store, user: Principal, parent: unknown): Promise<void> {
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
export async function regenerateSizes (services: Services, post: PostRow, a: Attachment): Promise<void> {
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
