/**
 * The deployment's webhook service: the listener's fan-out, the sending
 * worker and what the routes share with them (settings, outbound client,
 * secrets). See ./index.ts.
 */
import { randomBytes } from 'node:crypto'
import type { Store } from '@cms/store'
import { LIFECYCLE_TOPICS, type LifecycleEvent, type LifecycleTopic } from '../platform/events/index.js'
import { outboundClientFromEnv, type OutboundClient } from '../platform/outbound/index.js'
import { packageSecrets, type Secrets } from '../platform/secrets.js'
import { repeatEvery } from '../base/repeat.js'
import { sender } from './delivery.js'
import { WEBHOOK_DEFAULTS, type WebhookSettings } from './settings.js'
import { enqueueEvent, subscribedTopics, insertDelivery, insertWebhook, messageId, pruneDeliveries, rotateWebhookSecret, type DeliveryRow, type WebhookRow } from './store.js'

/** The core's listeners, one per topic (declared by the core package: events are kept until each has had them). */
export const WEBHOOK_LISTENERS: Readonly<Record<string, LifecycleTopic>> = Object.fromEntries(LIFECYCLE_TOPICS.map((topic) => [`webhooks.${topic}`, topic]))

/** The topic of a test delivery (`POST /cms/v2/webhooks/{id}/test`). */
export const TEST_TOPIC = 'webhook.test'

export interface WebhookService {
  readonly settings: WebhookSettings
  readonly outbound: OutboundClient
  readonly secrets: Secrets
  /**
   * The listener: one delivery per subscription to the event's topic (none
   * twice). `validity`: the webhooks epoch's token (events/index.ts,
   * `EventBatch`), under which the topics anyone subscribes to are kept:
   * an event of a topic nobody takes costs no statement.
   */
  enqueue: (event: LifecycleEvent, validity?: string) => Promise<number>
  /** Sends the due deliveries (the worker's work, callable from tests); answers the attempts made. */
  runDue: () => Promise<number>
  /** Deletes finished deliveries older than the retention. */
  prune: () => Promise<number>
  /** Polls every `pollMs` (and prunes at most once a minute) until the returned function is called. */
  start: (log: (message: string, err: unknown) => void) => () => Promise<void>
}

/** The body of a delivery: the event as the documentation shows it. */
export function eventBody (event: LifecycleEvent): string {
  return JSON.stringify({
    type: event.topic,
    timestamp: event.created.toISOString(),
    data: { event_id: event.id, object_id: event.objectId, payload: event.payload }
  })
}

/** The deployment's webhook service (`services.webhooks`: routes, listeners and worker share it). */
export function createWebhookService (store: () => Store, settings: WebhookSettings = WEBHOOK_DEFAULTS): WebhookService {
  // CMS_OUTBOUND_ALLOW, as for every outbound fetch (read once, when the deployment is composed).
  const outbound = outboundClientFromEnv()
  const secrets = packageSecrets(store, '@cms/core:webhooks')
  const send = sender(store, outbound, secrets, settings)
  const prune = async (): Promise<number> => await pruneDeliveries(store(), settings.retentionMs)
  return {
    settings,
    outbound,
    secrets,
    enqueue: async (event, validity) => {
      if (validity !== undefined && !(await subscribedTopics(store(), validity)).has(event.topic)) return 0
      return await enqueueEvent(store(), event, eventBody(event), settings.retryForMs)
    },
    runDue: send.runDue,
    prune,
    start (log) {
      let lastPrune = -Infinity
      const work = async (): Promise<void> => {
        await send.runDue().catch((err) => { log('webhooks: sending failed', err) })
        if (performance.now() - lastPrune >= 60_000) {
          lastPrune = performance.now()
          await prune().catch((err) => { log('webhooks: pruning failed', err) })
        }
      }
      return repeatEvery(settings.pollMs, work)
    }
  }
}

/** A new secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
export function newSecret (): string {
  return `whsec_${randomBytes(24).toString('base64')}`
}

/** Makes a subscription with a new secret, sealed at rest; answers the row and the secret (to be shown once). */
export async function addWebhook (store: Store, secrets: Secrets, values: { url: string, events: string[], description: string, active: boolean }): Promise<{ row: WebhookRow, secret: string }> {
  const secret = newSecret()
  const row = await insertWebhook(store, { ...values, secretSealed: await secrets.seal(secret) })
  return { row, secret }
}

/** Gives a subscription a new secret, sealed at rest; the old one signs too for `graceMs`. Answers the row and the secret (to be shown once). */
export async function rotateSecret (store: Store, secrets: Secrets, id: number, graceMs: number): Promise<{ row: WebhookRow, secret: string } | undefined> {
  const secret = newSecret()
  const row = await rotateWebhookSecret(store, id, await secrets.seal(secret), graceMs)
  return row === undefined ? undefined : { row, secret }
}

/** A test delivery (`webhook.test`), due now. */
export async function addTestDelivery (store: Store, webhookId: number, settings: WebhookSettings): Promise<DeliveryRow> {
  const body = JSON.stringify({ type: TEST_TOPIC, timestamp: new Date().toISOString(), data: { webhook_id: webhookId } })
  return await insertDelivery(store, { webhookId, messageId: messageId(), topic: TEST_TOPIC, body, retryForMs: settings.retryForMs })
}
