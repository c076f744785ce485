/**
 * The oEmbed providers the service trusts: the published provider list
 * (the `oembed-providers` package) plus the ones a deployment adds with
 * `CMS_OEMBED_PROVIDERS` (a JSON file in the same format), which win.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

export interface ProviderSpec {
  provider_name: string
  provider_url?: string
  endpoints: Array<{ schemes?: string[], url: string, discovery?: boolean, formats?: string[] }>
}

export interface ProviderMatch {
  name: string
  /** The endpoint URL, `{format}` already replaced. */
  endpoint: string
}

export interface ProviderList {
  match (url: string): ProviderMatch | null
}

/** `https://*.example.com/watch*` as a regular expression: `*` stays inside the host in the host part. */
function schemeRegExp (scheme: string): RegExp {
  const escape = (s: string): string => s.replace(/[.+?^${}()|[\]\\/]/g, '\\$&')
  const m = /^(https?):\/\/([^/]*)(.*)$/i.exec(scheme)
  if (m === null) return new RegExp(`^${scheme.split('*').map(escape).join('.*')}$`, 'i')
  const host = m[2]!.split('*').map(escape).join('[^/?#@]*')
  const rest = m[3]!.split('*').map(escape).join('.*')
  // Either scheme: providers list one, and sites serve both.
  return new RegExp(`^https?:\\/\\/${host}${rest}$`, 'i')
}

function isSpecList (value: unknown): value is ProviderSpec[] {
  return Array.isArray(value) && value.every((p) =>
    typeof p === 'object' && p !== null && typeof (p as ProviderSpec).provider_name === 'string' &&
    Array.isArray((p as ProviderSpec).endpoints) &&
    (p as ProviderSpec).endpoints.every((e) => typeof e?.url === 'string' && (e.schemes === undefined || (Array.isArray(e.schemes) && e.schemes.every((s) => typeof s === 'string')))))
}

/** Longer than any `user:password@host:port` a provider's URL has (a host name is at most 253 characters). */
const MAX_AUTHORITY = 512

export function providerList (specs: ProviderSpec[]): ProviderList {
  const compiled: Array<{ name: string, endpoint: string, schemes: RegExp[] }> = []
  for (const spec of specs) {
    for (const ep of spec.endpoints) {
      if (ep.schemes === undefined || ep.schemes.length === 0) continue
      compiled.push({ name: spec.provider_name, endpoint: ep.url.replace('{format}', 'json'), schemes: ep.schemes.map(schemeRegExp) })
    }
  }
  return {
    match (url) {
      // Every scheme names a host: a URL whose authority is longer than any
      // host name can be matches none, and is not scanned by each of the
      // thousand patterns (seconds for a megabyte).
      const authority = /^https?:\/\/([^/?#]*)/i.exec(url.slice(0, MAX_AUTHORITY + 9))
      if (authority === null || authority[1]!.length >= MAX_AUTHORITY) return null
      for (const p of compiled) {
        if (p.schemes.some((re) => re.test(url))) return { name: p.name, endpoint: p.endpoint }
      }
      return null
    }
  }
}

let published: ProviderSpec[] | undefined

function publishedProviders (): ProviderSpec[] {
  published ??= createRequire(import.meta.url)('oembed-providers') as ProviderSpec[]
  return published
}

/** The deployment's providers first, then the published list; a bad file fails at start. */
export function providersFromEnv (env: NodeJS.ProcessEnv = process.env): ProviderList {
  const file = env.CMS_OEMBED_PROVIDERS?.trim()
  let extra: ProviderSpec[] = []
  if (file !== undefined && file !== '') {
    let parsed: unknown
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'))
    } catch (err) {
      throw new Error(`CMS_OEMBED_PROVIDERS: cannot read ${file}: ${(err as Error).message}`)
    }
    if (!isSpecList(parsed)) throw new Error(`CMS_OEMBED_PROVIDERS: ${file} is not a list of providers ({provider_name, endpoints: [{schemes, url}]})`)
    extra = parsed
  }
  return providerList([...extra, ...publishedProviders()])
}
