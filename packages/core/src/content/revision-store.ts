/**
 * Revisions and autosaves are rows of `posts` with type `revision` and the
 * post as parent: `{id}-revision-v1` copies made on updates, and one
 * `{id}-autosave-v1` per user.
 */
import { and, desc, eq, like, sql } from 'drizzle-orm'
import { dbOf, type Queryable, type Store, type Tx } from '@cms/store'
import { sameValue } from '../platform/meta.js'
import { textPool } from '../text/text-pool.js'
import { getMeta, longTextsSet, setMeta, type LongTextBytes, type PostRow } from './post-store.js'
import { permalink, permalinkPrefix, type SiteSettings } from './post-types.js'
import { posts } from './schema.js'

type Db = Store | Queryable

export const REVISION_FIELDS = ['title', 'content', 'excerpt'] as const

export function isAutosave (revision: PostRow): boolean {
  return revision.slug.includes(`${revision.parent}-autosave`)
}

/** The newest revision that is not an autosave. */
export async function latestRevision (db: Db, parent: number): Promise<PostRow | undefined> {
  const rows = await dbOf(db).select().from(posts)
    .where(and(eq(posts.type, 'revision'), eq(posts.parent, parent), like(posts.slug, `${parent}-revision%`)))
    .orderBy(desc(posts.dateGmt), desc(posts.id)).limit(1)
  return rows[0]
}

/** The newest autosave of a post, by one user or by anyone. */
export async function latestAutosave (db: Db, parent: number, userId?: number): Promise<PostRow | undefined> {
  const conditions = [eq(posts.type, 'revision'), eq(posts.parent, parent), like(posts.slug, `${parent}-autosave%`)]
  if (userId !== undefined) conditions.push(eq(posts.author, userId))
  const rows = await dbOf(db).select().from(posts).where(and(...conditions)).orderBy(desc(posts.dateGmt), desc(posts.id)).limit(1)
  return rows[0]
}

/**
 * The column values of meta copied to a revision or an autosave: a long
 * string's JSON text is made in the text pool, another value's a slice of
 * members a turn (`storedJson`), not by the column's JSON.stringify on the
 * request thread (issue 27).
 */
async function copiedMeta (values: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values)) out[key] = await textPool.storedJson(value) ?? value
  return out
}

/** Whether every key's two values are the same (`sameValue`, one key after another). */
async function allSame (keys: readonly string[], values: (key: string) => [unknown, unknown]): Promise<boolean> {
  for (const k of keys) if (!await sameValue(...values(k))) return false
  return true
}

type Texts = Pick<PostRow, 'title' | 'content' | 'excerpt'>

/** Whether two posts' texts differ with whitespace normalised (the core's rule), long ones compared in the text pool. */
async function differs (a: Texts, b: Texts): Promise<boolean> {
  return !await textPool.sameWhitespace(REVISION_FIELDS.flatMap((f) => [a[f], b[f]]))
}

/** The id the next new post gets, with the guid it is given (one statement before the insert). */
const nextPost = sql`(select nextval(pg_get_serial_sequence('posts', 'id'))::int as id)`

/**
 * The caller's new autosave of `post` holding `fields`, given its id and
 * guid in its insert (the answer shows the row as written). `utf8`: the
 * bytes of the request's long texts, sent as they are.
 */
async function insertAutosave (tx: Tx, post: PostRow, userId: number, settings: SiteSettings, fields: Texts, utf8?: LongTextBytes): Promise<PostRow> {
  const [{ id }] = await tx.select({ id: sql<number>`n.id`.mapWith(Number) }).from(sql`${nextPost} as n`) as [{ id: number }]
  const [row] = await tx.insert(posts).values({
    id,
    type: 'revision',
    status: 'inherit',
    parent: post.id,
    author: userId,
    slug: `${post.id}-autosave-v1`,
    title: fields.title,
    content: fields.content,
    excerpt: fields.excerpt,
    ...longTextsSet(fields, utf8),
    dateGmt: post.modifiedGmt,
    modifiedGmt: post.modifiedGmt,
    commentStatus: 'closed',
    pingStatus: 'closed',
    guid: permalink(settings.storedHome, 'post', id)
  }).returning()
  return row!
}

