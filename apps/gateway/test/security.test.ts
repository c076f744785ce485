/**
 * Security checks driven by data files (test/data/*.txt) against every route
 * that takes a path, URL or file name (found from the declarations: path
 * variables, argument names and `format: uri`, objects carrying a `path`):
 * traversal is refused without disclosing files, SSRF targets are refused
 * before any connection (a loopback canary must see none), header injection
 * is never reflected into response headers, and oversized bodies get 413.
 */
import t, { type Test } from 'tap'
import { createServer, type Server } from 'node:net'
import { once } from 'node:events'
import { Readable } from 'node:stream'
import { request } from 'undici'
import type { JsonSchema } from '@cms/rest'
import { gatewayApp, listenLoopback, type GatewayApp } from './helpers.js'
import { createCaller } from '@cms/core/testing'
import { argKind, bodyArgs, fillPath, sampleVar, targetsOf, urlOf, type Target } from './harness/routes.js'
import { validValue } from '@cms/core/testing'
import { describe, encodeParams, inject, send, type HttpRequest, type HttpResponse } from './harness/requests.js'
import { checkResponse, codeOf, summary } from './harness/check.js'
import { readPayloads } from './harness/payloads.js'

const TRAVERSAL = readPayloads('traversal.txt')
const SSRF = readPayloads('ssrf.txt')
const INJECTION = readPayloads('header-injection.txt', { unescape: true })

