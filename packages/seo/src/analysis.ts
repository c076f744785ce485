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
 *     rows with `FOR UPDATE SKIP LOCKED` and a lease, and runs the analysis
 *     in a `piscina` pool of worker threads (`seo_analysis_threads`, default
 *     1), so requests are never waiting on it;
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
  /** Analyses every due post now (as the worker does); answers how many were analysed and failed. */
  runDue: (onProgress?: (done: number) => void) => Promise<{ analysed: number, failed: number, skipped: number }>
  /** Starts the background worker; answers what stops it. */
  start: (log: (message: string, err?: unknown) => void) => () => Promise<void>
  /** Closes the thread pool. */
  close: () => Promise<void>
}

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

  const claim = async (): Promise<Array<{ postId: number, hash: string, attempts: number }>> => {
    const rows = await opts.store().execute<{ post_id: string | number, input_hash: string, attempts: number }>(sql`
      update seo_analysis set lease_until = now() + make_interval(secs => ${LEASE_S})
      where post_id in (
        select post_id from seo_analysis
        where state in ('pending', 'failed') and not_before <= now() and (lease_until is null or lease_until < now())
        order by not_before, post_id limit ${CLAIM} for update skip locked)
      returning post_id, input_hash, attempts`)
    return rows.map((r) => ({ postId: Number(r.post_id), hash: r.input_hash, attempts: r.attempts }))
  }

  const one = async (row: { postId: number, hash: string, attempts: number }): Promise<'analysed' | 'failed' | 'skipped'> => {
    const store = opts.store()
    try {
      const found = await opts.content.post(row.postId)
      if (found === undefined || !ANALYSED_TYPES.includes(found.post.type)) {
        await store.execute(sql`delete from seo_analysis where post_id = ${row.postId}`)
        return 'skipped'
      }
      const input = await inputOf(found)
      const hash = inputHash(input)
      if (hash === row.hash) {
        await store.execute(sql`update seo_analysis set state = 'done', lease_until = null, updated_at = now() where post_id = ${row.postId}`)
        return 'skipped'
      }
      const result = await analyse(input)
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
      await store.execute(sql`update seo_analysis set state = 'done', input_hash = ${hash}, attempts = 0, last_error = '', lease_until = null, updated_at = now() where post_id = ${row.postId}`)
      await opts.afterAnalysis?.(row.postId)
      return 'analysed'
    } catch (err) {
      const delay = Math.min(MAX_RETRY_S, RETRY_S * 2 ** Math.min(row.attempts, 12))
      const message = String((err as Error)?.message ?? err).slice(0, 500)
      await store.execute(sql`update seo_analysis set state = 'failed', attempts = attempts + 1, last_error = ${message},
        not_before = now() + make_interval(secs => ${delay}), lease_until = null, updated_at = now() where post_id = ${row.postId}`)
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
    async runDue (onProgress) {
      // One run at a time in this process (the worker and a direct call share it).
      running ??= runAll(onProgress).finally(() => { running = undefined })
      return await running
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
