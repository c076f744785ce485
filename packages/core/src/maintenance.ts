/**
 * Maintenance mode: while any package holds it (a rollback replacing a
 * plugin's files), anonymous content reads (cms/v2 and oEmbed) answer
 * `503 rest_maintenance` with `Retry-After`; signed-in callers work as
 * usual. Each holder is a small file under `<content dir>/.maintenance/`
 * with the time it ends, so every replica sharing the content directory
 * sees it and a holder that stops never locks the site for longer than its
 * window. Read at most once a second per process.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { declareErrors } from '@cms/rest'

export interface MaintenanceMode {
  /** Turns it on for `holder` (`rollback:plugin:seo`) for `seconds` (default 600, as the real product's marker). */
  enable: (holder: string, opts?: { seconds?: number, message?: string }) => Promise<void>
  /** Ends `holder`'s window (others may still hold it). Answers whether it held one. */
  disable: (holder: string) => Promise<boolean>
  /** Seconds until the last window ends; 0 when off. */
  remaining: () => Promise<number>
}

export const maintenanceErrors = declareErrors({
  rest_maintenance: { status: 503, message: 'Briefly unavailable for scheduled maintenance. Check back in a minute.' }
})

const DEFAULT_SECONDS = 600
const READ_EVERY_MS = 1000

export function maintenanceMode (contentDir: string): MaintenanceMode {
  const dir = join(contentDir, '.maintenance')
  const fileOf = (holder: string): string => join(dir, `${encodeURIComponent(holder)}.json`)
  let cached: { at: number, until: number } | undefined

  async function readUntil (): Promise<number> {
    let names: string[]
    try { names = await readdir(dir) } catch { return 0 }
    let until = 0
    for (const name of names) {
      try {
        const at = Date.parse((JSON.parse(await readFile(join(dir, name), 'utf8')) as { until?: string }).until ?? '')
        if (at > until) until = at
      } catch {}
    }
    return until
  }

  return {
    enable: async (holder, opts = {}) => {
      await mkdir(dir, { recursive: true })
      const until = new Date(Date.now() + (opts.seconds ?? DEFAULT_SECONDS) * 1000).toISOString()
      await writeFile(fileOf(holder), JSON.stringify({ until, message: opts.message ?? '' }))
      cached = undefined
    },
    disable: async (holder) => {
      cached = undefined
      try {
        await rm(fileOf(holder))
        return true
      } catch {
        return false
      }
    },
    remaining: async () => {
      if (cached === undefined || Date.now() - cached.at > READ_EVERY_MS) cached = { at: Date.now(), until: await readUntil() }
      return Math.max(0, Math.ceil((cached.until - Date.now()) / 1000))
    }
  }
}

/** Whether a request path is a content read maintenance mode holds back from anonymous callers. */
export function isContentRead (method: string, url: string): boolean {
  return (method === 'GET' || method === 'HEAD') && /^\/cms-json\/(cms\/v2|oembed\/1\.0)(\/|$)/.test(url)
}
