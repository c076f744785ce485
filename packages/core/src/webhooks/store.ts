/**
 * The webhooks tables' reads and writes: subscriptions, the fan-out of a
 * lifecycle event into deliveries, and the worker's claim and record of
 * attempts. Every multi-row write is one statement or one transaction.
 */
import { and, count, desc, eq, sql } from 'drizzle-orm'
import { executeNamed, type Store } from '@cms/store'
import { readCache } from '../base/read-cache.js'
import { webhookDeliveries, webhooks } from './schema.js'

export type WebhookRow = typeof webhooks.$inferSelect
export type DeliveryRow = typeof webhookDeliveries.$inferSelect

export async function getWebhook (store: Store, id: number): Promise<WebhookRow | undefined> {
  const [row] = await store.db.select().from(webhooks).where(eq(webhooks.id, id))
  return row
}

export async function listWebhooks (store: Store, opts: { limit: number, offset: number }): Promise<{ rows: WebhookRow[], total: number }> {
  const [rows, [totals]] = await Promise.all([
    store.db.select().from(webhooks).orderBy(webhooks.id).limit(opts.limit).offset(opts.offset),
    store.db.select({ n: count() }).from(webhooks)
  ])
  return { rows, total: Number(totals?.n ?? 0) }
}

export async function insertWebhook (store: Store, values: { url: string, description: string, events: string[], secretSealed: string, active: boolean }): Promise<WebhookRow> {
  const [row] = await store.db.insert(webhooks).values(values).returning()
  return row!
}

/** Changes a subscription; `active: true` also lifts a disabled state (the administrator re-enables it). */
export async function updateWebhook (store: Store, id: number, set: Partial<Pick<WebhookRow, 'url' | 'description' | 'events' | 'active'>>): Promise<WebhookRow | undefined> {
  const lift = set.active === true ? { disabledAt: null, disabledReason: null, failingSince: null } : {}
  const [row] = await store.db.update(webhooks).set({ ...set, ...lift, modified: sql`now()` }).where(eq(webhooks.id, id)).returning()
  return row
}

/**
 * Replaces a subscription's secret (sealed) in one statement. With a grace
 * period, the secret it replaces is kept as the previous one until then:
 * deliveries carry both signatures meanwhile (delivery.ts). A rotation
 * during a grace period drops the oldest secret: only the last two sign.
 */
export async function rotateWebhookSecret (store: Store, id: number, secretSealed: string, graceMs: number): Promise<WebhookRow | undefined> {
  const keep = graceMs > 0
  const [row] = await store.db.update(webhooks).set({
    previousSecretSealed: keep ? sql`${webhooks.secretSealed}` : null,
    previousSecretUntil: keep ? sql`now() + make_interval(secs => ${graceMs / 1000})` : null,
    secretSealed,
    modified: sql`now()`
  }).where(eq(webhooks.id, id)).returning()
  return row
}

/** Deletes a subscription and (cascade) its deliveries. */
export async function deleteWebhook (store: Store, id: number): Promise<boolean> {
  return (await store.db.delete(webhooks).where(eq(webhooks.id, id)).returning({ id: webhooks.id })).length > 0
}

export async function listDeliveries (store: Store, webhookId: number, opts: { limit: number, offset: number, status?: string }): Promise<{ rows: DeliveryRow[], total: number }> {
  const where = and(eq(webhookDeliveries.webhookId, webhookId), opts.status === undefined ? undefined : eq(webhookDeliveries.status, opts.status))
  const [rows, [totals]] = await Promise.all([
    store.db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.id)).limit(opts.limit).offset(opts.offset),
    store.db.select({ n: count() }).from(webhookDeliveries).where(where)
  ])
  return { rows, total: Number(totals?.n ?? 0) }
}

export async function getDelivery (store: Store, webhookId: number, id: number): Promise<DeliveryRow | undefined> {
  const [row] = await store.db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.id, id)))
  return row
}

/**
 * The topics some active, enabled subscription takes, kept while the
 * webhooks epoch stays (`validity`: core migration 0014 renews it with every
 * change of a subscription's topics, switch or disabled state): an event of
 * another topic needs no statement.
 */
export async function subscribedTopics (store: Store, validity: string): Promise<ReadonlySet<string>> {
  return await readCache<ReadonlySet<string>>(store, 'webhooks/topics', 1).getUnder(validity, 'topics', async () => {
    const rows = await executeNamed<{ topic: string }>(store, 'webhooks_topics', sql`select distinct unnest(events) as topic from webhooks where active and disabled_at is null`)
    return new Set(rows.map((r) => r.topic))
  })
}

