/**
 * Successful remote oEmbed results, kept in the store for a day and keyed
 * by every parameter of the request, so replicas share them.
 */
import { createHash } from 'node:crypto'
import { and, eq, gt, lt } from 'drizzle-orm'
import type { Store } from '@cms/store'
import { oembedCache } from './schema.js'

export const CACHE_TTL_MS = 24 * 60 * 60 * 1000

export function cacheKey (params: Record<string, unknown>): string {
  const names = Object.keys(params).sort()
  return createHash('sha256').update(JSON.stringify(names.map((n) => [n, params[n] ?? null]))).digest('hex')
}

export async function readCache (store: Store, key: string): Promise<Record<string, unknown> | null> {
  const rows = await store.db.select({ data: oembedCache.data }).from(oembedCache)
    .where(and(eq(oembedCache.key, key), gt(oembedCache.expires, new Date())))
  return (rows[0]?.data as Record<string, unknown> | undefined) ?? null
}

export async function writeCache (store: Store, key: string, url: string, data: Record<string, unknown>): Promise<void> {
  const now = new Date()
  const expires = new Date(now.getTime() + CACHE_TTL_MS)
  await store.transaction(async (tx) => {
    // Expired rows go when new ones come, so the table stays small without a job.
    await tx.delete(oembedCache).where(lt(oembedCache.expires, now))
    await tx.insert(oembedCache).values({ key, url, data, created: now, expires })
      .onConflictDoUpdate({ target: oembedCache.key, set: { url, data, created: now, expires } })
  })
}
