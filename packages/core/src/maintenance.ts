/**
 * Maintenance mode: while any package holds it (a rollback replacing a
 * plugin's files), anonymous content reads (cms/v2 and oEmbed) answer
 * `503 rest_maintenance` with `Retry-After`; signed-in callers work as
 * usual. Each holder is a small file under `<content dir>/.maintenance/`
 * with the time it ends, so every replica sharing the content directory
 * sees it and a holder that stops never locks the site for longer than its
 * window. Read at most once a second per process, off the request: the
 * check on every anonymous read (`now()`) is synchronous and answers the
 * last value read, while a stale value starts one re-read in the background
 * (so another replica's window is seen within about a second; this
 * process's own enable/disable at once).
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { declareErrors } from '@cms/rest'

export interface MaintenanceMode {
  /** Turns it on for `holder` (`rollback:plugin:seo`) for `seconds` (default 600, as the real product's marker). */
  enable: (holder: string, opts?: { seconds?: number, message?: string }) => Promise<void>
  /** Ends `holder`'s window (others may still hold it). Answers whether it held one. */
  disable: (holder: string) => Promise<boolean>
  /** Seconds until the last window ends; 0 when off. Reads the holders' files when the value is stale. */
  remaining: () => Promise<number>
  /** The same from the last value read, without waiting (the per-request check); a stale value starts a re-read. */
  now: () => number
}

export const maintenanceErrors = declareErrors({
  rest_maintenance: { status: 503, message: 'Briefly unavailable for scheduled maintenance. Check back in a minute.' }
})

const DEFAULT_SECONDS = 600
const READ_EVERY_MS = 1000

export function maintenanceMode (contentDir: string): MaintenanceMode {
  const dir = join(contentDir, '.maintenance')
  const fileOf = (holder: string): string => join(dir, `${encodeURIComponent(holder)}.json`)
  // `until` as last read, and when; a re-read in flight is shared.
  let until = 0
  let readAt = 0
  let reading: Promise<number> | undefined

  async function readUntil (): Promise<number> {
    let names: string[]
    try { names = await readdir(dir) } catch { return 0 }
    let last = 0
    for (const name of names) {
      try {
        const at = Date.parse((JSON.parse(await readFile(join(dir, name), 'utf8')) as { until?: string }).until ?? '')
        if (at > last) last = at
      } catch {}
    }
    return last
  }

  function reread (): Promise<number> {
    reading ??= readUntil().then((value) => {
      until = value
      readAt = Date.now()
      return value
    }).finally(() => { reading = undefined })
    return reading
  }

  const secondsLeft = (): number => Math.max(0, Math.ceil((until - Date.now()) / 1000))
  const stale = (): boolean => Date.now() - readAt > READ_EVERY_MS

  return {
    enable: async (holder, opts = {}) => {
      await mkdir(dir, { recursive: true })
      const ends = Date.now() + (opts.seconds ?? DEFAULT_SECONDS) * 1000
      await writeFile(fileOf(holder), JSON.stringify({ until: new Date(ends).toISOString(), message: opts.message ?? '' }))
      // A re-read begun before the write would set an older value when it ends.
      await reading
      if (ends > until) until = ends
    },
    disable: async (holder) => {
      let held = true
      try { await rm(fileOf(holder)) } catch { held = false }
      // Other holders may remain: read them now rather than after the next request.
      await reading
      await reread()
      return held
    },
    remaining: async () => {
      if (stale()) await reread()
      return secondsLeft()
    },
    now: () => {
      if (stale() && reading === undefined) reread().catch(() => {})
      return secondsLeft()
    }
  }
}

/** Whether a request path is a content read maintenance mode holds back from anonymous callers. */
export function isContentRead (method: string, url: string): boolean {
  return (method === 'GET' || method === 'HEAD') && /^\/cms-json\/(cms\/v2|oembed\/1\.0)(\/|$)/.test(url)
}
