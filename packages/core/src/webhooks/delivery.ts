/**
 * Sending deliveries: the worker any replica runs. It takes due deliveries
 * (store.ts `claimDue`: `FOR UPDATE SKIP LOCKED` and a lease), signs each
 * as Standard Webhooks says (the `standardwebhooks` library: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature` over `id.timestamp.body`; after
 * a secret's rotation, a signature by each of the two secrets), POSTs
 * it through the SSRF-guarded outbound client (the URL checked again at
 * every attempt, no redirects followed, a timeout), and records the attempt:
 * a 2xx delivers it; anything else is retried with exponential backoff and
 * jitter until its retry period ends.
 */
import { Webhook } from 'standardwebhooks'
import { OutboundError, type OutboundClient } from '../platform/outbound/index.js'
import type { Secrets } from '../platform/secrets.js'
import type { Store } from '@cms/store'
import type { WebhookSettings } from './settings.js'
import { claimDue, failClosed, recordAttempt, type Attempt, type Claimed } from './store.js'

/** Deliveries taken at once, and sent at once. */
const BATCH = 20
const PARALLEL = 4
/** What the log keeps of an answer's body (characters), and the most read of it (bytes). */
export const RESPONSE_KEPT = 2048
const RESPONSE_READ = 64 * 1024

export interface Sender {
  /** Sends every due delivery (until none is due); answers the attempts made. Concurrent calls share one run. */
  runDue: () => Promise<number>
}

/** Delay before retry number `n` (1: the first): `base * 2^(n-1)`, at most `max`, with equal jitter (half fixed, half random). */
export function backoffMs (n: number, base: number, max: number, random: () => number = Math.random): number {
  const full = Math.min(max, base * 2 ** Math.min(n - 1, 40))
  return Math.round(full / 2 + random() * full / 2)
}

export function sender (store: () => Store, outbound: OutboundClient, secrets: Secrets, settings: WebhookSettings): Sender {
  const leaseMs = settings.timeoutMs + 30_000
  let running: Promise<number> | undefined

  const attempt = async (claimed: Claimed): Promise<Attempt> => {
    const { delivery } = claimed
    const started = performance.now()
    const took = (): number => Math.round(performance.now() - started)
    try {
      const now = new Date()
      // During a rotation's grace period, the previous secret signs too: Standard Webhooks puts
      // several signatures in the header, space-separated, and a receiver accepts any that verifies.
      const sealed = claimed.previousSealed === null ? [claimed.secretSealed] : [claimed.secretSealed, claimed.previousSealed]
      const signatures: string[] = []
      for (const s of sealed) signatures.push(new Webhook(await secrets.open(s)).sign(delivery.messageId, now, delivery.body))
      const signature = signatures.join(' ')
      const res = await outbound.fetch(claimed.url, {
        method: 'POST',
        body: delivery.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'cms-webhooks/1',
          'webhook-id': delivery.messageId,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature
        },
        timeoutMs: settings.timeoutMs,
        maxBytes: RESPONSE_READ,
        truncate: true,
        // A redirect is a failure (Standard Webhooks): the subscription names the URL to call.
        maxRedirects: 0
      })
      return { status: res.status, responseBody: res.text().slice(0, RESPONSE_KEPT), durationMs: took(), error: res.status >= 200 && res.status < 300 ? null : `HTTP ${res.status}` }
    } catch (err) {
      const error = err instanceof OutboundError ? `${err.failure}: ${err.message}` : `failed: ${(err as Error).message}`
      return { status: null, responseBody: null, durationMs: took(), error }
    }
  }

  const one = async (claimed: Claimed): Promise<void> => {
    const test = claimed.delivery.eventId === null
    if (!claimed.open && !test) {
      await failClosed(store(), claimed)
      return
    }
    const result = await attempt(claimed)
    // A URL the outbound client refuses (now private, say) is not retried: it will not change by itself.
    const blocked = result.error?.startsWith('blocked:') === true
    await recordAttempt(store(), claimed, result, {
      retryInMs: backoffMs(claimed.delivery.attempts + 1, settings.backoffMs, settings.backoffMaxMs),
      giveUp: blocked,
      disableAfterMs: settings.disableAfterMs,
      // Tests neither mark a subscription failing nor clear it.
      counts: !test
    })
  }

  const runAll = async (): Promise<number> => {
    let attempts = 0
    for (;;) {
      const claimed = await claimDue(store(), BATCH, leaseMs)
      for (let i = 0; i < claimed.length; i += PARALLEL) {
        await Promise.all(claimed.slice(i, i + PARALLEL).map(one))
      }
      attempts += claimed.length
      if (claimed.length < BATCH) return attempts
    }
  }

  return {
    async runDue () {
      running ??= runAll().finally(() => { running = undefined })
      return await running
    }
  }
}
