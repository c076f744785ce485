/**
 * The permission prober: probes every route and method of a running app as
 * an anonymous caller and as a user of each role, and compares each outcome
 * (allowed / 401 / 403) with the matrix row its own declaration produces
 * (`permission:` of the endpoint, rows from the roles' grants:
 * permission-matrix.ts). Every package runs it in its own tests
 * (`checkPermissions(t, app)` of `@cms/testing`); the gateway's test runs it
 * over every route of profiles A and B. The objects a probe acts on are made
 * first through the service's own routes (by an administrator that is never
 * probed), fresh for every case, so one case cannot change another.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { Outcome } from '@cms/rest'
import { anonymous, type TestCaller } from '@cms/rest/testing'
import type { Store } from '@cms/store'
import { permissionMatrix, CALLER_KINDS, type CallerKind, type MatrixRow } from '../permission-matrix.js'
import type { Platform } from '../platform.js'
import { createApplicationPassword } from '../users/store.js'
import { createCaller } from './callers.js'
import { addTestDelivery, addWebhook } from '../webhooks/service.js'
import { bodyArgs, encodeParams, fillPath, inject, sampleVar, targetsOf, urlOf, validValue, type HttpRequest, type HttpResponse, type Target } from './requests.js'

/** An app under test: a gateway's or `testApp`'s. */
export interface ProbedApp {
  app: FastifyInstance & { platform: Platform }
  store: Store
}

/** Anonymous plus one user of each role, least privileged first. */
async function callersOfEveryKind (store: Store): Promise<Array<TestCaller<CallerKind>>> {
  const out: Array<TestCaller<CallerKind>> = [anonymous]
  for (const kind of CALLER_KINDS) {
    if (kind !== 'anonymous') out.push(await createCaller(store, kind))
  }
  return out
}

export interface ProbeResult {
  kind: CallerKind
  outcome: Outcome | 'server error'
  status: number
  body: string
}

function summary (body: string): string {
  return body.length <= 240 ? body : `${body.slice(0, 240)}…`
}

function codeOf (res: HttpResponse): string | undefined {
  try {
    const body = JSON.parse(res.body) as { code?: unknown }
    return typeof body.code === 'string' ? body.code : undefined
  } catch {
    return undefined
  }
}

/** Makes the named objects of a case, through HTTP as `owner`. */
class Fixtures {
  private readonly made = new Map<string, string>()
  constructor (private readonly h: ProbedApp, private readonly owner: TestCaller) {}

  async resolve (name: string, caller: TestCaller): Promise<string> {
    if (name === 'self.app-password') {
      if (caller.id === 0) return randomUUID()
      return (await createApplicationPassword(this.h.store, caller.id, { name: 'probe target' })).uuid
    }
    const known = this.made.get(name)
    if (known !== undefined) return known
    const value = await this.make(name)
    this.made.set(name, value)
    return value
  }

