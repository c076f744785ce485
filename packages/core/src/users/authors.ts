/**
 * What the users module needs to know about content: who has published
 * posts (anonymous callers only see those users), and what happens to a
 * deleted user's posts.
 *
 * The content module owns the `posts` table (`author`, `status`, `type`).
 * Until it exists these queries see no posts; the content module takes over
 * deletion (to clean its own side tables) with the handler the services
 * carry (`services.userContent`), which callers pass to `deleteUser`.
 */
import { sql, type SQL } from 'drizzle-orm'
import type { Queryable, Store, Tx } from '@cms/store'

/** Post types whose published items make their author public. */
export const AUTHOR_POST_TYPES = ['post', 'page'] as const

export interface UserContentHandler {
  /** Gives every post of `from` to `to`. */
  reassign (tx: Tx, from: number, to: number): Promise<void>
  /** Deletes every post of `userId` (and what hangs off them). */
  remove (tx: Tx, userId: number): Promise<void>
}

// Tables never disappear: once seen, no need to ask again.
const postsSeen = new WeakSet<object>()

async function postsTableExists (db: Queryable | Store, key: object): Promise<boolean> {
  if (postsSeen.has(key)) return true
  const res = await db.execute(sql`select to_regclass('public.posts') is not null as present`)
  const present = (res as unknown as { rows: Array<{ present: boolean }> }).rows[0]?.present === true
  if (present) postsSeen.add(key)
  return present
}

/**
 * An SQL condition "the user in `idColumn` has published posts of these
 * types", or `sql\`false\`` while there is no posts table.
 */
export async function hasPublishedPostsCondition (store: Store, idColumn: SQL | unknown, types: readonly string[] = AUTHOR_POST_TYPES): Promise<SQL> {
  if (types.length === 0 || !(await postsTableExists(store.db, store))) return sql`false`
  const list = sql.join(types.map((t) => sql`${t}`), sql`, `)
  return sql`exists (select 1 from posts p where p.author = ${idColumn} and p.status = 'publish' and p.type in (${list}))`
}

export async function countPublishedPosts (store: Store, userId: number, types: readonly string[] = AUTHOR_POST_TYPES): Promise<number> {
  if (types.length === 0 || !(await postsTableExists(store.db, store))) return 0
  const list = sql.join(types.map((t) => sql`${t}`), sql`, `)
  const rows = await store.execute<{ n: number }>(sql`select count(*)::int as n from posts where author = ${userId} and status = 'publish' and type in (${list})`)
  return Number(rows[0]?.n ?? 0)
}

/** Inside the deletion transaction: reassign (when `to` is set) or delete the user's posts. */
export async function handleDeletedUserContent (store: Store, tx: Tx, userId: number, to: number | null, handler: UserContentHandler | undefined): Promise<void> {
  if (handler !== undefined) {
    await (to === null ? handler.remove(tx, userId) : handler.reassign(tx, userId, to))
    return
  }
  if (!(await postsTableExists(tx, store))) return
  // Revisions of the user's posts go with them, whoever wrote the revision.
  if (to === null) {
    await tx.execute(sql`delete from posts where author = ${userId}
      or (type = 'revision' and parent in (select id from posts where author = ${userId} and type <> 'revision'))`)
  } else {
    await tx.execute(sql`update posts set author = ${to} where author = ${userId}`)
  }
}
