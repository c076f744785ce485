/**
 * Scheduled publishing that needs no traffic: a timer publishes `future`
 * posts whose date has come. Rows are claimed with FOR UPDATE SKIP LOCKED,
 * so several replicas running the same timer never publish a post twice.
 */
import { and, eq, inArray, lte } from 'drizzle-orm'
import type { Store } from '@cms/store'
import { nowSeconds } from '../base/dates.js'
import { claimPostSlug, recountTerms, termIdsOfPost } from './post-store.js'
import { posts } from './schema.js'
import { textPool } from '../text/text-pool.js'
import { repeatEvery } from '../base/repeat.js'

/** Publishes every due scheduled post; returns their ids. */
export async function publishDuePosts (store: Store, now = nowSeconds(), batch = 100): Promise<number[]> {
  return await store.transaction(async (tx) => {
    const due = await tx.select().from(posts)
      .where(and(eq(posts.status, 'future'), lte(posts.dateGmt, now)))
      .orderBy(posts.dateGmt)
      .limit(batch)
      .for('update', { skipLocked: true })
    if (due.length === 0) return []
    const ids = due.map((p) => p.id)
    await tx.update(posts).set({ status: 'publish' }).where(inArray(posts.id, ids))
    const termIds: number[] = []
    for (const post of due) {
      if (post.slug === '') {
        const slug = await claimPostSlug(tx, await textPool.slug(post.title, String(post.id)), { id: post.id, type: post.type, parent: post.parent, hierarchical: post.type === 'page' })
        await tx.update(posts).set({ slug }).where(eq(posts.id, post.id))
      }
      termIds.push(...await termIdsOfPost(tx, post.id))
    }
    await recountTerms(tx, termIds)
    return ids
  })
}

export interface JobOptions {
  /** How often to look for due posts (default 10 s). */
  intervalMs?: number
  onError?: (err: unknown) => void
}

/** Starts the timer; the returned function stops it and waits for a run in progress. */
export function startScheduler (store: Store, opts: JobOptions = {}): () => Promise<void> {
  const onError = opts.onError ?? ((e) => process.stderr.write(`content scheduler: ${String(e)}\n`))
  return repeatEvery(opts.intervalMs ?? 10_000, async () => { await publishDuePosts(store).then(() => {}, onError) })
}
