/**
 * Category and tag storage: lookups, unique slugs, the list query and the
 * clean-up a deleted term needs.
 */
import { and, asc, desc, eq, ilike, inArray, ne, or, sql, type SQL } from 'drizzle-orm'
import { dbOf, type Queryable, type Store } from '@cms/store'
import { posts, termRelationships, terms } from './schema.js'
import { recountTerms, termColumns, type TermRow } from './post-store.js'
import { checkSearchLength } from '../base/search-bound.js'
import { anyOf, noneOf } from './sql-lists.js'

type Db = Store | Queryable

export async function getTerm (db: Db, taxonomy: string, id: number): Promise<TermRow | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0 || id > 2147483647) return undefined
  const rows = await dbOf(db).select(termColumns).from(terms).where(and(eq(terms.id, id), eq(terms.taxonomy, taxonomy)))
  return rows[0]
}

/** A term of the taxonomy with the same name under the same parent (names compare without case). */
export async function findByName (db: Db, taxonomy: string, name: string, parent: number, exceptId = 0): Promise<TermRow | undefined> {
  const rows = await dbOf(db).select(termColumns).from(terms)
    .where(and(eq(terms.taxonomy, taxonomy), sql`lower(${terms.name}) = lower(${name})`, eq(terms.parent, parent), ne(terms.id, exceptId))).limit(1)
  return rows[0]
}

export async function slugTaken (db: Db, taxonomy: string, slug: string, exceptId = 0): Promise<boolean> {
  const rows = await dbOf(db).select({ id: terms.id }).from(terms).where(and(eq(terms.taxonomy, taxonomy), eq(terms.slug, slug), ne(terms.id, exceptId))).limit(1)
  return rows.length > 0
}

export async function uniqueTermSlug (db: Db, taxonomy: string, slug: string, exceptId = 0): Promise<string> {
  if (!(await slugTaken(db, taxonomy, slug, exceptId))) return slug
  for (let n = 2; ; n++) {
    const candidate = `${slug}-${n}`
    if (!(await slugTaken(db, taxonomy, candidate, exceptId))) return candidate
  }
}

/** Whether making `parent` the parent of `id` would close a loop. */
export async function termLoop (db: Db, id: number, parent: number): Promise<boolean> {
  if (id === parent) return true
  const res = await dbOf(db).execute(sql`
    with recursive up(id, parent, depth) as (
      select id, parent, 0 from terms where id = ${parent}
      union all
      select t.id, t.parent, up.depth + 1 from terms t join up on t.id = up.parent where up.depth < 100
    )
    select 1 as hit from up where id = ${id} limit 1`)
  return (res as unknown as { rows: unknown[] }).rows.length > 0
}

export interface TermQuery {
  /** One taxonomy, or several (the search route). */
  taxonomy: string | readonly string[]
  search?: string
  include: number[]
  exclude: number[]
  slugs?: string[]
  parent?: number
  post?: number
  hideEmpty: boolean
  orderby: string
  order: 'asc' | 'desc'
  perPage: number
  page: number
  offset?: number
  /** Only terms with a larger id (keyset walk). */
  idAfterTerm?: number
}

export async function listTerms (db: Db, q: TermQuery): Promise<{ rows: TermRow[], total: number }> {
  checkSearchLength(q.search)
  const d = dbOf(db)
  const c: SQL[] = [typeof q.taxonomy === 'string' ? eq(terms.taxonomy, q.taxonomy) : inArray(terms.taxonomy, [...q.taxonomy])]
  if (q.search !== undefined && q.search !== '') {
    const pattern = `%${q.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
    c.push(or(ilike(terms.name, pattern), ilike(terms.slug, pattern))!)
  }
  if (q.include.length > 0) c.push(anyOf(terms.id, q.include, 'int'))
  if (q.idAfterTerm !== undefined) c.push(sql`${terms.id} > ${q.idAfterTerm}`)
  if (q.exclude.length > 0) c.push(noneOf(terms.id, q.exclude, 'int'))
  if (q.slugs !== undefined && q.slugs.length > 0) c.push(anyOf(terms.slug, q.slugs, 'text'))
  if (q.parent !== undefined) c.push(eq(terms.parent, q.parent))
  if (q.post !== undefined) c.push(sql`${terms.id} in (select term_id from ${termRelationships} where post_id = ${q.post})`)
  if (q.hideEmpty) c.push(sql`${termColumns.count} > 0`)
  const where = and(...c)!
  const dir = q.order === 'desc' ? desc : asc
  let order: SQL[]
  switch (q.orderby) {
    case 'id': case 'term_group': order = [dir(terms.id)]; break
    case 'slug': order = [dir(terms.slug), dir(terms.id)]; break
    case 'description': order = [dir(terms.description), dir(terms.id)]; break
    case 'count': order = [dir(termColumns.count), dir(terms.id)]; break
    case 'include':
      order = q.include.length > 0 ? [sql.raw(`array_position(ARRAY[${q.include.map((n) => String(Math.trunc(n))).join(',')}]::int[], "terms"."id")`)] : [dir(terms.name), dir(terms.id)]
      break
    case 'include_slugs':
      order = q.slugs !== undefined && q.slugs.length > 0
        ? [sql`array_position(ARRAY[${sql.join(q.slugs.map((s) => sql`${s}`), sql`, `)}]::text[], ${terms.slug})`]
        : [dir(terms.name), dir(terms.id)]
      break
    default: order = [dir(sql`lower(${terms.name})`), dir(terms.id)]
  }
  const offset = q.offset ?? (q.page - 1) * q.perPage
  const [rows, count] = await Promise.all([
    d.select(termColumns).from(terms).where(where).orderBy(...order).limit(q.perPage).offset(Math.max(0, offset)),
    d.select({ n: sql<number>`count(*)::int` }).from(terms).where(where)
  ])
  return { rows, total: Number(count[0]?.n ?? 0) }
}

/**
 * Deletes a term: its children move up to its parent, and posts left with
 * no category get the default one.
 */
export async function deleteTerm (db: Queryable, term: TermRow, defaultCategory: number): Promise<void> {
  const d = dbOf(db)
  const postIds = (await d.select({ id: termRelationships.postId }).from(termRelationships).where(eq(termRelationships.termId, term.id))).map((r) => r.id)
  await d.update(terms).set({ parent: term.parent }).where(and(eq(terms.parent, term.id), eq(terms.taxonomy, term.taxonomy)))
  await d.delete(terms).where(eq(terms.id, term.id))
  if (term.taxonomy === 'category' && postIds.length > 0 && defaultCategory !== term.id) {
    const orphans = await d.select({ id: posts.id }).from(posts).where(and(
      inArray(posts.id, postIds),
      eq(posts.type, 'post'),
      sql`not exists (select 1 from ${termRelationships} tr join ${terms} t on t.id = tr.term_id where tr.post_id = ${posts.id} and t.taxonomy = 'category')`
    ))
    const fallback = await getTerm(d, 'category', defaultCategory)
    if (fallback !== undefined && orphans.length > 0) {
      await d.insert(termRelationships).values(orphans.map((o) => ({ postId: o.id, termId: fallback.id }))).onConflictDoNothing()
      await recountTerms(d, [fallback.id])
    }
  }
}
