/**
 * Post and user lifecycle events, delivered after commit and never lost.
 *
 * Triggers on `posts` and `users` (core migration 0007) write each event to
 * the `cms_events` outbox in the transaction that made the change: an event
 * exists exactly when its change committed, whatever made it (a route, the
 * scheduler, the command line). A worker, which any replica may run, takes
 * pending events with `FOR UPDATE SKIP LOCKED` and a lease, hands each to
 * the listeners of this process that have not handled it yet, and records
 * each delivery (`cms_event_deliveries`). A process that stops before its
 * listener ran leaves the event undelivered: the next drain (after a
 * restart, or on another replica once the lease ends) delivers it. A
 * listener that throws is retried when the lease ends. Delivery is at least
 * once: a process that stops after a listener's work and before its
 * delivery is recorded runs that listener again.
 *
 * Why not graphile-worker or pg-boss: neither is in the catalog, and both
 * need a PostgreSQL server (LISTEN/NOTIFY, several connections) that the
 * embedded PGlite cannot fully stand in for; two small tables and a trigger
 * run the same on both.
 *
 * Topics: post.created, post.updated, post.status_changed ({from, to}),
 * post.trashed, post.deleted (posts and pages; revisions and autosaves
 * excluded), user.deleted. One event per topic and object per transaction.
 */
import { sql } from 'drizzle-orm'
import type { Store } from '@cms/store'

export const LIFECYCLE_TOPICS = ['post.created', 'post.updated', 'post.status_changed', 'post.trashed', 'post.deleted', 'user.deleted'] as const
export type LifecycleTopic = typeof LIFECYCLE_TOPICS[number]

export interface LifecycleEvent {
  /** The outbox row's id: increasing in commit order within one writer. */
  id: number
  topic: LifecycleTopic
  /** The post's or user's id. */
  objectId: number
  /** `{id, type, status, author}` for posts (`{id, type, from, to, author}` for status changes), `{id, login}` for users. */
  payload: Record<string, unknown>
  created: Date
}

export type LifecycleListener = (event: LifecycleEvent) => Promise<void> | void

export interface LifecycleOptions {
  /** How long a worker holds the events it took (default 60 s): after it, another worker may take them. */
  leaseMs?: number
  /** Events taken at once (default 50). */
  batch?: number
  /** Where a failing listener is reported. */
  log?: (message: string, err: unknown) => void
}

interface Registered { key: string, topic: LifecycleTopic, handler: LifecycleListener }

export class LifecycleEvents {
  private readonly listeners: Registered[] = []
  private draining: Promise<number> | undefined
  private readonly leaseMs: number
  private readonly batch: number
  private log: LifecycleOptions['log']

  constructor (private readonly store: () => Store, private readonly opts: LifecycleOptions = {}) {
    this.leaseMs = opts.leaseMs ?? 60_000
    this.batch = opts.batch ?? 50
    this.log = opts.log
  }

  /** Adds a listener, known as `<owner>:<name>` (a stable name: deliveries are recorded under it). */
  on (owner: string, topic: LifecycleTopic, name: string, handler: LifecycleListener): void {
    if (!(LIFECYCLE_TOPICS as readonly string[]).includes(topic)) throw new TypeError(`${owner}: unknown lifecycle event ${topic} (known: ${LIFECYCLE_TOPICS.join(', ')})`)
    if (!/^[a-z0-9][a-z0-9._-]{0,99}$/.test(name)) throw new TypeError(`${owner}: listener names are lowercase words (got "${name}")`)
    const key = `${owner}:${name}`
    if (this.listeners.some((l) => l.key === key)) throw new Error(`listener ${key} is registered twice`)
    this.listeners.push({ key, topic, handler })
  }

  /** Whether any listener is registered here. */
  get active (): boolean { return this.listeners.length > 0 }

  /**
   * Delivers every pending event to this process's listeners; answers the
   * deliveries made. Concurrent calls share one run.
   */
  async drain (): Promise<number> {
    this.draining ??= this.drainAll().finally(() => { this.draining = undefined })
    return await this.draining
  }

  /** Drains every `intervalMs` until the returned function is called (which waits for a drain under way). */
  start (intervalMs = 1000, log?: LifecycleOptions['log']): () => Promise<void> {
    if (log !== undefined) this.log = log
    if (!this.active) return async () => {}
    let stopped = false
    let timer: NodeJS.Timeout | undefined
    const tick = (): void => {
      timer = setTimeout(() => {
        this.drain().catch((err) => { this.log?.('lifecycle events: drain failed', err) }).finally(() => { if (!stopped) tick() })
      }, intervalMs)
      timer.unref()
    }
    tick()
    return async () => {
      stopped = true
      clearTimeout(timer)
      await this.draining?.catch(() => {})
    }
  }

  private async drainAll (): Promise<number> {
    let delivered = 0
    for (;;) {
      const { events, done } = await this.claim()
      for (const event of events) {
        for (const listener of this.listeners) {
          if (listener.topic !== event.topic || done.has(`${event.id} ${listener.key}`)) continue
          try {
            await listener.handler(event)
          } catch (err) {
            // Left undelivered: retried when the lease ends.
            this.log?.(`lifecycle events: listener ${listener.key} failed on event ${event.id} (${event.topic})`, err)
            continue
          }
          await this.store().execute(sql`insert into cms_event_deliveries (event_id, listener) values (${event.id}, ${listener.key}) on conflict do nothing`)
          delivered++
        }
      }
      if (events.length < this.batch) return delivered
    }
  }

  /** Takes (leases) the next pending events for this process's listeners, with their deliveries so far. */
  private async claim (): Promise<{ events: LifecycleEvent[], done: Set<string> }> {
    if (this.listeners.length === 0) return { events: [], done: new Set() }
    const names = this.listeners.map((l) => l.key)
    const topics = this.listeners.map((l) => l.topic)
    return await this.store().transaction(async (tx) => {
      const rows = await tx.execute(sql`
        select e.id, e.topic, e.object_id, e.payload, e.created from cms_events e
        where (e.lease_until is null or e.lease_until < now())
          and exists (
            select 1 from unnest(${sql.param(names)}::text[], ${sql.param(topics)}::text[]) as l(name, topic)
            where l.topic = e.topic
              and not exists (select 1 from cms_event_deliveries d where d.event_id = e.id and d.listener = l.name))
        order by e.id
        limit ${this.batch}
        for update of e skip locked`)
      const list = rowsOf<{ id: string | number, topic: LifecycleTopic, object_id: string | number, payload: Record<string, unknown>, created: string | Date }>(rows)
      if (list.length === 0) return { events: [], done: new Set<string>() }
      const ids = list.map((r) => Number(r.id))
      await tx.execute(sql`update cms_events set lease_until = now() + make_interval(secs => ${this.leaseMs / 1000}) where id = any(${sql.param(ids)}::bigint[])`)
      const delivered = rowsOf<{ event_id: string | number, listener: string }>(await tx.execute(sql`select event_id, listener from cms_event_deliveries where event_id = any(${sql.param(ids)}::bigint[])`))
      return {
        events: list.map((r) => ({ id: Number(r.id), topic: r.topic, objectId: Number(r.object_id), payload: r.payload, created: new Date(r.created) })),
        done: new Set(delivered.map((d) => `${Number(d.event_id)} ${d.listener}`))
      }
    })
  }
}

/** Rows of an `execute` answer (node-postgres and PGlite shape them alike: `{rows}`), or the array itself. */
function rowsOf<T> (result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  return ((result as { rows?: T[] }).rows ?? []) as T[]
}
