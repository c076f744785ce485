/**
 * Scores computed on the server (issue 20, item 2). The real product only
 * stores what an editor's browser computed; here every post's SEO score
 * (with a focus keyphrase), readability score, inclusive-language score and
 * reading time are computed with the `yoastseo` library whenever its
 * title, content, excerpt, slug or SEO fields change.
 *
 * How it never blocks and never loses work:
 *   - the core's lifecycle events (delivered after commit, never lost) only
 *     mark the post due in `seo_analysis` (one upsert) and wake the worker;
 *   - the worker (a background job of the package, any replica) takes due
 *     rows with `FOR UPDATE SKIP LOCKED` and a lease (`state = 'running'`),
 *     and runs the analysis in a `piscina` pool of worker threads
 *     (`seo_analysis_threads`, default 1), so requests are never waiting on it;
 *   - one analysis of a post at a time, the newest input last: a post marked
 *     due while it is analysed (written again, or `cms seo analyze` in
 *     another process) goes back to `pending`, and the analysis under way,
 *     finishing, leaves it so (released, not `done`), so the newer input is
 *     analysed next; every step after the claim holds only while the lease
 *     is still the one it took (`lease_until` as claimed), and the scores
 *     are written under a renewed lease, so an analysis whose lease ran out
 *     and was taken over never writes over the newer one's scores;
 *   - an input whose hash matches the last analysed one is not analysed
 *     again (a status change, a write of the scores themselves);
 *   - a failure is recorded (`state = 'failed'`, `last_error`, `attempts`)
 *     and retried after a growing delay (30 s doubling, at most an hour);
 *     the write that caused it already committed.
 * The scores are written back as post meta without touching the post (no
 * new modified date, no new event).
 */
import { createHash } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Piscina } from 'piscina'
import { getOptions, type Store } from '@cms/store'
import { permalink, type ContentReader, type PostWithDetails } from '@cms/core'
import { metaString, SEO } from './meta.js'
import { replaceVariables } from './templates.js'

/** What the worker thread is given (analysis-worker.mjs). */
export interface AnalysisInput {
  html: string
  keyword: string
  title: string
  titleWidth: number
  description: string
  slug: string
  locale: string
  permalink: string
  cornerstone: boolean
}

export interface AnalysisResult {
  /** null without a focus keyphrase. */
  seo: number | null
  readability: number
  inclusive: number
  /** null for a post without text. */
  readingTime: number | null
}

/** Post types analysed. */
export const ANALYSED_TYPES = ['post', 'page']

/** Rows taken per claim. */
const CLAIM = 20
/** How long a worker holds the rows it took. */
const LEASE_S = 300
/** How often `settle` looks again at posts another process is analysing. */
const SETTLE_POLL_MS = 500
/** First retry delay; doubles per failed attempt up to MAX_RETRY_S. */
const RETRY_S = 30
const MAX_RETRY_S = 3600

/**
 * The SEO title the analysis sees: the post's template (or the default
 * `%%title%% %%sep%% %%sitename%%`) with its basic variables replaced.
 */
export function seoTitle (template: string, title: string, siteName: string, sep = '-'): string {
  return replaceVariables(template === '' ? '%%title%% %%sep%% %%sitename%%' : template, { title, sitename: siteName, sep })
}

/**
 * The title's width in pixels as the search result snippet shows it (the
 * editor measures it in the browser; here an average of 8.5 px per
 * character of the 20 px snippet font, wide letters and capitals wider).
 */
export function titleWidth (title: string): number {
  let w = 0
  for (const ch of title) w += /[mwMW]/.test(ch) ? 14 : /[A-Z]/.test(ch) ? 11 : /[iljtf.,:;'| ]/.test(ch) ? 5 : 9
  return w
}

export function inputHash (input: AnalysisInput): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('hex')
}

