/**
 * Receiving an upload: the file is streamed to a work file (never held
 * whole in memory) under the byte limit, then identified by its content.
 * Whatever fails, the work file is removed: a refused upload leaves nothing.
 */
import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, open, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { BodyStream } from '@cms/rest'
import { allowedMime, isPlainText, typesOfExtension } from './file-types.js'
import { mediaErrors } from './errors.js'

/** A file received into the work directory; `remove()` deletes it (safe to call twice). */
export interface ReceivedFile {
  path: string
  /** The name the client gave, sanitized. */
  name: string
  size: number
  remove: () => Promise<void>
}

/** What the client sent: the file and, for multipart bodies, its other fields. */
export interface Received { file: ReceivedFile, fields: Record<string, string> }

/**
 * A file name safe to store: the last path segment only, letters, digits,
 * `.`, `-` and `_`; whitespace and other characters become `-`; only the
 * last dot starts an extension (`shell.php.jpg` -> `shell-php.jpg`).
 */
export function sanitizeFileName (given: string): string {
  const last = given.split(/[/\\]/).pop() ?? ''
  let name = last.normalize('NFC').replace(/[\p{C}]/gu, '').replace(/[^\p{L}\p{N}._-]+/gu, '-')
  const dot = name.lastIndexOf('.')
  let ext = dot > 0 ? name.slice(dot + 1).toLowerCase().replace(/[^a-z0-9]/g, '') : ''
  let stem = dot > 0 ? name.slice(0, dot) : name
  stem = stem.replace(/\./g, '-').replace(/-{2,}/g, '-').replace(/^[-_.]+|[-_.]+$/g, '')
  if (stem === '') stem = 'file'
  if (ext.length > 10) ext = ''
  name = stem.slice(0, 180)
  return ext === '' ? name : `${name}.${ext}`
}

