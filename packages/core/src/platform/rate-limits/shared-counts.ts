/**
 * Hit counts per key and fixed window, shared by the replicas through the
 * database without a round trip per request: each replica counts locally
 * and, at most every `syncMs` and only once some key has used a tenth of its
 * limit, sends what it counted since in one statement (`insert ... on
 * conflict do update set hits = hits + excluded.hits returning hits`),
 * which answers the totals of every replica. A key's count is then the last
 * total read plus what this replica counted since: exact on one replica;
 * with several, behind the others' hits by at most one sync interval (plus
 * the statement's time), and by what another replica counted of a key that
 * stayed under a tenth of the limit there.
 *
 * Windows are aligned on the epoch (`start = now - now % window`) so every
 * replica names the same one; their clocks must agree (NTP) well within a
 * window. A send is a commit, so it renews the store's commit horizon: while
 * a caller nears a limit, kept anonymous answers are computed again at most
 * once per sync interval (docs/guides/rate-limits.md).
 */
import { sql } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import type { Store } from '@cms/store'

export interface Count {
  /** Hits in the window so far, this one included. */
  current: number
  /** Milliseconds until the window ends. */
  ttl: number
}

export interface SharedCountsOptions {
  /** Longest time local hits wait before they are sent (ms). */
  syncMs: number
  /** The clock (tests give their own; default `Date.now`). */
  now?: () => number
  /** A failed send (the hits are kept and sent with the next). */
  onError?: (err: unknown) => void
}

/** Keys whose shared totals are remembered: beyond, the least recently seen are forgotten (read again at their next send). */
const KNOWN_KEYS = 100_000
/** Keys waiting to be sent: past this many a send starts at once, and a failed send keeps no more. */
const PENDING_KEYS = 20_000
/** A key is sent once its count reaches 1/SHARE_FROM of its limit. */
const SHARE_FROM = 10
/** Rows per statement. */
const CHUNK = 1000
/** Ended windows are deleted at most this often. */
const PRUNE_MS = 60_000

export class SharedCounts {
  private readonly now: () => number
  /** Totals of every replica as of this replica's last send, by `key@start`. */
  private readonly known = new LRUCache<string, number>({ max: KNOWN_KEYS })
  /** Hits not sent yet, by `key@start`. */
  private pending = new Map<string, Hits>()
  /** Hits being sent. */
  private sending = new Map<string, Hits>()
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> | undefined
  private lastPrune = 0
  /** Some key's count reached a tenth of its limit since the last send. */
  private hot = false
  private closed = false

  constructor (private readonly store: Store, private readonly opts: SharedCountsOptions) {
    this.now = opts.now ?? Date.now
  }

  /**
   * Counts a hit (`add` 1) or only reads (`add` 0) the key's count in its
   * current window, whose limit is `max`.
   */
  count (key: string, windowMs: number, add: 0 | 1, max: number): Count {
    const now = this.now()
    const start = now - (now % windowMs)
    const id = `${key}@${start}`
    let mine = this.pending.get(id)
    if (add === 1) {
      if (mine === undefined) {
        mine = { key, start, windowMs, hits: 0 }
        this.pending.set(id, mine)
      }
      mine.hits++
      this.schedule()
    }
    const current = (this.known.get(id) ?? 0) + (mine?.hits ?? 0) + (this.sending.get(id)?.hits ?? 0)
    // Worth sharing once a tenth of the limit is used: below, the replicas' counts together stay under it (up to ten replicas).
    if (add === 1 && current * SHARE_FROM >= max) this.hot = true
    return { current, ttl: start + windowMs - now }
  }

  /** Sends the hits counted so far (also at close); resolves when they are stored or the send failed. */
  async flush (): Promise<void> {
    while (this.flushing !== undefined) await this.flushing
    if (this.pending.size === 0) return
    this.flushing = this.send().finally(() => { this.flushing = undefined })
    await this.flushing
  }

  async close (): Promise<void> {
    this.closed = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    await this.flush()
  }

  private schedule (): void {
    if (this.closed) return
    if (this.pending.size >= PENDING_KEYS && this.flushing === undefined) {
      void this.flush()
      return
    }
    if (this.timer !== undefined) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.tick().then(() => { if (this.pending.size > 0) this.schedule() })
    }, this.opts.syncMs)
    // A pending send never keeps the process alive; close() sends the rest.
    this.timer.unref()
  }

  /**
   * Every sync interval while something was counted: sends only when some
   * key is worth sharing (or too many wait). A send is a commit, which
   * renews the commit horizon the kept answers follow: callers far from
   * every limit (most anonymous readers) never cause one.
   */
  private async tick (): Promise<void> {
    if (this.hot || this.pending.size >= PENDING_KEYS) {
      this.hot = false
      await this.flush()
      return
    }
    const now = this.now()
    for (const [id, h] of this.pending) if (h.start + h.windowMs <= now) this.pending.delete(id)
  }

  private async send (): Promise<void> {
    this.sending = this.pending
    this.pending = new Map()
    const now = this.now()
    // A window that has ended counts for nobody any more.
    const rows = [...this.sending].filter(([, h]) => h.start + h.windowMs > now)
    try {
      for (let i = 0; i < rows.length; i += CHUNK) {
        const part = rows.slice(i, i + CHUNK)
        const chunk = part.map(([, h]) => ({ k: h.key, s: h.start, e: h.start + h.windowMs, n: h.hits }))
        const totals = await this.store.execute<{ key: string, window_start: string | number, hits: number }>(sql`
          insert into rate_limit_hits (key, window_start, hits, expires_at)
          select x.k, x.s, x.n, to_timestamp(x.e / 1000.0) from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as x(k text, s bigint, e bigint, n integer)
          on conflict (key, window_start) do update set hits = rate_limit_hits.hits + excluded.hits
          returning key, window_start, hits`)
        for (const t of totals) this.known.set(`${t.key}@${Number(t.window_start)}`, Number(t.hits))
        // Stored: not to be sent again if a later chunk fails.
        for (const [id] of part) this.sending.delete(id)
      }
      this.sending = new Map()
      if (now - this.lastPrune >= PRUNE_MS) {
        this.lastPrune = now
        // By the clock windows are counted on (the replicas'), not the database's.
        await this.store.execute(sql`delete from rate_limit_hits where expires_at < to_timestamp(${now / 1000})`)
      }
    } catch (err) {
      // Kept for the next send; past PENDING_KEYS keys the rest are dropped (memory stays bounded while the database is away).
      for (const [id, h] of this.sending) {
        if (this.pending.size >= PENDING_KEYS && !this.pending.has(id)) break
        const again = this.pending.get(id)
        if (again === undefined) this.pending.set(id, h)
        else again.hits += h.hits
      }
      this.sending = new Map()
      this.opts.onError?.(err)
    }
  }
}

interface Hits {
  key: string
  start: number
  windowMs: number
  hits: number
}
