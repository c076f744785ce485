/**
 * Maintenance mode: while any package holds it (a rollback replacing a
 * plugin's files), anonymous content reads (cms/v2 and oEmbed) answer
 * `503 rest_maintenance` with `Retry-After`; signed-in callers work as
 * usual. Each holder is a small file under `<content dir>/.maintenance/`
 * with the time it ends, so every replica sharing the content directory
 * sees it and a holder that stops never locks the site for longer than its
 * window. Read at most once a second per process; a read that finds a
 * holder's window ended tells the `onLapse` listeners (once per window and
 * process, then once a minute while its file stays), so a package cleans what the window stood for without a
 * statement of its own on every request.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { preHandlerHookHandler, RouteOptions } from 'fastify'
import { declareErrors } from '@cms/rest'

export interface MaintenanceMode {
  /** Turns it on for `holder` (`rollback:plugin:seo`) for `seconds` (default 600, as the real product's marker). */
  enable: (holder: string, opts?: { seconds?: number, message?: string }) => Promise<void>
  /** Ends `holder`'s window (others may still hold it). Answers whether it held one. */
  disable: (holder: string) => Promise<boolean>
  /** Seconds until the last window ends; 0 when off. */
  remaining: () => Promise<number>
  /** The same without waiting when the value was read within the last second; undefined when a read is due. */
  known: () => number | undefined
  /**
   * Calls `listener` with the holder of each window a read finds ended, once per window and process, and
   * again each minute while its file stays (a rollback's lease passed: its state goes, the file with it).
   * Errors of the listener are its own (ignored here).
   */
  onLapse: (listener: (holder: string) => Promise<void>) => void
}

export const maintenanceErrors = declareErrors({
  rest_maintenance: { status: 503, message: 'Briefly unavailable for scheduled maintenance. Check back in a minute.' }
})

const DEFAULT_SECONDS = 600
const READ_EVERY_MS = 1000
/** A window's file left after its end (its holder's work not yet expired) is told again this often. */
const TELL_AGAIN_MS = 60_000

export function maintenanceMode (contentDir: string): MaintenanceMode {
  const dir = join(contentDir, '.maintenance')
  const fileOf = (holder: string): string => join(dir, `${encodeURIComponent(holder)}.json`)
  // The last value read, and when its read began; one read at a time is shared by every caller.
  let cached: { at: number, until: number } | undefined
  let reading: Promise<number> | undefined
  const listeners: Array<(holder: string) => Promise<void>> = []
  // The ended windows told, by file name and end (a holder enabled again is a new window): when to tell again.
  const told = new Map<string, number>()

  function lapsed (name: string, at: number, now: number): void {
    const key = `${name}@${at}`
    if (listeners.length === 0 || (told.get(key) ?? 0) > now) return
    told.set(key, now + TELL_AGAIN_MS)
    const holder = decodeURIComponent(name.replace(/\.json$/, ''))
    for (const listener of listeners) listener(holder).catch(() => {})
  }

  async function readUntil (): Promise<number> {
    let names: string[]
    try { names = await readdir(dir) } catch { return 0 }
    let until = 0
    const now = Date.now()
    for (const name of names) {
      try {
        const at = Date.parse((JSON.parse(await readFile(join(dir, name), 'utf8')) as { until?: string }).until ?? '')
        if (at > until) until = at
        if (at <= now) lapsed(name, at, now)
      } catch {}
    }
    return until
  }

  function reread (): Promise<number> {
    if (reading !== undefined) return reading
    const at = Date.now()
    const read: Promise<number> = readUntil().then((until) => {
      // A read overtaken by this process's own enable or disable does not keep its older value.
      if (reading === read) cached = { at, until }
      return until
    }).finally(() => { if (reading === read) reading = undefined })
    reading = read
    return read
  }

  /** This process changed the holders: the next question reads them anew. */
  const forget = (): void => {
    cached = undefined
    reading = undefined
  }

  const fresh = (): boolean => cached !== undefined && Date.now() - cached.at <= READ_EVERY_MS

  return {
    enable: async (holder, opts = {}) => {
      await mkdir(dir, { recursive: true })
      const until = new Date(Date.now() + (opts.seconds ?? DEFAULT_SECONDS) * 1000).toISOString()
      await writeFile(fileOf(holder), JSON.stringify({ until, message: opts.message ?? '' }))
      forget()
    },
    disable: async (holder) => {
      try {
        await rm(fileOf(holder))
        return true
      } catch {
        return false
      } finally {
        forget()
      }
    },
    remaining: async () => secondsUntil(fresh() ? cached!.until : await reread()),
    known: () => fresh() ? secondsUntil(cached!.until) : undefined,
    onLapse: (listener) => { listeners.push(listener) }
  }
}

const secondsUntil = (until: number): number => Math.max(0, Math.ceil((until - Date.now()) / 1000))

/** Whether a route serves content reads that maintenance mode holds back from anonymous callers. */
export function isContentRoute (route: Pick<RouteOptions, 'method' | 'url'>): boolean {
  const methods = [route.method].flat()
  return (methods.includes('GET') || methods.includes('HEAD')) && /^\/cms-json\/(cms\/v2|oembed\/1\.0)(\/|$)/.test(route.url)
}

/**
 * The check added to the content routes: an anonymous GET or HEAD answers
 * 503 with `Retry-After` while a window is open. A callback hook, only on
 * those routes, and synchronous while the value read this second holds: it
 * runs before every anonymous read, kept answers included (as an async hook
 * on every route it cost a single post about 6% of its CPU). Once a second a
 * request waits for the read, as before.
 */
export function maintenanceHold (mode: MaintenanceMode): preHandlerHookHandler {
  const answer = (reply: Parameters<preHandlerHookHandler>[1], seconds: number): void => {
    const error = maintenanceErrors.rest_maintenance({ retry_after: seconds })
    reply.code(503).header('Retry-After', String(seconds)).type('application/json; charset=UTF-8').send(JSON.stringify(error.toBody()))
  }
  return function hold (request, reply, done) {
    if (request.principal?.id !== 0 || (request.method !== 'GET' && request.method !== 'HEAD')) { done(); return }
    const known = mode.known()
    if (known === 0) { done(); return }
    if (known !== undefined) { answer(reply, known); return }
    mode.remaining().then((seconds) => { if (seconds === 0) done(); else answer(reply, seconds) }, done)
  }
}