/** What a disclosed file looks like. */
const DISCLOSURE = [/root:[^:]*:0:0:/, /\[extensions\]/i, /\[boot loader\]/i, /PRIVATE KEY-----/, /\bHOME=\//, /"devDependencies"\s*:/, /BEGIN CERTIFICATE/]

t.ok(TRAVERSAL.length >= 20, `${TRAVERSAL.length} traversal payloads`)
t.ok(SSRF.length >= 20, `${SSRF.length} SSRF targets`)
t.ok(INJECTION.length >= 5, `${INJECTION.length} header injection payloads`)

type Place = { kind: 'var', name: string } | { kind: 'arg', name: string, schema: JsonSchema } | { kind: 'nested', name: string, property: string, schema: JsonSchema }

/** Where a target takes a path or a URL. */
function locators (target: Target): Array<Place & { what: 'path' | 'url' }> {
  const out: Array<Place & { what: 'path' | 'url' }> = target.vars.map((name) => ({ kind: 'var' as const, name, what: 'path' as const }))
  for (const a of bodyArgs(target)) {
    const kind = argKind(a.name, a.schema)
    if (kind !== null) out.push({ kind: 'arg', name: a.name, schema: a.schema, what: kind })
    const props = (a.schema.items as JsonSchema | undefined)?.properties as Record<string, JsonSchema> | undefined
    for (const [property, schema] of Object.entries(props ?? {})) {
      const inner = argKind(property, schema)
      if (inner !== null) out.push({ kind: 'nested', name: a.name, property, schema: a.schema, what: inner })
    }
  }
  return out
}

/** A request for a target with valid required arguments, `value` placed at `place`. */
function requestFor (target: Target, headers: Record<string, string>, place: Place | undefined, value: string, encode: (s: string) => string = encodeURIComponent, addressing: 'pretty' | 'rest_route' = 'pretty'): HttpRequest {
  const vars: Record<string, string> = {}
  for (const v of target.vars) vars[v] = place?.kind === 'var' && place.name === v ? encode(value) : sampleVar(target.decl.vars![v]!)
  const params: Record<string, unknown> = {}
  for (const a of bodyArgs(target)) if (a.required) params[a.name] = validValue(a.schema, a.name)
  if (place?.kind === 'arg') params[place.name] = value
  if (place?.kind === 'nested') {
    const item = validValue((place.schema.items ?? {}) as JsonSchema) as Record<string, unknown>
    params[place.name] = [{ ...item, method: 'POST', [place.property]: value }]
  }
  return buildRequest(target, vars, params, headers, addressing)
}

function buildRequest (target: Target, vars: Record<string, string>, params: Record<string, unknown>, headers: Record<string, string>, addressing: 'pretty' | 'rest_route' = 'pretty'): HttpRequest {
  const read = target.method === 'GET' || target.method === 'DELETE'
  const path = fillPath(target.decl.path, vars)
  if (read || Object.keys(params).length === 0) return { method: target.method, url: urlOf(path, encodeParams(params), addressing), headers }
  return { method: target.method, url: urlOf(path, '', addressing), headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(params) }
}

/** Statuses of nested answers (a batch answers 207 and refuses inside). */
function nestedStatuses (res: HttpResponse): number[] {
  try {
    const body = JSON.parse(res.body) as { responses?: Array<{ status?: number } | null> }
    return Array.isArray(body.responses) ? body.responses.map((r) => r?.status ?? 0) : []
  } catch {
    return []
  }
}

function refused (res: HttpResponse): boolean {
  if (res.status >= 400 && res.status < 500) return true
  const nested = nestedStatuses(res)
  return res.status === 207 && nested.length > 0 && nested.every((s) => s >= 400 && s < 500)
}

async function sendSafely (h: GatewayApp, req: HttpRequest): Promise<HttpResponse> {
  try {
    return await inject(h.app, req)
  } catch (err) {
    return { status: 0, headers: {}, body: `inject threw: ${String(err)}` }
  }
}

class Findings {
  readonly list: string[] = []
  checked = 0
  add (what: string, req: HttpRequest, res: HttpResponse): void {
    if (this.list.length < 40) this.list.push(`${what}: ${res.status} ${summary(res.body)}\n    ${describe(req)}`)
    else this.list.length === 40 && this.list.push('(more)')
  }

  report (t: Test, label: string): void {
    for (const f of this.list) t.comment(f)
    t.equal(this.list.length, 0, `${label} (${this.checked} requests)`)
  }
}

for (const profile of ['A', 'B'] as const) {
  t.test(`profile ${profile}`, async (t) => {
    const h = await gatewayApp({ env: { CMS_DEPLOYMENT: profile } })
    t.teardown(h.close)
    const admin = (await createCaller(h.store, 'administrator')).headers
    // Methods of one endpoint share its handler: one of them stands for all.
    const targets = targetsOf(h.app).filter((target) => target.endpoint.methods[0] === target.method)

    t.test('path traversal is refused without disclosing files', async (t) => {
      const found = new Findings()
      const check = async (req: HttpRequest, what: string): Promise<void> => {
        const res = await sendSafely(h, req)
        found.checked++
        const verdict = checkResponse(res)
        if (res.status === 0 || !verdict.ok) found.add(`${what}: ${verdict.problem ?? 'no answer'}`, req, res)
        else if (!refused(res)) found.add(`${what}: not refused`, req, res)
        else if (DISCLOSURE.some((re) => re.test(res.body))) found.add(`${what}: file content disclosed`, req, res)
      }
      // The route parameter of the canonical address is a path too.
      for (const payload of TRAVERSAL) {
        await check({ method: 'GET', url: `/index.php?rest_route=${encodeURIComponent(payload)}`, headers: admin }, 'rest_route')
        await check({ method: 'GET', url: `/index.php?rest_route=/cms/v2/${encodeURI(payload)}`, headers: admin }, 'rest_route')
      }
      for (const target of targets) {
        for (const place of locators(target).filter((l) => l.what === 'path')) {
          for (const [i, payload] of TRAVERSAL.entries()) {
            const what = `${target.key} ${place.kind} ${place.name}`
            const encode = place.kind === 'var' && i % 2 === 1 ? encodeURI : encodeURIComponent
            await check(requestFor(target, admin, place, payload, encode, i % 4 < 2 ? 'pretty' : 'rest_route'), what)
          }
        }
      }
      found.report(t, 'every traversal payload refused')
    })

    t.test('SSRF targets are refused before connecting', async (t) => {
      let connections = 0
      const canaries: Server[] = []
      const first = createServer((s) => { connections++; s.destroy() }).listen(0, '127.0.0.1')
      await once(first, 'listening')
      canaries.push(first)
      const port = (first.address() as { port: number }).port
      const v6 = createServer((s) => { connections++; s.destroy() })
      v6.on('error', () => {})
      v6.listen(port, '::1')
      canaries.push(v6)
      t.teardown(() => { for (const c of canaries) c.close() })

      const found = new Findings()
      const urlTargets = targets.flatMap((target) => locators(target).filter((l) => l.what === 'url').map((place) => ({ target, place })))
      t.comment(`URL arguments: ${urlTargets.map(({ target, place }) => `${target.key} ${place.name}`).join(', ') || 'none'}`)
      for (const { target, place } of urlTargets) {
        for (const template of SSRF) {
          const url = template.replaceAll('{port}', String(port))
          const host = /^[a-z]+:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/#?]*)/i.exec(url)?.[1] ?? ''
          // Names that only a DNS server could resolve may fail as upstream errors (502); the rest must be refused outright.
          const literal = /^\[|^[\d.]+$|^0x|^localhost\.?$/i.test(host)
          const req = requestFor(target, admin, place, url)
          const res = await sendSafely(h, req)
          found.checked++
          const verdict = checkResponse(res, { allow: [502] })
          if (res.status === 0 || !verdict.ok) found.add(`${target.key} ${place.name}: ${verdict.problem ?? 'no answer'}`, req, res)
          // Reads that take a URL fetch it (oEmbed proxy, file size, head): they must refuse. A write may
          // store a URL (a user's website) without fetching it; the canary shows it never connects.
          else if (target.method === 'GET' && !(refused(res) || (!literal && res.status === 502))) found.add(`${target.key} ${place.name} ${url}: not refused`, req, res)
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
      found.report(t, 'every SSRF target refused')
      t.equal(connections, 0, 'no connection reached the loopback canary')
    })

    t.test('header injection is never reflected into response headers', async (t) => {
      const found = new Findings()
      const check = async (req: HttpRequest, what: string): Promise<void> => {
        const res = await sendSafely(h, req)
        found.checked++
        const verdict = checkResponse(res)
        if (res.status === 0 || !verdict.ok) { found.add(`${what}: ${verdict.problem ?? 'no answer'}`, req, res); return }
        for (const [name, value] of Object.entries(res.headers)) {
          const values = Array.isArray(value) ? value : [String(value ?? '')]
          // A reflected value is harmless while it stays inside its own header: no header of the
          // payload's making, no line break or NUL in any value.
          if (/injected/i.test(name) || (name === 'set-cookie' && values.some((v) => /injected/i.test(v))) || values.some((v) => /[\r\n\0]/.test(v))) {
            found.add(`${what}: header ${name}: ${JSON.stringify(value)}`, req, res)
          }
        }
      }
      for (const target of targets) {
        const strings = bodyArgs(target).filter((a) => a.schema.type === 'string' || a.schema.type === undefined || (Array.isArray(a.schema.type) && a.schema.type.includes('string')))
        for (const [n, payload] of INJECTION.entries()) {
          const vars: Record<string, string> = {}
          for (const v of target.vars) vars[v] = new RegExp(`^(?:${target.decl.vars![v]!})$`).test(payload) ? encodeURIComponent(payload) : sampleVar(target.decl.vars![v]!)
          const params: Record<string, unknown> = {}
          for (const a of bodyArgs(target)) if (a.required) params[a.name] = validValue(a.schema, a.name)
          for (const a of strings) params[a.name] = payload
          params.injected_unknown = payload
          await check(buildRequest(target, vars, params, admin), `${target.key} arguments`)
          // Values the response may echo: JSONP callback, envelope, fields, and a header a client can send.
          if (n % 4 !== 0) continue
          const echo: HttpRequest = buildRequest(target, vars, { ...params, _jsonp: payload, _envelope: '1', _fields: payload }, admin)
          await check(echo, `${target.key} _jsonp/_envelope/_fields`)
          if (!/[\r\n\0]/.test(payload)) await check({ ...buildRequest(target, vars, params, admin), headers: { ...admin, origin: `http://a.test/${payload}` } }, `${target.key} Origin`)
        }
      }
      found.report(t, 'no injected header, no control character in any header')
    })
  })
}

t.test('oversized bodies get 413 on every route that takes a body', async (t) => {
  const limit = 65_536
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B', CMS_BODY_LIMIT: String(limit) } })
  t.teardown(h.close)
  const admin = (await createCaller(h.store, 'administrator')).headers
  const big = JSON.stringify({ title: 'x'.repeat(limit), requests: [] })
  const found = new Findings()
  for (const target of targetsOf(h.app)) {
    if (target.method === 'GET') continue
    // An endpoint that streams its body (uploads) has a limit of its own, tested with it (CMS_UPLOAD_MAX_BYTES).
    if (target.endpoint.streamBody !== undefined) continue
    const vars = Object.fromEntries(target.vars.map((v) => [v, sampleVar(target.decl.vars![v]!)]))
    for (const [type, payload] of [['application/json', big], ['application/x-www-form-urlencoded', `a=${'x'.repeat(limit)}`], ['text/plain', 'x'.repeat(limit + 1)]] as const) {
      for (const headers of [{}, admin]) {
        const req: HttpRequest = { method: target.method, url: urlOf(fillPath(target.decl.path, vars), ''), headers: { ...headers, 'content-type': type }, payload }
        const res = await sendSafely(h, req)
        found.checked++
        // Without credentials, a route that refuses anonymous callers answers 401 before reading any of the
        // body (issue 27): also a refusal that never processes it. Signed in, every one is 413.
        const refusedUnread = headers !== admin && res.status === 401
        if (!refusedUnread && (res.status !== 413 || codeOf(res) !== 'rest_request_too_large')) found.add(`${target.key} ${type}`, req, res)
        else if (!checkResponse(res).ok) found.add(`${target.key} ${type}`, req, res)
      }
    }
  }
  found.report(t, `every body over ${limit} bytes refused with 413 rest_request_too_large (anonymous: 413, or 401 unread)`)

  // Over a real socket, a chunked body (no length announced) is cut off too, and the service keeps serving.
  const base = await listenLoopback(h.app)
  const chunked = await request(`${base}/cms-json/batch/v1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // A stream has no announced length: undici sends it chunked.
    body: Readable.from([big.slice(0, limit / 2), big.slice(limit / 2)])
  })
  const text = await chunked.body.text()
  t.equal(chunked.statusCode, 413, 'a chunked oversized body gets 413')
  t.equal(codeOf({ status: chunked.statusCode, headers: {}, body: text }), 'rest_request_too_large')
  t.equal((await send(base, { method: 'GET', url: '/healthz', headers: {} })).status, 200, 'and the service still serves')
})

t.test('the default limit is 8 MiB', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' } })
  t.teardown(h.close)
  const over = await inject(h.app, { method: 'POST', url: '/cms-json/batch/v1', headers: { 'content-type': 'application/json' }, payload: `{"requests":[],"x":"${'x'.repeat(8 * 1024 * 1024)}"}` })
  t.equal(over.status, 413, '8 MiB + a little: 413')
  t.equal(codeOf(over), 'rest_request_too_large')
  const under = await inject(h.app, { method: 'POST', url: '/cms-json/batch/v1', headers: { 'content-type': 'application/json' }, payload: `{"requests":[{"path":"/cms/v2/posts"}],"x":"${'x'.repeat(1024 * 1024)}"}` })
  t.equal(under.status, 207, '1 MiB is accepted')
})
