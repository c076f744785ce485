/**
 * The gateway's settings, read from the environment and validated at start
 * so a bad value fails before the first request.
 */
import { resolve } from 'node:path'
import { isIP } from 'node:net'
import envSchema from 'env-schema'
import { Type, type Static } from '@sinclair/typebox'
import { storeSettingsFromEnv } from '@cms/store'
import { isHostValue } from '@cms/rest'
import { upstreamConfigFromEnv, type UpstreamConfig } from '@cms/core'

const Env = Type.Object({
  PORT: Type.Integer({ default: 8080, minimum: 0, maximum: 65535 }),
  HOST: Type.String({ default: '127.0.0.1' }),
  CMS_DEPLOYMENT: Type.Union([Type.Literal('A'), Type.Literal('B')], { default: 'A' }),
  CMS_NAMESPACES: Type.String({ default: '' }),
  CMS_CONTENT_DIR: Type.String({ default: '' }),
  CMS_BASE_URL: Type.String({ default: '' }),
  CMS_CORS_ORIGINS: Type.String({ default: '*' }),
  CMS_BODY_LIMIT: Type.Integer({ default: 8 * 1024 * 1024, minimum: 1024 }),
  // Connection limits: a client that trickles its headers or body, or holds a connection idle,
  // is cut off; none of them can be switched off.
  CMS_REQUEST_TIMEOUT_MS: Type.Integer({ default: 30_000, minimum: 100 }),
  CMS_HEADERS_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  CMS_CONNECTION_TIMEOUT_MS: Type.Integer({ default: 60_000, minimum: 100 }),
  CMS_MAX_CONNECTIONS: Type.Integer({ default: 1024, minimum: 1 }),
  CMS_REMOTE_NAMESPACES: Type.String({ default: '' }),
  CMS_REMOTE_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100, maximum: 600_000 }),
  CMS_TRUSTED_PROXIES: Type.String({ default: '' }),
  CMS_ALLOWED_HOSTS: Type.String({ default: '' }),
  // Read by the outbound client and oEmbed when their namespaces are built (and checked there).
  CMS_OUTBOUND_ALLOW: Type.String({ default: '' }),
  CMS_OEMBED_PROVIDERS: Type.String({ default: '' }),
  // Read by the authorization page and the scheduler (checked here, used there).
  CMS_ENVIRONMENT: Type.Union([Type.Literal(''), Type.Literal('local'), Type.Literal('production')], { default: '' }),
  CMS_SCHEDULER_INTERVAL_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { default: 'info' })
})

export interface Settings {
  port: number
  host: string
  deployment: 'A' | 'B'
  namespaces: string[]
  databaseUrl: string | undefined
  dataDir: string
  contentDir: string
  baseUrl: string | undefined
  corsOrigins: string[] | '*'
  bodyLimit: number
  /** Longest time to receive a whole request, headers and body (408 and closed after). */
  requestTimeoutMs: number
  /** Longest time to receive a request's headers. */
  headersTimeoutMs: number
  /** Longest time a connection may stay idle (nothing received or sent). */
  connectionTimeoutMs: number
  /** Most connections this process holds at once; more are refused. */
  maxConnections: number
  remote: Record<string, string>
  /** How long a namespace service may take to answer before the gateway answers 504. */
  remoteTimeoutMs: number
  /** Addresses and CIDR ranges whose `X-Forwarded-*` headers are believed; empty: none. */
  trustedProxies: string[]
  /** `Host` values accepted besides the base URL's host and loopback names (lowercase, `host` or `host:port`). */
  allowedHosts: string[]
  /**
   * The site URL kept in stored data (post `guid`): the base URL, else the
   * listening address; never a request header.
   */
  siteUrl: string
  logLevel: string
  /** Outside services packages use, from `CMS_UPSTREAM_<NAME>_URL` / `_TOKEN` / `_TIMEOUT_MS` (keyed `<NAME>`). */
  upstreams: Record<string, UpstreamConfig>
}

const list = (s: string): string[] => s.split(',').map((x) => x.trim()).filter((x) => x !== '')

