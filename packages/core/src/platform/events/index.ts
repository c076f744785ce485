/**
 * Post and user lifecycle events, delivered after commit and never lost.
 *
 * Triggers on `posts` and `users` (core migration 0007) write each event to
 * the `cms_events` outbox in the transaction that made the change: an event
 * exists exactly when its change committed, whatever made it (a route, the
 * scheduler, the command line). A worker, which any replica may run, takes
 * pending events with `FOR UPDATE SKIP LOCKED` and a lease, hands each to
 * the listeners of this process that have not handled it yet, and records
 * each delivery (`cms_event_deliveries`, a taken batch's in one statement).
 * A process that stops before its listener ran leaves the event
 * undelivered: the next drain (after a restart, or on another replica once
 * the lease ends) delivers it. A listener that throws is retried when the
 * lease ends. Delivery is at least once: a process that stops after a
 * listener's work and before its batch's deliveries are recorded runs that
 * listener again.
 *
 * Delivered events are pruned by the same worker: an event every declared
 * listener has handled (or whose topic none of them takes), older than the
 * retention (`CMS_EVENTS_RETENTION_MS`, default 7 days) and not under a
 * lease, is deleted with its deliveries. Every process of a deployment
 * declares every package's listeners (platform.ts: a package's
 * contributions load everywhere) and runs those of the packages it serves,
 * so a gateway whose `seo/v1` runs elsewhere neither runs the SEO
 * listeners nor prunes an event they have not had. The retention is the
 * grace left to processes of another composition on the same database. The
 * worker's poll interval and the lease are settings too
 * (`CMS_EVENTS_POLL_MS`, default 1 s; `CMS_EVENTS_LEASE_MS`, default 60 s:
 * longer than the slowest listener takes).
 *
 * Why not graphile-worker or pg-boss: neither is in the catalog, and both
 * need a PostgreSQL server (LISTEN/NOTIFY, several connections) that the
 * embedded PGlite cannot fully stand in for; two small tables and a trigger
 * run the same on both.
 *
 * A deactivated package's listeners do not run, as a deactivated plugin's
 * hooks do not in the core CMS: while its contributions are off (the
 * activation's off set, activation.ts, read by the worker at each batch),
 * an event its listener takes is recorded as handled without running it
 * (skipped, not kept for later: reactivating does not replay what happened
 * meanwhile, and pruning is not held back). The state is the one when the
 * worker delivers the event (within the poll interval of its commit).
 *
 * Topics: post.created, post.updated, post.status_changed ({from, to}),
 * post.trashed, post.deleted (posts and pages; revisions and autosaves
 * excluded), user.deleted; comment.created, comment.approved,
 * comment.spammed, comment.trashed, comment.deleted (core migration 0008:
 * `{id, post, parent, status|from, author}`). One event per topic and
 * object per transaction, and per item of a batch's shared transaction
 * (core migration 0020: the item's `cms.event_scope`), so a batch's
 * requests have the events they would have had sent one by one; an
 * object may have several events of one topic in one transaction, each
 * its own row, in the order written.
 */
import { sql } from 'drizzle-orm'
import { epochToken } from '@cms/rest'
import type { Store } from '@cms/store'
import { repeatEvery } from '../../base/repeat.js'

export const LIFECYCLE_TOPICS = [
  'post.created', 'post.updated', 'post.status_changed', 'post.trashed', 'post.deleted', 'user.deleted',
  'comment.created', 'comment.approved', 'comment.spammed', 'comment.trashed', 'comment.deleted'
] as const
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

/**
 * What a listener may ask of the batch its event came in: `epoch(name)`, a
 * token that stays while one kind of data does (the store's epochs, taken
 * once per batch after the events were: `@cms/rest`'s epochToken), under
 * which a value the listener keeps may be reused with no statement.
 */
export interface EventBatch { epoch: (name: string) => string | undefined }

export type LifecycleListener = (event: LifecycleEvent, batch: EventBatch) => Promise<void> | void

export interface LifecycleOptions {
  /** How long a worker holds the events it took (default 60 s): after it, another worker may take them. */
  leaseMs?: number
  /** How often the worker looks for pending events (default 1 s). */
  pollMs?: number
  /** How long a delivered event is kept before it is pruned (default 7 days; 0: at the next prune). */
  retentionMs?: number
  /** Events taken at once (default 50). */
  batch?: number
  /** Where a failing listener is reported. */
  log?: (message: string, err: unknown) => void
}