/** The filename of a `Content-Disposition: attachment; filename="..."` header (RFC 6266, `filename*` preferred). */
export function dispositionFileName (header: string): string | undefined {
  const star = /(?:^|;)\s*filename\*\s*=\s*([\w!#$%&+^`{}~.-]+)'[\w-]*'([^;\s]+)/i.exec(header)
  if (star !== null) {
    try { return decodeURIComponent(star[2]!) } catch { return undefined }
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header)
  if (quoted !== null) return quoted[1]!.replace(/\\(.)/g, '$1')
  const plain = /(?:^|;)\s*filename\s*=\s*([^;\s"]+)/i.exec(header)
  return plain?.[1]
}

/** Refuses a name whose extension is not one of the allowed types before anything is read. */
export function checkExtension (name: string): void {
  const dot = name.lastIndexOf('.')
  if (dot <= 0 || typesOfExtension(name.slice(dot + 1)).length === 0) throw mediaErrors.rest_upload_unknown_error()
}

/**
 * Receives a file from a stream (the command line's imports): named by
 * `given` (sanitized, its extension checked), at most `maxBytes` long.
 */
export async function receiveFile (stream: Readable, given: string, dir: string, maxBytes: number): Promise<ReceivedFile> {
  const name = sanitizeFileName(given)
  checkExtension(name)
  let seen = 0
  const limited = new Transform({
    transform (chunk: Buffer, _enc, done) {
      seen += chunk.length
      done(seen > maxBytes ? mediaErrors.rest_upload_too_large() : null, chunk)
    }
  })
  stream.on('error', (err) => limited.destroy(err))
  const file = await toWorkFile(stream.pipe(limited), dir, name)
  if (file.size === 0) {
    await file.remove()
    throw mediaErrors.rest_upload_no_data()
  }
  return file
}

async function toWorkFile (stream: Readable, dir: string, name: string): Promise<ReceivedFile> {
  await mkdir(dir, { recursive: true })
  const path = join(dir, randomUUID())
  const remove = async (): Promise<void> => { await rm(path, { force: true }) }
  let size = 0
  stream.on('data', (chunk: Buffer) => { size += chunk.length })
  try {
    await pipeline(stream, createWriteStream(path, { flags: 'wx' }))
  } catch (err) {
    await remove()
    throw err
  }
  return { path, name, size, remove }
}

/** Receives the body of an upload request: raw bytes named by Content-Disposition, or the `file` part of a multipart form. */
export async function receiveBody (body: BodyStream | undefined, headers: Record<string, string | string[] | undefined>, dir: string): Promise<Received> {
  if (body === undefined) throw mediaErrors.rest_upload_no_data()
  if (body.multipart) return await receiveMultipart(body, dir)
  if (body.contentType === '') throw mediaErrors.rest_upload_no_content_type()
  const disposition = headers['content-disposition']
  if (typeof disposition !== 'string' || disposition.trim() === '') throw mediaErrors.rest_upload_no_content_disposition()
  const given = dispositionFileName(disposition)
  if (given === undefined || given.trim() === '') throw mediaErrors.rest_upload_invalid_disposition()
  const name = sanitizeFileName(given)
  checkExtension(name)
  const file = await toWorkFile(body.bytes(), dir, name)
  if (file.size === 0) {
    await file.remove()
    throw mediaErrors.rest_upload_no_data()
  }
  return { file, fields: {} }
}

async function receiveMultipart (body: BodyStream, dir: string): Promise<Received> {
  const fields: Record<string, string> = Object.create(null) as Record<string, string>
  let file: ReceivedFile | undefined
  try {
    for await (const part of body.parts()) {
      if (part.kind === 'field') {
        fields[part.name] = part.value
        continue
      }
      if (part.name !== 'file' || file !== undefined) {
        // Only the first `file` part is taken; others are read and dropped.
        part.stream.resume()
        await new Promise((resolve) => part.stream.once('end', resolve).once('error', resolve))
        continue
      }
      const name = sanitizeFileName(part.filename)
      try {
        checkExtension(name)
      } catch (err) {
        part.stream.resume()
        throw err
      }
      file = await toWorkFile(part.stream, dir, name)
    }
  } catch (err) {
    await file?.remove()
    throw multipartError(err)
  }
  if (file === undefined || file.size === 0) {
    await file?.remove()
    throw mediaErrors.rest_upload_no_data()
  }
  return { file, fields }
}

/** Errors of the multipart reader as REST errors (a malformed body is the client's mistake). */
function multipartError (err: unknown): unknown {
  const e = err as { code?: string, statusCode?: number, status?: number }
  if (typeof e.status === 'number') return err
  if (e.statusCode === 413) return mediaErrors.rest_upload_too_large()
  // The form parser's own errors ("Unexpected end of form": a body that is not the form its
  // boundary announces) carry no code; a programming error stays one.
  if (e.code === undefined && (err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError)) return err
  return mediaErrors.rest_upload_no_data(undefined, 'The multipart body could not be read.')
}

export interface Identified { mime: string, ext: string }

/**
 * What a received file is, from its content: an allowed type whose name
 * agrees (a name that disagrees takes the content's extension), or plain
 * text named as text. Anything else is refused.
 */
export async function identify (file: ReceivedFile): Promise<Identified> {
  const dot = file.name.lastIndexOf('.')
  const ext = file.name.slice(dot + 1).toLowerCase()
  const claimed = typesOfExtension(ext)
  if (dot <= 0 || claimed.length === 0) throw mediaErrors.rest_upload_unknown_error()
  // Loaded on the first upload (about 10 MB resident the service would hold from its start).
  const { fileTypeFromFile } = await import('file-type')
  const sniffed = await fileTypeFromFile(file.path)
  if (sniffed !== undefined) {
    const allowed = allowedMime(sniffed.mime)
    if (allowed === undefined) throw mediaErrors.rest_upload_sniff_error()
    if (claimed.some((t) => t.mime === sniffed.mime)) return { mime: sniffed.mime, ext }
    return { mime: allowed.mime, ext: allowed.exts[0]! }
  }
  const text = claimed.find((t) => t.text === true)
  if (text !== undefined && isPlainText(await head(file.path, 64 * 1024))) return { mime: text.mime, ext }
  throw mediaErrors.rest_upload_sniff_error()
}

async function head (path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r')
  try {
    const buf = Buffer.alloc(bytes)
    const { bytesRead } = await handle.read(buf, 0, bytes, 0)
    return buf.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}