/**
 * One delivery per active, enabled subscription to the event's topic, in one
 * statement. The unique (subscription, event) key makes a second call for
 * the same event (the listener is delivered at least once, on any replica)
 * add nothing. Only subscriptions that existed when the event happened.
 */
export async function enqueueEvent (store: Store, event: { id: number, topic: string }, body: string, retryForMs: number): Promise<number> {
  // Subscriptions made after the event (the listener may run late) do not get it (the outbox row's time: microseconds).
  const targets = await store.execute<{ id: number }>(sql`
    select id from webhooks
    where active and disabled_at is null and ${event.topic} = any(events)
      and created <= coalesce((select created from cms_events where id = ${event.id}), now())
    order by id`)
  if (targets.length === 0) return 0
  const ids = targets.map((t) => Number(t.id))
  const messages = ids.map(() => messageId())
  const rows = await store.execute<{ id: number }>(sql`
    insert into webhook_deliveries (webhook_id, event_id, message_id, topic, body, retry_until)
    select w.id, ${event.id}, m.message_id, ${event.topic}, ${body}, now() + make_interval(secs => ${retryForMs / 1000})
    from unnest(${sql.param(ids)}::int[], ${sql.param(messages)}::text[]) as m(webhook_id, message_id)
    join webhooks w on w.id = m.webhook_id
    on conflict (webhook_id, event_id) do nothing
    returning id`)
  return rows.length
}

/** A delivery not tied to an event (a test): due now. */
export async function insertDelivery (store: Store, values: { webhookId: number, messageId: string, topic: string, body: string, retryForMs: number }): Promise<DeliveryRow> {
  const [row] = await store.db.insert(webhookDeliveries).values({
    webhookId: values.webhookId,
    messageId: values.messageId,
    topic: values.topic,
    body: values.body,
    retryUntil: sql`now() + make_interval(secs => ${values.retryForMs / 1000})`
  }).returning()
  return row!
}

/**
 * A finished delivery sent again: pending and due now, retried for
 * `retryForMs` from now, with its message id and body (receivers can tell
 * it is the same message). Undefined when it is still pending.
 */
export async function replayDelivery (store: Store, webhookId: number, id: number, retryForMs: number): Promise<DeliveryRow | undefined> {
  const [row] = await store.db.update(webhookDeliveries).set({
    status: 'pending',
    nextAt: sql`now()`,
    retryUntil: sql`now() + make_interval(secs => ${retryForMs / 1000})`,
    leaseUntil: null,
    leaseToken: null
  }).where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.id, id), sql`${webhookDeliveries.status} <> 'pending'`)).returning()
  return row
}

/** A delivery the worker holds, with what sending it needs. */
export interface Claimed {
  delivery: DeliveryRow
  url: string
  secretSealed: string
  /** The secret a rotation replaced, while its grace period lasts (by the database's clock); else null. */
  previousSealed: string | null
  /** The subscription takes deliveries (active and not disabled); a test is sent regardless. */
  open: boolean
  token: string
}

/**
 * Takes (leases) up to `limit` due deliveries: `FOR UPDATE SKIP LOCKED`, so
 * replicas polling at once take different ones, and a lease, so a worker
 * that stopped leaves them to another once it ends.
 */