interface Registered { key: string, owner: string, topic: LifecycleTopic, handler: LifecycleListener }

export const EVENT_DEFAULTS = { leaseMs: 60_000, pollMs: 1000, retentionMs: 7 * 24 * 3600_000 } as const

/** Events deleted per statement when pruning. */
const PRUNE_BATCH = 500

/** The most often the worker prunes (it looks at every poll, prunes at most this often). */
const PRUNE_EVERY_MS = 60_000

export class LifecycleEvents {
  /** Every listener of the deployment: the events are kept until each has had them. */
  private readonly declared: Array<{ key: string, topic: LifecycleTopic }> = []
  /** Those that run in this process. */
  private readonly listeners: Registered[] = []
  private draining: Promise<number> | undefined
  /**
   * The transaction (`txid`) from which events may still be pending for this process's listeners
   * (see `claim`); back to 0 when a listener is added.
   */
  private floor = '0'
  /** Listeners added so far: a floor worked out before the last one is not kept. */
  private listenersAdded = 0
  readonly leaseMs: number
  readonly pollMs: number
  readonly retentionMs: number
  private readonly batch: number
  private log: LifecycleOptions['log']

  /**
   * `off`: the packages whose contributions are off now (activation.ts),
   * kept under the token `validity` answers: their listeners are skipped.
   * Default none.
   */
  constructor (private readonly store: () => Store, opts: LifecycleOptions = {}, private readonly off: (validity: () => Promise<string | undefined>) => Promise<ReadonlySet<string>> = async () => new Set()) {
    this.leaseMs = opts.leaseMs ?? EVENT_DEFAULTS.leaseMs
    this.pollMs = opts.pollMs ?? EVENT_DEFAULTS.pollMs
    this.retentionMs = opts.retentionMs ?? EVENT_DEFAULTS.retentionMs
    this.batch = opts.batch ?? 50
    this.log = opts.log
  }

  /**
   * Declares a listener, known as `<owner>:<name>` (a stable name: deliveries
   * are recorded under it). Every process of a deployment declares every
   * listener, so none prunes an event a listener has not had; only those
   * given their function (`listen`) run here.
   */
  declare (owner: string, topic: LifecycleTopic, name: string): void {
    if (!(LIFECYCLE_TOPICS as readonly string[]).includes(topic)) throw new TypeError(`${owner}: unknown lifecycle event ${topic} (known: ${LIFECYCLE_TOPICS.join(', ')})`)
    if (!/^[a-z0-9][a-z0-9._-]{0,99}$/.test(name)) throw new TypeError(`${owner}: listener names are lowercase words (got "${name}")`)
    const key = `${owner}:${name}`
    if (this.declared.some((l) => l.key === key)) throw new Error(`listener ${key} is registered twice`)
    this.declared.push({ key, topic })
  }

  /** Runs the declared listener `<owner>:<name>` in this process. */
  listen (owner: string, name: string, handler: LifecycleListener): void {
    const key = `${owner}:${name}`
    const found = this.declared.find((l) => l.key === key)
    if (found === undefined) throw new Error(`listener ${key} is not declared`)
    if (this.listeners.some((l) => l.key === key)) throw new Error(`listener ${key} is given twice`)
    this.listeners.push({ key, owner, topic: found.topic, handler })
    this.floor = '0'
    this.listenersAdded++
  }

  /** Whether any listener runs here. */
  get active (): boolean { return this.listeners.length > 0 }

  /** The names (`<owner>:<name>`) of the listeners declared and of those that run here. */
  get names (): { declared: string[], running: string[] } {
    return { declared: this.declared.map((l) => l.key), running: this.listeners.map((l) => l.key) }
  }

  /**
   * Delivers every pending event to this process's listeners; answers the
   * deliveries made. Concurrent calls share one run.
   */
  async drain (): Promise<number> {
    this.draining ??= this.drainAll().finally(() => { this.draining = undefined })
    return await this.draining
  }

