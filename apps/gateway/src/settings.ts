/**
 * The gateway's settings, read from the environment and validated at start
 * so a bad value fails before the first request.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { isIP } from 'node:net'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { baseDirOf, SettingError, storeSettingsFromEnv } from '@cms/store'
import { DEFAULT_JSON_BODY_LIMIT, DEFAULT_KEPT_SIGNED_IN_BYTES, DEFAULT_TEXT_LIMITS, isHostValue, type TextLimits } from '@cms/rest'
import { loadProfiles, type Profile } from './profiles.js'
import { AUDIT_DEFAULTS, EVENT_DEFAULTS, IMAGE_DEFAULTS, RATE_LIMIT_DEFAULTS, TEXT_POOL_DEFAULTS, packageSettingsFromEnv, upstreamConfigFromEnv, webhookSettingsFromEnv, type PackageSettings, type RateLimitSettings, type UpstreamConfig, type WebhookSettings } from '@cms/core'

const Env = Type.Object({
  PORT: Type.Integer({ default: 8080, minimum: 0, maximum: 65535 }),
  HOST: Type.String({ default: '127.0.0.1' }),
  // The profile's name: a built-in one (apps/gateway/profiles/) or one of CMS_PROFILES (profiles.ts).
  CMS_DEPLOYMENT: Type.String({ default: 'A' }),
  CMS_PROFILES: Type.String({ default: '' }),
  // Directories whose sub-folders are packages (a `cms` field in their package.json), besides the installed ones.
  CMS_PACKAGES_PATH: Type.String({ default: '' }),
  CMS_NAMESPACES: Type.String({ default: '' }),
  CMS_CONTENT_DIR: Type.String({ default: '' }),
  CMS_BASE_URL: Type.String({ default: '' }),
  // The admin front end the deployer runs (admin links in answers point under it; unset: those links are null or left out).
  CMS_ADMIN_URL: Type.String({ default: '' }),
  CMS_CORS_ORIGINS: Type.String({ default: '*' }),
  CMS_BODY_LIMIT: Type.Integer({ default: 8 * 1024 * 1024, minimum: 1024 }),
  CMS_UPLOAD_MAX_BYTES: Type.Integer({ default: 64 * 1024 * 1024, minimum: 1024 }),
  // Images: the pixels one may declare (read from its header before decoding), and how many are made at once
  // (below libuv's four threads, which file serving shares).
  CMS_IMAGE_MAX_PIXELS: Type.Integer({ default: IMAGE_DEFAULTS.maxPixels, minimum: 1, maximum: 1_000_000_000 }),
  CMS_IMAGE_CONCURRENCY: Type.Integer({ default: IMAGE_DEFAULTS.concurrency, minimum: 1, maximum: 64 }),
  // Bodies that become values (JSON, forms): a limit of their own, and what a JSON body may hold,
  // checked by a scan before it is parsed (the kernel's json-scan.ts).
  CMS_JSON_BODY_LIMIT: Type.Integer({ default: DEFAULT_JSON_BODY_LIMIT, minimum: 1024 }),
  CMS_JSON_MAX_DEPTH: Type.Integer({ default: DEFAULT_TEXT_LIMITS.maxDepth, minimum: 8, maximum: 100_000 }),
  CMS_TEXT_MAX_STRINGS: Type.Integer({ default: DEFAULT_TEXT_LIMITS.maxStrings, minimum: 100, maximum: 100_000_000 }),
  // Heavy text work (filtering, rendering a large text) runs in a pool of worker threads: how many,
  // and how many tasks may wait for one before requests are answered 503 (core text-pool.ts).
  CMS_TEXT_THREADS: Type.Integer({ default: TEXT_POOL_DEFAULTS.threads, minimum: 1, maximum: 64 }),
  CMS_TEXT_QUEUE: Type.Integer({ default: TEXT_POOL_DEFAULTS.queue, minimum: 0, maximum: 100_000 }),
  // Longest request target (path and query string): longer is answered 414 before anything reads it.
  CMS_MAX_URL_LENGTH: Type.Integer({ default: 8192, minimum: 1024, maximum: 64 * 1024 * 1024 }),
  // Connection limits: a client that trickles its headers or body, or holds a connection idle,
  // is cut off; none of them can be switched off.
  CMS_REQUEST_TIMEOUT_MS: Type.Integer({ default: 30_000, minimum: 100 }),
  CMS_HEADERS_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  CMS_CONNECTION_TIMEOUT_MS: Type.Integer({ default: 60_000, minimum: 100 }),
  // Idle time between two requests on a kept-alive connection: above a load balancer's usual 60 s,
  // so the balancer, not the service, closes first (Fastify's own default).
  CMS_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ default: 72_000, minimum: 100 }),
  CMS_MAX_CONNECTIONS: Type.Integer({ default: 1024, minimum: 1 }),
  // Memory for signed-in callers' answers kept while nothing is committed (the kernel's kept-answers.ts); 0 keeps none.
  CMS_KEPT_SIGNED_IN_BYTES: Type.Integer({ default: DEFAULT_KEPT_SIGNED_IN_BYTES, minimum: 0, maximum: 4 * 1024 * 1024 * 1024 }),
  CMS_REMOTE_NAMESPACES: Type.String({ default: '' }),
  CMS_REMOTE_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100, maximum: 600_000 }),
  CMS_TRUSTED_PROXIES: Type.String({ default: '' }),
  CMS_ALLOWED_HOSTS: Type.String({ default: '' }),
  // Read by the outbound client and oEmbed when their namespaces are built (and checked there).
  CMS_OUTBOUND_ALLOW: Type.String({ default: '' }),
  CMS_OEMBED_PROVIDERS: Type.String({ default: '' }),
  // Handed to the core in the deployment's settings: the authorization page and the scheduler.
  CMS_ENVIRONMENT: Type.Union([Type.Literal(''), Type.Literal('local'), Type.Literal('production')], { default: '' }),
  CMS_SCHEDULER_INTERVAL_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  // Comments from callers who are not signed in (the core CMS's REST API refuses them unless a site allows them).
  CMS_COMMENTS_ANONYMOUS: Type.Union([Type.Literal('0'), Type.Literal('1')], { default: '0' }),
  // The lifecycle-event worker (core events/index.ts): how often it polls, how long it holds the
  // events it took (longer than the slowest listener), how long delivered events are kept.
  CMS_EVENTS_POLL_MS: Type.Integer({ default: EVENT_DEFAULTS.pollMs, minimum: 10, maximum: 3_600_000 }),
  CMS_EVENTS_LEASE_MS: Type.Integer({ default: EVENT_DEFAULTS.leaseMs, minimum: 1000, maximum: 86_400_000 }),
  CMS_EVENTS_RETENTION_MS: Type.Integer({ default: EVENT_DEFAULTS.retentionMs, minimum: 0, maximum: 366 * 86_400_000 }),
  // The audit log (core audit/): every write recorded, or none; how many days entries are kept (0: forever).
  CMS_AUDIT_LOG: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  CMS_AUDIT_RETENTION_DAYS: Type.Integer({ default: AUDIT_DEFAULTS.retentionDays, minimum: 0, maximum: 36_500 }),
  // How long answered entries wait to be written (ms); how old an outbox row nobody replaced must be
  // before any replica records it as unanswered (ms): longer than a flush can take on a live replica.
  CMS_AUDIT_FLUSH_MS: Type.Integer({ default: AUDIT_DEFAULTS.flushMs, minimum: 10, maximum: 3_600_000 }),
  CMS_AUDIT_ORPHAN_MS: Type.Integer({ default: AUDIT_DEFAULTS.orphanGraceMs, minimum: 1000, maximum: 86_400_000 }),
  // Rate limits (core platform/rate-limits, docs/guides/rate-limits.md): requests per window and caller
  // by class (0: the class is not limited), failed credential checks per address, how often replicas share counts.
  CMS_RATE_LIMITS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: RATE_LIMIT_DEFAULTS.enabled ? 'on' : 'off' }),
  CMS_RATE_LIMIT_READ: Type.Integer({ default: RATE_LIMIT_DEFAULTS.read, minimum: 0, maximum: 1_000_000_000 }),
  CMS_RATE_LIMIT_WRITE: Type.Integer({ default: RATE_LIMIT_DEFAULTS.write, minimum: 0, maximum: 1_000_000_000 }),
  CMS_RATE_LIMIT_EXPENSIVE: Type.Integer({ default: RATE_LIMIT_DEFAULTS.expensive, minimum: 0, maximum: 1_000_000_000 }),
  CMS_RATE_LIMIT_WINDOW_MS: Type.Integer({ default: RATE_LIMIT_DEFAULTS.windowMs, minimum: 1000, maximum: 86_400_000 }),
  CMS_RATE_LIMIT_AUTH: Type.Integer({ default: RATE_LIMIT_DEFAULTS.authFailures, minimum: 0, maximum: 1_000_000_000 }),
  CMS_RATE_LIMIT_AUTH_WINDOW_MS: Type.Integer({ default: RATE_LIMIT_DEFAULTS.authWindowMs, minimum: 1000, maximum: 86_400_000 }),
  CMS_RATE_LIMIT_SYNC_MS: Type.Integer({ default: RATE_LIMIT_DEFAULTS.syncMs, minimum: 10, maximum: 60_000 }),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { default: 'info' }),
  // The first administrator, created at start when no user exists (first-admin.ts).
  CMS_ADMIN_LOGIN: Type.String({ default: '' }),
  CMS_ADMIN_EMAIL: Type.String({ default: '' }),
  CMS_ADMIN_PASSWORD: Type.String({ default: '' }),
  CMS_ADMIN_PASSWORD_FILE: Type.String({ default: '' }),
  CMS_ADMIN_APP_PASSWORD_FILE: Type.String({ default: '' })
})

/** Every setting the gateway reads from the environment (docs/configuration.md documents each: test/settings-docs.test.ts). */
export const SETTING_NAMES: readonly string[] = Object.keys(Env.properties)

