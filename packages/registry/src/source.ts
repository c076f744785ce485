/**
 * The package source (`CMS_PACKAGE_SOURCE`): a directory or an http(s) base
 * URL laid out as `plugins/<slug>.<version>.zip` and
 * `themes/<slug>.<version>.zip`, with `index.json` listing the versions:
 *
 *   {"plugins": {"seo": ["1.0.0", "2.0.0"]}, "themes": {"theme-a": ["0.1.0"]}}
 *
 * (a directory without `index.json` is listed from its file names). An
 * http source is fetched through the SSRF-guarded outbound client; the
 * operator named its host, so that host may be a private one.
 */
import { copyFile, readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { createOutboundClient, OutboundError, type OutboundClient, type PackageSettings } from '@cms/core'
import { kernelErrors } from '@cms/rest'
import type { PackageSource, PackageType, SourceVersion } from './api.js'
import { registryErrors } from './errors.js'
import { compareVersions, SLUG, VERSION } from './versions.js'

// Slugs come from requests: the sections are null-prototype objects, read with Object.hasOwn
// (a slug `constructor` names no package, not Object's constructor).
type Index = Record<'plugins' | 'themes', Record<string, string[]>>

const emptyIndex = (): Index => ({ plugins: Object.create(null) as Record<string, string[]>, themes: Object.create(null) as Record<string, string[]> })

const INDEX_TTL_MS = 30_000
const INDEX_MAX_BYTES = 4 * 1024 * 1024

const folderOf = (type: PackageType): 'plugins' | 'themes' => type === 'plugin' ? 'plugins' : 'themes'

/** `index.json` as written, checked and normalised (versions sorted, unusable ones left out). */
function readIndex (raw: unknown): Index {
  const out = emptyIndex()
  const doc = raw as Record<string, unknown> | null
  if (doc === null || typeof doc !== 'object') throw new TypeError('index.json is not an object')
  for (const folder of ['plugins', 'themes'] as const) {
    const section = doc[folder] as Record<string, unknown> | undefined
    if (section === undefined || section === null || typeof section !== 'object') continue
    for (const [slug, value] of Object.entries(section)) {
      if (!SLUG.test(slug)) continue
      const list = Array.isArray(value) ? value : (value as { versions?: unknown } | null)?.versions
      if (!Array.isArray(list)) continue
      out[folder][slug] = [...new Set(list.filter((v): v is string => typeof v === 'string' && VERSION.test(v)))].sort(compareVersions)
    }
  }
  return out
}

/** A directory source without index.json: the versions are in the file names. */
async function indexFromFiles (root: string): Promise<Index> {
  const out = emptyIndex()
  for (const folder of ['plugins', 'themes'] as const) {
    let names: string[] = []
    try { names = await readdir(join(root, folder)) } catch { continue }
    for (const name of names) {
      const m = /^([A-Za-z0-9_-]+)\.(.+)\.zip$/.exec(name)
      if (m === null || !VERSION.test(m[2]!)) continue
      ;(out[folder][m[1]!] ??= []).push(m[2]!)
    }
    for (const list of Object.values(out[folder])) list.sort(compareVersions)
  }
  return out
}

const unconfigured = (): Error => kernelErrors.rest_upstream_unconfigured({ setting: 'CMS_PACKAGE_SOURCE' },
  'No package source is configured: set CMS_PACKAGE_SOURCE to a directory or an http(s) base URL.')

function sourceFailed (message: string, extra: Record<string, unknown> = {}): Error {
  return registryErrors.rest_upstream_error({ upstream: 'package-source', ...extra }, `The package source failed to answer: ${message}`)
}

export function packageSource (settings: PackageSettings): PackageSource {
  const config = settings.source
  let cached: { at: number, index: Index } | undefined
  let client: OutboundClient | undefined
  const outbound = (url: string): OutboundClient => {
    client ??= createOutboundClient({ allow: new URL(url).hostname.replace(/^\[|\]$/g, ''), timeoutMs: 60_000 })
    return client
  }

  /** `path` under the source; with `toFile`, a package written there as it arrives (never held whole in memory). */
  async function fetchUrl (base: string, path: string, maxBytes: number, opts: { accept404?: boolean, toFile?: string } = {}): Promise<{ body: Buffer, bytes: number } | null> {
    const url = new URL(path, base).href
    try {
      const res = await outbound(base).fetch(url, { maxBytes, toFile: opts.toFile })
      if (res.status === 404 && opts.accept404 === true) return null
      if (res.status < 200 || res.status > 299) throw sourceFailed(`${path} answered ${res.status}`, { status: res.status })
      return res
    } catch (err) {
      if (err instanceof OutboundError && err.failure === 'too_large') throw registryErrors.rest_invalid_package(undefined, `The package is larger than the ${maxBytes} bytes allowed.`)
      // The operator chose the source: whatever stops it is the upstream's failure, not the caller's.
      if (err instanceof OutboundError) throw sourceFailed(err.message, { failure: err.failure })
      throw err
    }
  }

  async function index (): Promise<Index> {
    if (config === undefined) throw unconfigured()
    if (cached !== undefined && Date.now() - cached.at < INDEX_TTL_MS) return cached.index
    let result: Index
    if (config.kind === 'dir') {
      let text: string | undefined
      try { text = await readFile(join(config.path, 'index.json'), 'utf8') } catch { text = undefined }
      try {
        result = text === undefined ? await indexFromFiles(config.path) : readIndex(JSON.parse(text))
      } catch (err) {
        throw sourceFailed(`its index.json is unreadable (${(err as Error).message})`)
      }
    } else {
      const res = await fetchUrl(config.url, 'index.json', INDEX_MAX_BYTES)
      try {
        result = readIndex(JSON.parse(res!.body.toString('utf8')))
      } catch (err) {
        throw sourceFailed(`its index.json is unreadable (${(err as Error).message})`)
      }
    }
    cached = { at: Date.now(), index: result }
    return result
  }

  return {
    configured: () => config !== undefined,
    versions: async (type, slug): Promise<SourceVersion[]> => {
      const folder = folderOf(type)
      const section = (await index())[folder]
      return (Object.hasOwn(section, slug) ? section[slug]! : []).map((version) => {
        const file = `${folder}/${slug}.${version}.zip`
        return { version, file, url: config?.kind === 'url' ? new URL(file, config.url).href : null }
      })
    },
    download: async (type, slug, version, file) => {
      if (config === undefined) throw unconfigured()
      const path = `${folderOf(type)}/${slug}.${version}.zip`
      const notFound = (): Error => registryErrors.package_version_not_found({ type, slug, version }, `The package source does not offer ${slug} ${version}.`)
      if (!SLUG.test(slug) || !VERSION.test(version)) throw notFound()
      if (config.kind === 'dir') {
        const from = join(config.path, path)
        let size: number
        try { size = (await stat(from)).size } catch { throw notFound() }
        if (size > settings.maxBytes) throw registryErrors.rest_invalid_package(undefined, `The package is larger than the ${settings.maxBytes} bytes allowed.`)
        await copyFile(from, file)
        return { bytes: size }
      }
      const res = await fetchUrl(config.url, path, settings.maxBytes, { accept404: true, toFile: file })
      if (res === null) throw notFound()
      return { bytes: res.bytes }
    }
  }
}
