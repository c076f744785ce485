/**
 * `POST /batch/v1`: up to 25 write requests in one call. Every request is
 * checked before any runs; then each runs in order through the whole
 * pipeline as the caller (its own permission checks, in-process or on the
 * service that serves its namespace), and the answers come back side by
 * side with HTTP 207. Consecutive requests whose endpoint joins the batch's
 * transaction (`batchTransaction`: the core's post-type and comment
 * writes, run in-process) run in one transaction, each behind a savepoint,
 * and commit once (`joined`); the others (a namespace served elsewhere,
 * media, packages' routes) commit on their own, as each request did before.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, Enum, everyone, kernelErrors, Raw, RestResponse, route, type DispatchResponse, type HeaderValue, type RestRequest, type RouteDecl } from '@cms/rest'
import { inOneTransaction, isStoreUnavailable, JoinedCommitError, type Store } from '@cms/store'
import type { AuditServices as Services } from '../audit/services.js'
import { allowedMethods, prepare, type BatchItem, type Prepared } from './requests.js'
import { entryOf } from '../audit/entries.js'
import { batchErrors } from './errors.js'

export const MAX_BATCH_SIZE = 25

const requestsArg = Raw<BatchItem[]>({
  type: 'array',
  maxItems: MAX_BATCH_SIZE,
  items: {
    type: 'object',
    properties: {
      method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
      path: { type: 'string', required: true },
      body: { type: 'object', properties: {}, additionalProperties: true },
      headers: {
        type: 'object',
        properties: {},
        additionalProperties: { type: ['string', 'array'], items: { type: 'string' } }
      }
    }
  }
})

const SLOT = Type.Object({
  body: Type.Unknown({ description: 'The answer\'s body (data, or an error).' }),
  status: Type.Integer(),
  headers: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Array(Type.Unknown(), { maxItems: 0 })], { description: 'The answer\'s own headers (an empty list when none).' })
})

/** One answer per request, in order; with `require-all-validate`, only the invalid ones (null for the others) and `failed`. */
const BATCH_ANSWER = Type.Object({
  failed: Type.Optional(Type.Literal('validation')),
  responses: Type.Array(Type.Union([SLOT, Type.Null()]))
})

interface Slot {
  body: unknown
  status: number
  headers: Record<string, HeaderValue> | []
}

