/**
 * `/cms/v2/webhooks`: subscriptions (create, list, read, update, delete),
 * a test delivery (`/{id}/test`), the secret's rotation (`/{id}/rotate-secret`),
 * the delivery log (`/{id}/deliveries`) and the replay of a finished delivery
 * (`/{id}/deliveries/{delivery_id}/replay`).
 * Administrators only (`manage_options`: like the site settings, a
 * subscription sends the site's content elsewhere). A secret is in the
 * answer of the create or the rotation that made it only; a URL is checked by the outbound client when it is
 * given (and again at every delivery, delivery.ts).
 */
import { Type } from '@sinclair/typebox'
import { can, checkPage, createdAt, endpoint, Enum, field, invalidParam, itemSchema, pageHeaders, restUrl, route, RestResponse, type Params, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import { formatGmt } from '../base/dates.js'
import { idOf } from '../content/post-store.js'
import { LIFECYCLE_TOPICS } from '../platform/events/index.js'
import { OutboundError } from '../platform/outbound/index.js'
import type { WebhookServices as Services } from './services.js'
import { RESPONSE_KEPT } from './delivery.js'
import { webhookErrors } from './errors.js'
import { addTestDelivery, addWebhook, rotateSecret } from './service.js'
import { deleteWebhook, getDelivery, getWebhook, listDeliveries, listWebhooks, replayDelivery, updateWebhook, type DeliveryRow, type WebhookRow } from './store.js'

const VE = ['view', 'edit']
const DATE = { type: 'string', format: 'date-time' } as const
const NULLABLE_DATE = { type: ['string', 'null'], format: 'date-time' } as const

const webhookSchema = itemSchema('webhook', {
  id: field({ description: 'Unique identifier for the webhook.', type: 'integer', context: VE, readonly: true }),
  url: field({ description: 'The URL deliveries are POSTed to (http or https, a public address unless CMS_OUTBOUND_ALLOW names it).', type: 'string', format: 'uri', context: VE }),
  description: field({ description: 'What the webhook is for.', type: 'string', context: VE }),
  events: field({ description: 'The lifecycle events delivered.', type: 'array', items: { type: 'string', enum: [...LIFECYCLE_TOPICS] }, context: VE }),
  active: field({ description: 'Whether events are delivered (setting it true also re-enables a disabled webhook).', type: 'boolean', context: VE }),
  status: field({ description: 'active, inactive (switched off) or disabled (its deliveries failed for too long).', type: 'string', enum: ['active', 'inactive', 'disabled'], context: VE, readonly: true }),
  disabled_reason: field({ description: 'Why the webhook was disabled, or null.', type: ['string', 'null'], context: VE, readonly: true }),
  disabled_at: field({ description: 'When the webhook was disabled (GMT), or null.', ...NULLABLE_DATE, context: VE, readonly: true }),
  failing_since: field({ description: 'The first failed delivery since the last success (GMT), or null.', ...NULLABLE_DATE, context: VE, readonly: true }),
  date_created: field({ description: 'When the webhook was created (GMT).', ...DATE, context: VE, readonly: true }),
  date_modified: field({ description: 'When the webhook was last changed (GMT).', ...DATE, context: VE, readonly: true }),
  previous_secret_expires: field({ description: 'After a rotation, until when deliveries are also signed with the secret it replaced (GMT); null when only one secret signs.', ...NULLABLE_DATE, context: VE, readonly: true }),
  secret: field({ description: 'The signing secret (whsec_...): in the answer of the create or the rotation that made it only, never again.', type: 'string', context: VE, readonly: true })
})

const deliverySchema = itemSchema('webhook-delivery', {
  id: field({ description: 'Unique identifier for the delivery.', type: 'integer', context: VE, readonly: true }),
  webhook: field({ description: 'The webhook it is for.', type: 'integer', context: VE, readonly: true }),
  event_id: field({ description: 'The lifecycle event delivered (null for a test).', type: ['integer', 'null'], context: VE, readonly: true }),
  message_id: field({ description: 'The webhook-id header: the same for every attempt and replay.', type: 'string', context: VE, readonly: true }),
  topic: field({ description: 'The event (webhook.test for a test).', type: 'string', context: VE, readonly: true }),
  status: field({ description: 'pending (sent at next_attempt), delivered (a 2xx answer) or failed (no retry left).', type: 'string', enum: ['pending', 'delivered', 'failed'], context: VE, readonly: true }),
  attempts: field({ description: 'Attempts made so far.', type: 'integer', context: VE, readonly: true }),
  response_status: field({ description: 'The last answer\'s HTTP status (null: no answer).', type: ['integer', 'null'], context: VE, readonly: true }),
  response_body: field({ description: `The last answer's body (its first ${RESPONSE_KEPT} characters).`, type: ['string', 'null'], context: VE, readonly: true }),
  duration_ms: field({ description: 'How long the last attempt took (ms).', type: ['integer', 'null'], context: VE, readonly: true }),
  error: field({ description: 'Why the last attempt failed (null after a success).', type: ['string', 'null'], context: VE, readonly: true }),
  request_body: field({ description: `The body sent (its first ${RESPONSE_KEPT} characters).`, type: 'string', context: VE, readonly: true }),
  date_created: field({ description: 'When the delivery was made (GMT).', ...DATE, context: VE, readonly: true }),
  last_attempt: field({ description: 'When it was last tried (GMT), or null.', ...NULLABLE_DATE, context: VE, readonly: true }),
  next_attempt: field({ description: 'When it is tried next (GMT), or null when it is finished.', ...NULLABLE_DATE, context: VE, readonly: true }),
  retry_until: field({ description: 'Retries stop after this time (GMT).', ...DATE, context: VE, readonly: true })
})

/** How long the old secret signs after a rotation, by default and at most (Standard Webhooks' receivers switch within a day). */
const DEFAULT_GRACE_S = 86_400
const MAX_GRACE_S = 7 * 86_400

const dateOrNull = (d: Date | null): string | null => d === null ? null : formatGmt(d)

/** A delivery id (bigint): a positive safe integer, else 0. */
function bigIdOf (value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : 0
  return Number.isSafeInteger(n) && n > 0 ? n : 0
}

export function webhookRoutes (services: Services): RelativeRouteDecl[] {
  const { store } = services
  const service = services.webhooks
  const collection = '/cms/v2/webhooks'
  const permission = (probe?: { vars: Record<string, string> }) =>
    can('manage_options', { why: 'a webhook sends the site\'s content elsewhere: administrators, as for the site settings', ...(probe === undefined ? {} : { probe }) })

  const page = Type.Integer({ description: 'Current page of the collection.', default: 1, minimum: 1 })
  const perPage = Type.Integer({ description: 'Maximum number of items to be returned in result set.', default: 10, minimum: 1, maximum: 100 })
  const events = Type.Array(Enum(LIFECYCLE_TOPICS, { description: 'A lifecycle event.' }), { description: 'The lifecycle events delivered.', minItems: 1, maxItems: LIFECYCLE_TOPICS.length, uniqueItems: true })
  const url = Type.String({ description: 'The URL deliveries are POSTed to.', format: 'uri', maxLength: 2000 })
  const description = Type.String({ description: 'What the webhook is for.', maxLength: 1000 })
  const active = Type.Boolean({ description: 'Whether events are delivered (true also re-enables a disabled webhook).' })
  const gracePeriod = Type.Integer({ description: 'Seconds during which deliveries are signed with the old secret too (0: the old secret stops at once).', default: DEFAULT_GRACE_S, minimum: 0, maximum: MAX_GRACE_S })
  const args = {
    list: { page, per_page: perPage },
    create: { url, events, description: Type.Optional(description), active: Type.Optional(active) },
    update: { url: Type.Optional(url), events: Type.Optional(events), description: Type.Optional(description), active: Type.Optional(active) },
    rotate: { grace_period: gracePeriod },
    deliveries: { page, per_page: perPage, status: Type.Optional(Enum(['pending', 'delivered', 'failed'] as const, { description: 'Limit the log to deliveries of this status.' })) }
  }

  const format = (w: WebhookRow, baseUrl: string): Record<string, unknown> => ({
    id: w.id,
    url: w.url,
    description: w.description,
    events: w.events,
    active: w.active,
    status: w.disabledAt !== null ? 'disabled' : w.active ? 'active' : 'inactive',
    disabled_reason: w.disabledReason,
    disabled_at: dateOrNull(w.disabledAt),
    failing_since: dateOrNull(w.failingSince),
    date_created: formatGmt(w.created),
    date_modified: formatGmt(w.modified),
    previous_secret_expires: w.previousSecretUntil !== null && w.previousSecretUntil.getTime() > Date.now() ? formatGmt(w.previousSecretUntil) : null,
    _links: {
      self: [{ href: restUrl(baseUrl, `${collection}/${w.id}`) }],
      collection: [{ href: restUrl(baseUrl, collection) }],
      deliveries: [{ href: restUrl(baseUrl, `${collection}/${w.id}/deliveries`) }]
    }
  })

  const formatDelivery = (d: DeliveryRow, baseUrl: string): Record<string, unknown> => ({
    id: d.id,
    webhook: d.webhookId,
    event_id: d.eventId,
    message_id: d.messageId,
    topic: d.topic,
    status: d.status,
    attempts: d.attempts,
    response_status: d.responseStatus,
    response_body: d.responseBody,
    duration_ms: d.durationMs,
    error: d.error,
    request_body: d.body.slice(0, RESPONSE_KEPT),
    date_created: formatGmt(d.created),
    last_attempt: dateOrNull(d.lastAttemptAt),
    next_attempt: d.status === 'pending' ? formatGmt(d.nextAt) : null,
    retry_until: formatGmt(d.retryUntil),
    _links: {
      up: [{ href: restUrl(baseUrl, `${collection}/${d.webhookId}`) }],
      collection: [{ href: restUrl(baseUrl, `${collection}/${d.webhookId}/deliveries`) }]
    }
  })

  /** The URL as the outbound client sees it: refused (400) when it may not be fetched. */
  const checkUrl = async (value: string): Promise<string> => {
    const trimmed = value.trim()
    let parsed: URL
    try { parsed = new URL(trimmed) } catch { throw invalidParam('url', 'url is not a valid URL.') }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalidParam('url', 'url must be an http or https URL.')
    try {
      await service.outbound.check(parsed.href)
    } catch (err) {
      if (err instanceof OutboundError) throw invalidParam('url', `url cannot be delivered to: ${err.message}.`)
      throw err
    }
    return parsed.href
  }

  const load = async (req: RestRequest): Promise<WebhookRow> => {
    const id = idOf(req.params.id)
    const found = id === 0 ? undefined : await getWebhook(store, id)
    if (found === undefined) throw webhookErrors.rest_webhook_invalid_id()
    return found
  }

  const list = async (req: RestRequest<Params<typeof args.list>>): Promise<RestResponse> => {
    const p = req.params
    const { rows, total } = await listWebhooks(store, { limit: p.per_page, offset: (p.page - 1) * p.per_page })
    checkPage({ total, perPage: p.per_page, page: p.page }, webhookErrors.rest_webhook_invalid_page_number)
    return new RestResponse(rows.map((w) => format(w, req.baseUrl)), 200, pageHeaders(req, { total, perPage: p.per_page, page: p.page }))
  }

  const create = async (req: RestRequest<Params<typeof args.create>>): Promise<RestResponse> => {
    const p = req.params
    const target = await checkUrl(p.url)
    const { row, secret } = await addWebhook(store, service.secrets, { url: target, events: [...p.events], description: p.description ?? '', active: p.active ?? true })
    return createdAt(req, { ...format(row, req.baseUrl), secret }, row.id)
  }

  const read = async (req: RestRequest): Promise<unknown> => format(await load(req), req.baseUrl)

  const update = async (req: RestRequest<Params<typeof args.update>>): Promise<unknown> => {
    const p = req.params
    const current = await load(req)
    const set: Parameters<typeof updateWebhook>[2] = {}
    if (p.url !== undefined) set.url = await checkUrl(p.url)
    if (p.events !== undefined) set.events = [...p.events]
    if (p.description !== undefined) set.description = p.description
    if (p.active !== undefined) set.active = p.active
    const updated = await updateWebhook(store, current.id, set)
    if (updated === undefined) throw webhookErrors.rest_webhook_invalid_id()
    return format(updated, req.baseUrl)
  }

  const remove = async (req: RestRequest): Promise<unknown> => {
    const current = await load(req)
    if (!(await deleteWebhook(store, current.id))) throw webhookErrors.rest_webhook_invalid_id()
    return { deleted: true, previous: format(current, req.baseUrl) }
  }

  const test = async (req: RestRequest): Promise<RestResponse> => {
    const hook = await load(req)
    const delivery = await addTestDelivery(store, hook.id, service.settings)
    return new RestResponse(formatDelivery(delivery, req.baseUrl), 202)
  }

  const rotate = async (req: RestRequest<Params<typeof args.rotate>>): Promise<unknown> => {
    const hook = await load(req)
    const rotated = await rotateSecret(store, service.secrets, hook.id, req.params.grace_period * 1000)
    if (rotated === undefined) throw webhookErrors.rest_webhook_invalid_id()
    return { ...format(rotated.row, req.baseUrl), secret: rotated.secret }
  }

  const deliveries = async (req: RestRequest<Params<typeof args.deliveries>>): Promise<RestResponse> => {
    const p = req.params
    const hook = await load(req)
    const { rows, total } = await listDeliveries(store, hook.id, { limit: p.per_page, offset: (p.page - 1) * p.per_page, ...(p.status === undefined ? {} : { status: p.status }) })
    checkPage({ total, perPage: p.per_page, page: p.page }, webhookErrors.rest_webhook_invalid_page_number)
    return new RestResponse(rows.map((d) => formatDelivery(d, req.baseUrl)), 200, pageHeaders(req, { total, perPage: p.per_page, page: p.page }))
  }

  const replay = async (req: RestRequest): Promise<RestResponse> => {
    const hook = await load(req)
    const id = bigIdOf(req.params.delivery_id)
    const found = id === 0 ? undefined : await getDelivery(store, hook.id, id)
    if (found === undefined) throw webhookErrors.rest_webhook_delivery_invalid_id()
    const replayed = await replayDelivery(store, hook.id, id, service.settings.retryForMs)
    if (replayed === undefined) throw webhookErrors.rest_webhook_delivery_pending()
    return new RestResponse(formatDelivery(replayed, req.baseUrl), 202)
  }

  const own = { vars: { id: 'webhook' } }
  const idArg = { id: Type.Optional(Type.Integer({ description: 'Unique identifier for the webhook.' })) }
  return [
    route({
      path: '/webhooks',
      schema: webhookSchema,
      endpoints: [
        endpoint({ methods: ['GET'], summary: 'List webhooks', args: args.list, permission: permission(), handler: list }),
        endpoint({ methods: ['POST'], summary: 'Create a webhook (its secret is in this answer only)', args: args.create, permission: permission(), handler: create })
      ]
    }),
    route({
      path: '/webhooks/{id}',
      vars: { id: '[\\d]+' },
      args: idArg,
      schema: webhookSchema,
      endpoints: [
        endpoint({ methods: ['GET'], summary: 'Read a webhook', permission: permission(own), handler: read }),
        endpoint({ methods: ['POST', 'PUT', 'PATCH'], summary: 'Update a webhook', args: args.update, permission: permission(own), handler: update }),
        endpoint({ methods: ['DELETE'], summary: 'Delete a webhook and its deliveries', permission: permission(own), handler: remove })
      ]
    }),
    route({
      path: '/webhooks/{id}/test',
      vars: { id: '[\\d]+' },
      args: idArg,
      endpoints: [
        endpoint({ methods: ['POST'], summary: 'Send a test delivery (webhook.test) now', status: 202, response: deliverySchema, permission: permission(own), handler: test })
      ]
    }),
    route({
      path: '/webhooks/{id}/rotate-secret',
      vars: { id: '[\\d]+' },
      args: idArg,
      endpoints: [
        endpoint({ methods: ['POST'], summary: 'Give the webhook a new secret (in this answer only); the old one signs too during the grace period', args: args.rotate, response: webhookSchema, permission: permission(own), handler: rotate })
      ]
    }),
    route({
      path: '/webhooks/{id}/deliveries',
      vars: { id: '[\\d]+' },
      args: idArg,
      schema: deliverySchema,
      endpoints: [
        endpoint({ methods: ['GET'], summary: 'The webhook\'s deliveries, newest first', args: args.deliveries, permission: permission(own), handler: deliveries })
      ]
    }),
    route({
      path: '/webhooks/{id}/deliveries/{delivery_id}/replay',
      vars: { id: '[\\d]+', delivery_id: '[\\d]+' },
      args: { ...idArg, delivery_id: Type.Optional(Type.Integer({ description: 'Unique identifier for the delivery.' })) },
      endpoints: [
        endpoint({ methods: ['POST'], summary: 'Send a finished delivery again (same message id and body)', status: 202, response: deliverySchema, permission: permission({ vars: { id: 'webhook', delivery_id: 'webhook.delivery' } }), handler: replay })
      ]
    })
  ]
}