  private async make (name: string): Promise<string> {
    switch (name) {
      case 'post':
      case 'page':
        return String((await this.call('POST', `/cms/v2/${name}s`, { title: `Probe ${name}`, content: 'Probe content', status: 'publish' }, 201)).id)
      case 'post.revision':
      case 'page.revision': {
        const type = name.split('.')[0]!
        const id = await this.resolve(type, this.owner)
        await this.call('POST', `/cms/v2/${type}s/${id}`, { content: `Changed ${randomUUID()}` }, 200)
        const list = await this.call('GET', `/cms/v2/${type}s/${id}/revisions`, undefined, 200) as unknown as Array<{ id: number }>
        if (!Array.isArray(list) || list[0] === undefined) throw new Error(`fixture ${name}: no revision listed after an update`)
        return String(list[0].id)
      }
      case 'post.autosave':
      case 'page.autosave': {
        const type = name.split('.')[0]!
        const id = await this.resolve(type, this.owner)
        return String((await this.call('POST', `/cms/v2/${type}s/${id}/autosaves`, { title: 'Autosaved', content: `Autosave ${randomUUID()}` }, 200)).id)
      }
      case 'media': {
        // A 1x1 PNG, uploaded as the block editor does (raw body named by Content-Disposition).
        const res = await this.h.app.inject({
          method: 'POST',
          url: urlOf('/cms/v2/media', ''),
          headers: { ...this.owner.headers, 'content-type': 'image/png', 'content-disposition': 'attachment; filename="probe.png"' },
          payload: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
        })
        if (res.statusCode !== 201) throw new Error(`fixture: media upload answered ${res.statusCode}: ${res.body.slice(0, 300)}`)
        return String((JSON.parse(res.body) as { id: number }).id)
      }
      case 'category':
      case 'tag':
        return String((await this.call('POST', `/cms/v2/${name === 'category' ? 'categories' : 'tags'}`, { name: `Probe ${randomUUID().slice(0, 8)}` }, 201)).id)
      case 'comment': {
        // On the owner's published post, by the owner (approved: the owner moderates).
        const post = Number(await this.resolve('post', this.owner))
        return String((await this.call('POST', '/cms/v2/comments', { post, content: `Probe comment ${randomUUID()}` }, 201)).id)
      }
      case 'webhook': {
        // Made in the store: its URL (a name that never resolves) would not pass the create's outbound check.
        const services = this.h.app.platform.services
        return String((await addWebhook(this.h.store, services.webhooks.secrets, { url: 'https://hooks.invalid/probe', events: ['post.created'], description: 'probe', active: true })).row.id)
      }
      case 'webhook.delivery': {
        // A finished (failed) test delivery of the webhook fixture: one a replay takes.
        const services = this.h.app.platform.services
        const delivery = await addTestDelivery(this.h.store, Number(await this.resolve('webhook', this.owner)), services.webhooks.settings)
        await this.h.store.execute(`update webhook_deliveries set status = 'failed' where id = ${delivery.id}`)
        return String(delivery.id)
      }
      case 'user':
        return String((await createCaller(this.h.store, 'subscriber')).id)
      case 'user.app-password': {
        const id = Number(await this.resolve('user', this.owner))
        return (await createApplicationPassword(this.h.store, id, { name: 'probe target' })).uuid
      }
      default:
        return name
    }
  }

  private async call (method: string, path: string, body: unknown, expected: number): Promise<Record<string, unknown>> {
    const res = await inject(this.h.app, {
      method,
      url: urlOf(path, ''),
      headers: { ...this.owner.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) })
    })
    if (res.status !== expected) throw new Error(`fixture: ${method} ${path} answered ${res.status}, expected ${expected}: ${summary(res.body)}`)
    return JSON.parse(res.body) as Record<string, unknown>
  }
}

export function outcomeOf (res: HttpResponse): Outcome | 'server error' {
  if (res.status === 401 || res.status === 403) return res.status
  // An outside service the deployment does not configure is named after the permission check passed.
  if (res.status === 503 && codeOf(res) === 'rest_upstream_unconfigured') return 'allowed'
  return res.status >= 500 ? 'server error' : 'allowed'
}

export interface Prober {
  /** Probes one case of a target with every kind of caller, least privileged first. */
  probe: (target: Target, c: MatrixRow) => Promise<ProbeResult[]>
  /** Sends one case of a target as an administrator, with fresh fixtures: the whole answer (checked against the OpenAPI document). */
  send: (target: Target, c: MatrixRow) => Promise<{ request: HttpRequest, response: HttpResponse }>
}

export async function prober (h: ProbedApp): Promise<Prober> {
  const owner = await createCaller(h.store, 'administrator')
  // Reads change nothing: one set of callers serves every read probe.
  const readers = await callersOfEveryKind(h.store)
  return {
    async probe (target, c) {
      const callers = target.method === 'GET' ? readers : await callersOfEveryKind(h.store)
      const fixtures = new Fixtures(h, owner)
      const out: ProbeResult[] = []
      for (const caller of callers) {
        const req = await probeRequest(target, c, caller, fixtures)
        const res = await inject(h.app, req)
        out.push({ kind: caller.role, outcome: outcomeOf(res), status: res.status, body: summary(res.body) })
      }
      return out
    },
    async send (target, c) {
      // A write may remove its caller's own credentials (`/users/me/application-passwords`): a fresh administrator for each.
      const caller = target.method === 'GET' ? owner : await createCaller(h.store, 'administrator')
      const request = await probeRequest(target, c, caller, new Fixtures(h, owner))
      return { request, response: await inject(h.app, request) }
    }
  }
}