  /**
   * The objects (distinct, oldest event first, at most `limit`) of events of
   * `topics` from the last `withinMs` that the listeners `keys`
   * (`<owner>:<name>`) have not handled yet: for a reader that must not lag
   * the writes and does those listeners' work itself (the worker still
   * delivers the events; listeners are idempotent). Bounded by the window
   * (the `created` index) and the limit.
   */
  async undelivered (keys: readonly string[], topics: readonly LifecycleTopic[], opts: { withinMs: number, limit: number }): Promise<number[]> {
    const rows = rowsOf<{ object_id: string | number }>(await this.store().execute(sql`
      select object_id from (
        select e.object_id, min(e.id) as first from cms_events e
        where e.created > now() - make_interval(secs => ${opts.withinMs / 1000})
          and e.topic = any(${sql.param([...topics])}::text[])
          and not exists (select 1 from cms_event_deliveries d where d.event_id = e.id and d.listener = any(${sql.param([...keys])}::text[]))
        group by e.object_id) pending
      order by first
      limit ${opts.limit}`))
    return rows.map((r) => Number(r.object_id))
  }

  /**
   * Every `pollMs`: drains (when this process listens to anything) and, at
   * most once a minute, prunes delivered events (even without listeners:
   * the triggers write events regardless). Runs until the returned function
   * is called, which waits for the work under way.
   */
  start (log?: LifecycleOptions['log']): () => Promise<void> {
    if (log !== undefined) this.log = log
    let lastPrune = -Infinity
    const work = async (): Promise<void> => {
      if (this.active) await this.drain().catch((err) => { this.log?.('lifecycle events: drain failed', err) })
      if (performance.now() - lastPrune >= Math.min(PRUNE_EVERY_MS, Math.max(this.pollMs, this.retentionMs))) {
        lastPrune = performance.now()
        await this.prune().catch((err) => { this.log?.('lifecycle events: prune failed', err) })
      }
    }
    return repeatEvery(this.pollMs, work)
  }

  /**
   * Deletes events older than the retention that every listener of this
   * process has handled (or that none of them takes) and that no worker
   * holds, with their deliveries; answers how many. A batch at a time, each
   * its own statement, so no statement runs long.
   */
  async prune (): Promise<number> {
    const names = this.declared.map((l) => l.key)
    const topics = this.declared.map((l) => l.topic)
    let pruned = 0
    for (;;) {
      const rows = rowsOf<{ id: string | number }>(await this.store().execute(sql`
        delete from cms_events where id in (
          select e.id from cms_events e
          where e.created < now() - make_interval(secs => ${this.retentionMs / 1000})
            and (e.lease_until is null or e.lease_until < now())
            and not exists (
              select 1 from unnest(${sql.param(names)}::text[], ${sql.param(topics)}::text[]) as l(name, topic)
              where l.topic = e.topic
                and not exists (select 1 from cms_event_deliveries d where d.event_id = e.id and d.listener = l.name))
          order by e.id
          limit ${PRUNE_BATCH}
          for update of e skip locked)
        returning id`))
      pruned += rows.length
      if (rows.length < PRUNE_BATCH) return pruned
    }
  }

  private async drainAll (): Promise<number> {
    let delivered = 0
    for (;;) {
      const { events, done } = await this.claim()
      // One snapshot per batch, taken after its events committed: what is kept by an epoch
      // (the activation's set, the webhooks' subscriptions) is read against it, not per event.
      const snapshot = events.length === 0 ? undefined : await this.store().snapshot()
      const batch: EventBatch = { epoch: (name) => epochToken(snapshot, name) }
      const off = events.length === 0 ? undefined : await this.off(async () => batch.epoch('activation'))
      const finished: number[] = []
      const deliveries: { events: number[], listeners: string[] } = { events: [], listeners: [] }
      for (const event of events) {
        let failed = false
        for (const listener of this.listeners) {
          if (listener.topic !== event.topic || done.has(`${event.id} ${listener.key}`)) continue
          if (off?.has(listener.owner) === true) {
            // Its package is deactivated: skipped, recorded as handled (see the top of this file), with the batch's deliveries.
            deliveries.events.push(event.id)
            deliveries.listeners.push(listener.key)
            continue
          }
          try {
            await listener.handler(event, batch)
          } catch (err) {
            // Left undelivered: retried when the lease ends.
            this.log?.(`lifecycle events: listener ${listener.key} failed on event ${event.id} (${event.topic})`, err)
            failed = true
            continue
          }
          deliveries.events.push(event.id)
          deliveries.listeners.push(listener.key)
          delivered++
        }
        if (!failed) finished.push(event.id)
      }
      // The batch's deliveries are recorded and the lease of the events handled by every listener
      // here released (processes with other listeners may take them now, and pruning does not wait
      // for the lease) in one statement: one commit, one flush of the log, for the whole batch (a
      // commit per delivery had doubled the commits of every durable create). A process that stops
      // before it runs the batch's listeners again (deliveries are at least once).
      if (deliveries.events.length > 0 || finished.length > 0) {
        await this.store().execute(sql`
          with recorded as (
            insert into cms_event_deliveries (event_id, listener)
            select * from unnest(${sql.param(deliveries.events)}::bigint[], ${sql.param(deliveries.listeners)}::text[])
            on conflict do nothing)
          update cms_events set lease_until = null where id = any(${sql.param(finished)}::bigint[])`)
      }
      if (events.length < this.batch) return delivered
    }
  }

