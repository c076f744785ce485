/**
 * Reads reflect acknowledged writes (issue 29 item 5). A post's indexable is
 * rebuilt from its lifecycle events, which arrive after the write committed
 * (a second later, or on another replica). So that the bulk editor, the
 * scores and the statistics show a post and its SEO values in the very next
 * request:
 *
 *   - this package's own writes (bulk editor, importers) rebuild the
 *     indexables of the posts they changed before answering (`rebuild`);
 *   - the reads over the indexables first catch up on the post changes
 *     whose events this package has not handled yet (`catchUp`): the
 *     undelivered events of the last 10 minutes, at most 100 posts, so the
 *     read is bounded before it starts; anything older or beyond is the
 *     event worker's (it handles the same events again: rebuilding is
 *     idempotent).
 *
 * Only the analysis scores and the internal links stay asynchronous.
 */
import type { PackageApi } from '@cms/core'
import { deleteIndexables, homeUrl, INDEXABLE_TYPES, postIndexable, upsertIndexables } from './indexables.js'

/** The listeners (index.ts) whose work a read catches up on. */
export const INDEX_LISTENERS = { created: 'index-created', updated: 'index-updated', deleted: 'unindex-deleted' } as const

const CATCH_UP_POSTS = 100
const CATCH_UP_WINDOW_MS = 10 * 60_000

/** Rebuilds the indexables of these posts from their current state (gone or not indexable: the row goes). */
export async function rebuild (api: PackageApi, ids: readonly number[]): Promise<void> {
  const unique = [...new Set(ids)]
  for (let i = 0; i < unique.length; i += 100) {
    const chunk = unique.slice(i, i + 100)
    const found = (await api.content.postsWithDetails(chunk)).filter((p) => INDEXABLE_TYPES.includes(p.post.type))
    const home = await homeUrl(api.services.store)
    await upsertIndexables(api.services.store, found.map((p) => postIndexable(p, home)))
    const kept = new Set(found.map((p) => p.post.id))
    const gone = chunk.filter((id) => !kept.has(id))
    if (gone.length > 0) await deleteIndexables(api.services.store, gone.map((id) => `post:${id}`))
  }
}

/** Rebuilds the indexables of posts changed lately whose events this package has not handled yet. */
export async function catchUp (api: PackageApi): Promise<void> {
  const listeners = Object.values(INDEX_LISTENERS).map((n) => `${api.name}:${n}`)
  const ids = await api.services.events.undelivered(listeners, ['post.created', 'post.updated', 'post.deleted'], { withinMs: CATCH_UP_WINDOW_MS, limit: CATCH_UP_POSTS })
  if (ids.length > 0) await rebuild(api, ids)
}
