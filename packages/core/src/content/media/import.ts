/**
 * Imports for scripts (`cms media import <path|url>`): a local file or a
 * URL (fetched through the SSRF-guarded outbound client) becomes an
 * attachment by the same path as an upload.
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { Readable } from 'node:stream'
import { Caller, isRole } from '../../users/capabilities.js'
import { ATTACHMENT_META, fileUrl, getMeta, getPost, siteSettings } from '../index.js'
import type { OutboundClient } from '../../platform/outbound/index.js'
import type { MediaServices as Services } from './services.js'
import type { UserRecord } from '../../users/store.js'
import { allowedMime } from './file-types.js'
import { createAttachment } from './attachments.js'
import { receiveFile } from './upload.js'

export interface ImportOptions {
  /** Who the attachment belongs to (needs upload_files). */
  user: UserRecord
  /** The post it is attached to (0: none). */
  post?: number
  /** The service's public base URL, for the file URLs of the answer. */
  baseUrl: string
  /** Fetches URLs; required to import one. */
  outbound?: OutboundClient
  /** Told how many bytes have come so far. */
  progress?: (bytes: number) => void
}

export interface Imported { id: number, sourceUrl: string, mime: string, bytes: number }

/** Imports one file or URL as an attachment. */
export async function importMedia (services: Services, source: string, opts: ImportOptions): Promise<Imported> {
  const place = services.media
  const user = new Caller(opts.user.id, opts.user.login, opts.user.roles.filter(isRole), undefined, services.roles)
  if (!user.can('upload_files')) throw new Error(`user ${opts.user.login} may not upload files (upload_files)`)
  if (opts.post !== undefined && opts.post !== 0) {
    const parent = await getPost(services.store, opts.post)
    if (parent === undefined || parent.type === 'attachment' || parent.type === 'revision') throw new Error(`no post ${opts.post} to attach to`)
  }
  let stream: Readable
  let name: string
  if (/^https?:\/\//i.test(source)) {
    if (opts.outbound === undefined) throw new Error('no outbound client to fetch URLs with')
    const res = await opts.outbound.fetch(source, { maxBytes: place.maxBytes, timeoutMs: 60_000 })
    if (res.status !== 200) throw new Error(`${source} answered ${res.status}`)
    name = decodeURIComponent(new URL(res.url).pathname.split('/').pop() ?? '')
    const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim()
    if (!name.includes('.') && allowedMime(type) !== undefined) name = `${name === '' ? 'download' : name}.${allowedMime(type)!.exts[0]!}`
    stream = Readable.from([res.body])
  } else {
    if (!(await stat(source)).isFile()) throw new Error(`${source} is not a file`)
    name = basename(source)
    stream = createReadStream(source)
  }
  let bytes = 0
  stream.on('data', (chunk: Buffer) => {
    bytes += chunk.length
    opts.progress?.(bytes)
  })
  const file = await receiveFile(stream, name, place.work, place.maxBytes)
  const settings = await siteSettings(services.store, { baseUrl: opts.baseUrl, siteUrl: opts.baseUrl }, services.meta)
  const post = await createAttachment(services, { file, params: opts.post === undefined || opts.post === 0 ? {} : { post: opts.post }, user, settings })
  const meta = (await getMeta(services.store, [post.id])).get(post.id) ?? {}
  return { id: post.id, sourceUrl: fileUrl(settings.home, String(meta[ATTACHMENT_META.file] ?? '')), mime: String(meta[ATTACHMENT_META.mime] ?? ''), bytes: file.size }
}
