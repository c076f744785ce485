/**
 * Upstream ports: the outside services packages' routes need (a rank
 * tracker, a metrics server...), each known by a name and configured by the
 * operator with settings named after it. For `rank-tracker`:
 *
 *   CMS_UPSTREAM_RANK_TRACKER_URL         base URL, http(s) (required to use it)
 *   CMS_UPSTREAM_RANK_TRACKER_TOKEN       sent as `Authorization: Bearer <token>` (optional)
 *   CMS_UPSTREAM_RANK_TRACKER_TIMEOUT_MS  the whole exchange, redirects included (default 10000)
 *
 * The name is upper-cased with `-` turned into `_`. Settings are read and
 * checked at start (a bad value stops the process before the first request).
 * A route asks for its port when it needs it: unconfigured, that is
 * `503 rest_upstream_unconfigured` naming the URL setting; a failed exchange
 * (refused, reset, a status that is not 2xx, an unreadable answer) is
 * `502 rest_upstream_error`, no answer in time `504 rest_upstream_timeout`.
 *
 * Exchanges go through the SSRF-guarded outbound client. The configured
 * host is the one non-public destination allowed (the operator named it);
 * a redirect elsewhere is checked as any URL from a request is.
 */
import { kernelErrors, RestError } from '@cms/rest'
import { redactUrl, SettingError } from '@cms/store'
import { createOutboundClient, OutboundError, type FetchOptions, type OutboundClient } from './outbound/index.js'

const PREFIX = 'CMS_UPSTREAM_'
const PARTS = ['URL', 'TOKEN', 'TIMEOUT_MS'] as const
type Part = typeof PARTS[number]
const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/
const DEFAULT_TIMEOUT_MS = 10_000

export interface UpstreamConfig {
  /** Base URL; request paths are resolved under it. */
  url: string
  token?: string
  timeoutMs: number
}

/** The setting that configures one part of an upstream: `upstreamSetting('rank-tracker', 'URL')` is `CMS_UPSTREAM_RANK_TRACKER_URL`. */
export function upstreamSetting (name: string, part: Part): string {
  return `${PREFIX}${keyOf(name)}_${part}`
}

/** `rank-tracker` -> `RANK_TRACKER`, the key of its settings. */
function keyOf (name: string): string {
  if (!NAME.test(name)) throw new TypeError(`upstream names are lowercase words joined by "-", got "${name}"`)
  return name.toUpperCase().replace(/-/g, '_')
}

/**
 * Every upstream configured in `env` (keyed as in the setting names:
 * `RANK_TRACKER`). Throws a `SettingError` (one line: the setting, the value,
 * what is allowed) on a malformed value, on a token or timeout without its
 * URL, and on a `CMS_UPSTREAM_*` setting of no known part. Values that may
 * be secrets (a token, an unknown setting, a URL's password) are not shown.
 */
export function upstreamConfigFromEnv (env: Record<string, string | undefined>): Record<string, UpstreamConfig> {
  const found = new Map<string, Partial<Record<Part, string>>>()
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith(PREFIX) || value === undefined || value === '') continue
    const rest = key.slice(PREFIX.length)
    const part = PARTS.find((p) => rest.endsWith(`_${p}`) && rest.length > p.length + 1)
    const id = part === undefined ? '' : rest.slice(0, -(part.length + 1))
    if (part === undefined || !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(id)) {
      throw new SettingError(key, undefined, `an upstream setting, named ${PREFIX}<NAME>_URL, _TOKEN or _TIMEOUT_MS with <NAME> in capitals (RANK_TRACKER)`)
    }
    found.set(id, { ...found.get(id), [part]: value })
  }
  const out: Record<string, UpstreamConfig> = {}
  for (const [id, parts] of found) {
    const setting = (part: Part): string => `${PREFIX}${id}_${part}`
    if (parts.URL === undefined) throw new SettingError(setting('URL'), undefined, `set when ${setting(parts.TOKEN !== undefined ? 'TOKEN' : 'TIMEOUT_MS')} is (the outside service's base URL)`)
    // Shown as given, unless it carries credentials (the password is masked).
    const given = /\/\/[^/]*@/.test(parts.URL) ? redactUrl(parts.URL) : parts.URL
    const urlError = (allowed: string): SettingError => new SettingError(setting('URL'), given, allowed)
    const absolute = 'an absolute http(s) base URL such as https://service.example/api/'
    let url: URL
    try { url = new URL(parts.URL) } catch { throw urlError(absolute) }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw urlError(absolute)
    if (url.username !== '' || url.password !== '') throw urlError(`a URL without credentials (they go in ${setting('TOKEN')})`)
    if (url.search !== '' || url.hash !== '') throw urlError('a base URL without query or fragment')
    let timeoutMs = DEFAULT_TIMEOUT_MS
    if (parts.TIMEOUT_MS !== undefined) {
      timeoutMs = /^\d{1,7}$/.test(parts.TIMEOUT_MS) ? Number(parts.TIMEOUT_MS) : NaN
      if (!(timeoutMs >= 100 && timeoutMs <= 600_000)) throw new SettingError(setting('TIMEOUT_MS'), parts.TIMEOUT_MS, 'an integer from 100 to 600000 (milliseconds)')
    }
    out[id] = { url: url.href.endsWith('/') ? url.href : `${url.href}/`, timeoutMs, ...(parts.TOKEN === undefined ? {} : { token: parts.TOKEN }) }
  }
  return out
}

