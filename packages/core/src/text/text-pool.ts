/**
 * Heavy text work off the request thread (issue 27): filtering, rendering
 * and reading a large text for analysis (html-text.ts) runs in a bounded
 * `piscina` pool of worker threads, so that while it runs the loop answers
 * (`/healthz`, cached reads, every other request).
 *
 *   - Small inputs run inline: below `INLINE_MAX_CHARS` the filter takes
 *     about a millisecond, as much as handing the text to a thread and
 *     copying it back, so the pool would only add latency.
 *   - The pool is bounded: `threads` threads (`CMS_TEXT_THREADS`) and at most
 *     `queue` tasks waiting (`CMS_TEXT_QUEUE`); past that a request is
 *     answered `503 rest_text_busy` with `Retry-After` instead of queueing
 *     without end.
 *   - A task refused in the thread (a 4xx) becomes the same RestError the
 *     inline path throws (text-tasks.ts answers refusals as values).
 *
 * One pool per process, shared by every app it composes (one CPU budget):
 * `createServices` configures it from the deployment's settings. The SEO
 * analysis keeps a pool of its own (packages/seo analysis.ts): it is
 * background work whose queue is a table, niced, never answering a request.
 */
import { availableParallelism } from 'node:os'
import type { Piscina } from 'piscina'
import { declareErrors, RestError } from '@cms/rest'
import * as tasks from './text-tasks.js'
import { JsonText } from '@cms/store/columns'
import { carry, MOVE_MIN_CHARS, restore, type Carried } from './moved-strings.js'
import { loadFilter } from './kses.js'
import { jsonOfSliced } from './json-strings.js'
import type { FilterKind, TaskOutcome } from './text-tasks.js'
import type { TextLimits } from '@cms/rest/json-scan'

/** Characters (all inputs of one task together) up to which the work runs on the request thread. */
export const INLINE_MAX_CHARS = 4096

/** The defaults: one thread per core but one (the request thread keeps a core), at most 4; 64 tasks waiting. */
export const TEXT_POOL_DEFAULTS = {
  threads: Math.max(1, Math.min(4, availableParallelism() - 1)),
  queue: 64
} as const

export interface TextPoolSettings {
  /** Worker threads (`CMS_TEXT_THREADS`). */
  threads?: number
  /** Tasks that may wait for a thread before requests are refused (`CMS_TEXT_QUEUE`). */
  queue?: number
}

export const textErrors = declareErrors({
  rest_text_busy: { status: 503, message: 'The service is busy processing text. Try again in a moment.' }
})

/** Seconds a refused caller is told to wait: tasks last milliseconds to a few seconds. */
const RETRY_AFTER_S = 2

type TaskName = 'filterOne' | 'filterUtf8' | 'filterMany' | 'filterJson' | 'renderContent' | 'renderExcerpt' | 'renderTitle' | 'renderComment' | 'textOf' | 'linksOf' | 'slugOf' | 'jsonOf' | 'utf8Of' | 'sameWhitespace'

/** Where a task ran: for tests and benches that count the work (never for timing). */
export interface TextWorkEvent { task: TaskName, where: 'inline' | 'pool', phase: 'start' | 'end' }

export class TextPool {
  private pool: Piscina | undefined
  /** piscina's module, once asked for. */
  private piscina: Promise<{ Piscina: typeof Piscina }> | undefined
  private settings: Required<TextPoolSettings> = { ...TEXT_POOL_DEFAULTS }
  private readonly watchers = new Set<(event: TextWorkEvent) => void>()
  /** Tasks handed to the threads and not yet answered (running or waiting). */
  private inFlight = 0
  /** Tasks run inline, in the pool, and refused because the queue was full. */
  readonly counts = { inline: 0, pool: 0, refused: 0 }

  /** Takes new settings; a running pool is closed once its tasks end and the next task starts a new one. */
  configure (settings: TextPoolSettings = {}): void {
    const next = { threads: settings.threads ?? TEXT_POOL_DEFAULTS.threads, queue: settings.queue ?? TEXT_POOL_DEFAULTS.queue }
    if (next.threads === this.settings.threads && next.queue === this.settings.queue) return
    this.settings = next
    const old = this.pool
    this.pool = undefined
    void old?.close()
  }

  /** Calls `watcher` as each task starts and ends; answers what stops it. */
  watch (watcher: (event: TextWorkEvent) => void): () => void {
    this.watchers.add(watcher)
    return () => { this.watchers.delete(watcher) }
  }

