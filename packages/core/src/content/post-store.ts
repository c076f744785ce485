/**
 * Reads and writes of posts and what hangs off them (meta, terms,
 * revisions). Every function takes the store's `db` or a transaction.
 */
import { and, asc, desc, eq, getTableColumns, inArray, is, ne, sql, type SQL } from 'drizzle-orm'
import { PgTransaction } from 'drizzle-orm/pg-core'
import { dbOf, executeNamed, prepareNamed, storeSlot, type Queryable, type Store } from '@cms/store'
import { Utf8Text } from '@cms/store/columns'
import { outboxCte, outboxPart } from '../audit/outbox.js'
import { postMeta, posts, termRelationships, terms } from './schema.js'
import { isReservedSlug, truncateSlug } from '../text/slugs.js'
import { anyOf } from './sql-lists.js'

export type PostRow = typeof posts.$inferSelect
export type NewPostRow = typeof posts.$inferInsert
export type TermRow = typeof terms.$inferSelect

type Db = Store | Queryable

/**
 * A term's count as every route answers it: the row's `count` and the
 * changes not yet folded into it (`term_count_deltas`, migration 0016: a
 * writer that finds the count taken by another in flight adds a change
 * instead of waiting), in a statement that names the term `alias`. The
 * terms with changes pending are read once a statement (an InitPlan: one
 * scan of the table, empty in the usual case), and only their changes are
 * summed: a page of 10 posts no longer probes the table once for each term
 * of each post (issue 35). One statement, one snapshot: the ids and the sums
 * are of the same rows.
 */
export const termCountOf = (alias: string): SQL =>
  sql.raw(`(${alias}.count + case when ${alias}.id = any(array(select distinct d.term_id from term_count_deltas d))
    then coalesce((select sum(d.delta) from term_count_deltas d where d.term_id = ${alias}.id), 0) else 0 end)::int`)

/** A term row's columns, its count as termCountOf (selects and returnings on `terms`). */
export const termColumns = {
  ...getTableColumns(terms),
  count: sql<number>`${termCountOf('"terms"')}`.mapWith(Number)
}

/**
 * The reads every post response makes, built once per store and prepared
 * (named): no query building per call, and PostgreSQL parses them once per
 * connection. Transactions build theirs as usual.
 */
function prepare (d: ReturnType<typeof dbOf>) {
  const ids = sql.placeholder('ids')
  return {
    post: d.select().from(posts).where(eq(posts.id, sql.placeholder('id'))).prepare('content_post'),
    meta: d.select().from(postMeta).where(sql`${postMeta.postId} = any(${ids}::int[])`).prepare('content_post_meta'),
    terms: d.select({ postId: termRelationships.postId, term: termColumns })
      .from(termRelationships)
      .innerJoin(terms, eq(terms.id, termRelationships.termId))
      .where(sql`${termRelationships.postId} = any(${ids}::int[])`)
      .orderBy(asc(terms.name), asc(terms.id))
      .prepare('content_post_terms'),
    revisions: d.select({
      parent: posts.parent,
      count: sql<number>`count(*) over (partition by ${posts.parent})`.mapWith(Number),
      id: posts.id,
      rank: sql<number>`row_number() over (partition by ${posts.parent} order by ${posts.dateGmt} desc, ${posts.id} desc)`.mapWith(Number)
    }).from(posts).where(and(eq(posts.type, 'revision'), sql`${posts.parent} = any(${ids}::int[])`)).prepare('content_revision_stats'),
    // Meta, terms (by name, then id) and revision stats of many posts in one statement.
    extras: d.select({ id: sql<number>`p.id`, ...extrasColumns() }).from(sql`unnest(${ids}::int[]) as p (id)`).prepare('content_post_extras'),
    // A new post without meta (insertNewPost): its text built once, its parameters sent.
    insertPost: prepareNamed<InsertedRow>(d, 'content_insert_post', insertPostSql(INSERT_POST_PLACEHOLDERS, sql``))
  }
}

/**
 * A post's meta, terms (by name, then id) and revision stats as columns of
 * a statement whose rows name the post `p.id`: the extras statement, and a
 * list page that brings its extras along (post-query.ts).
 */
