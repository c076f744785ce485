/**
 * oEmbed data of another site, for the proxy: the provider comes from the
 * trusted list or, with `discover`, from the page's
 * `<link rel="alternate" type="application/json+oembed">`. Every fetch goes
 * through the SSRF-guarded client.
 */
import { kernelErrors, type RestError } from '@cms/rest'
import { OutboundError, restErrorOf, type OutboundClient, type OutboundResponse } from '../platform/outbound/index.js'
import { createRequire } from 'node:module'
import type { XMLParser } from 'fast-xml-parser'
import { decodeEntities, eachTag, escAttr, escUrl, sandboxedFrame } from './html.js'
import { oembedErrors } from './errors.js'
import type { ProviderList } from './providers.js'

export interface RemoteOptions {
  url: string
  maxwidth: number
  maxheight?: number
  discover: boolean
}

const ENDPOINT_LIMIT = 512 * 1024
const PAGE_LIMIT = 1024 * 1024
const LINK_TYPES = ['application/json+oembed', 'text/xml+oembed']

function upstream (message: string): RestError {
  return kernelErrors.rest_upstream_error(undefined, `The oEmbed provider failed to answer: ${message}`)
}

/** A failed fetch: the caller's own URL refused is their mistake; anything further is the provider's. */
function fetchError (err: unknown, ownUrl: boolean): unknown {
  if (!(err instanceof OutboundError)) return err
  return ownUrl ? restErrorOf(err) : upstream(err.message)
}

const LINK = new Set(['link'])

/** The first oEmbed link of a page (JSON preferred), resolved against the page's URL. */
export function discoveryLink (html: string, pageUrl: string): string | null {
  const found: Record<string, string> = {}
  eachTag(html, LINK, (_name, attrs) => {
    const rels = (attrs.rel ?? '').toLowerCase().split(/\s+/)
    const type = (attrs.type ?? '').toLowerCase().trim()
    if (rels.includes('alternate') && LINK_TYPES.includes(type) && attrs.href !== undefined && !(type in found)) found[type] = attrs.href
    // The JSON link wins: nothing after it can change the answer.
    return found[LINK_TYPES[0]!] !== undefined
  })
  const href = found[LINK_TYPES[0]!] ?? found[LINK_TYPES[1]!]
  if (href === undefined) return null
  try { return new URL(href.trim(), pageUrl).href } catch { return null }
}

// Entities are decoded afterwards as the core does (predefined, `&nbsp;`, numeric); the parser
// expands none, so a DOCTYPE cannot declare any.
// Made on the first XML answer (the parser is about 10 MB resident), loaded synchronously.
let xmlParser: XMLParser | undefined
function xml (): XMLParser {
  const { XMLParser: Parser } = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser')
  xmlParser ??= new Parser({ ignoreAttributes: true, parseTagValue: false, trimValues: false, processEntities: false, ignoreDeclaration: true, ignorePiTags: true })
  return xmlParser
}

/** A flat `<oembed>` XML document as an object (its text children; nested elements are left out). */
export function parseXml (text: string): Record<string, unknown> | null {
  let doc: unknown
  try {
    doc = xml().parse(text)
  } catch {
    return null
  }
  if (typeof doc !== 'object' || doc === null) return null
  const rootKey = Object.keys(doc).find((key) => key.toLowerCase() === 'oembed')
  if (rootKey === undefined) return null
  const root = (doc as Record<string, unknown>)[rootKey]
  const out: Record<string, unknown> = {}
  if (typeof root !== 'object' || root === null) return out
  for (const [key, value] of Object.entries(root)) {
    // A repeated element: the last one, as a flat reading would keep it.
    const item = Array.isArray(value) ? value.at(-1) : value
    if (typeof item === 'string') out[key] = decodeEntities(item)
    else if (typeof item === 'number' || typeof item === 'boolean') out[key] = decodeEntities(String(item))
  }
  return out
}

function parseData (res: OutboundResponse): Record<string, unknown> | null {
  const text = res.text().replace(/^\uFEFF/, '').trim()
  if (text.startsWith('{')) {
    try {
      const data: unknown = JSON.parse(text)
      return typeof data === 'object' && data !== null && !Array.isArray(data) ? data as Record<string, unknown> : null
    } catch {
      return null
    }
  }
  return text.startsWith('<') ? parseXml(text) : null
}

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== 0 && v !== '0'

/** The `html` of the answer, built from its type as the core builds it; null when the data cannot be shown. */
export function dataHtml (data: Record<string, unknown>, url: string, trusted: boolean): string | null {
  const title = typeof data.title === 'string' ? data.title : ''
  switch (data.type) {
    case 'photo': {
      const w = Number(data.width)
      const h = Number(data.height)
      if (typeof data.url !== 'string' || !present(data.width) || !present(data.height) || !Number.isFinite(w) || !Number.isFinite(h)) return null
      const src = escUrl(data.url)
      if (src === '') return null
      return `<a href="${escUrl(url)}"><img src="${src}" alt="${escAttr(title)}" width="${w}" height="${h}" /></a>`
    }
    case 'video':
    case 'rich':
      if (typeof data.html !== 'string' || data.html === '') return null
      return trusted ? data.html : sandboxedFrame(data.html)
    case 'link':
      return title === '' ? null : `<a href="${escUrl(url)}">${escAttr(title)}</a>`
    default:
      return null
  }
}

function withParams (endpoint: string, params: Record<string, string | undefined>): string {
  const target = new URL(endpoint)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) target.searchParams.set(k, v)
  return target.href
}

export async function remoteEmbedData (client: OutboundClient, providers: ProviderList, opts: RemoteOptions): Promise<Record<string, unknown>> {
  const sizes = { maxwidth: String(opts.maxwidth), maxheight: opts.maxheight === undefined ? undefined : String(opts.maxheight) }
  let endpoint: string | null = null
  let trusted = false
  const provider = providers.match(opts.url)
  if (provider !== null) {
    try {
      endpoint = withParams(provider.endpoint, { url: opts.url, ...sizes, format: 'json' })
      trusted = true
    } catch {
      throw upstream('the provider\'s endpoint is not a valid URL')
    }
  } else if (opts.discover) {
    let page: OutboundResponse
    try {
      // Only the head matters; a long page is read up to the limit.
      page = await client.fetch(opts.url, { maxBytes: PAGE_LIMIT, truncate: true, headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' } })
    } catch (err) {
      throw fetchError(err, true)
    }
    if (page.status >= 200 && page.status < 300) {
      const link = discoveryLink(page.text(), page.url)
      if (link !== null) endpoint = withParams(link, sizes)
    }
  }
  if (endpoint === null) throw oembedErrors.oembed_invalid_url()

  let res: OutboundResponse
  try {
    res = await client.fetch(endpoint, { maxBytes: ENDPOINT_LIMIT, headers: { accept: 'application/json, text/xml;q=0.9, */*;q=0.1' } })
  } catch (err) {
    throw fetchError(err, false)
  }
  // The provider's "no such resource" or "not embeddable" is the caller's not-found.
  if ([401, 403, 404, 410, 501].includes(res.status)) throw oembedErrors.oembed_invalid_url()
  if (res.status < 200 || res.status >= 300) throw upstream(`it answered with HTTP ${res.status}`)
  const data = parseData(res)
  if (data === null) throw upstream('the answer is not oEmbed data')
  const html = dataHtml(data, opts.url, trusted)
  if (html === null) throw upstream('the answer has no usable embed')
  return { ...data, html }
}