export function loadSettings (env: NodeJS.ProcessEnv = process.env): Settings {
  const raw = envSchema<Static<typeof Env>>({ schema: Env, data: env, dotenv: false })
  if (raw.CMS_HEADERS_TIMEOUT_MS > raw.CMS_REQUEST_TIMEOUT_MS) {
    throw new Error(`CMS_HEADERS_TIMEOUT_MS (${raw.CMS_HEADERS_TIMEOUT_MS}) must not exceed CMS_REQUEST_TIMEOUT_MS (${raw.CMS_REQUEST_TIMEOUT_MS})`)
  }
  const store = storeSettingsFromEnv(env)
  const remote: Record<string, string> = {}
  for (const pair of list(raw.CMS_REMOTE_NAMESPACES)) {
    const eq = pair.indexOf('=')
    if (eq <= 0 || !/^https?:\/\//.test(pair.slice(eq + 1))) {
      throw new Error(`CMS_REMOTE_NAMESPACES: expected namespace=http(s)://host:port, got "${pair}"`)
    }
    remote[pair.slice(0, eq)] = pair.slice(eq + 1)
  }
  const base = raw.CMS_BASE_URL.replace(/\/+$/, '')
  if (base !== '' && !/^https?:\/\/[^/]+/.test(base)) throw new Error('CMS_BASE_URL must be an absolute http(s) URL')
  const trustedProxies = list(raw.CMS_TRUSTED_PROXIES)
  for (const entry of trustedProxies) {
    if (!isAddressOrRange(entry)) throw new Error(`CMS_TRUSTED_PROXIES: expected IP addresses or CIDR ranges (10.0.0.0/8, fd00::/8), got "${entry}"`)
  }
  const allowedHosts = list(raw.CMS_ALLOWED_HOSTS).map((h) => h.toLowerCase())
  for (const host of allowedHosts) {
    if (!isHostValue(host)) throw new Error(`CMS_ALLOWED_HOSTS: expected host names with an optional port (cms.example.com, cms.example.com:8443), got "${host}"`)
  }
  const listening = /^(0\.0\.0\.0|::|)$/.test(raw.HOST) ? 'localhost' : isIP(raw.HOST) === 6 ? `[${raw.HOST}]` : raw.HOST
  return {
    port: raw.PORT,
    host: raw.HOST,
    deployment: raw.CMS_DEPLOYMENT,
    namespaces: list(raw.CMS_NAMESPACES),
    databaseUrl: store.databaseUrl,
    dataDir: store.dataDir,
    contentDir: raw.CMS_CONTENT_DIR === '' ? resolve(store.dataDir, 'content') : resolve(env.INIT_CWD ?? process.cwd(), raw.CMS_CONTENT_DIR),
    baseUrl: base === '' ? undefined : base,
    corsOrigins: raw.CMS_CORS_ORIGINS.trim() === '*' ? '*' : list(raw.CMS_CORS_ORIGINS),
    bodyLimit: raw.CMS_BODY_LIMIT,
    requestTimeoutMs: raw.CMS_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: raw.CMS_HEADERS_TIMEOUT_MS,
    connectionTimeoutMs: raw.CMS_CONNECTION_TIMEOUT_MS,
    maxConnections: raw.CMS_MAX_CONNECTIONS,
    remote,
    remoteTimeoutMs: raw.CMS_REMOTE_TIMEOUT_MS,
    trustedProxies,
    allowedHosts,
    siteUrl: base !== '' ? base : `http://${listening}:${raw.PORT}`,
    logLevel: raw.LOG_LEVEL,
    upstreams: upstreamConfigFromEnv(env)
  }
}

/** `192.0.2.1`, `2001:db8::1`, `10.0.0.0/8`, `fd00::/8`. */
function isAddressOrRange (entry: string): boolean {
  const slash = entry.indexOf('/')
  const address = slash === -1 ? entry : entry.slice(0, slash)
  const family = isIP(address)
  if (family === 0) return false
  if (slash === -1) return true
  const bits = entry.slice(slash + 1)
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)
}