export function extrasColumns () {
  return {
    meta: sql<Record<string, unknown> | null>`(select json_object_agg(m.key, m.value) from ${postMeta} m where m.post_id = p.id)`,
    terms: sql<TermRow[] | null>`(select json_agg(json_build_object('id', t.id, 'taxonomy', t.taxonomy, 'name', t.name, 'slug', t.slug,
      'description', t.description, 'parent', t.parent, 'count', ${termCountOf('t')}) order by t.name, t.id)
      from ${termRelationships} tr join ${terms} t on t.id = tr.term_id where tr.post_id = p.id)`,
    revisions: sql<number>`(select count(*)::int from ${posts} r where r.type = 'revision' and r.parent = p.id)`,
    latest: sql<number | null>`(select r.id from ${posts} r where r.type = 'revision' and r.parent = p.id order by r.date_gmt desc, r.id desc limit 1)`
  }
}

/** The extras of a row of {@link extrasColumns}. */
export function extrasOf (row: { meta: Record<string, unknown> | null, terms: TermRow[] | null, revisions: number, latest: number | null }): PostExtrasRow {
  const byTaxonomy: PostTerms = { category: [], post_tag: [] }
  for (const term of row.terms ?? []) {
    if (term.taxonomy === 'category' || term.taxonomy === 'post_tag') byTaxonomy[term.taxonomy].push(term)
  }
  return { meta: row.meta ?? {}, terms: byTaxonomy, revisions: { count: Number(row.revisions), latestId: row.latest === null ? 0 : Number(row.latest) } }
}

/** The prepared statements of a store (a transaction's view has none: they are bound to the store's connections). */
const STATEMENTS = storeSlot('content/post-statements', (store) => prepare(store.db))

function statements (db: Db): ReturnType<typeof prepare> | undefined {
  return 'local' in db ? db.local?.(STATEMENTS) : undefined
}

export async function getPost (db: Db, id: number): Promise<PostRow | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0 || id > 2147483647) return undefined
  const prepared = statements(db)
  const rows = prepared !== undefined ? await prepared.post.execute({ id }) : await dbOf(db).select().from(posts).where(eq(posts.id, id))
  return rows[0]
}

/** Parses a path variable into a post id (0 when it cannot be one). */
export function idOf (value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : 0
  return Number.isSafeInteger(n) && n > 0 && n <= 2147483647 ? n : 0
}

export async function getMeta (db: Db, ids: number[]): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>(ids.map((id) => [id, {}]))
  if (ids.length === 0) return out
  const prepared = statements(db)
  const rows = prepared !== undefined ? await prepared.meta.execute({ ids }) : await dbOf(db).select().from(postMeta).where(inArray(postMeta.postId, ids))
  for (const row of rows) out.get(row.postId)![row.key] = row.value
  return out
}

export async function setMeta (db: Queryable, postId: number, set: Record<string, unknown>, remove: readonly string[] = []): Promise<void> {
  const d = dbOf(db)
  // Every key in one statement (a create or update with meta: one round trip, not one a key).
  const rows = Object.entries(set).map(([key, value]) => ({ postId, key, value }))
  if (rows.length > 0) {
    await d.insert(postMeta).values(rows)
      .onConflictDoUpdate({ target: [postMeta.postId, postMeta.key], set: { value: sql`excluded.value` } })
  }
  if (remove.length > 0) await d.delete(postMeta).where(and(eq(postMeta.postId, postId), inArray(postMeta.key, [...remove])))
}

export interface PostTerms { category: TermRow[], post_tag: TermRow[] }

/**
 * What a post's answer shows of a term: its id and taxonomy (`categories`,
 * `tags`), its slug (the class list) and its name (their order). A new
 * post's answer reads no more of them (`cms_insert_post`, migration 0021).
 */
export type PostTerm = Pick<TermRow, 'id' | 'taxonomy' | 'slug' | 'name'>

/** A post's terms by taxonomy as its answer uses them (PostTerms are these and more). */
export interface AnsweredTerms { category: PostTerm[], post_tag: PostTerm[] }

/** Terms of each post, by taxonomy, ordered by name as the core lists them. */
export async function getPostTerms (db: Db, ids: number[]): Promise<Map<number, PostTerms>> {
  const out = new Map<number, PostTerms>(ids.map((id) => [id, { category: [], post_tag: [] }]))
  if (ids.length === 0) return out
  const prepared = statements(db)
  const rows = prepared !== undefined
    ? await prepared.terms.execute({ ids })
    : await dbOf(db).select({ postId: termRelationships.postId, term: termColumns })
      .from(termRelationships)
      .innerJoin(terms, eq(terms.id, termRelationships.termId))
      .where(inArray(termRelationships.postId, ids))
      .orderBy(asc(terms.name), asc(terms.id))
  for (const { postId, term } of rows) {
    const entry = out.get(postId)!
    if (term.taxonomy === 'category' || term.taxonomy === 'post_tag') entry[term.taxonomy].push(term)
  }
  return out
}

