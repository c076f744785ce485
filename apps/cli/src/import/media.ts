/**
 * Attachment files: fetched through the SSRF-guarded outbound client into a
 * work directory before their batch's transaction opens (a few at a time,
 * with retries, each at most the upload limit), then stored by the core's
 * media import as any upload (its sizes made, its pixels checked).
 */
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { OutboundClient } from '@cms/core'

export interface Fetched { path?: string, error?: string }

/** The file's name from its URL (what the media library names it after). */
function nameOf (url: string): string {
  const last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '')
  const clean = last.replace(/[^\p{L}\p{N}._-]+/gu, '-').slice(-120)
  return clean === '' || clean.startsWith('.') ? `file${clean}` : clean
}

async function fetchOne (outbound: OutboundClient, url: string, dir: string, maxBytes: number, retries: number): Promise<Fetched> {
  let last = ''
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt))
    const path = join(dir, nameOf(url))
    try {
      await rm(path, { force: true })
      const res = await outbound.fetch(url, { maxBytes, timeoutMs: 60_000, toFile: path })
      if (res.status === 200) return { path }
      last = `${url} answered ${res.status}`
      // A 4xx other than a throttle will not change on a retry.
      if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) break
    } catch (err) {
      last = `${url}: ${(err as Error).message}`
      const failure = (err as { failure?: string }).failure
      if (failure === 'blocked' || failure === 'too_large') break
    }
  }
  return { error: last }
}

/** Fetches `urls` (by key) with at most `concurrency` at once, each into its own folder under `work`. */
export async function fetchAll (outbound: OutboundClient, urls: ReadonlyMap<string, string>, work: string, opts: { maxBytes: number, concurrency: number, retries: number }): Promise<Map<string, Fetched>> {
  const out = new Map<string, Fetched>()
  const queue = [...urls]
  let n = 0
  const worker = async (): Promise<void> => {
    for (;;) {
      const next = queue.shift()
      if (next === undefined) return
      const dir = join(work, String(n++))
      await mkdir(dir, { recursive: true })
      out.set(next[0], await fetchOne(outbound, next[1], dir, opts.maxBytes, opts.retries))
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, queue.length)) }, worker))
  return out
}
