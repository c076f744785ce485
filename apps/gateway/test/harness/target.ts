/**
 * The HTTP suites against a running deployment instead of one in-process app:
 *
 *   CMS_TEST_TARGET=http://127.0.0.1:PORT            the entry point (scripts/topology.sh prints it)
 *   CMS_TEST_TARGET_DATABASE_URL=postgres://...       its database (test callers are made there)
 *   CMS_TEST_TARGET_PROFILE=B                         its deployment profile
 *
 * (`scripts/topology.sh env split-b` prints the three.) The suites still build
 * the app of the profile in process, on the target's database: its route
 * declarations and permission cases are what the suites walk, as against one
 * process. Only the requests change way: `app.inject` of that app sends each
 * one over HTTP to the target, so every answer the suites judge comes from the
 * deployment (its load balancer, gateways and namespace services).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { Agent, request } from 'undici'

interface DeploymentTarget {
  base: string
  databaseUrl: string
  profile: 'A' | 'B'
}

/** The deployment under test, when the environment names one. */
export function testTarget (env: NodeJS.ProcessEnv = process.env): DeploymentTarget | undefined {
  const base = env.CMS_TEST_TARGET?.trim()
  if (base === undefined || base === '') return undefined
  const databaseUrl = env.CMS_TEST_TARGET_DATABASE_URL?.trim() ?? ''
  const profile = env.CMS_TEST_TARGET_PROFILE?.trim() ?? ''
  if (databaseUrl === '') throw new Error('CMS_TEST_TARGET needs CMS_TEST_TARGET_DATABASE_URL (the deployment\'s database, where test callers are made)')
  if (profile !== 'A' && profile !== 'B') throw new Error(`CMS_TEST_TARGET needs CMS_TEST_TARGET_PROFILE, A or B (got "${profile}")`)
  return { base: base.replace(/\/+$/, ''), databaseUrl, profile }
}

/** The profiles a suite covers: both in process, the target's alone against a deployment. */
export function profilesUnderTest (): Array<'A' | 'B'> {
  const target = testTarget()
  return target === undefined ? ['A', 'B'] : [target.profile]
}

// Hop-by-hop and computed headers: the HTTP client writes its own.
const DROPPED = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'content-length'])

/**
 * One request over node:http. A service may answer before it has read the
 * body (an anonymous caller refused, an unknown route: @cms/rest's
 * early-refusal.ts) and close the connection: writing the rest then fails
 * (EPIPE, ECONNRESET), but the answer came, and it is what is judged.
 */
async function exchange (agent: HttpAgent, url: string, method: string, headers: Record<string, string>, body: string | Buffer | undefined): Promise<{ status: number, headers: IncomingHttpHeaders, raw: Buffer }> {
  return await new Promise((resolve, reject) => {
    let answered = false
    const req = httpRequest(url, { method, headers, agent, timeout: 120_000 }, (res) => {
      answered = true
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }) })
      res.on('error', reject)
    })
    req.on('timeout', () => { req.destroy(new Error('no answer within 120 s')) })
    req.on('error', (err) => { if (!answered) reject(err) })
    req.end(body)
  })
}

/** Every spelling of `from` in a URL or body (as written, percent-encoded) as `to`. */
function swap (text: string, from: string, to: string): string {
  return text.split(from).join(to).split(encodeURIComponent(from)).join(encodeURIComponent(to))
}

/**
 * Points `app.inject` at the target: same options in, a response of the
 * fields the suites read out. The suites' site is at `siteUrl` (helpers'
 * BASE; permission probes name its posts by URL): that URL in a request is
 * the target's own site URL, and the target's in an answer is `siteUrl`.
 */
export function injectInto (app: FastifyInstance, base: string, siteUrl: string): void {
  const agent = new Agent({ connections: 32, headersTimeout: 120_000, bodyTimeout: 120_000 })
  const sockets = new HttpAgent({ keepAlive: true, maxSockets: 32 })
  app.addHook('onClose', async () => { sockets.destroy(); await agent.close() })
  let targetSite: Promise<string> | undefined
  // The site URL the target states in its index (its CMS_BASE_URL).
  const siteOfTarget = async (): Promise<string> => await (targetSite ??= (async () => {
    const res = await request(`${base}/cms-json/`, { dispatcher: agent })
    const { url } = await res.body.json() as { url?: string }
    if (typeof url !== 'string') throw new Error(`${base}/cms-json/ states no site url`)
    return url.replace(/\/+$/, '')
  })())
  const send = async (opts: InjectOptions | string): Promise<unknown> => {
    const site = await siteOfTarget()
    const o: InjectOptions = typeof opts === 'string' ? { url: opts } : opts
    let url = swap(typeof o.url === 'string' ? o.url : String(o.path ?? '/'), siteUrl, site)
    if (o.query !== undefined && typeof o.query === 'object') {
      const qs = new URLSearchParams(o.query as Record<string, string>).toString()
      if (qs !== '') url += `${url.includes('?') ? '&' : '?'}${qs}`
    }
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(o.headers ?? {})) {
      if (v !== undefined && !DROPPED.has(k.toLowerCase())) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v)
    }
    let body: string | Buffer | undefined
    const payload = o.payload ?? o.body
    if (typeof payload === 'string') body = swap(payload, siteUrl, site)
    else if (Buffer.isBuffer(payload)) body = payload
    else if (payload !== undefined && payload !== null) {
      body = swap(JSON.stringify(payload), siteUrl, site)
      headers['content-type'] ??= 'application/json'
    }
    // Node frames a body of GET, DELETE or OPTIONS neither by length nor in chunks unless told:
    // the bytes would follow the request unannounced, and the balancer would read them as the
    // next request on the connection (answering it, and the one after, with its own 400).
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body))
    const { status, headers: answered, raw } = await exchange(sockets, `${base}${url}`, (o.method ?? 'GET').toUpperCase(), headers, body)
    const text = swap(raw.toString('utf8'), site, siteUrl)
    return {
      statusCode: status,
      statusMessage: '',
      headers: answered,
      body: text,
      payload: text,
      rawPayload: Buffer.from(text),
      json: () => JSON.parse(text) as unknown
    }
  }
  Object.defineProperty(app, 'inject', { value: send, configurable: true, writable: true })
}