export interface Analyser {
  /** Drops deleted posts from the queue. */
  forget: (ids: readonly number[]) => Promise<void>
  /** Marks posts due (idempotent); wakes the worker. `force`: analysed again even if their text did not change. */
  enqueue: (ids: readonly number[], opts?: { force?: boolean }) => Promise<void>
  /** How many posts are due now. */
  dueCount: () => Promise<number>
  /**
   * Posts another process is analysing now (a live lease not taken here),
   * in id order, at most `limit` ids, and how many there are.
   */
  heldElsewhere: (limit: number) => Promise<{ ids: number[], total: number }>
  /** Analyses every due post now (as the worker does); answers how many were analysed and failed. */
  runDue: (onProgress?: (done: number) => void) => Promise<{ analysed: number, failed: number, skipped: number }>
  /**
   * Sees these posts (marked due with `force`) analysed: runs what is due
   * here (`runDue`), and while another process holds one of them (the
   * service's worker analysing it) looks again every half second, running
   * what that leaves due, for at most `timeoutMs` (default: a lease and a
   * half minute). Answers how they ended, whoever analysed them: `analysed`
   * (done), `failed`, `skipped` (no longer queued: deleted, or not a type
   * analysed) and `waiting` (still due or under way at the timeout).
   */
  settle: (ids: readonly number[], opts?: { onProgress?: (done: number) => void, onWait?: (open: number) => void, timeoutMs?: number }) =>
  Promise<{ analysed: number, failed: number, skipped: number, waiting: number }>
  /** Starts the background worker; answers what stops it. */
  start: (log: (message: string, err?: unknown) => void) => () => Promise<void>
  /** Closes the thread pool. */
  close: () => Promise<void>
}

/** A row the worker took: its post, the hash last analysed, failed attempts, and the lease (the claim's token). */
interface Claimed { postId: number, hash: string, attempts: number, lease: string }

export interface AnalyserOptions {
  store: () => Store
  content: ContentReader
  threads: () => Promise<number>
  /** Replaces the worker thread (tests make an analysis fail with it). */
  analyse?: (input: AnalysisInput) => Promise<AnalysisResult>
  /** How often the worker looks for due rows besides being woken (default 5 s). */
  pollMs?: number
  /** Called after a post's scores were stored (the indexable is rebuilt from them). */
  afterAnalysis?: (id: number) => Promise<void>
}

/** The analysis threads' nice value (Unix; 0 to 19). */
const ANALYSIS_NICE = 10