export interface Settings {
  port: number
  host: string
  /** The profile's name (CMS_DEPLOYMENT). */
  deployment: string
  /** The profile: its namespaces in index order and their options. */
  profile: Profile
  /** CMS_PACKAGES_PATH: directories of packages besides the installed ones (absolute). */
  packagesPath: string[]
  namespaces: string[]
  databaseUrl: string | undefined
  dataDir: string
  /** Migrated templates a new embedded database is copied from (CMS_PGLITE_TEMPLATES; read by the store's settings). */
  pgliteTemplates?: string
  contentDir: string
  baseUrl: string | undefined
  corsOrigins: string[] | '*'
  bodyLimit: number
  /** The largest JSON or form body in bytes (at most `bodyLimit`). */
  jsonBodyLimit: number
  /** What a JSON body (and JSON a package reads from a value) may hold: nesting and strings. */
  textLimits: TextLimits
  /** The text pool: worker threads and tasks that may wait. */
  textPool: { threads: number, queue: number }
  /** The largest media upload in bytes. */
  uploadMaxBytes: number
  /** Most pixels an image may declare; images processed at once. */
  images: { maxPixels: number, concurrency: number }
  schedulerIntervalMs: number
  /** Comments from callers who are not signed in are taken (`CMS_COMMENTS_ANONYMOUS=1`). */
  commentsAnonymous: boolean
  environment: '' | 'local' | 'production'
  /** Longest request target in characters (414 past it; the whole head may hold 16 KiB more, else 431). */
  maxUrlLength: number
  /** Memory in bytes for signed-in callers' kept answers (0: none kept). */
  keptSignedInBytes: number
  /** Longest time to receive a whole request, headers and body (408 and closed after). */
  requestTimeoutMs: number
  /** Longest time to receive a request's headers. */
  headersTimeoutMs: number
  /**
   * Longest time a connection may stay idle (nothing received or sent) while a request is
   * received or its answer sent; not while the service works on a received request.
   */
  connectionTimeoutMs: number
  /** Longest time a kept-alive connection may wait for its next request. */
  keepAliveTimeoutMs: number
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
  /** The admin front end's base URL (`CMS_ADMIN_URL`, no trailing slash), or undefined: admin links are left out. */
  adminUrl: string | undefined
  logLevel: string
  /** The lifecycle-event worker: poll interval, lease and retention of delivered events (ms). */
  events: { pollMs: number, leaseMs: number, retentionMs: number }
  /** The audit log: on or off, how many days entries are kept, its flush and orphan grace (`CMS_AUDIT_*`). */
  audit: { enabled: boolean, retentionDays: number, flushMs: number, orphanGraceMs: number }
  /** Rate limits: `CMS_RATE_LIMITS` and `CMS_RATE_LIMIT_*`. */
  rateLimits: RateLimitSettings
  /** Outside services packages use, from `CMS_UPSTREAM_<NAME>_URL` / `_TOKEN` / `_TIMEOUT_MS` (keyed `<NAME>`). */
  upstreams: Record<string, UpstreamConfig>
  /** Plugin and theme packages: `CMS_PACKAGE_SOURCE`, `CMS_PACKAGE_MAX_BYTES`, `CMS_PACKAGE_MAX_ENTRIES`. */
  packages: PackageSettings
  /** Webhook deliveries: `CMS_WEBHOOKS_*` (core webhooks/settings.ts). */
  webhooks: WebhookSettings
  /** From CMS_ADMIN_*: the administrator to create when no user exists. */
  firstAdmin?: FirstAdmin
}

