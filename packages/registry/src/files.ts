/**
 * The files of active packages, served at `/cms-content/plugins/<slug>/...`
 * and `/cms-content/themes/<slug>/...`: static assets only (the extensions
 * below, each with its type), through the core's media file answer
 * (`nosniff`, ranges, validators, caching), never a directory, never a file
 * outside the package's directory, nothing of an inactive package.
 */
import type { IncomingMessage } from 'node:http'
import { localMediaStorage, resolveInside, type MediaStorage } from '@cms/core'
import type { PackageRegistry, PackageType } from './api.js'
import { SLUG } from './versions.js'

export const PACKAGE_FILE_PATHS = ['/cms-content/plugins/*', '/cms-content/themes/*'] as const

/** The assets a package may serve and their types; any other file (`.php`, `.json`, `.html`...) is 404. */
const ASSET_TYPES: Readonly<Record<string, string>> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  map: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf'
}

/** The asset's type, or undefined when its name is not an allowed asset. */
function assetType (path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1)
  const dot = name.lastIndexOf('.')
  return dot <= 0 ? undefined : ASSET_TYPES[name.slice(dot + 1).toLowerCase()]
}

type Served = Awaited<ReturnType<MediaStorage['serve']>>

/** The answer for `<slug>/<path>` under the type's folder, or undefined (404) when it is not an active package's asset. */
export async function servePackageFile (registry: PackageRegistry, type: PackageType, wanted: string, req: IncomingMessage): Promise<Served | undefined> {
  const slash = wanted.indexOf('/')
  const slug = wanted.slice(0, slash)
  const rest = wanted.slice(slash + 1)
  // The slug by its pattern first; a `%` left after the router's decoding is a second encoding: refused, not decoded again.
  if (slash <= 0 || !SLUG.test(slug) || rest.includes('%') || rest.includes('\\')) return undefined
  const contentType = assetType(rest)
  if (contentType === undefined) return undefined
  const dir = await registry.activeDir(type, slug)
  if (dir === null) return undefined
  try {
    await resolveInside(dir, rest)
  } catch {
    return undefined
  }
  const served = await localMediaStorage(dir).serve(req, rest)
  if (served.statusCode < 300) served.headers['Content-Type'] = contentType
  return served
}