export function createAnalyser (opts: AnalyserOptions): Analyser {
  let pool: Piscina | undefined
  let wake: (() => void) | undefined
  let running: Promise<{ analysed: number, failed: number, skipped: number }> | undefined

  const analyse = async (input: AnalysisInput): Promise<AnalysisResult> => {
    if (opts.analyse !== undefined) return await opts.analyse(input)
    if (pool === undefined) {
      const threads = await opts.threads()
      // Bounded: at most `threads` analyses at once, each in its own thread; the queue is the table.
      // Niced (piscina's niceIncrement, through its optional @napi-rs/nice): on a busy machine requests run first,
      // while analysis still gets a share (nice 10 weighs about a tenth of a request thread).
      // Loaded with the first analysis: a service that never analyses never holds the pool's code.
      const { Piscina: Pool } = await import('piscina')
      pool ??= new Pool({ filename: new URL('./analysis-worker.mjs', import.meta.url).href, minThreads: 0, maxThreads: threads, idleTimeout: 30_000, niceIncrement: ANALYSIS_NICE })
    }
    return await pool.run(input) as AnalysisResult
  }

  const inputOf = async (found: PostWithDetails): Promise<AnalysisInput> => {
    const { post, meta } = found
    const options = await getOptions(opts.store(), ['home', 'url', 'name'])
    // No request here: the stored home, else the site URL (links to it count as internal).
    const home = String(options.home) === '' ? String(options.url) : String(options.home)
    const title = seoTitle(metaString(meta, SEO.title), post.title, String(options.name))
    return {
      html: post.content,
      keyword: metaString(meta, SEO.focuskw).trim(),
      title,
      titleWidth: titleWidth(title),
      description: metaString(meta, SEO.metadesc) === '' ? post.excerpt : metaString(meta, SEO.metadesc),
      slug: post.slug,
      locale: 'en_US',
      permalink: permalink(home, post.type, post.id),
      cornerstone: metaString(meta, SEO.cornerstone) === '1'
    }
  }

  /**
   * Takes due rows: `running` under a lease, whose value (as text, to the
   * microsecond) is the claim's token. A `running` row whose lease ran out
   * (its worker died or stalled) is due again.
   */
  const claim = async (): Promise<Claimed[]> => {
    const rows = await opts.store().execute<{ post_id: string | number, input_hash: string, attempts: number, lease: string }>(sql`
      update seo_analysis set state = 'running', lease_until = now() + make_interval(secs => ${LEASE_S})
      where post_id in (
        select post_id from seo_analysis
        where state in ('pending', 'failed', 'running') and not_before <= now() and (lease_until is null or lease_until < now())
        order by not_before, post_id limit ${CLAIM} for update skip locked)
      returning post_id, input_hash, attempts, lease_until::text as lease`)
    return rows.map((r) => ({ postId: Number(r.post_id), hash: r.input_hash, attempts: r.attempts, lease: r.lease }))
  }

  const one = async (row: Claimed): Promise<'analysed' | 'failed' | 'skipped'> => {
    const store = opts.store()
    // The claim's lease: each write below holds only while the row still carries it (not taken over after it ran out).
    let lease = row.lease
    try {
      const found = await opts.content.post(row.postId)
      if (found === undefined || !ANALYSED_TYPES.includes(found.post.type)) {
        await store.execute(sql`delete from seo_analysis where post_id = ${row.postId}`)
        return 'skipped'
      }
      const input = await inputOf(found)
      const hash = inputHash(input)
      if (hash === row.hash) {
        // Marked due again meanwhile: left pending (its input is read afresh next time).
        await store.execute(sql`update seo_analysis set state = case when state = 'running' then 'done' else state end, lease_until = null, updated_at = now()
          where post_id = ${row.postId} and lease_until = ${lease}::timestamptz`)
        return 'skipped'
      }
      const result = await analyse(input)
      // The scores are written under the lease renewed, or not at all: a lease that ran out while the analysis
      // ran may have been taken by another analysis, of a newer input, whose scores these must not replace.
      const [held] = await store.execute<{ lease: string }>(sql`update seo_analysis set lease_until = now() + make_interval(secs => ${LEASE_S})
        where post_id = ${row.postId} and lease_until = ${lease}::timestamptz returning lease_until::text as lease`)
      if (held === undefined) return 'skipped'
      lease = held.lease
      const set: Record<string, unknown> = {
        [SEO.contentScore]: String(result.readability),
        [SEO.inclusiveScore]: String(result.inclusive)
      }
      const remove: string[] = []
      if (result.readingTime === null) remove.push(SEO.readingTime)
      else set[SEO.readingTime] = String(result.readingTime)
      if (result.seo === null) remove.push(SEO.linkdex)
      else set[SEO.linkdex] = String(result.seo)
      await opts.content.updateMeta(row.postId, set, remove, { touch: false })
      // Done, unless marked due while analysed: then left pending for the newer input (with the hash of what was
      // analysed, so an unchanged input is skipped next time; a forced mark keeps its empty hash).
      await store.execute(sql`update seo_analysis set state = case when state = 'running' then 'done' else state end,
        input_hash = case when state <> 'running' and input_hash = '' then '' else ${hash} end,
        attempts = 0, last_error = '', lease_until = null, updated_at = now()
        where post_id = ${row.postId} and lease_until = ${lease}::timestamptz`)
      await opts.afterAnalysis?.(row.postId)
      return 'analysed'
    } catch (err) {
      const delay = Math.min(MAX_RETRY_S, RETRY_S * 2 ** Math.min(row.attempts, 12))
      const message = String((err as Error)?.message ?? err).slice(0, 500)
      // A post marked due again meanwhile stays pending (its newer input is tried at once).
      await store.execute(sql`update seo_analysis set state = case when state = 'running' then 'failed' else state end,
        attempts = case when state = 'running' then attempts + 1 else attempts end, last_error = ${message},
        not_before = case when state = 'running' then now() + make_interval(secs => ${delay}) else not_before end,
        lease_until = null, updated_at = now()
        where post_id = ${row.postId} and lease_until = ${lease}::timestamptz`)
      return 'failed'
    }
  }

  const runAll = async (onProgress?: (done: number) => void): Promise<{ analysed: number, failed: number, skipped: number }> => {
    const counts = { analysed: 0, failed: 0, skipped: 0 }
    const threads = opts.analyse === undefined ? Math.max(1, await opts.threads()) : 1
    for (;;) {
      const rows = await claim()
      if (rows.length === 0) return counts
      // At most `threads` analyses in flight: the pool never queues more than it runs.
      for (let i = 0; i < rows.length; i += threads) {
        const outcomes = await Promise.all(rows.slice(i, i + threads).map(one))
        for (const o of outcomes) counts[o]++
        onProgress?.(counts.analysed + counts.failed + counts.skipped)
      }
    }
  }

  const analyser: Analyser = {
    async forget (ids) {
      await opts.store().execute(sql`delete from seo_analysis where post_id = any(${sql.param([...ids])}::bigint[])`)
    },
    async enqueue (ids, o = {}) {
      if (ids.length === 0) return
      const force = o.force === true
      await opts.store().execute(sql`
        insert into seo_analysis (post_id, state, not_before)
        select id, 'pending', now() from unnest(${sql.param([...ids])}::bigint[]) as t(id)
        on conflict (post_id) do update set state = 'pending', attempts = 0, not_before = now(), updated_at = now(),
          input_hash = case when ${force} then '' else seo_analysis.input_hash end`)
      wake?.()
    },
    async dueCount () {
      const [row] = await opts.store().execute<{ n: string | number }>(sql`select count(*) as n from seo_analysis where state in ('pending', 'failed') and not_before <= now()`)
      return Number(row?.n ?? 0)
    },
    async heldElsewhere (limit) {
      // This process's own runs hold their rows only while `running` is set.
      await running?.catch(() => {})
      const rows = await opts.store().execute<{ post_id: string | number, total: string | number }>(sql`
        select post_id, count(*) over () as total from seo_analysis where lease_until >= now() order by post_id limit ${limit}`)
      return { ids: rows.map((r) => Number(r.post_id)), total: Number(rows[0]?.total ?? 0) }
    },
    async runDue (onProgress) {
      // One run at a time in this process (the worker and a direct call share it).
      running ??= runAll(onProgress).finally(() => { running = undefined })
      return await running
    },
    async settle (ids, o = {}) {
      const wanted = sql.param([...new Set(ids)])
      const deadline = Date.now() + (o.timeoutMs ?? (LEASE_S + 30) * 1000)
      for (;;) {
        await analyser.runDue(o.onProgress)
        // Still due (released by another process meanwhile) or held by another process.
        const [open] = await opts.store().execute<{ n: string | number }>(sql`select count(*) as n from seo_analysis
          where post_id = any(${wanted}::bigint[]) and state in ('pending', 'running')`)
        if (Number(open?.n ?? 0) === 0 || Date.now() >= deadline) break
        o.onWait?.(Number(open?.n))
        await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS))
      }
      const rows = await opts.store().execute<{ state: string, n: string | number }>(sql`select state, count(*) as n from seo_analysis
        where post_id = any(${wanted}::bigint[]) group by state`)
      const n = (...states: string[]): number => rows.filter((r) => states.includes(r.state)).reduce((sum, r) => sum + Number(r.n), 0)
      const queued = n('done', 'failed', 'pending', 'running')
      return { analysed: n('done'), failed: n('failed'), skipped: new Set(ids).size - queued, waiting: n('pending', 'running') }
    },
    start (log) {
      const state = { stopped: false }
      let timer: NodeJS.Timeout | undefined
      const cycle = async (): Promise<void> => {
        while (!state.stopped) {
          await analyser.runDue().catch((err) => { log('seo analysis: run failed', err) })
          if (state.stopped) return
          await new Promise<void>((resolve) => {
            wake = resolve
            timer = setTimeout(resolve, opts.pollMs ?? 5000)
            timer.unref()
          })
          clearTimeout(timer)
          wake = undefined
        }
      }
      const loop = cycle()
      return async () => {
        state.stopped = true
        wake?.()
        await loop
        await analyser.close()
      }
    },
    async close () {
      const p = pool
      pool = undefined
      await p?.destroy()
    }
  }
  return analyser
}