export interface FirstAdmin {
  login: string
  email: string
  password: string
  /** Absolute path the first application password is written to (mode 600), if wanted. */
  appPasswordFile?: string
}

/**
 * What a schema allows, in words, for the one-line error of a bad setting.
 * A setting may say it itself with an `allowed` option.
 */
function allowedOf (schema: TSchema): string {
  if (typeof schema.allowed === 'string') return schema.allowed
  if (Array.isArray(schema.anyOf) && schema.anyOf.every((s: TSchema) => 'const' in s)) {
    const values = (schema.anyOf as TSchema[]).map((s) => String(s.const)).filter((v) => v !== '')
    const words = values.length === 1 ? values[0]! : `${values.slice(0, -1).join(', ')} or ${values.at(-1)!}`
    return values.length < schema.anyOf.length ? `${words} (or empty)` : words
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    const kind = schema.type === 'integer' ? 'an integer' : 'a number'
    const min = schema.minimum as number | undefined
    const max = schema.maximum as number | undefined
    if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`
    if (min !== undefined) return `${kind} of at least ${min}`
    if (max !== undefined) return `${kind} of at most ${max}`
    return kind
  }
  if (schema.type === 'boolean') return 'true or false'
  if (typeof schema.pattern === 'string') return `a value matching ${schema.pattern}`
  return `a valid ${String(schema.type ?? 'value')}`
}

/**
 * Reads every setting of `Env` from the environment: unset or empty means the
 * default; a value of the wrong kind throws a `SettingError` whose message
 * names the setting, the value and what is allowed. Settings added to `Env`
 * get the same errors without code of their own.
 */
function readEnv (env: NodeJS.ProcessEnv): Static<typeof Env> {
  const out: Record<string, unknown> = {}
  for (const [name, schema] of Object.entries(Env.properties) as Array<[string, TSchema]>) {
    const given = env[name]
    if (given === undefined || given === '') {
      out[name] = schema.default
      continue
    }
    // Conversion alone would read `1.5` or `80.7` as an integer (truncated): whole numbers only.
    if (schema.type === 'integer' && !/^\s*[+-]?\d+\s*$/.test(given)) throw new SettingError(name, given, allowedOf(schema))
    const value = Value.Convert(schema, given)
    if (!Value.Check(schema, value)) throw new SettingError(name, given, allowedOf(schema))
    out[name] = value
  }
  return out as Static<typeof Env>
}

/** The first administrator's settings, checked together. */
function firstAdminOf (raw: Static<typeof Env>, env: NodeJS.ProcessEnv): FirstAdmin | undefined {
  const { CMS_ADMIN_LOGIN: login, CMS_ADMIN_EMAIL: email, CMS_ADMIN_PASSWORD: password, CMS_ADMIN_PASSWORD_FILE: passwordFile, CMS_ADMIN_APP_PASSWORD_FILE: appPasswordFile } = raw
  if (login === '') {
    const stray = (['CMS_ADMIN_EMAIL', 'CMS_ADMIN_PASSWORD', 'CMS_ADMIN_PASSWORD_FILE', 'CMS_ADMIN_APP_PASSWORD_FILE'] as const).find((n) => raw[n] !== '')
    if (stray !== undefined) throw new SettingError('CMS_ADMIN_LOGIN', undefined, `set when ${stray} is (the first administrator's login)`)
    return undefined
  }
  if (email === '') throw new SettingError('CMS_ADMIN_EMAIL', undefined, 'set when CMS_ADMIN_LOGIN is (the first administrator\'s e-mail address)')
  if (password !== '' && passwordFile !== '') throw new SettingError('CMS_ADMIN_PASSWORD_FILE', passwordFile, 'unset when CMS_ADMIN_PASSWORD is set (give one of the two)')
  let secret = password
  if (passwordFile !== '') {
    try {
      secret = readFileSync(resolve(baseDirOf(env), passwordFile), 'utf8').replace(/\r?\n$/, '')
    } catch {
      throw new SettingError('CMS_ADMIN_PASSWORD_FILE', passwordFile, 'the path of a readable file holding the password')
    }
    if (secret === '') throw new SettingError('CMS_ADMIN_PASSWORD_FILE', passwordFile, 'a file holding a password (it is empty)')
  }
  if (secret === '') throw new SettingError('CMS_ADMIN_PASSWORD', undefined, 'set (or CMS_ADMIN_PASSWORD_FILE) when CMS_ADMIN_LOGIN is')
  return {
    login,
    email,
    password: secret,
    ...(appPasswordFile === '' ? {} : { appPasswordFile: resolve(baseDirOf(env), appPasswordFile) })
  }
}

const list = (s: string): string[] => s.split(',').map((x) => x.trim()).filter((x) => x !== '')

export function loadSettings (env: NodeJS.ProcessEnv = process.env): Settings {
  const raw = readEnv(env)
  if (raw.CMS_HEADERS_TIMEOUT_MS > raw.CMS_REQUEST_TIMEOUT_MS) {
    throw new SettingError('CMS_HEADERS_TIMEOUT_MS', String(raw.CMS_HEADERS_TIMEOUT_MS), `at most CMS_REQUEST_TIMEOUT_MS (${raw.CMS_REQUEST_TIMEOUT_MS})`)
  }
  const store = storeSettingsFromEnv(env)
  const remote: Record<string, string> = {}
  for (const pair of list(raw.CMS_REMOTE_NAMESPACES)) {
    const eq = pair.indexOf('=')
    if (eq <= 0 || !/^https?:\/\//.test(pair.slice(eq + 1))) {
      throw new SettingError('CMS_REMOTE_NAMESPACES', pair, 'a comma list of namespace=http(s)://host:port')
    }
    remote[pair.slice(0, eq)] = pair.slice(eq + 1)
  }
  const base = raw.CMS_BASE_URL.replace(/\/+$/, '')
  if (base !== '' && !/^https?:\/\/[^/]+/.test(base)) throw new SettingError('CMS_BASE_URL', raw.CMS_BASE_URL, 'an absolute http(s) URL such as https://cms.example.com')
  const trustedProxies = list(raw.CMS_TRUSTED_PROXIES)
  for (const entry of trustedProxies) {
    if (!isAddressOrRange(entry)) throw new SettingError('CMS_TRUSTED_PROXIES', entry, 'a comma list of IP addresses or CIDR ranges (10.0.0.0/8, fd00::/8)')
  }
  const allowedHosts = list(raw.CMS_ALLOWED_HOSTS).map((h) => h.toLowerCase())
  for (const host of allowedHosts) {
    if (!isHostValue(host)) throw new SettingError('CMS_ALLOWED_HOSTS', host, 'a comma list of host names with an optional port (cms.example.com, cms.example.com:8443)')
  }
  const profilesAt = raw.CMS_PROFILES === '' ? undefined : resolve(baseDirOf(env), raw.CMS_PROFILES)
  let known: Record<string, Profile>
  try {
    known = loadProfiles(profilesAt)
  } catch (err) {
    throw new SettingError('CMS_PROFILES', raw.CMS_PROFILES, `a directory of profile files or one file (${(err as Error).message})`)
  }
  const profile = known[raw.CMS_DEPLOYMENT]
  if (profile === undefined) throw new SettingError('CMS_DEPLOYMENT', raw.CMS_DEPLOYMENT, `a profile: ${Object.keys(known).join(', ')} (add one with CMS_PROFILES)`)
  const listening = /^(0\.0\.0\.0|::|)$/.test(raw.HOST) ? 'localhost' : isIP(raw.HOST) === 6 ? `[${raw.HOST}]` : raw.HOST
  return {
    port: raw.PORT,
    host: raw.HOST,
    deployment: raw.CMS_DEPLOYMENT,
    profile,
    packagesPath: list(raw.CMS_PACKAGES_PATH).map((dir) => resolve(baseDirOf(env), dir)),
    namespaces: list(raw.CMS_NAMESPACES),
    databaseUrl: store.databaseUrl,
    dataDir: store.dataDir,
    pgliteTemplates: store.templates,
    contentDir: raw.CMS_CONTENT_DIR === '' ? resolve(store.dataDir, 'content') : resolve(baseDirOf(env), raw.CMS_CONTENT_DIR),
    baseUrl: base === '' ? undefined : base,
    corsOrigins: raw.CMS_CORS_ORIGINS.trim() === '*' ? '*' : list(raw.CMS_CORS_ORIGINS),
    bodyLimit: raw.CMS_BODY_LIMIT,
    jsonBodyLimit: Math.min(raw.CMS_JSON_BODY_LIMIT, raw.CMS_BODY_LIMIT),
    textLimits: { maxDepth: raw.CMS_JSON_MAX_DEPTH, maxStrings: raw.CMS_TEXT_MAX_STRINGS },
    textPool: { threads: raw.CMS_TEXT_THREADS, queue: raw.CMS_TEXT_QUEUE },
    uploadMaxBytes: raw.CMS_UPLOAD_MAX_BYTES,
    images: { maxPixels: raw.CMS_IMAGE_MAX_PIXELS, concurrency: raw.CMS_IMAGE_CONCURRENCY },
    schedulerIntervalMs: raw.CMS_SCHEDULER_INTERVAL_MS,
    commentsAnonymous: raw.CMS_COMMENTS_ANONYMOUS === '1',
    environment: raw.CMS_ENVIRONMENT,
    maxUrlLength: raw.CMS_MAX_URL_LENGTH,
    keptSignedInBytes: raw.CMS_KEPT_SIGNED_IN_BYTES,
    requestTimeoutMs: raw.CMS_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: raw.CMS_HEADERS_TIMEOUT_MS,
    connectionTimeoutMs: raw.CMS_CONNECTION_TIMEOUT_MS,
    keepAliveTimeoutMs: raw.CMS_KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: raw.CMS_MAX_CONNECTIONS,
    remote,
    remoteTimeoutMs: raw.CMS_REMOTE_TIMEOUT_MS,
    trustedProxies,
    allowedHosts,
    siteUrl: base !== '' ? base : `http://${listening}:${raw.PORT}`,
    adminUrl: adminUrlOf(raw.CMS_ADMIN_URL),
    logLevel: raw.LOG_LEVEL,
    events: { pollMs: raw.CMS_EVENTS_POLL_MS, leaseMs: raw.CMS_EVENTS_LEASE_MS, retentionMs: raw.CMS_EVENTS_RETENTION_MS },
    audit: { enabled: raw.CMS_AUDIT_LOG === 'on', retentionDays: raw.CMS_AUDIT_RETENTION_DAYS, flushMs: raw.CMS_AUDIT_FLUSH_MS, orphanGraceMs: raw.CMS_AUDIT_ORPHAN_MS },
    rateLimits: {
      enabled: raw.CMS_RATE_LIMITS === 'on',
      read: raw.CMS_RATE_LIMIT_READ,
      write: raw.CMS_RATE_LIMIT_WRITE,
      expensive: raw.CMS_RATE_LIMIT_EXPENSIVE,
      windowMs: raw.CMS_RATE_LIMIT_WINDOW_MS,
      authFailures: raw.CMS_RATE_LIMIT_AUTH,
      authWindowMs: raw.CMS_RATE_LIMIT_AUTH_WINDOW_MS,
      syncMs: raw.CMS_RATE_LIMIT_SYNC_MS
    },
    upstreams: upstreamConfigFromEnv(env),
    packages: packageSettingsFromEnv(env, baseDirOf(env)),
    webhooks: webhookSettingsFromEnv(env),
    firstAdmin: firstAdminOf(raw, env)
  }
}

/** CMS_ADMIN_URL: an absolute http(s) URL without query or fragment; its trailing slash dropped. */
function adminUrlOf (value: string): string | undefined {
  const trimmed = value.trim()
  if (trimmed === '') return undefined
  let url: URL
  try { url = new URL(trimmed) } catch { throw new SettingError('CMS_ADMIN_URL', value, 'an absolute http(s) URL (the admin front end)') }
  if (!/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '') throw new SettingError('CMS_ADMIN_URL', value, 'an http(s) URL without query or fragment')
  return trimmed.replace(/\/+$/, '')
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
