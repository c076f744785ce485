/**
 * Settings of webhook deliveries (docs/configuration.md), checked at start
 * like every setting:
 *
 *   CMS_WEBHOOKS_POLL_MS           how often the delivery worker looks for due deliveries (default 1 s)
 *   CMS_WEBHOOKS_TIMEOUT_MS        how long one attempt may take, redirects included (default 10 s)
 *   CMS_WEBHOOKS_RETRY_FOR_MS      how long a delivery is retried after its first attempt (default 24 h)
 *   CMS_WEBHOOKS_BACKOFF_MS        the first retry's delay, doubled at each retry (default 5 s)
 *   CMS_WEBHOOKS_BACKOFF_MAX_MS    the longest delay between two attempts (default 1 h)
 *   CMS_WEBHOOKS_DISABLE_AFTER_MS  a subscription whose deliveries failed this long without a success is disabled (default 24 h)
 *   CMS_WEBHOOKS_RETENTION_MS      how long finished deliveries stay in the log (default 30 days)
 */
import { SettingError } from '@cms/store'

export interface WebhookSettings {
  pollMs: number
  timeoutMs: number
  retryForMs: number
  backoffMs: number
  backoffMaxMs: number
  disableAfterMs: number
  retentionMs: number
}

const HOUR = 3_600_000

export const WEBHOOK_DEFAULTS: WebhookSettings = {
  pollMs: 1000,
  timeoutMs: 10_000,
  retryForMs: 24 * HOUR,
  backoffMs: 5000,
  backoffMaxMs: HOUR,
  disableAfterMs: 24 * HOUR,
  retentionMs: 30 * 24 * HOUR
}

/** Each setting's name and bounds (ms). */
export const WEBHOOK_SETTINGS: ReadonlyArray<readonly [keyof WebhookSettings, string, number, number]> = [
  ['pollMs', 'CMS_WEBHOOKS_POLL_MS', 10, HOUR],
  ['timeoutMs', 'CMS_WEBHOOKS_TIMEOUT_MS', 100, 120_000],
  ['retryForMs', 'CMS_WEBHOOKS_RETRY_FOR_MS', 0, 30 * 24 * HOUR],
  ['backoffMs', 'CMS_WEBHOOKS_BACKOFF_MS', 10, 24 * HOUR],
  ['backoffMaxMs', 'CMS_WEBHOOKS_BACKOFF_MAX_MS', 10, 7 * 24 * HOUR],
  ['disableAfterMs', 'CMS_WEBHOOKS_DISABLE_AFTER_MS', 60_000, 366 * 24 * HOUR],
  ['retentionMs', 'CMS_WEBHOOKS_RETENTION_MS', 0, 366 * 24 * HOUR]
]

/** The webhook settings of `env` (defaults for those not set); throws `SettingError` on a bad value. */
export function webhookSettingsFromEnv (env: Record<string, string | undefined>): WebhookSettings {
  const out = { ...WEBHOOK_DEFAULTS }
  for (const [key, name, min, max] of WEBHOOK_SETTINGS) {
    const given = env[name]
    if (given === undefined || given.trim() === '') continue
    const value = /^\d{1,12}$/.test(given.trim()) ? Number(given.trim()) : NaN
    if (!(value >= min && value <= max)) throw new SettingError(name, given, `an integer from ${min} to ${max}`)
    out[key] = value
  }
  return out
}