  async filter (html: string, kind: FilterKind = 'post'): Promise<string> {
    return await this.run('filterOne', { html, kind }, html.length)
  }

  /**
   * A post's text filtered (the post rules), with its UTF-8 bytes made in
   * the thread: a long text's write sends them as they are (post-store.ts
   * `insertNewPost`), so the driver does not encode it on the request thread.
   */
  async filterWithUtf8 (html: string): Promise<{ text: string, utf8: Buffer }> {
    const [text, utf8] = await this.run<[string, Uint8Array]>('filterUtf8', { html }, html.length)
    return { text, utf8: asBuffer(utf8) }
  }

  /** A text's UTF-8 bytes, made in the pool (a long text a caller trusted with its markup writes as it is). */
  async utf8Of (text: string): Promise<Buffer> {
    const [utf8] = await this.run<[Uint8Array]>('utf8Of', { text }, text.length)
    return asBuffer(utf8)
  }

  /** Many texts at a cost per byte (builder data, meta values). */
  async filterMany (texts: string[], kind: FilterKind = 'post'): Promise<string[]> {
    if (texts.length === 0) return []
    let chars = 0
    for (const t of texts) chars += t.length
    return await this.run('filterMany', { texts, kind }, chars)
  }

  /**
   * JSON carried as text (builder data), whole in the pool: scanned against
   * `limits`, parsed, its strings filtered (`urlKey` names the settings
   * holding a URL), written back as JSON (json-strings.ts), with what a
   * `jsonb` column stores for that text (`stored`: its JSON, for
   * `@cms/store/columns`' `JsonText`, with its UTF-8 bytes). A refusal is
   * answered as `{ invalid }`, to follow the value's name.
   */
  async filterJsonText (json: string, limits: TextLimits, urlKey: RegExp): Promise<{ json: string, stored: JsonText } | { invalid: string }> {
    try {
      const [filtered, stored, utf8] = await this.run<[string, string, Uint8Array]>('filterJson', { json, limits: { maxDepth: limits.maxDepth, maxStrings: limits.maxStrings }, urlKey: urlKey.source, urlFlags: urlKey.flags }, json.length)
      return { json: filtered, stored: new JsonText(stored, asBuffer(utf8)) }
    } catch (err) {
      if (err instanceof RestError && err.code === tasks.JSON_TEXT_REFUSED) return { invalid: err.message }
      throw err
    }
  }

  async renderContent (raw: string, smilies = true): Promise<string> {
    return await this.run('renderContent', { raw, smilies }, raw.length)
  }

  async renderExcerpt (excerpt: string, content: string, length?: number, smilies = true): Promise<string> {
    return await this.run('renderExcerpt', { excerpt, content, smilies, ...(length === undefined ? {} : { length }) }, excerpt.length + content.length)
  }

  /** A title (one line, but a string argument may be a megabyte). */
  async renderTitle (raw: string): Promise<string> {
    return await this.run('renderTitle', { raw }, raw.length)
  }

  /** A comment's `content.rendered` (comment-text.ts). */
  async renderComment (raw: string, smilies: boolean): Promise<string> {
    return await this.run('renderComment', { raw, smilies }, raw.length)
  }

  /** The text of HTML (html-text.ts), for analysis: the SEO head of a post. */
  async text (html: string): Promise<string> {
    return await this.run('textOf', { html }, html.length)
  }

  /** The hrefs of HTML's links (html-text.ts): a post's links for the SEO index. */
  async links (html: string): Promise<string[]> {
    return await this.run('linksOf', { html }, html.length)
  }

  /**
   * Whether texts are the same once their whitespace is normalised, pair by
   * pair (0 and 1, 2 and 3, ...): how revisions and autosaves tell a change
   * (whitespace.ts). Equal pairs are answered here; the others normalised
   * inline when short, in the pool when long (two 1.9 MB contents were
   * four regular-expression passes on the request thread, issue 27).
   */
  async sameWhitespace (texts: readonly string[]): Promise<boolean> {
    const differing: string[] = []
    let chars = 0
    for (let i = 0; i + 1 < texts.length; i += 2) {
      if (texts[i] === texts[i + 1]) continue
      differing.push(texts[i]!, texts[i + 1]!)
      chars += texts[i]!.length + texts[i + 1]!.length
    }
    if (differing.length === 0) return true
    return await this.run('sameWhitespace', { texts: differing }, chars)
  }