/**
 * A revision of `post` as it now is in `tx`: its texts copied by the
 * database from the post's row, never sent again (a 1.9 MB content read or
 * encoded on the request thread, issue 27). Answers the revision's id.
 */
async function copyToRevision (tx: Tx, post: PostRow, userId: number, settings: SiteSettings): Promise<number> {
  const rows = await dbOf(tx).execute(sql`insert into ${posts} (id, type, status, parent, author, slug, title, content, excerpt,
      date_gmt, modified_gmt, comment_status, ping_status, guid)
    select n.id, 'revision', 'inherit', p.id, ${userId}::int, ${`${post.id}-revision-v1`}::text, p.title, p.content, p.excerpt,
      p.modified_gmt, p.modified_gmt, 'closed', 'closed', ${permalinkPrefix(settings.storedHome, 'post')}::text || n.id
    from ${nextPost} as n, ${posts} p where p.id = ${post.id}
    returning id`)
  const id = (rows as unknown as { rows: Array<{ id: number }> }).rows[0]?.id
  if (id === undefined) throw new Error(`copyToRevision: post ${post.id} is gone`)
  return Number(id)
}

/**
 * After an update: stores a copy of the post when its title, content,
 * excerpt or revisioned meta differ from the latest revision, or when it
 * has no revision at all yet. Answers the new revision's id.
 */
export async function saveRevisionIfChanged (tx: Tx, post: PostRow, userId: number, settings: SiteSettings): Promise<number | undefined> {
  const latest = await latestRevision(tx, post.id)
  const postMeta = (await getMeta(tx, [post.id])).get(post.id)!
  if (latest !== undefined) {
    const revMeta = (await getMeta(tx, [latest.id])).get(latest.id)!
    if (!await differs(post, latest) && await allSame(settings.meta.revisioned, (k) => [postMeta[k], revMeta[k]])) return undefined
  }
  const revision = await copyToRevision(tx, post, userId, settings)
  const copy: Record<string, unknown> = {}
  for (const key of settings.meta.revisioned) if (key in postMeta) copy[key] = postMeta[key]
  await setMeta(tx, revision, await copiedMeta(copy))
  return revision
}

/**
 * Creates or overwrites the caller's autosave of a post. Returns the
 * existing autosave untouched when nothing differs from the post (or from
 * that autosave). `utf8`: the bytes of the request's long texts.
 */
export async function upsertAutosave (
  tx: Tx,
  post: PostRow,
  userId: number,
  settings: SiteSettings,
  fields: Pick<PostRow, 'title' | 'content' | 'excerpt'>,
  meta: Record<string, unknown>,
  utf8?: LongTextBytes
): Promise<PostRow> {
  const postMeta = (await getMeta(tx, [post.id])).get(post.id)!
  const revisioned = settings.meta.revisioned.filter((k) => k in meta)
  const metaDiffers = !await allSame(revisioned, (k) => [meta[k], postMeta[k] ?? ''])
  const old = await latestAutosave(tx, post.id, userId)
  if (old !== undefined) {
    const oldMeta = (await getMeta(tx, [old.id])).get(old.id)!
    const sameAsOld = !await differs(fields, old) && await allSame(revisioned, (k) => [meta[k], oldMeta[k]])
    if ((!metaDiffers && !await differs(fields, post)) || sameAsOld) return old
    const now = new Date(Math.floor(Date.now() / 1000) * 1000)
    const [updated] = await tx.update(posts).set({ ...fields, ...longTextsSet(fields, utf8), author: userId, dateGmt: now, modifiedGmt: now }).where(eq(posts.id, old.id)).returning()
    await setMeta(tx, old.id, await copiedMeta(Object.fromEntries(revisioned.map((k) => [k, meta[k]]))))
    return updated!
  }
  const now = new Date(Math.floor(Date.now() / 1000) * 1000)
  const created = await insertAutosave(tx, { ...post, modifiedGmt: now }, userId, settings, fields, utf8)
  await setMeta(tx, created.id, await copiedMeta(Object.fromEntries(revisioned.map((k) => [k, meta[k]]))))
  return created
}
