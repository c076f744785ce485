/**
 * The one HTTP client for URLs that come from requests. Every hop (the URL
 * and each redirect) is checked before any connection is made: http(s)
 * only, no credentials, and every address the host resolves to must be
 * public or allow-listed. The connection then goes to exactly the addresses
 * that were checked (the lookup is pinned), so a second DNS answer cannot
 * swap in another one. Size and time are bounded.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { once } from 'node:events'
import { classifyAddress, formatIp, parseIp } from './address.js'
import { parseAllowList, type AllowList } from './allow.js'
import { OutboundError } from './errors.js'

export type Resolver = (hostname: string) => Promise<LookupAddress[]>

export interface OutboundOptions {
  /** Hosts, addresses and ranges reachable although not public (`CMS_OUTBOUND_ALLOW`). */
  allow?: AllowList | string
  /** Defaults for every fetch. */
  timeoutMs?: number
  maxBytes?: number
  maxRedirects?: number
  userAgent?: string
  /** Name resolution; the system resolver by default. */
  resolve?: Resolver
}

export interface FetchOptions {
  /** GET by default. */
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Sent with the first hop; a 307/308 redirect sends it again, another redirect turns the request into a GET without it. */
  body?: string | Buffer
  headers?: Record<string, string>
  /** Whole exchange, redirects and name resolution included. */
  timeoutMs?: number
  /** Largest body accepted. */
  maxBytes?: number
  /** Past `maxBytes`, keep the first `maxBytes` bytes instead of failing (reading a page's head). */
  truncate?: boolean
  maxRedirects?: number
  /**
   * A successful (2xx) body is written to this new file (mode 0600) as it
   * arrives, not kept in memory (a package of hundreds of megabytes); the
   * response's `body` is then empty. A failed or too large download leaves
   * no file. Other answers are read into `body` as usual.
   */
  toFile?: string
}

export interface OutboundResponse {
  /** The URL that answered (after redirects). */
  url: string
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  /** Bytes of the body received (written to `toFile` when given). */
  bytes: number
  text (): string
}

export interface OutboundClient {
  fetch (url: string, options?: FetchOptions): Promise<OutboundResponse>
  /** Refuses (throws `OutboundError('blocked')`) without connecting when the URL may not be fetched. */
  check (url: string): Promise<void>
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

const systemResolver: Resolver = async (hostname) => await new Promise((resolve, reject) => {
  dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
    if (err !== null) reject(err)
    else resolve(addresses)
  })
})

/** The client configured from the environment (`CMS_OUTBOUND_ALLOW`); a bad entry throws at start. */
export function outboundClientFromEnv (env: NodeJS.ProcessEnv = process.env): OutboundClient {
  return createOutboundClient({ allow: env.CMS_OUTBOUND_ALLOW ?? '' })
}

let undici: Promise<Pick<typeof import('undici'), 'Agent' | 'request'>> | undefined