/** The ids among `ids` that are terms of the taxonomy, in the order given. */
export async function existingTermIds (db: Db, taxonomy: string, ids: readonly number[]): Promise<number[]> {
  const wanted = [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2147483647))]
  if (wanted.length === 0) return []
  const rows = await dbOf(db).select({ id: terms.id }).from(terms).where(and(eq(terms.taxonomy, taxonomy), anyOf(terms.id, wanted, 'int')))
  const found = new Set(rows.map((r) => r.id))
  return wanted.filter((id) => found.has(id))
}

/** Replaces the post's terms of one taxonomy; returns the term ids before and after. */
export async function setPostTerms (db: Queryable, postId: number, taxonomy: string, ids: readonly number[]): Promise<number[]> {
  const d = dbOf(db)
  const before = await d.select({ id: termRelationships.termId }).from(termRelationships)
    .innerJoin(terms, eq(terms.id, termRelationships.termId))
    .where(and(eq(termRelationships.postId, postId), eq(terms.taxonomy, taxonomy)))
  const old = before.map((r) => r.id)
  const drop = old.filter((id) => !ids.includes(id))
  const add = ids.filter((id) => !old.includes(id))
  if (drop.length > 0) await d.delete(termRelationships).where(and(eq(termRelationships.postId, postId), inArray(termRelationships.termId, drop)))
  if (add.length > 0) await d.insert(termRelationships).values(add.map((termId) => ({ postId, termId }))).onConflictDoNothing()
  return [...old, ...add]
}

export async function termIdsOfPost (db: Db, postId: number): Promise<number[]> {
  const rows = await dbOf(db).select({ id: termRelationships.termId }).from(termRelationships).where(eq(termRelationships.postId, postId))
  return rows.map((r) => r.id)
}

/**
 * A term's count is the number of published posts that carry it: the
 * difference is added (`cms_recount_terms`, migration 0016), computed in one
 * snapshot, without waiting for the term row's lock held by a create in
 * flight in the same category.
 */
export async function recountTerms (db: Queryable, ids: readonly number[]): Promise<void> {
  const list = [...new Set(ids)].filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2147483647)
  if (list.length === 0) return
  await dbOf(db).execute(sql`select cms_recount_terms(${sql.param(list)}::int[])`)
}

export interface RevisionStats { count: number, latestId: number }

/** Number of revisions (autosaves included) of each post and the newest one. */
export async function revisionStats (db: Db, ids: number[]): Promise<Map<number, RevisionStats>> {
  const out = new Map<number, RevisionStats>(ids.map((id) => [id, { count: 0, latestId: 0 }]))
  if (ids.length === 0) return out
  const prepared = statements(db)
  const rows = prepared !== undefined
    ? await prepared.revisions.execute({ ids })
    : await dbOf(db).select({
      parent: posts.parent,
      count: sql<number>`count(*) over (partition by ${posts.parent})`.mapWith(Number),
      id: posts.id,
      rank: sql<number>`row_number() over (partition by ${posts.parent} order by ${posts.dateGmt} desc, ${posts.id} desc)`.mapWith(Number)
    }).from(posts).where(and(eq(posts.type, 'revision'), inArray(posts.parent, ids)))
  for (const row of rows) if (row.rank === 1) out.set(row.parent, { count: row.count, latestId: row.id })
  return out
}

export interface PostExtrasRow { meta: Record<string, unknown>, terms: PostTerms, revisions: RevisionStats }

/** Meta, terms and revision stats of many posts, in one statement on the store (else three). */
export async function postExtras (db: Db, ids: number[]): Promise<Map<number, PostExtrasRow>> {
  const prepared = statements(db)
  if (prepared === undefined || ids.length === 0) {
    const [meta, terms, revisions] = await Promise.all([getMeta(db, ids), getPostTerms(db, ids), revisionStats(db, ids)])
    return new Map(ids.map((id) => [id, { meta: meta.get(id)!, terms: terms.get(id)!, revisions: revisions.get(id)! }]))
  }
  const rows = await prepared.extras.execute({ ids })
  return new Map(rows.map((row) => [Number(row.id), extrasOf(row)]))
}

/**
 * A slug no other post of the type uses (pages: no sibling under the same
 * parent), reserved words avoided, suffixed `-2`, `-3`... as needed.
 */
