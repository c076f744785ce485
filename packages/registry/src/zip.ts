/**
 * Package zips: checked from the central directory before a byte is
 * written (names inside the root, no symlinks, entry count and unpacked
 * size within the limits), unpacked with yauzl (which also checks every
 * entry's real size against its header), and written with yazl.
 */
import { createWriteStream } from 'node:fs'
import { lstat, mkdir, readdir } from 'node:fs/promises'
import { dirname, join, posix } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Transform } from 'node:stream'
import type { Entry, ZipFile } from 'yauzl'
import { registryErrors } from './errors.js'
import type { PackageManifest } from './api.js'

export interface ZipLimits {
  /** Most bytes the entries may unpack to, in all. */
  maxBytes: number
  /** Most entries. */
  maxEntries: number
}

const MANIFEST_MAX_BYTES = 64 * 1024

function invalid (why: string): Error {
  return registryErrors.rest_invalid_package({ reason: why }, `The package is not a valid plugin or theme package: ${why}.`)
}

interface Opened {
  zip: ZipFile
  /** Files (not directories), with the name under the package root. */
  files: Array<{ entry: Entry, name: string }>
  /** The single top directory every entry sits in (`<slug>/`), stripped from `name`; '' when none. */
  root: string
}

async function openZip (file: string): Promise<ZipFile> {
  // Loaded with the first package upload, not at start.
  const { default: yauzl } = await import('yauzl')
  return await new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: true, strictFileNames: false }, (err, zip) => {
      if (err !== null || zip === undefined) reject(invalid(`not a readable zip (${err?.message ?? 'no archive'})`))
      else resolve(zip)
    })
  })
}

/** A name that stays inside the root: relative, no `..`, no NUL, no drive letter. */
function checkName (name: string): void {
  if (name.includes('\0')) throw invalid('an entry name contains a NUL character')
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) throw invalid(`the entry "${name.slice(0, 200)}" has an absolute name`)
  if (name.split('/').includes('..')) throw invalid(`the entry "${name.slice(0, 200)}" leaves the package directory`)
}

/**
 * Names that cannot all be written, refused from the central directory
 * (before a byte is written, and by `inspectZip` too): a name twice, or a
 * file with another file under its name (`a` and `a/b`, in either order).
 */
function checkClashes (names: readonly string[]): void {
  const seen = new Set<string>()
  for (const name of names) {
    if (seen.has(name)) throw invalid(`the entry ${name.slice(0, 200)} appears twice`)
    seen.add(name)
  }
  for (const name of names) {
    for (let at = name.indexOf('/'); at !== -1; at = name.indexOf('/', at + 1)) {
      if (seen.has(name.slice(0, at))) throw invalid(`the entry ${name.slice(0, 200)} clashes with the file ${name.slice(0, Math.min(at, 200))}`)
    }
  }
}

/** Reads and checks the central directory; the caller closes `zip`. */
async function readDirectory (file: string, limits: ZipLimits): Promise<Opened> {
  const zip = await openZip(file)
  try {
    if (zip.entryCount > limits.maxEntries) throw invalid(`it holds ${zip.entryCount} entries, more than the ${limits.maxEntries} allowed`)
    const entries: Entry[] = await new Promise((resolve, reject) => {
      const out: Entry[] = []
      let total = 0
      zip.on('error', (err: Error) => { reject(err instanceof Error && 'code' in err && (err as { code?: string }).code === 'rest_invalid_package' ? err : invalid(err.message)) })
      zip.on('end', () => { resolve(out) })
      zip.on('entry', (entry: Entry) => {
        try {
          checkName(entry.fileName)
          const mode = (entry.externalFileAttributes >>> 16) & 0o170000
          if (mode === 0o120000) throw invalid(`the entry "${entry.fileName.slice(0, 200)}" is a symbolic link`)
          total += entry.uncompressedSize
          if (total > limits.maxBytes) throw invalid(`it unpacks to more than the ${limits.maxBytes} bytes allowed`)
          out.push(entry)
          zip.readEntry()
        } catch (err) {
          reject(err)
        }
      })
      zip.readEntry()
    })
    const names = entries.map((e) => e.fileName)
    const tops = new Set(names.map((n) => n.split('/')[0]))
    const single = tops.size === 1 && names.every((n) => n.includes('/')) ? `${[...tops][0]!}/` : ''
    const files = entries
      .filter((e) => !e.fileName.endsWith('/'))
      .map((entry) => ({ entry, name: posix.normalize(entry.fileName.slice(single.length)) }))
      .filter((f) => f.name !== '' && f.name !== '.')
    checkClashes(files.map((f) => f.name))
    return { zip, files, root: single.slice(0, -1) }
  } catch (err) {
    zip.close()
    throw err
  }
}

async function readEntry (zip: ZipFile, entry: Entry, max: number): Promise<Buffer> {
  if (entry.uncompressedSize > max) throw invalid(`${entry.fileName} is larger than ${max} bytes`)
  const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) => {
    zip.openReadStream(entry, (err, s) => { if (err !== null || s === undefined) reject(invalid(err?.message ?? 'unreadable entry')); else resolve(s) })
  })
  const chunks: Buffer[] = []
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer)
  } catch (err) {
    throw invalid(`the entry ${entry.fileName} is corrupt (${(err as Error).message})`)
  }
  return Buffer.concat(chunks)
}