export interface UpstreamRequest {
  method?: FetchOptions['method']
  /** Added to the URL's query. */
  query?: Record<string, string | number | boolean>
  /** Sent as JSON (`content-type: application/json`). */
  json?: unknown
  headers?: Record<string, string>
  /** Statuses answered as they are besides 2xx (a 404 the package handles itself). */
  accept?: readonly number[]
  maxBytes?: number
}

export interface UpstreamResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  text: () => string
  /** The body parsed as JSON; an unreadable body is `502 rest_upstream_error`. */
  json: () => unknown
}

/** A configured upstream: requests under its base URL with its credentials and timeout. */
export interface UpstreamClient {
  readonly name: string
  readonly baseUrl: string
  request: (path: string, opts?: UpstreamRequest) => Promise<UpstreamResponse>
}

/** The deployment's upstreams; `get` hands out a configured client or throws the 503. */
export class Upstreams {
  private readonly clients = new Map<string, UpstreamClient>()

  constructor (private readonly configs: Record<string, UpstreamConfig> = {}) {}

  /** Whether `name` is configured here. */
  configured (name: string): boolean {
    return this.configs[keyOf(name)] !== undefined
  }

  /** The client of `name`, or `503 rest_upstream_unconfigured` naming the setting to set. */
  get (name: string): UpstreamClient {
    const known = this.clients.get(name)
    if (known !== undefined) return known
    const config = this.configs[keyOf(name)]
    if (config === undefined) {
      const urlSetting = upstreamSetting(name, 'URL')
      throw kernelErrors.rest_upstream_unconfigured({ upstream: name, setting: urlSetting },
        `This route needs the outside service "${name}", which is not configured: set ${urlSetting}.`)
    }
    const client = upstreamClient(name, config)
    this.clients.set(name, client)
    return client
  }
}

function upstreamClient (name: string, config: UpstreamConfig): UpstreamClient {
  const base = new URL(config.url)
  const outbound: OutboundClient = createOutboundClient({ allow: base.hostname.replace(/^\[|\]$/g, ''), timeoutMs: config.timeoutMs })
  const failed = (message: string, extra: Record<string, unknown> = {}): RestError =>
    kernelErrors.rest_upstream_error({ upstream: name, ...extra }, `The outside service "${name}" failed to answer: ${message}`)

  return {
    name,
    baseUrl: base.href,
    async request (path, opts = {}) {
      // A path stays under the base URL: no scheme, no `//host`, no climbing out with `..`.
      const url = new URL(path.replace(/^\/+/, ''), base)
      if (/^[a-z][a-z0-9+.-]*:/i.test(path) || url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) {
        throw kernelErrors.rest_invalid_path({ upstream: name }, `The path is not allowed for the outside service "${name}".`)
      }
      for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.append(k, String(v))
      const headers: Record<string, string> = { accept: 'application/json', ...opts.headers }
      if (config.token !== undefined) headers.authorization = `Bearer ${config.token}`
      let body: string | undefined
      if (opts.json !== undefined) {
        body = JSON.stringify(opts.json)
        headers['content-type'] = 'application/json'
      }
      let res
      try {
        res = await outbound.fetch(url.href, { method: opts.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body === undefined ? {} : { body }), ...(opts.maxBytes === undefined ? {} : { maxBytes: opts.maxBytes }) })
      } catch (err) {
        if (!(err instanceof OutboundError)) throw err
        if (err.failure === 'timeout') {
          throw kernelErrors.rest_upstream_timeout({ upstream: name }, `The outside service "${name}" did not answer within ${config.timeoutMs} ms.`)
        }
        throw failed(err.message)
      }
      if ((res.status < 200 || res.status > 299) && !(opts.accept ?? []).includes(res.status)) {
        throw failed(`it answered HTTP ${res.status}`, { upstream_status: res.status })
      }
      return {
        status: res.status,
        headers: res.headers,
        body: res.body,
        text: res.text,
        json: () => {
          try { return JSON.parse(res.text()) } catch { throw failed('its answer is not JSON') }
        }
      }
    }
  }
}