export async function uniquePostSlug (db: Db, slug: string, post: { id: number, type: string, parent: number, hierarchical: boolean }): Promise<string> {
  const d = dbOf(db)
  // Candidates are looked up by the batch (one indexed query each), not one by one.
  const takenOf = async (candidates: string[]): Promise<Set<string>> => {
    const where = post.hierarchical
      ? and(inArray(posts.slug, candidates), eq(posts.type, post.type), ne(posts.id, post.id), eq(posts.parent, post.parent))
      : and(inArray(posts.slug, candidates), eq(posts.type, post.type), ne(posts.id, post.id))
    const rows = await d.selectDistinct({ slug: posts.slug }).from(posts).where(where)
    return new Set(rows.map((r) => r.slug))
  }
  if (!isReservedSlug(slug, post.hierarchical) && !(await takenOf([slug])).has(slug)) return slug
  let size = 16
  for (let first = 2; ; first += size, size = Math.min(size * 2, 1024)) {
    const candidates: string[] = []
    for (let suffix = first; suffix < first + size; suffix++) {
      candidates.push(`${truncateSlug(slug, 200 - (String(suffix).length + 1))}-${suffix}`)
    }
    const taken = await takenOf(candidates)
    const free = candidates.find((c) => !taken.has(c))
    if (free !== undefined) return free
  }
}

/**
 * The ids of `rows` whose slug is their own: not empty, not reserved, and
 * no other post of the type (pages: under the same parent) has it, so
 * uniquePostSlug would answer it as it is. One statement for a page of
 * rows (an edit-context list asked one a post; read10, issue 35).
 */
export async function ownSlugIds (db: Db, rows: readonly PostRow[], hierarchical: boolean): Promise<Set<number>> {
  const asked = rows.filter((r) => r.slug !== '' && !isReservedSlug(r.slug, hierarchical))
  if (asked.length === 0) return new Set()
  const parentMatch = hierarchical ? sql`and p.parent = i.parent` : sql``
  const res = await dbOf(db).execute(sql`select i.id from unnest(
      ${sql.param(asked.map((r) => r.id))}::int[], ${sql.param(asked.map((r) => r.type))}::text[],
      ${sql.param(asked.map((r) => r.slug))}::text[], ${sql.param(asked.map((r) => r.parent))}::int[]
    ) as i (id, type, slug, parent)
    where not exists (select 1 from ${posts} p where p.type = i.type and p.slug = i.slug and p.id <> i.id ${parentMatch})`)
  return new Set((res as unknown as { rows: Array<{ id: number }> }).rows.map((r) => Number(r.id)))
}

/**
 * uniquePostSlug for a slug about to be written in `tx`: concurrent writers
 * of the same slug and type take turns (a lock held until commit), so two
 * never both find it free.
 */
export async function claimPostSlug (tx: Queryable, slug: string, post: { id: number, type: string, parent: number, hierarchical: boolean }): Promise<string> {
  await dbOf(tx).execute(sql`select pg_advisory_xact_lock(${SLUG_LOCK_CLASS}, hashtext(${`${post.type}:${slug}`}))`)
  return await uniquePostSlug(tx, slug, post)
}

/** First key of the slug locks (the migration lock uses the one-key form). */
const SLUG_LOCK_CLASS = 0x736c7567

/** The parameters of a new post's statement (`insertPostSql`): values, or placeholders of the same names. */
interface InsertPostArgs {
  record: unknown
  title: unknown
  content: unknown
  excerpt: unknown
  checkSlug: unknown
  hierarchical: unknown
  termIds: unknown
  fallbackCategory: unknown
  guidPrefix: unknown
  outboxKey: unknown
  outboxEntry: unknown
}

type InsertedRow = { written: { id: number, slug: string, terms: PostTerm[] } | null }

/**
 * A new post's statement (`cms_insert_post`, its meta, the audit outbox's
 * row), with `a`'s values as its parameters, or its placeholders: either
 * way the same text, so the statement kept per store (`insertPost`, built
 * once) and one built per call (in a transaction, or with meta) share its
 * name on a connection.
 */