export function batchRoutes (services: Services): RouteDecl[] {
  // A request refused before it runs is recorded here; one that runs is recorded by the kernel as it is dispatched.
  const recordRefused = (p: Extract<Prepared, { ok: false }>, req: RestRequest): void => {
    if (!services.audit.enabled || p.route === undefined || p.sub === undefined || p.endpoint === undefined) return
    services.audit.append(entryOf({
      route: p.route,
      endpoint: p.endpoint,
      pattern: p.sub.route,
      method: p.sub.method,
      path: p.sub.path,
      vars: p.vars ?? {},
      caller: req.user,
      ip: req.ip,
      sent: p.sub.params,
      status: p.error.status,
      body: p.error.toBody(),
      dispatched: true
    }))
  }

  return [route({
    namespace: '',
    path: '/batch/v1',
    endpoints: [endpoint({
      methods: ['POST'],
      // Multi-status: each request's own status is in `responses`.
      status: 207,
      // Not recorded itself: each of its requests is (the audit log).
      audited: false,
      args: {
        validation: Enum(['require-all-validate', 'normal'], { default: 'normal' }),
        requests: requestsArg
      },
      summary: 'Run up to 25 write requests in one call',
      // Each answer is the route's own (its bodies shortened here).
      example: {
        request: {
          requests: [
            { method: 'POST', path: '/cms/v2/posts', body: { title: 'Batch one', status: 'publish' } },
            { method: 'POST', path: '/cms/v2/posts', body: { title: 'Batch two', status: 'publish' } }
          ]
        },
        response: {
          responses: [1, 2].map((id) => ({
            body: { id, slug: `batch-${id === 1 ? 'one' : 'two'}`, status: 'publish', type: 'post', title: { raw: `Batch ${id === 1 ? 'one' : 'two'}`, rendered: `Batch ${id === 1 ? 'one' : 'two'}` } },
            status: 201,
            headers: { Location: `https://cms.example.com/index.php?rest_route=/cms/v2/posts/${id}`, Allow: 'GET, POST' }
          }))
        }
      },
      response: BATCH_ANSWER,
      // Anyone may send a batch; every request checks its own permissions.
      permission: everyone.because('§11 anyone may send a batch; each request checks its own permission')
        .probing({ body: { requests: [{ method: 'POST', path: '/cms/v2/posts', body: { title: 'Probe' } }] } }),
      handler: async (req) => {
        const items = req.params.requests as BatchItem[]
        const off = await req.registry.off(req)
        const prepared = items.map((item) => prepare(item, req, off))

        for (const p of prepared) if (!p.ok) recordRefused(p, req)
        if (req.params.validation === 'require-all-validate' && prepared.some((p) => !p.ok)) {
          const responses = prepared.map((p): Slot | null =>
            p.ok ? null : { body: p.error.toBody(), status: p.error.status, headers: [] })
          return new RestResponse({ failed: 'validation', responses }, 207)
        }

        const responses: Slot[] = []
        let at = 0
        while (at < prepared.length) {
          const p = prepared[at]!
          // A run of requests that join one transaction: one commit for all of them.
          const run: Array<Extract<Prepared, { ok: true }>> = []
          for (let i = at; i < prepared.length; i++) {
            const q = prepared[i]!
            if (!q.ok || q.joins !== true) break
            run.push(q)
          }
          if (run.length > 0) {
            responses.push(...await joined(services.store, req, run))
            at += run.length
            continue
          }
          at++
          if (p.ok) {
            responses.push(slotOf(await req.dispatch(p.dispatch)))
            continue
          }
          const allow = p.route !== undefined && p.sub !== undefined ? await allowedMethods(p.route, p.sub) : ''
          responses.push({ body: p.error.toBody(), status: p.error.status, headers: allow === '' ? [] : { Allow: allow } })
        }
        return new RestResponse({ responses }, 207)
      }
    })]
  })]
}

/**
 * Requests run in-process whose endpoint joins the batch's transaction
 * (`batchTransaction`: rows only), in order, in one transaction: each
 * behind a savepoint, rolled back when it answers an error or throws, the
 * others standing; one commit, before any of them is answered. When that
 * commit fails, nothing of them was written and every answer says so.
 */
async function joined (store: Store, req: RestRequest, run: ReadonlyArray<Extract<Prepared, { ok: true }>>): Promise<Slot[]> {
  const slots: Slot[] = []
  try {
    await inOneTransaction(store, async (join) => {
      for (const p of run) {
        const done = await join.item(async () => await req.dispatch(p.dispatch), (res) => res.status >= 400)
        if ('error' in done) {
          const error = batchErrors.rest_batch_request_failed()
          slots.push({ body: error.toBody(), status: error.status, headers: [] })
        } else {
          slots.push(slotOf(done.value))
        }
      }
    })
  } catch (err) {
    if (!(err instanceof JoinedCommitError)) throw err
    // The database out of reach (before, a request then answered 503 on its own): the same 503, to be tried again.
    const error = isStoreUnavailable(err.cause) ? kernelErrors.rest_service_unavailable() : batchErrors.rest_batch_commit_failed()
    // Every request of the run: those that answered an error too (their savepoints are gone with it).
    return run.map(() => ({ body: error.toBody(), status: error.status, headers: [] }))
  }
  return slots
}

const NUMERIC_HEADERS = new Set(['X-CMS-Total', 'X-CMS-TotalPages'])

/**
 * A sub-response as the batch shows it: its own headers only. The discovery
 * `Link` and the `ETag` the server adds to every response are left out;
 * totals are numbers, as the core's envelope shows them.
 */
function slotOf (res: DispatchResponse): Slot {
  const headers: Record<string, HeaderValue> = {}
  for (const [name, value] of Object.entries(res.headers)) {
    if (name === 'Etag' || name === 'ETag') continue
    if (name === 'Link' && typeof value === 'string' && /rel="https:\/\/api\.cms\.invalid\/"$/.test(value)) continue
    headers[name] = NUMERIC_HEADERS.has(name) && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
  }
  return { body: res.body, status: res.status, headers: Object.keys(headers).length === 0 ? [] : headers }
}
