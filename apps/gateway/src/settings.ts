/**
 * The gateway's settings, read from the environment and validated at start
 * so a bad value fails before the first request.
 */
import { resolve } from 'node:path'
import envSchema from 'env-schema'
import { Type, type Static } from '@sinclair/typebox'
import { storeSettingsFromEnv } from '@cms/store'

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
  logLevel: string
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
    logLevel: raw.LOG_LEVEL
  }
}