  /** The slug of a title or a requested slug (`sanitizeSlug`): a title may be a megabyte, a second of work. */
  async slug (text: string, fallback = ''): Promise<string> {
    return await this.run('slugOf', { text, fallback }, text.length)
  }

  /**
   * What a `jsonb` column stores for a long string (its JSON, made in the
   * pool: a megabyte of builder data), as a `JsonText` the column writes as
   * it is, with its UTF-8 bytes (sent to PostgreSQL as they are). A list or
   * an object is written as JSON on this thread a slice of members a turn
   * (`jsonOfSliced`, the same text), and a long one's bytes made in the
   * pool. Undefined for any other value (the column writes it itself).
   */
  async storedJson (value: unknown): Promise<JsonText | undefined> {
    if (typeof value === 'object' && value !== null) {
      const json = await jsonOfSliced(value)
      return new JsonText(json, json.length < MOVE_MIN_CHARS ? undefined : await this.utf8Of(json))
    }
    if (typeof value !== 'string' || value.length < MOVE_MIN_CHARS) return undefined
    const [json, utf8] = await this.run<[string, Uint8Array]>('jsonOf', { text: value }, value.length)
    return new JsonText(json, asBuffer(utf8))
  }

  /**
   * Loads what the first large text would load on the request thread: the
   * filter's module (for inline filtering) and piscina with the pool's
   * object (no thread is started). Called when the app is ready, before it
   * listens (package.ts): beside the first request these loads held the loop
   * 30-80 ms (issue 27). Answers what was loaded now.
   */
  async warm (): Promise<{ filter: boolean, pool: boolean }> {
    const filter = !loadFilter()
    const pool = this.piscina === undefined
    await this.threads()
    return { filter, pool }
  }

  /** Closes the threads (they also end by themselves when idle). */
  async close (): Promise<void> {
    const p = this.pool
    this.pool = undefined
    await p?.destroy()
  }

  private async run<T> (task: TaskName, input: unknown, chars: number): Promise<T> {
    if (chars <= INLINE_MAX_CHARS) {
      this.counts.inline++
      this.emit(task, 'inline', 'start')
      try {
        return unwrap((tasks[task] as (i: unknown) => TaskOutcome<T>)(input))
      } finally {
        this.emit(task, 'inline', 'end')
      }
    }
    // Every thread busy and `queue` tasks already waiting: refused before anything is queued.
    if (this.inFlight >= this.settings.threads + this.settings.queue) {
      this.counts.refused++
      throw textErrors.rest_text_busy({ retry_after: RETRY_AFTER_S, limit: 'CMS_TEXT_QUEUE', max: this.settings.queue })
    }
    this.inFlight++
    this.counts.pool++
    this.emit(task, 'pool', 'start')
    try {
      const pool = await this.threads()
      // Long strings go as moved bytes each way (moved-strings.ts), not structured-clone copies, converted here a slice
      // a turn of the event loop (a 1.9 MB text converted whole held it 20-40 ms under load).
      const { carried, transfer } = await carry(input as Record<string, unknown>, true)
      return unwrap(await restore(await pool.run(carried, { name: task, transferList: transfer }) as Carried, true) as TaskOutcome<T>)
    } finally {
      this.inFlight--
      this.emit(task, 'pool', 'end')
    }
  }

  private async threads (): Promise<Piscina> {
    // Threads start on first use and end after a minute idle: a service that never sees a large text never starts one
    // (nor loads piscina).
    const { Piscina } = await (this.piscina ??= import('piscina'))
    this.pool ??= new Piscina({
      filename: new URL('./text-worker.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: this.settings.threads,
      idleTimeout: 60_000
    })
    return this.pool
  }

  private emit (task: TaskName, where: 'inline' | 'pool', phase: 'start' | 'end'): void {
    for (const w of this.watchers) w({ task, where, phase })
  }
}

/** Bytes moved back from a thread, as a Buffer over the same memory. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

function unwrap<T> (outcome: TaskOutcome<T>): T {
  if ('value' in outcome) return outcome.value
  const { code, message, status, data } = outcome.refused
  const { status: _status, ...extra } = data
  throw new RestError(code, message, status, extra)
}

/** The process's pool. */
export const textPool = new TextPool()
