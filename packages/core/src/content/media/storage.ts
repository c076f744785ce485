/**
 * Where uploaded files live: one interface, so every replica of the service
 * reads and writes the same files (the local directory on a volume they
 * share by default; an object store could implement the same four calls).
 * Keys are relative paths under the uploads root, `2026/11/photo.jpg`.
 */
import { createReadStream } from 'node:fs'
import { link, mkdir, rename, rm, stat, unlink } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import { dirname, extname, join, resolve, sep } from 'node:path'
import { Readable } from 'node:stream'
import send from '@fastify/send'

export interface StoredFile { size: number, modified: Date }

export interface ServedFile { statusCode: number, headers: Record<string, string | number>, stream: Readable }

export interface MediaStorage {
  /**
   * Stores a local file (moved away from `source`) under `folder/name`, or
   * the first free `folder/base-1.ext`, `base-2.ext`...; two uploads of the
   * same name at once get different names. Returns the key.
   */
  putUnique (folder: string, name: string, source: string): Promise<string>
  /** Stores a local file (moved away from `source`) under exactly `key`, replacing what was there. */
  put (key: string, source: string): Promise<void>
  /** Whether a key is taken. */
  stat (key: string): Promise<StoredFile | undefined>
  /** The file's bytes. */
  read (key: string): Readable
  /** Removes files; keys that do not exist are skipped. */
  remove (keys: readonly string[]): Promise<void>
  /** Answers a GET or HEAD for a file: content type, length, ranges, validators and caching. */
  serve (req: IncomingMessage, key: string): Promise<ServedFile>
}

/** A key made only of safe segments (no `..`, no dot files, no empty segment); else undefined. */
export function safeKey (key: string): string | undefined {
  const parts = key.split('/')
  if (parts.length === 0 || parts.length > 8) return undefined
  for (const p of parts) if (p === '' || p.startsWith('.') || p.length > 255 || /[\\\0-\x1f\x7f]/.test(p)) return undefined
  return parts.join('/')
}

/** Files in a local directory (a volume shared by every replica). */
export function localStorage (root: string): MediaStorage {
  const base = resolve(root)
  const pathOf = (key: string): string => {
    const safe = safeKey(key)
    const full = safe === undefined ? undefined : resolve(base, safe)
    if (full === undefined || !full.startsWith(base + sep)) throw new Error(`invalid storage key: ${key}`)
    return full
  }
  return {
    async putUnique (folder, name, source) {
      const ext = extname(name)
      const stem = name.slice(0, name.length - ext.length)
      await mkdir(pathOf(`${folder}/x`).slice(0, -2), { recursive: true })
      for (let n = 0; n < 10_000; n++) {
        const key = `${folder}/${n === 0 ? name : `${stem}-${n}${ext}`}`
        try {
          // A hard link fails when the name exists: the claim is atomic, also across replicas.
          await link(source, pathOf(key))
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue
          throw err
        }
        await unlink(source)
        return key
      }
      throw new Error(`no free name for ${folder}/${name}`)
    },
    async put (key, source) {
      const path = pathOf(key)
      await mkdir(dirname(path), { recursive: true })
      await rename(source, path)
    },
    async stat (key) {
      try {
        const s = await stat(pathOf(key))
        return s.isFile() ? { size: s.size, modified: s.mtime } : undefined
      } catch {
        return undefined
      }
    },
    read (key) {
      return createReadStream(pathOf(key))
    },
    async remove (keys) {
      await Promise.all(keys.map(async (key) => { await rm(pathOf(key), { force: true }) }))
    },
    async serve (req, key) {
      const safe = safeKey(key)
      if (safe === undefined) return { statusCode: 404, headers: {}, stream: emptyStream() }
      const { statusCode, headers, stream } = await send(req, safe, {
        root: base,
        dotfiles: 'deny',
        index: false,
        acceptRanges: true,
        cacheControl: true,
        maxAge: '1d',
        etag: true,
        lastModified: true
      })
      return { statusCode, headers: headers as Record<string, string | number>, stream }
    }
  }
}

function emptyStream (): Readable {
  return Readable.from([])
}

/** The working directory for files being received (inside the content directory, so moving them is a rename). */
export function workDir (contentDir: string): string {
  return join(contentDir, 'uploads', '.work')
}