export function createOutboundClient (options: OutboundOptions = {}): OutboundClient {
  const allow = typeof options.allow === 'object' ? options.allow : parseAllowList(options.allow)
  const resolve = options.resolve ?? systemResolver
  const defaults = {
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: options.maxBytes ?? 1024 * 1024,
    maxRedirects: options.maxRedirects ?? 5
  }
  const userAgent = options.userAgent ?? 'cms-service/0.1 (outbound)'

  /** The addresses to connect to, all checked; throws when the hop may not be fetched. */
  async function destination (url: URL, hop: number, deadline: number): Promise<LookupAddress[]> {
    const refuse = (why: string): never => { throw new OutboundError('blocked', why, url.href, hop) }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse(`the scheme ${url.protocol} is not allowed`)
    if (url.username !== '' || url.password !== '') refuse('URLs with credentials are not allowed')
    const host = url.hostname.toLowerCase().replace(/\.$/, '')
    if (host === '') refuse('the URL has no host')
    const literal = parseIp(host)
    const hostAllowed = allow.allowsHost(host)
    let addresses: LookupAddress[]
    if (literal !== null) {
      addresses = [{ address: formatIp(literal), family: literal.length === 4 ? 4 : 6 }]
    } else {
      addresses = await withDeadline(resolve(host), deadline, url.href, hop).catch((err: unknown) => {
        if (err instanceof OutboundError) throw err
        throw new OutboundError('dns', `the host ${host} does not resolve`, url.href, hop)
      })
      if (addresses.length === 0) throw new OutboundError('dns', `the host ${host} does not resolve`, url.href, hop)
    }
    for (const { address } of addresses) {
      const bytes = parseIp(address)
      if (bytes === null) refuse(`the host ${host} resolves to an unusable address`)
      const kind = classifyAddress(bytes!)
      if (kind === 'public') continue
      if (allow.allowsAddress(bytes!)) continue
      if (hostAllowed && kind !== 'metadata') continue
      refuse(`${literal === null ? `the host ${host} resolves to ` : ''}${kind === 'metadata' ? 'a metadata' : 'a non-public'} address`)
    }
    return addresses
  }

  async function fetchOnce (url: URL, hop: number, deadline: number, opts: Resolved): Promise<{ status: number, headers: OutboundResponse['headers'], body: Buffer | null, bytes: number }> {
    const addresses = await destination(url, hop, deadline)
    const remaining = deadline - Date.now()
    if (remaining <= 0) throw new OutboundError('timeout', 'the outside service did not answer in time', url.href, hop)
    // undici (about 1 MB of modules) is loaded with the first outside request, not at start.
    const { Agent, request } = await (undici ??= import('undici'))
    const agent = new Agent({
      connections: 1,
      pipelining: 0,
      headersTimeout: remaining,
      bodyTimeout: remaining,
      connect: { timeout: remaining, lookup: pinnedLookup(addresses) }
    })
    const signal = AbortSignal.timeout(remaining)
    try {
      const res = await request(url, {
        method: opts.method,
        ...(opts.body === undefined ? {} : { body: opts.body }),
        dispatcher: agent,
        signal,
        headers: { 'user-agent': userAgent, ...opts.headers }
      })
      if (REDIRECTS.has(res.statusCode) && res.headers.location !== undefined) {
        await res.body.dump()
        return { status: res.statusCode, headers: res.headers, body: null, bytes: 0 }
      }
      const declared = Number(res.headers['content-length'])
      if (!opts.truncate && Number.isFinite(declared) && declared > opts.maxBytes) {
        res.body.on('error', () => {})
        res.body.destroy()
        throw new OutboundError('too_large', `the answer is larger than ${opts.maxBytes} bytes`, url.href, hop)
      }
      const tooLarge = (): OutboundError => new OutboundError('too_large', `the answer is larger than ${opts.maxBytes} bytes`, url.href, hop)
      if (opts.toFile !== undefined && res.statusCode >= 200 && res.statusCode < 300) {
        return { status: res.statusCode, headers: res.headers, body: Buffer.alloc(0), bytes: await writeBody(res.body, opts.toFile, opts.maxBytes, tooLarge) }
      }
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of res.body) {
        const buf = chunk as Buffer
        if (size + buf.length > opts.maxBytes) {
          // Leaving the loop destroys the body.
          if (!opts.truncate) throw tooLarge()
          chunks.push(buf.subarray(0, opts.maxBytes - size))
          size = opts.maxBytes
          break
        }
        size += buf.length
        chunks.push(buf)
      }
      return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), bytes: size }
    } catch (err) {
      if (err instanceof OutboundError || fileErrors.has(err as object)) throw err
      if (signal.aborted || Date.now() >= deadline || isTimeout(err)) {
        throw new OutboundError('timeout', 'the outside service did not answer in time', url.href, hop)
      }
      throw new OutboundError('network', `the connection failed (${(err as { code?: string }).code ?? (err as Error).message})`, url.href, hop)
    } finally {
      agent.destroy().catch(() => {})
    }
  }

  return {
    async check (url) {
      let parsed: URL
      try { parsed = new URL(url) } catch { throw new OutboundError('blocked', 'the URL cannot be parsed', url, 0) }
      await destination(parsed, 0, Date.now() + defaults.timeoutMs)
    },
    async fetch (url, options = {}) {
      const opts: Resolved = {
        method: options.method ?? 'GET',
        body: options.body,
        toFile: options.toFile,
        headers: options.headers ?? {},
        timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
        maxBytes: options.maxBytes ?? defaults.maxBytes,
        truncate: options.truncate ?? false,
        maxRedirects: options.maxRedirects ?? defaults.maxRedirects
      }
      const deadline = Date.now() + opts.timeoutMs
      let current: URL
      try { current = new URL(url) } catch { throw new OutboundError('blocked', 'the URL cannot be parsed', url, 0) }
      for (let hop = 0; ; hop++) {
        const res = await fetchOnce(current, hop, deadline, opts)
        if (res.body !== null) {
          const body = res.body
          return { url: current.href, status: res.status, headers: res.headers, body, bytes: res.bytes, text: () => body.toString('utf8') }
        }
        if (hop >= opts.maxRedirects) {
          throw new OutboundError('redirects', `more than ${opts.maxRedirects} redirects`, current.href, hop)
        }
        const location = res.headers.location
        if (res.status !== 307 && res.status !== 308 && opts.method !== 'GET' && opts.method !== 'HEAD') {
          opts.method = 'GET'
          opts.body = undefined
        }
        try {
          current = new URL(Array.isArray(location) ? location[0]! : location!, current)
        } catch {
          throw new OutboundError('network', 'the redirect location cannot be parsed', current.href, hop)
        }
      }
    }
  }
}