export async function claimDue (store: Store, limit: number, leaseMs: number): Promise<Claimed[]> {
  const token = messageId()
  return await store.transaction(async (tx) => {
    const due = rowsOf<{ id: string | number }>(await tx.execute(sql`
      select id from webhook_deliveries
      where status = 'pending' and next_at <= now() and (lease_until is null or lease_until < now())
      order by next_at, id
      limit ${limit}
      for update skip locked`))
    if (due.length === 0) return []
    const ids = due.map((r) => Number(r.id))
    await tx.update(webhookDeliveries)
      .set({ leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})`, leaseToken: token })
      .where(sql`${webhookDeliveries.id} = any(${sql.param(ids)}::bigint[])`)
    const rows = await tx.select({
      delivery: webhookDeliveries,
      url: webhooks.url,
      secretSealed: webhooks.secretSealed,
      previousSealed: sql<string | null>`case when ${webhooks.previousSecretUntil} > now() then ${webhooks.previousSecretSealed} end`,
      active: webhooks.active,
      disabledAt: webhooks.disabledAt
    })
      .from(webhookDeliveries).innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .where(sql`${webhookDeliveries.id} = any(${sql.param(ids)}::bigint[])`)
      .orderBy(webhookDeliveries.nextAt, webhookDeliveries.id)
    return rows.map((r) => ({ delivery: r.delivery, url: r.url, secretSealed: r.secretSealed, previousSealed: r.previousSealed ?? null, open: r.active && r.disabledAt === null, token }))
  })
}

export interface Attempt {
  /** The answer's status, or null when none came (timeout, refused, blocked). */
  status: number | null
  responseBody: string | null
  durationMs: number
  error: string | null
}

/**
 * Records one attempt of a delivery this worker still holds (its lease
 * token), and what follows: delivered; failed (no retry left, or
 * `giveUp`); else pending again at `nextAt`. A failure of an event's
 * delivery marks the subscription failing, and disables it once it has
 * failed for `disableAfterMs` without a success; a success clears that.
 * One transaction. Answers false when the lease was lost (another worker
 * took the delivery over: its record wins).
 */
export async function recordAttempt (store: Store, claimed: Claimed, attempt: Attempt, opts: { retryInMs: number, giveUp: boolean, disableAfterMs: number, counts: boolean }): Promise<boolean> {
  const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300
  return await store.transaction(async (tx) => {
    const rows = rowsOf<{ status: string }>(await tx.execute(sql`
      update webhook_deliveries set
        attempts = attempts + 1,
        last_attempt_at = now(),
        response_status = ${attempt.status},
        response_body = ${attempt.responseBody},
        duration_ms = ${attempt.durationMs},
        error = ${attempt.error},
        lease_until = null,
        lease_token = null,
        status = case when ${ok} then 'delivered'
                      when ${opts.giveUp} or now() + make_interval(secs => ${opts.retryInMs / 1000}) > retry_until then 'failed'
                      else 'pending' end,
        next_at = case when ${ok} then next_at else now() + make_interval(secs => ${opts.retryInMs / 1000}) end
      where id = ${claimed.delivery.id} and lease_token = ${claimed.token}
      returning status`))
    if (rows.length === 0) return false
    if (!opts.counts) return true
    if (ok) {
      await tx.execute(sql`update webhooks set failing_since = null where id = ${claimed.delivery.webhookId} and failing_since is not null`)
      return true
    }
    await tx.execute(sql`
      update webhooks set
        failing_since = coalesce(failing_since, now()),
        disabled_at = case when disabled_at is null and coalesce(failing_since, now()) <= now() - make_interval(secs => ${opts.disableAfterMs / 1000}) then now() else disabled_at end,
        disabled_reason = case when disabled_at is null and coalesce(failing_since, now()) <= now() - make_interval(secs => ${opts.disableAfterMs / 1000})
          then ${`Deliveries failed for ${describeMs(opts.disableAfterMs)} without a success`} || ' (since ' || to_char(failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '; last: ' || ${attempt.status === null ? attempt.error ?? 'no answer' : `HTTP ${attempt.status}`} || ').'
          else disabled_reason end
      where id = ${claimed.delivery.webhookId}`)
    return true
  })
}

/** Pending deliveries of a subscription that no longer takes them are failed without a send. */
export async function failClosed (store: Store, claimed: Claimed): Promise<void> {
  await store.execute(sql`
    update webhook_deliveries set status = 'failed', error = 'the subscription is inactive or disabled', lease_until = null, lease_token = null
    where id = ${claimed.delivery.id} and lease_token = ${claimed.token}`)
}

/** Deletes finished deliveries older than the retention, a batch at a time; answers how many. */
export async function pruneDeliveries (store: Store, retentionMs: number, batch = 500): Promise<number> {
  let pruned = 0
  for (;;) {
    const rows = await store.execute(sql`
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries
        where status <> 'pending' and coalesce(last_attempt_at, created) < now() - make_interval(secs => ${retentionMs / 1000})
        order by id limit ${batch})
      returning id`)
    pruned += rows.length
    if (rows.length < batch) return pruned
  }
}

/** A Standard Webhooks message id. */
export function messageId (): string {
  return `msg_${crypto.randomUUID().replaceAll('-', '')}`
}

function describeMs (ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hour${ms === 3_600_000 ? '' : 's'}`
  if (ms % 60_000 === 0) return `${ms / 60_000} minutes`
  return `${ms / 1000} seconds`
}

/** Rows of a transaction's `execute` answer (node-postgres and PGlite: `{rows}`), or the array itself. */
function rowsOf<T> (result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  return ((result as { rows?: T[] }).rows ?? []) as T[]
}