function insertPostSql (a: InsertPostArgs, metaPart: SQL): SQL {
  return sql`with w as (select cms_insert_post(${sql.param(a.record)}::jsonb || jsonb_strip_nulls(jsonb_build_object('title', ${sql.param(a.title)}::text, 'content', ${sql.param(a.content)}::text, 'excerpt', ${sql.param(a.excerpt)}::text)), ${SLUG_LOCK_CLASS}, ${sql.param(a.checkSlug)}, ${sql.param(a.hierarchical)},
      ${sql.param(a.termIds)}::int[], ${sql.param(a.fallbackCategory)}, ${sql.param(a.guidPrefix)}) as written),
    ${metaPart}
    ${outboxCte(a.outboxKey, a.outboxEntry)}
    select written from w`
}

/** {@link insertPostSql}'s parameters as placeholders of their own names. */
const INSERT_POST_PLACEHOLDERS = Object.fromEntries(
  ['record', 'title', 'content', 'excerpt', 'checkSlug', 'hierarchical', 'termIds', 'fallbackCategory', 'guidPrefix', 'outboxKey', 'outboxEntry']
    .map((name) => [name, sql.placeholder(name)])
) as unknown as InsertPostArgs

/** The terms a new post gets: ids checked to exist, the default category when no categories were given. */
export interface NewPostTerms { ids: readonly number[], fallbackCategory: number }

/** The posts table's columns, by property, in table order. */
const POST_COLUMNS = Object.entries(getTableColumns(posts))

/**
 * The columns a request may make megabytes long: sent to `cms_insert_post` as
 * text parameters of their own, merged into the record by the database. In
 * the record's JSON text a 1.9 MB content cost the request thread 20-44 ms:
 * JSON.stringify builds its answer in pieces, and the driver's UTF-8
 * encoding of a string in pieces joins them first; a string as it came back
 * from the text pool is encoded in a fraction of a millisecond (issue 27).
 */
const LONG_TEXT_COLUMNS = new Set(['title', 'content', 'excerpt'])

/**
 * Long texts' UTF-8 bytes made in the text pool (`textPool.filterWithUtf8`),
 * each with the text it is of: sent as the parameter when the row still
 * holds that very text (a `Utf8Text`: on pg those bytes, handed to the
 * socket as they are; PGlite is given the text), so a 1.9 MB content is
 * neither encoded nor copied on the request thread (one task of 10-20 ms of
 * CPU under load, issue 27).
 */
export type LongTextBytes = Partial<Record<'title' | 'content' | 'excerpt', { text: string, bytes: Buffer }>>

const longText = (row: PostRow, column: 'title' | 'content' | 'excerpt', utf8: LongTextBytes | undefined): string | Utf8Text | null => {
  const value = row[column]
  if (typeof value !== 'string') return null
  const made = utf8?.[column]
  return made !== undefined && made.text === value ? new Utf8Text(made.text, made.bytes) : value
}

/**
 * An update's long texts whose bytes were made with them (as `insertNewPost`
 * sends them): the columns to set to those bytes instead of the strings.
 */
export function longTextsSet (row: Partial<PostRow>, utf8: LongTextBytes | undefined): Partial<Record<'title' | 'content' | 'excerpt', SQL>> {
  const out: Partial<Record<'title' | 'content' | 'excerpt', SQL>> = {}
  for (const column of ['title', 'content', 'excerpt'] as const) {
    const made = utf8?.[column]
    if (made !== undefined && made.text === row[column]) out[column] = sql`${sql.param(new Utf8Text(made.text, made.bytes))}`
  }
  return out
}

/**
 * Writes a new post, its terms and their counts in one statement
 * (`cms_insert_post`, migrations 0006, 0016, 0017): on the store it is its
 * own transaction, in `tx` part of that one. With `checkSlug` it first takes
 * the slug's lock (as claimPostSlug) and, when the slug is reserved or
 * another post of the type (pages: under the same parent) has it, writes the
 * first free suffix as uniquePostSlug finds it (the answer's `slug`). The
 * row's id is used when not 0, else the sequence's next.
 */