/** A fetch's options with the client's defaults applied. */
type Resolved = Required<Omit<FetchOptions, 'body' | 'toFile'>> & Pick<FetchOptions, 'body' | 'toFile'>

/** Errors of the file a body was written to: the local disk's, thrown as they are (not a failure of the outside service). */
const fileErrors = new WeakSet<object>()

/** Writes a body to a new file as it arrives (at most `maxBytes`); on any failure the file is removed. */
async function writeBody (body: AsyncIterable<unknown>, file: string, maxBytes: number, tooLarge: () => Error): Promise<number> {
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 })
  out.on('error', (err) => { fileErrors.add(err) })
  let size = 0
  try {
    await once(out, 'open')
    for await (const chunk of body) {
      const buf = chunk as Buffer
      size += buf.length
      // Leaving the loop destroys the body.
      if (size > maxBytes) throw tooLarge()
      if (!out.write(buf)) await once(out, 'drain')
    }
    out.end()
    await once(out, 'finish')
    return size
  } catch (err) {
    out.destroy()
    // Not ours to remove when it existed before (`wx` refused to open it).
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await rm(file, { force: true })
    throw err
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/** A `lookup` for net/tls that answers only with the addresses already checked. */
function pinnedLookup (addresses: LookupAddress[]) {
  return (hostname: string, options: { family?: number | string, all?: boolean } | LookupCallback, callback?: LookupCallback): void => {
    const cb = (typeof options === 'function' ? options : callback)!
    const opts = typeof options === 'function' ? {} : options
    const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : opts.family
    const list = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses
    if (list.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no checked address for ${hostname}`)
      err.code = 'ENOTFOUND'
      cb(err, '')
      return
    }
    if (opts.all === true) cb(null, list)
    else cb(null, list[0]!.address, list[0]!.family)
  }
}

async function withDeadline<T> (work: Promise<T>, deadline: number, url: string, hop: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new OutboundError('timeout', 'the outside service did not answer in time', url, hop)) }, Math.max(0, deadline - Date.now()))
    timer.unref()
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

function isTimeout (err: unknown): boolean {
  const code = (err as { code?: string, name?: string }).code ?? ''
  const name = (err as { name?: string }).name ?? ''
  return /TIMEOUT/i.test(code) || name === 'TimeoutError' || name === 'AbortError'
}