/** The manifest of an opened zip, checked: an object with string `name` and `version`. */
async function manifestOf (opened: Opened): Promise<PackageManifest> {
  const found = opened.files.find((f) => f.name === 'manifest.json')
  if (found === undefined) throw invalid('it has no manifest.json')
  let manifest: unknown
  try {
    manifest = JSON.parse((await readEntry(opened.zip, found.entry, MANIFEST_MAX_BYTES)).toString('utf8'))
  } catch (err) {
    if ((err as { code?: string }).code === 'rest_invalid_package') throw err
    throw invalid('its manifest.json is not JSON')
  }
  return checkManifest(manifest)
}

/** A parsed manifest.json, checked. */
export function checkManifest (manifest: unknown): PackageManifest {
  const m = manifest as Record<string, unknown> | null
  if (m === null || typeof m !== 'object' || Array.isArray(m)) throw invalid('its manifest.json is not an object')
  if (typeof m.name !== 'string' || m.name.trim() === '' || m.name.length > 200) throw invalid('its manifest has no name')
  if (typeof m.version !== 'string' || !/^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/.test(m.version)) throw invalid('its manifest has no valid version')
  if (m.slug !== undefined && typeof m.slug !== 'string') throw invalid('its manifest slug is not a string')
  if (m.requires !== undefined && (m.requires === null || typeof m.requires !== 'object' || Array.isArray(m.requires))) throw invalid('its manifest requires is not an object')
  return m as PackageManifest
}

/**
 * Checks a package zip (see readDirectory) and its manifest against what is
 * expected: the slug (the manifest's, else the zip's top directory, when
 * either is given) and the version. Answers the manifest.
 */
export async function inspectZip (file: string, limits: ZipLimits, expect: { slug: string, version?: string }): Promise<PackageManifest> {
  const opened = await readDirectory(file, limits)
  try {
    const manifest = await manifestOf(opened)
    checkExpected(manifest, opened.root, expect)
    return manifest
  } finally {
    opened.zip.close()
  }
}

function checkExpected (manifest: PackageManifest, root: string, expect: { slug: string, version?: string }): void {
  const slug = manifest.slug ?? (root === '' ? expect.slug : root)
  if (slug !== expect.slug) throw invalid(`it is the package "${slug.slice(0, 100)}", not "${expect.slug}"`)
  if (expect.version !== undefined && manifest.version !== expect.version) throw invalid(`it is version ${manifest.version}, not ${expect.version}`)
}

/** Counts the bytes that pass and fails past `max` (a header that lies about sizes is caught by yauzl too). */
function bounded (max: { left: number }): Transform {
  return new Transform({
    transform (chunk: Buffer, _enc, done) {
      max.left -= chunk.length
      if (max.left < 0) done(invalid('it unpacks to more bytes than allowed'))
      else done(null, chunk)
    }
  })
}

/**
 * Unpacks a package zip into `dir` (which must not exist yet), after the
 * checks of `inspectZip`. Answers the manifest. On failure `dir` may hold a
 * part of the files: the caller removes it.
 */
export async function extractZip (file: string, dir: string, limits: ZipLimits, expect: { slug: string, version?: string }): Promise<PackageManifest> {
  const opened = await readDirectory(file, limits)
  try {
    const manifest = await manifestOf(opened)
    checkExpected(manifest, opened.root, expect)
    await mkdir(dir, { recursive: false })
    const left = { left: limits.maxBytes }
    for (const { entry, name } of opened.files) {
      const target = join(dir, ...name.split('/'))
      await mkdir(dirname(target), { recursive: true })
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) => {
        opened.zip.openReadStream(entry, (err, s) => { if (err !== null || s === undefined) reject(invalid(err?.message ?? 'unreadable entry')); else resolve(s) })
      })
      try {
        await pipeline(stream, bounded(left), createWriteStream(target, { flags: 'wx', mode: 0o644 }))
      } catch (err) {
        if ((err as { code?: string }).code === 'rest_invalid_package') throw err
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw invalid(`the entry ${name.slice(0, 200)} appears twice`)
        if ((err as NodeJS.ErrnoException).code === 'ENOTDIR' || (err as NodeJS.ErrnoException).code === 'EISDIR') throw invalid(`the entry ${name.slice(0, 200)} clashes with a directory`)
        if (typeof (err as NodeJS.ErrnoException).syscall === 'string') throw err
        throw invalid(`the entry ${name.slice(0, 200)} is corrupt (${(err as Error).message})`)
      }
    }
    return manifest
  } finally {
    opened.zip.close()
  }
}

/** Every regular file under `dir` (relative, `/`-separated); symbolic links and other kinds are left out. */
async function filesUnder (dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = []
  for (const item of (await readdir(join(dir, prefix), { withFileTypes: true })).sort((a, b) => a.name < b.name ? -1 : 1)) {
    const rel = prefix === '' ? item.name : `${prefix}/${item.name}`
    if (item.isDirectory()) out.push(...await filesUnder(dir, rel))
    else if (item.isFile()) out.push(rel)
  }
  return out
}

/** Writes the files under `dir` as a zip at `file`, each under `root/`. Answers its size. */
export async function writeZip (dir: string, file: string, root: string): Promise<number> {
  const { default: yazl } = await import('yazl')
  const zip = new yazl.ZipFile()
  const done = pipeline(zip.outputStream, createWriteStream(file, { flags: 'wx', mode: 0o600 }))
  for (const rel of await filesUnder(dir)) zip.addFile(join(dir, ...rel.split('/')), `${root}/${rel}`)
  zip.end()
  await done
  return (await lstat(file)).size
}