export async function insertNewPost (
  db: Db, row: PostRow, opts: {
    terms?: NewPostTerms, checkSlug: boolean, hierarchical: boolean, guidPrefix: string, utf8?: LongTextBytes | undefined, meta?: Record<string, unknown> | undefined
  }
): Promise<{ id: number, slug: string, terms: PostTerm[] }> {
  const record: Record<string, unknown> = {}
  for (const [key, column] of POST_COLUMNS) {
    if (LONG_TEXT_COLUMNS.has(column.name)) continue
    const value = row[key as keyof PostRow]
    record[column.name] = value instanceof Date ? value.toISOString() : value
  }
  const t = opts.terms
  // On the store the statement is its own transaction: it carries the audit entry of the write in
  // progress (audit/outbox.ts), in the same statement; in a transaction, its commit carries it.
  const alone = !is(db, PgTransaction)
  const outbox = outboxPart(alone)
  const args: InsertPostArgs = {
    // A column left out (null) stays out of the record, as an undefined value left it out of the JSON.
    record: JSON.stringify(record),
    title: longText(row, 'title', opts.utf8),
    content: longText(row, 'content', opts.utf8),
    excerpt: longText(row, 'excerpt', opts.utf8),
    checkSlug: opts.checkSlug,
    hierarchical: opts.hierarchical,
    termIds: t === undefined ? null : [...t.ids],
    fallbackCategory: t?.fallbackCategory ?? 0,
    guidPrefix: opts.guidPrefix,
    outboxKey: outbox.key,
    outboxEntry: outbox.entry
  }
  // Its meta in the same statement: one named statement per number of keys, each value a parameter
  // of its own encoded by the column (as setMeta's insert sends it).
  const meta = Object.entries(opts.meta ?? {})
  if (meta.length > INSERT_META_KEYS) throw new RangeError(`insertNewPost: at most ${INSERT_META_KEYS} meta keys (setMeta for more)`)
  // Without meta, on the store (the usual create): the statement built once per store, sent with its parameters.
  const kept = meta.length === 0 ? statements(db)?.insertPost : undefined
  const rows = kept !== undefined
    ? await kept({ ...args })
    : await executeNamed<InsertedRow>(db, meta.length === 0 ? 'content_insert_post' : `content_insert_post_meta${meta.length}`,
      insertPostSql(args, meta.length === 0
        ? sql``
        : sql`meta as (insert into ${postMeta} (post_id, key, value) select (w.written->>'id')::int, x.key, x.value
      from w, (values ${sql.join(meta.map(([key, value]) => sql`(${key}::text, ${sql.param(value, postMeta.value)}::jsonb)`), sql`, `)}) as x (key, value)),`))
  const written = rows[0]?.written ?? undefined
  if (written === undefined) throw new Error('cms_insert_post answered nothing')
  outbox.done()
  return written
}

/**
 * The most meta keys insertNewPost writes in its statement (a statement
 * named per number of keys: at most this many prepared a connection). Meta
 * keys are those packages registered; a profile with the SEO package
 * writes a dozen or more on a create.
 */
export const INSERT_META_KEYS = 64

/** Whether making `parent` the parent of `id` would make a loop (`parent` is `id` or below it). */
export async function createsLoop (db: Db, id: number, parent: number): Promise<boolean> {
  if (id === parent) return true
  const rows = await dbOf(db).execute(sql`
    with recursive up(id, parent, depth) as (
      select id, parent, 0 from posts where id = ${parent}
      union all
      select p.id, p.parent, up.depth + 1 from posts p join up on p.id = up.parent where up.depth < 100
    )
    select 1 as hit from up where id = ${id} limit 1`)
  return (rows as unknown as { rows: unknown[] }).rows.length > 0
}

/** Deletes a post for good, with its revisions (meta and term links cascade). */
export async function deletePostFully (db: Queryable, post: PostRow): Promise<void> {
  const d = dbOf(db)
  const termIds = await termIdsOfPost(d, post.id)
  await d.delete(posts).where(and(eq(posts.type, 'revision'), eq(posts.parent, post.id)))
  await d.delete(posts).where(eq(posts.id, post.id))
  await recountTerms(d, termIds)
}

/** Sticky posts of a type, newest first. */
export async function stickyPostIds (db: Db, type: string): Promise<number[]> {
  const rows = await dbOf(db).select({ id: posts.id }).from(posts)
    .where(and(eq(posts.type, type), eq(posts.sticky, true)))
    .orderBy(desc(sql`coalesce(${posts.dateGmt}, ${posts.modifiedGmt})`), desc(posts.id))
  return rows.map((r) => r.id)
}

/** Every descendant of the given categories, the categories included. */
export async function withDescendants (db: Db, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return []
  const list = sql.join(ids.map((id) => sql`${id}`), sql`, `)
  const res = await dbOf(db).execute(sql`
    with recursive down(id, depth) as (
      select id, 0 from terms where id in (${list})
      union all
      select t.id, down.depth + 1 from terms t join down on t.parent = down.id where down.depth < 100
    )
    select distinct id from down`)
  const found = (res as unknown as { rows: Array<{ id: number }> }).rows.map((r) => Number(r.id))
  return [...new Set([...ids, ...found])]
}
