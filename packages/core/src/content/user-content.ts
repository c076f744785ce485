/**
 * What happens to a deleted user's content: reassigned to another user, or
 * deleted with its revisions (meta and term links follow by cascade).
 */
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Tx } from '@cms/store'
import type { UserContentHandler } from '../users/authors.js'
import { recountTerms } from './post-store.js'
import { posts, termRelationships } from './schema.js'

export const userContentHandler: UserContentHandler = {
  async reassign (tx: Tx, from: number, to: number): Promise<void> {
    await tx.update(posts).set({ author: to }).where(eq(posts.author, from))
  },
  async remove (tx: Tx, userId: number): Promise<void> {
    const owned = await tx.select({ id: posts.id }).from(posts).where(and(eq(posts.author, userId), sql`${posts.type} <> 'revision'`))
    const ids = owned.map((r) => r.id)
    if (ids.length === 0) return
    const termIds = (await tx.select({ id: termRelationships.termId }).from(termRelationships).where(inArray(termRelationships.postId, ids))).map((r) => r.id)
    await tx.delete(posts).where(and(eq(posts.type, 'revision'), inArray(posts.parent, ids)))
    await tx.delete(posts).where(inArray(posts.id, ids))
    await recountTerms(tx, termIds)
  }
}