  /**
   * Takes (leases) the next pending events for this process's listeners, with their deliveries so far.
   *
   * Only events written by transactions from `floor` on are looked at (the `cms_events_once` index
   * leads with `txid`): below it every event had been handled by these listeners when the floor was
   * set. The statement moves the floor to the transaction of the oldest event still pending for them
   * (leased, locked or failed ones included), or, with none pending, to its snapshot's `xmin`: every
   * transaction before that had ended, so any event it wrote was visible to the statement. An event
   * written later has a later transaction than that. So the events kept (7 days by default) and their
   * deliveries are not read again at every poll: before, each claim read every event kept (a
   * sequential scan) and every delivery (a hashed subplan), at every poll of every process.
   */
  private async claim (): Promise<{ events: LifecycleEvent[], done: Set<string> }> {
    if (this.listeners.length === 0) return { events: [], done: new Set() }
    const names = this.listeners.map((l) => l.key)
    const topics = this.listeners.map((l) => l.topic)
    const floor = this.floor
    const added = this.listenersAdded
    return await this.store().transaction(async (tx) => {
      const pending = sql`exists (
            select 1 from unnest(${sql.param(names)}::text[], ${sql.param(topics)}::text[]) as l(name, topic)
            where l.topic = e.topic
              and not exists (select 1 from cms_event_deliveries d where d.event_id = e.id and d.listener = l.name))`
      const rows = await tx.execute(sql`
        with taken as (
          select e.id, e.topic, e.object_id, e.payload, e.created from cms_events e
          where e.txid >= ${floor}::bigint
            and (e.lease_until is null or e.lease_until < now())
            and ${pending}
          order by e.id
          limit ${this.batch}
          for update of e skip locked)
        select f.floor, t.* from
          (select least(txid_snapshot_xmin(txid_current_snapshot()),
            (select min(e.txid) from cms_events e where e.txid >= ${floor}::bigint and ${pending}))::text as floor) f
          left join taken t on true
        order by t.id`)
      const all = rowsOf<{ floor: string, id: string | number | null, topic: LifecycleTopic, object_id: string | number, payload: Record<string, unknown>, created: string | Date }>(rows)
      // Kept once the transaction commits (a claim rolled back moves nothing).
      const next = all[0]?.floor
      const list = all.filter((r) => r.id !== null)
      const done = new Set<string>()
      if (list.length > 0) {
        const ids = list.map((r) => Number(r.id))
        await tx.execute(sql`update cms_events set lease_until = now() + make_interval(secs => ${this.leaseMs / 1000}) where id = any(${sql.param(ids)}::bigint[])`)
        const delivered = rowsOf<{ event_id: string | number, listener: string }>(await tx.execute(sql`select event_id, listener from cms_event_deliveries where event_id = any(${sql.param(ids)}::bigint[])`))
        for (const d of delivered) done.add(`${Number(d.event_id)} ${d.listener}`)
      }
      return {
        next,
        events: list.map((r) => ({ id: Number(r.id), topic: r.topic, objectId: Number(r.object_id), payload: r.payload, created: new Date(r.created) })),
        done
      }
    }).then(({ next, events, done }) => {
      // Only forward, and only for the listeners it was worked out for.
      if (next !== undefined && added === this.listenersAdded && BigInt(next) > BigInt(this.floor)) this.floor = next
      return { events, done }
    })
  }
}

/** Rows of an `execute` answer (node-postgres and PGlite shape them alike: `{rows}`), or the array itself. */
function rowsOf<T> (result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  return ((result as { rows?: T[] }).rows ?? []) as T[]
}