/** The least a test framework offers (tap's `t`). */
export interface Assertions {
  // Method syntax: tap's overloaded signatures fit.
  same (found: unknown, wanted: unknown, message: string, extra: Record<string, unknown>): unknown
  fail (message: string): unknown
}

export interface CheckPermissionsOptions {
  /** Only the routes this selects (default: every route the app serves, namespace roots and the core's included). */
  only?: (target: Target) => boolean
}

/**
 * Probes every selected route and method of the app against the rows its
 * declaration produces: one assertion per case, and one that no route lacks
 * a case. Answers the number of cases probed.
 */
export async function checkPermissions (t: Assertions, h: ProbedApp, opts: CheckPermissionsOptions = {}): Promise<number> {
  const matrix = new Map(permissionMatrix(h.app.restRoutes, h.app.platform.services.roles).map((e) => [e.key, e.rows]))
  const targets = targetsOf(h.app).filter((target) => opts.only?.(target) ?? true)
  const missing = targets.filter((target) => (matrix.get(target.key) ?? []).length === 0).map((target) => target.key)
  t.same(missing, [], 'every route and method declares who may call it', {})
  const p = await prober(h)
  let probed = 0
  for (const target of targets) {
    const rows = matrix.get(target.key) ?? []
    for (const [i, c] of rows.entries()) {
      const label = `${target.key}${rows.length > 1 ? ` (case ${i + 1}: ${c.why})` : ''}`
      let results
      try {
        results = await p.probe(target, c)
      } catch (err) {
        t.fail(`${label}: ${(err as Error).message}`)
        continue
      }
      probed++
      const actual = Object.fromEntries(results.map((r) => [r.kind, r.outcome]))
      const expected = Object.fromEntries(results.map((r) => [r.kind, c[r.kind]]))
      const details = results.filter((r) => r.outcome !== c[r.kind]).map((r) => `${r.kind}: ${r.status} ${r.body}`)
      t.same(actual, expected, label, details.length === 0 ? {} : { diagnostic: true, answers: details, rule: c.why })
    }
  }
  return probed
}

async function probeRequest (target: Target, c: MatrixRow, caller: TestCaller, fixtures: Fixtures): Promise<HttpRequest> {
  const vars: Record<string, string> = {}
  for (const v of target.vars) {
    const named = c.probe?.vars?.[v]
    vars[v] = named === undefined ? sampleVar(target.decl.vars![v]!) : await fixtures.resolve(named, caller)
  }
  // Required arguments get valid values from the declaration; the table's own values win.
  const params: Record<string, unknown> = {}
  for (const a of bodyArgs(target)) if (a.required) params[a.name] = validValue(a.schema, a.name)
  const query: Record<string, unknown> = { ...(c.probe?.query ?? {}) }
  // Query parameters naming a fixture object (meta/search's undeclared post_id), resolved as path variables are.
  for (const [k, named] of Object.entries(c.probe?.queryVars ?? {})) query[k] = await fixtures.resolve(named, caller)
  const body: Record<string, unknown> = { ...(c.probe?.body ?? {}) }
  for (const [k, named] of Object.entries(c.probe?.bodyVars ?? {})) body[k] = Number(await fixtures.resolve(named, caller))
  const read = target.method === 'GET' || target.method === 'DELETE'
  for (const [k, v] of Object.entries(params)) {
    if (!(k in query) && !(k in body)) (read ? query : body)[k] = v
  }
  const hasBody = Object.keys(body).length > 0
  return {
    method: target.method,
    url: urlOf(fillPath(target.decl.path, vars), encodeParams(query)),
    headers: { ...caller.headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { payload: JSON.stringify(body) } : {})
  }
}
