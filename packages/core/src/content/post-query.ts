/**
 * The list query of posts, pages and revisions: the readability rule, every
 * filter of the collection parameters, the orderings, and the total before
 * paging.
 */
import { and, is, not, or, Placeholder, sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import type { Principal } from '@cms/rest'
import { PgDialect } from 'drizzle-orm/pg-core'
import { dbOf, prepareShaped, type Queryable, type Store } from '@cms/store'
import { canEdit, canRead } from './post-format.js'
import { LIST_STATUSES } from './post-types.js'
import { postMeta, posts, termRelationships, terms } from './schema.js'
import { extrasOf, termCountOf, type PostExtrasRow, type PostRow, type TermRow } from './post-store.js'
import { ATTACHMENT_META } from './post-types.js'
import { checkSearchLength } from '../base/search-bound.js'

/**
 * How a filter's value goes into a statement: as a parameter of this
 * statement alone ({@link asParam}), or as a placeholder whose value each
 * run gives ({@link Bound}), so that one built statement serves every value.
 * A `telling` value is one whose rarity decides the best plan (an author,
 * a term, sticky, a parent): see {@link Bound}.
 */
type Bind = (value: unknown, telling?: boolean) => SQL

/** The value as a parameter of the statement (an array as one array parameter). */
const asParam: Bind = (value) => sql`${sql.param(value)}`

/**
 * The values of a statement built with placeholders, by name (`v0`, `v1`,
 * … in the order bound): what each run of the kept statement is given.
 *
 * A telling value (integers or a boolean) is written into the text instead:
 * a named statement gets PostgreSQL's generic plan after five runs, which
 * cannot tell a rare author or term from a common one, and for a page in
 * date order it walks the date index filtering every post (an empty
 * category: 2,045 buffers for 1,000 posts, against 1 with the value seen).
 * With the value in the text each value is a statement of its own, planned
 * for it (a site has few authors and terms). An excluded or included id, a
 * status, a date or a search word is a placeholder: their generic plans are
 * those of their values (docs/benchmarks.md, issue 35).
 */
class Bound {
  readonly values: Record<string, unknown> = {}
  private n = 0
  readonly bind: Bind = (value, telling) => {
    if (telling === true) {
      const written = literal(value)
      if (written !== undefined) return written
    }
    const name = `v${this.n++}`
    this.values[name] = value
    return sql`${sql.placeholder(name)}`
  }
}

/** An integer, a list of integers (`'{1,2}'`, cast by its user) or a boolean as SQL text; undefined for any other value. */
function literal (value: unknown): SQL | undefined {
  if (typeof value === 'boolean') return sql.raw(String(value))
  if (Number.isSafeInteger(value)) return sql.raw(String(value))
  if (Array.isArray(value) && value.every((n) => Number.isSafeInteger(n))) return sql.raw(`'{${value.join(',')}}'`)
  return undefined
}

/**
 * `column in (a, b)` as drizzle's `inArray` writes it (the same text, so
 * the same plans), each value bound by `bind`. Never given an empty list.
 */
function inList (column: SQLWrapper, values: readonly unknown[], bind: Bind): SQL {
  return sql`${column} in (${sql.join(values.map((value) => bind(value)), sql`, `)})`
}

/**
 * `column = any(values)`: a list a request names as one array parameter
 * (sql-lists.ts: one parameter however many values, never an empty list,
 * never a null in it), bound by `bind`.
 */
function anyIn (column: SQLWrapper, values: readonly number[] | readonly string[], type: 'int' | 'text', bind: Bind, telling = false): SQL {
  return sql`${column} = any(${bind([...values], telling)}::${sql.raw(type)}[])`
}

/**
 * Which rows of one post type a caller may see, as data: it is part of the
 * key of cached totals, so callers with the same rights share them.
 */
export interface ReadRule {
  type: string
  /** Statuses seen whoever the author is. */
  any: string[]
  /** Statuses seen on the caller's own posts only. */
  own: string[]
  /** The caller when `own` is not empty, else 0. */
  userId: number
}

/** Every status a stored row may have; a row of any other status is readable by nobody. */
const STORED_STATUSES = LIST_STATUSES.filter((s) => s !== 'any')

/**
 * The readability rule of lists: the statuses of `type` the caller may read
 * (`'read'`) or edit (`'edit'`), asked of the same capability checks as a
 * single post's read, for another author's post and for the caller's own.
 * Lists filter with it in SQL, so totals, pages and ordering never count a
 * row the caller may not read (a contributor without `read_private_posts`
 * sees no other author's private posts, drafts, pending or future posts).
 */
export function readRule (user: Principal, type: string, purpose: 'read' | 'edit' = 'read'): ReadRule {
  const may = (status: string, author: number): boolean => {
    const post = { type, author, status }
    return canRead(user, post) && (purpose === 'read' || canEdit(user, post))
  }
  // -1 is nobody's id: the answer for any other author.
  const any = STORED_STATUSES.filter((s) => may(s, -1))
  const own = user.id === 0 ? [] : STORED_STATUSES.filter((s) => !any.includes(s) && may(s, user.id))
  return { type, any, own, userId: own.length === 0 ? 0 : user.id }
}

/** The rule as a condition on `posts` (it includes the type), its values bound by `bind` (parameters by default). */
export function readableWhere (rule: ReadRule, bind: Bind = asParam): SQL {
  const allowed: SQL[] = []
  if (rule.any.length > 0) allowed.push(inList(posts.status, rule.any, bind))
  if (rule.own.length > 0) allowed.push(and(sql`${posts.author} = ${bind(rule.userId)}`, inList(posts.status, rule.own, bind))!)
  return and(sql`${posts.type} = ${bind(rule.type)}`, allowed.length === 0 ? sql`false` : or(...allowed))!
}

/**
 * Where a password-protected post's content and excerpt may take part in a
 * search: the post is not protected, or the caller may edit it (its
 * readers see that text only with the password).
 */
function protectedTextGuard (editable: ReadRule[], bind: Bind): SQL {
  return or(sql`${posts.password} = ''`, ...editable.map((rule) => readableWhere(rule, bind)))!
}

export interface TaxClause {
  termIds: number[]
  operator: 'IN' | 'AND' | 'NOT IN'
}

export interface ListQuery {
  /** One type, or several (the search route). */
  type: string | readonly string[]
  parentOf?: number
  statuses: string[]
  search?: string
  searchColumns: string[]
  exact: boolean
  /** Anonymous searches skip password-protected posts. */
  hideProtected: boolean
  /**
   * The rows the caller may see (`readRule`); null only where the route's
   * permission admits every row the other filters leave (the revisions of a
   * post the caller may edit).
   */
  readable: ReadRule | readonly ReadRule[] | null
  /** Posts whose protected content and excerpt a search may match (`readRule(user, type, 'edit')`); null: every post. */
  searchable: ReadRule | readonly ReadRule[] | null
  after?: Date
  before?: Date
  modifiedAfter?: Date
  /** Only posts with a larger id (a package walking every post in id order, a batch at a time). */
  idAfter?: number
  modifiedBefore?: Date
  author: number[]
  authorExclude: number[]
  include: number[]
  exclude: number[]
  slugs?: string[]
  menuOrder?: number
  parent: number[]
  parentExclude: number[]
  /** true: only sticky posts; false: no sticky posts. */
  sticky?: boolean
  formats?: string[]
  /** Attachments whose MIME type is one of these (`image/png`) or starts with one ending in `/` (`image/`). */
  mimeTypes?: string[]
  tax: TaxClause[]
  taxRelation: 'AND' | 'OR'
  /** Posts whose meta `key` is (`equals`) or is not (`notEquals`, a missing key included) a value, or has the key at all. */
  meta?: MetaClause[]
  orderby: string
  order: 'asc' | 'desc'
  /** Undefined: every row. */
  perPage?: number
  page: number
  offset?: number
}

export interface MetaClause { key: string, equals?: unknown, notEquals?: unknown }

function metaCondition (m: MetaClause, bind: Bind): SQL {
  const has = (value?: unknown): SQL => sql`exists (select 1 from post_meta pm where pm.post_id = ${posts.id} and pm.key = ${bind(m.key)}${value === undefined ? sql`` : sql` and pm.value = ${bind(JSON.stringify(value))}::jsonb`})`
  if (m.notEquals !== undefined) return not(has(m.notEquals))
  return has(m.equals)
}

const STOPWORDS = new Set(['about', 'an', 'are', 'as', 'at', 'be', 'by', 'com', 'for', 'from', 'how', 'in', 'is', 'it', 'of', 'on', 'or', 'that', 'the', 'this', 'to', 'was', 'what', 'when', 'where', 'who', 'will', 'with', 'www'])

/** Search words: quoted phrases kept, split on spaces, commas and `+`; stopwords and single letters dropped. */
export function searchTerms (search: string): string[] {
  const matches = search.match(/".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/g) ?? []
  const terms: string[] = []
  for (let term of matches) {
    term = /^".+"$/.test(term) ? term.replace(/^["']+|["']+$/g, '') : term.replace(/^["' ]+|["' ]+$/g, '')
    if (term === '' || (term.length === 1 && /^[a-z-]$/i.test(term))) continue
    if (STOPWORDS.has(term.toLowerCase())) continue
    terms.push(term)
  }
  return terms.length === 0 || terms.length > 9 ? [search] : terms
}

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`)

const COLUMNS: Record<string, SQL> = {
  post_title: sql`${posts.title}`,
  post_excerpt: sql`${posts.excerpt}`,
  post_content: sql`${posts.content}`
}

/** Columns that hold what a password protects. */
const PROTECTED_COLUMNS = new Set(['post_excerpt', 'post_content'])

/**
 * The search of a list: every word in one of the columns, `-word` in none.
 * Where `guard` is false (protected text the caller may not edit), content
 * and excerpt count as empty: they neither match nor exclude.
 */
function searchMatch (search: string, opts: { columns?: string[], exact?: boolean, guard?: SQL }, bind: Bind): SQL {
  const names = opts.columns === undefined || opts.columns.length === 0 ? ['post_title', 'post_excerpt', 'post_content'] : opts.columns
  const parts: SQL[] = []
  for (let term of searchTerms(search)) {
    const exclude = term.startsWith('-') && term.length > 1
    if (exclude) term = term.slice(1)
    const pattern = bind(opts.exact === true ? escapeLike(term) : `%${escapeLike(term)}%`)
    const matches = names.map((name) => {
      const match = sql`${COLUMNS[name]!} ilike ${pattern}`
      return opts.guard !== undefined && PROTECTED_COLUMNS.has(name) ? and(opts.guard, match)! : match
    })
    parts.push(exclude ? not(or(...matches)!) : or(...matches)!)
  }
  return and(...parts)!
}

function guardOf (q: ListQuery, bind: Bind): SQL | undefined {
  return q.searchable === null ? undefined : protectedTextGuard(rulesOf(q.searchable), bind)
}

function rulesOf (rule: ReadRule | readonly ReadRule[]): ReadRule[] {
  return Array.isArray(rule) ? [...rule] : [rule as ReadRule]
}

function searchCondition (q: ListQuery, bind: Bind): SQL | undefined {
  if (q.search === undefined || q.search === '') return undefined
  const match = searchMatch(q.search, { columns: q.searchColumns, exact: q.exact, guard: guardOf(q, bind) }, bind)
  return q.hideProtected ? and(match, sql`${posts.password} = ''`) : match
}

const effectiveDate = sql`coalesce(${posts.dateGmt}, ${posts.modifiedGmt})`

function taxCondition (c: TaxClause, bind: Bind): SQL {
  const listed = anyIn(sql.raw('term_id'), c.termIds, 'int', bind, true)
  if (c.operator === 'IN') return sql`${posts.id} in (select post_id from term_relationships where ${listed})`
  if (c.operator === 'NOT IN') return sql`${posts.id} not in (select post_id from term_relationships where ${listed})`
  // AND: every listed term must be there.
  return and(...c.termIds.map((id) => sql`exists (select 1 from term_relationships tr where tr.post_id = ${posts.id} and tr.term_id = ${bind(id, true)})`))!
}

/**
 * Whether the statuses asked for are all readable whoever the author is
 * (`published` for anyone): the readability rule then adds nothing, and
 * leaving it out spares PostgreSQL planning a dozen redundant conditions.
 */
function impliedByStatuses (q: ListQuery): boolean {
  if (q.statuses.length === 0 || q.readable === null) return false
  const rules = rulesOf(q.readable)
  return rules.length === 1 && rules[0]!.type === q.type && q.statuses.every((s) => rules[0]!.any.includes(s))
}

/** The filter of a list query as a condition on `posts`, each value bound by `bind`. */
function whereOf (q: ListQuery, bind: Bind): SQL {
  const c: Array<SQL | undefined> = [typeof q.type === 'string' ? sql`${posts.type} = ${bind(q.type)}` : inList(posts.type, q.type as readonly string[], bind)]
  if (q.readable !== null && !impliedByStatuses(q)) c.push(or(...rulesOf(q.readable).map((rule) => readableWhere(rule, bind))) ?? sql`false`)
  if (q.parentOf !== undefined) c.push(sql`${posts.parent} = ${bind(q.parentOf)}`)
  if (q.statuses.length > 0) c.push(inList(posts.status, q.statuses, bind))
  c.push(searchCondition(q, bind))
  if (q.after !== undefined) c.push(sql`${effectiveDate} > ${bind(q.after)}`)
  if (q.before !== undefined) c.push(sql`${effectiveDate} < ${bind(q.before)}`)
  if (q.modifiedAfter !== undefined) c.push(sql`${posts.modifiedGmt} > ${bind(q.modifiedAfter)}`)
  if (q.modifiedBefore !== undefined) c.push(sql`${posts.modifiedGmt} < ${bind(q.modifiedBefore)}`)
  if (q.author.length > 0) c.push(anyIn(posts.author, q.author, 'int', bind, true))
  if (q.authorExclude.length > 0) c.push(sql`not (${anyIn(posts.author, q.authorExclude, 'int', bind)})`)
  if (q.idAfter !== undefined) c.push(sql`${posts.id} > ${bind(q.idAfter)}`)
  if (q.include.length > 0) c.push(anyIn(posts.id, q.include, 'int', bind))
  if (q.exclude.length > 0) c.push(sql`not (${anyIn(posts.id, q.exclude, 'int', bind)})`)
  if (q.slugs !== undefined && q.slugs.length > 0) c.push(anyIn(posts.slug, q.slugs, 'text', bind))
  if (q.menuOrder !== undefined) c.push(sql`${posts.menuOrder} = ${bind(q.menuOrder, true)}`)
  if (q.parent.length > 0) c.push(anyIn(posts.parent, q.parent, 'int', bind, true))
  if (q.parentExclude.length > 0) c.push(sql`not (${anyIn(posts.parent, q.parentExclude, 'int', bind)})`)
  if (q.sticky !== undefined) c.push(sql`${posts.sticky} = ${bind(q.sticky, true)}`)
  if (q.formats !== undefined && q.formats.length > 0) c.push(inList(posts.format, q.formats, bind))
  if (q.mimeTypes !== undefined && q.mimeTypes.length > 0) {
    const patterns = q.mimeTypes.map((m) => m.endsWith('/') ? `${escapeLike(m)}%` : escapeLike(m))
    c.push(sql`exists (select 1 from post_meta m where m.post_id = ${posts.id} and m.key = ${bind(ATTACHMENT_META.mime)}
      and (m.value #>> '{}') like any(${bind(patterns)}::text[]))`)
  }
  for (const m of q.meta ?? []) c.push(metaCondition(m, bind))
  if (q.tax.length > 0) {
    const clauses = q.tax.map((clause) => taxCondition(clause, bind))
    c.push(q.taxRelation === 'OR' ? or(...clauses) : and(...clauses))
  }
  return and(...c.filter((x): x is SQL => x !== undefined))!
}

function orderOf (q: ListQuery, bind: Bind): SQL[] {
  const dir = q.order === 'asc' ? sql`asc` : sql`desc`
  const by = (expr: SQL): SQL[] => [sql`${expr} ${dir}`, sql`${posts.id} ${dir}`]
  switch (q.orderby) {
    case 'author': return by(sql`${posts.author}`)
    case 'id': return [sql`${posts.id} ${dir}`]
    case 'modified': return by(sql`${posts.modifiedGmt}`)
    case 'parent': return by(sql`${posts.parent}`)
    case 'slug': return by(sql`${posts.slug}`)
    case 'title': return by(sql`lower(${posts.title})`)
    case 'menu_order': return by(sql`${posts.menuOrder}`)
    case 'include':
      if (q.include.length > 0) return [sql`array_position(${bind([...q.include])}::int[], ${posts.id})`]
      break
    case 'include_slugs':
      if (q.slugs !== undefined && q.slugs.length > 0) return [sql`array_position(${bind([...q.slugs])}::text[], ${posts.slug})`, sql`${posts.id} desc`]
      break
    case 'relevance':
      if (q.search !== undefined && q.search !== '') return relevance(q, bind)
      break
  }
  return by(effectiveDate)
}

/** Whole phrase in the title first, then all words, any word, phrase in excerpt, phrase in content. */
function relevance (q: ListQuery, bind: Bind): SQL[] {
  const search = q.search!
  const phrase = bind(`%${escapeLike(search)}%`)
  const terms = searchTerms(search).filter((t) => !t.startsWith('-')).map((t) => bind(`%${escapeLike(t)}%`))
  const cases: SQL[] = [sql`when ${posts.title} ilike ${phrase} then 1`]
  if (terms.length > 1) {
    cases.push(sql`when ${and(...terms.map((t) => sql`${posts.title} ilike ${t}`))} then 2`)
    cases.push(sql`when ${or(...terms.map((t) => sql`${posts.title} ilike ${t}`))} then 3`)
  }
  // Protected text the caller may not edit ranks nothing (the order would reveal it).
  const guard = guardOf(q, bind)
  const guarded = (match: SQL): SQL => guard === undefined ? match : and(guard, match)!
  cases.push(sql`when ${guarded(sql`${posts.excerpt} ilike ${phrase}`)} then 4`)
  cases.push(sql`when ${guarded(sql`${posts.content} ilike ${phrase}`)} then 5`)
  return [sql`case ${sql.join(cases, sql` `)} else 6 end asc`, sql`${effectiveDate} desc`, sql`${posts.id} desc`]
}

/**
 * Totals are exact while the matches end at most this many rows past the
 * requested page; beyond that they are the planner's estimate, so a page of
 * a million posts costs what a page of a thousand does.
 */
export const EXACT_TOTAL_MARGIN = 1000

/** A total known for a filter: exact, or an estimate known to exceed `cap`. */
export interface KnownTotal { total: number, exact: boolean, cap: number }

/** Where totals of filters are kept between requests (read requests reuse them while nothing is committed). */
export interface TotalCache {
  get: (key: string) => Promise<KnownTotal | undefined>
  set: (key: string, total: KnownTotal) => Promise<void>
}

/** The filter of a query, as a key: what its total depends on. */
function filterKey (q: ListQuery): string {
  return JSON.stringify({ ...q, orderby: undefined, order: undefined, perPage: undefined, page: undefined, offset: undefined })
}

/**
 * The matches of a filter counted up to the `cap` placeholder's value (the
 * cap plus one). They are planned as if all were wanted (a materialized CTE
 * does not see the limit), then read until the cap: a LIMIT seen by the
 * planner invites a scan that expects to stop early, which reads the whole
 * table when the matches are rare (a rare word).
 */
function cappedCount (where: SQL): SQL<number> {
  return sql<number>`(select count(*)::int from (
    with matches as materialized (select 1 from ${posts} where ${where}) select 1 from matches limit ${sql.placeholder('cap')}) capped)`.mapWith(Number)
}

/**
 * The statements of one query, built once per shape: the filter and the
 * ordering are written with placeholders (`v0`, `v1`, … as bound), so a
 * query that differs from an earlier one only in its values (another
 * excluded id, another author, another search word) runs the statement
 * built for that one with its own values, on PostgreSQL under the same
 * name (parsed and planned once per connection). Before, each new value
 * had drizzle build the statement again: for a page with its extras, more
 * of the gateway's CPU than PostgreSQL's execution (issue 35, `list-unseen`).
 */
interface Shape {
  /**
   * The text of the filter and the ordering with their placeholders' names
   * in order: what the statements of this query are kept by. Undefined when
   * a value went in as anything but a placeholder: then no statement of
   * this query is kept (its value would be kept with it).
   */
  key: string | undefined
  /** The placeholders' values. */
  values: Record<string, unknown>
}

/** A dialect for the shapes' keys alone (the statements are built by the database's own). */
const keyDialect = new PgDialect({ casing: 'snake_case' })

/** Shapes by query (filter and ordering with their values), so a query asked again is not even walked; past the limit the oldest goes. */
const shapes = new Map<string, Shape>()
const SHAPES_LIMIT = 512

function shapeOf (q: ListQuery, key: string): Shape {
  let shape = shapes.get(key)
  if (shape !== undefined) return shape
  const bound = new Bound()
  const { sql: text, params } = keyDialect.sqlToQuery(sql`${whereOf(q, bound.bind)} order by ${sql.join(orderOf(q, bound.bind), sql`, `)}`)
  // Only a text whose every value is a placeholder may serve other values.
  const names = params.every((p) => is(p, Placeholder)) ? (params as Placeholder[]).map((p) => p.name).join(',') : undefined
  shape = { key: names === undefined ? undefined : `${text}\0${names}`, values: bound.values }
  if (shapes.size >= SHAPES_LIMIT) shapes.delete(shapes.keys().next().value!)
  shapes.set(key, shape)
  return shape
}

/** A statement that may be prepared (a drizzle query): what {@link kept} keeps. */
type Preparable<T> = Parameters<typeof prepareShaped<T>>[0]

/**
 * The statement of `kind` for the query's shape, built by `build` from the
 * filter and the ordering with placeholders the first time and kept
 * (`builtPage`); run with the shape's values and `more` (the named
 * placeholders of the kind: `cap`, `offset`...). `named`: under a name on
 * PostgreSQL (see `inline`); else parsed and planned with its values each
 * run. `kind` holds whatever else its text is built from (page size,
 * offset when written in the text).
 */
async function kept<T> (d: ReturnType<typeof dbOf>, q: ListQuery, shape: Shape, kind: string, named: boolean, more: Record<string, unknown>, build: (where: SQL, order: SQL[]) => Preparable<T>): Promise<T> {
  const make = (): { execute: (values?: Record<string, unknown>) => Promise<T> } => {
    const bound = new Bound()
    return prepareShaped(build(whereOf(q, bound.bind), orderOf(q, bound.bind)), 'content_list', { named })
  }
  const statement = shape.key === undefined ? make() : builtPage(d, `${kind}\0${named ? 'named' : ''}\0${shape.key}`, make)
  return await statement.execute({ ...shape.values, ...more })
}

async function totalOf (d: ReturnType<typeof dbOf>, q: ListQuery, shape: Shape, cap: number, key: string, counted?: number): Promise<KnownTotal> {
  const n = counted ?? Number((await kept(d, q, shape, 'count', false, { cap: cap + 1 }, (where) => d.select({ n: cappedCount(where) }).from(sql`(values (1)) as one (x)`)))[0]?.n ?? 0)
  return n <= cap ? { total: n, exact: true, cap } : { total: Math.max(n, await estimatedRows(d, () => whereOf(q, asParam), key)), exact: false, cap }
}

/**
 * A page size written into the statement's text: with the limit a parameter,
 * PostgreSQL's generic plan assumes a tenth of the rows are wanted and is
 * never chosen, so a named statement would still be planned on every call.
 * (An integer drizzle writes as is; the type claims a number, which is what
 * `limit` takes.)
 */
function inline (n: number): number {
  return sql.raw(String(Math.trunc(n))) as unknown as number
}

/** Searches matching at most this many posts read their page from the matches' ids (see runListQuery). */
const FEW_MATCHES = EXACT_TOTAL_MARGIN

/** Later pages up to this one are named statements of their own (their offset in the text, as the limit is). */
const NAMED_PAGES = 10

/**
 * The page of a list query and its total. With `withExtras`, a page outside
 * searches brings each row's extras (meta, terms, revision stats) in the
 * same statement, and its total when it is not known yet: the whole page is
 * then one named statement.
 *
 * Every statement is built once per shape of the query (`kept`). Named, so
 * planned once per connection and then by PostgreSQL's generic plan: the
 * pages outside searches up to {@link NAMED_PAGES}, their limit and offset
 * written in the text. A search's statements, deeper pages and the rare
 * ones (every row, a count alone) run unnamed, planned with their values:
 * whether a word is rare decides a search's best plan.
 */
export async function runListQuery (db: Store | Queryable, q: ListQuery, totals?: TotalCache, withExtras = false): Promise<{ rows: PostRow[], total: number, extras?: Map<number, PostExtrasRow> }> {
  checkSearchLength(q.search)
  const d = dbOf(db)
  const key = filterKey(q)
  const shape = shapeOf(q, `${q.orderby}\0${q.order}\0${key}`)
  if (q.perPage === undefined) {
    const rows = await kept(d, q, shape, 'all', false, {}, (where, order) => d.select().from(posts).where(where).orderBy(...order))
    return { rows, total: rows.length }
  }
  const perPage = q.perPage
  const offset = Math.max(0, q.offset ?? (q.page - 1) * perPage)
  const cap = offset + perPage + EXACT_TOTAL_MARGIN
  let known = await totals?.get(key)
  if (known !== undefined && !known.exact && cap > known.cap) known = undefined
  // A search is counted first. The planner cannot tell a rare word from a common one, and
  // for a page in date order it may walk the date index hoping to meet ten matches soon; a
  // word in one post of a thousand makes that walk long. With few matches, their ids are
  // sorted (no limit: planned as if all were wanted), and the page's slice of them is read.
  const searching = q.search !== undefined && q.search !== ''
  if (searching && known === undefined) {
    known = await totalOf(d, q, shape, cap, key)
    await totals?.set(key, known)
  }
  // A page outside searches up to NAMED_PAGES: a named statement, its limit and offset in the text
  // (see `inline`); past it the offset is a placeholder and the statement runs unnamed (a crawler
  // walking every page must not name a shape per page).
  const named = !searching && offset <= perPage * NAMED_PAGES
  const paged = `${perPage}\0${named ? offset : ''}`
  const more = named ? {} : { offset }
  const withPage = withExtras && !searching
  if (known !== undefined) {
    if (searching && known.exact && known.total <= FEW_MATCHES) {
      const rows = await kept(d, q, shape, `few\0${perPage}`, false, { from: offset + 1, to: offset + perPage }, (where, order) => {
        const ids = sql`(array(select ${posts.id} from ${posts} where ${where} order by ${sql.join(order, sql`, `)}))[${sql.placeholder('from')}:${sql.placeholder('to')}]`
        return d.select().from(posts).where(sql`${posts.id} = any(${ids})`).orderBy(...order).limit(inline(perPage))
      })
      return { rows, total: known.total }
    }
    if (withPage) {
      const page = await kept(d, q, shape, `page\0${paged}`, named, more, (where, order) => pageWithExtras(d, where, order, perPage, named ? offset : undefined))
      return { rows: page.map((r) => r.post), total: known.total, extras: new Map(page.map((r) => [r.post.id, extrasOf(r)])) }
    }
    const rows = await kept(d, q, shape, `rows\0${paged}`, named, more, (where, order) => {
      const first = d.select().from(posts).where(where).orderBy(...order).limit(inline(perPage))
      return named ? (offset === 0 ? first : first.offset(inline(offset))) : first.offset(sql.placeholder('offset'))
    })
    return { rows, total: known.total }
  }
  if (withPage) {
    const page = await kept(d, q, shape, `counted\0${paged}`, named, { ...more, cap: cap + 1 }, (where, order) => pageWithExtras(d, where, order, perPage, named ? offset : undefined, cappedCount(where)))
    if (page.length === 0 && offset === 0) return { rows: [], total: 0 }
    // Past the end, no row carries the count.
    const found = await totalOf(d, q, shape, cap, key, page[0]?.counted ?? undefined)
    await totals?.set(key, found)
    return { rows: page.map((r) => r.post), total: found.total, extras: new Map(page.map((r) => [r.post.id, extrasOf(r)])) }
  }
  // The page and the (capped) count in one statement.
  const page = await kept(d, q, shape, `rows-counted\0${paged}`, named, { ...more, cap: cap + 1 }, (where, order) => {
    const first = d.select({ post: posts, counted: cappedCount(where) }).from(posts).where(where).orderBy(...order).limit(inline(perPage))
    return named ? (offset === 0 ? first : first.offset(inline(offset))) : first.offset(sql.placeholder('offset'))
  })
  const rows = page.map((r) => r.post)
  if (rows.length === 0 && offset === 0) return { rows, total: 0 }
  // Past the end, no row carries the count.
  const found = await totalOf(d, q, shape, cap, key, rows.length > 0 ? page[0]!.counted : undefined)
  await totals?.set(key, found)
  return { rows, total: found.total }
}

/**
 * A page with its rows' extras (as post-store's `extrasColumns`): the
 * page's ids in order (once, a CTE), then the rows and their extras in that
 * order; with `counted`, that count in every row. Each kind of extra is read
 * for the whole page at once, grouped by post (`= any(array(select id from page))`),
 * not by a subplan per post and kind: 4 scans a page instead of 40 (measured
 * in docs/benchmarks.md); revisions by a lateral index scan per post. The
 * offset is written in the text (see `inline`), or without one the
 * `offset` placeholder.
 */
function pageWithExtras (d: ReturnType<typeof dbOf>, where: SQL, order: SQL[], perPage: number, offset: number | undefined, counted?: SQL<number>) {
  const first = d.select({ id: posts.id }).from(posts).where(where).orderBy(...order).limit(inline(perPage))
  const ids = offset === 0 ? first : first.offset(offset === undefined ? sql.placeholder('offset') : inline(offset))
  const page = d.$with('page').as(d.select({ id: sql<number>`u.id`.as('id'), n: sql<number>`u.n`.as('n') })
    .from(sql`unnest(array(${ids})) with ordinality as u (id, n)`))
  return d.with(page).select({
    post: posts,
    meta: sql<Record<string, unknown> | null>`pm.meta`,
    terms: sql<TermRow[] | null>`pt.terms`,
    revisions: sql<number>`coalesce(pr.revisions, 0)`,
    latest: sql<number | null>`pr.latest`,
    counted: counted ?? sql<number | null>`null::int`
  })
    .from(page)
    .innerJoin(posts, sql`${posts.id} = page.id and ${posts.id} = any(array(select id from page))`)
    .leftJoin(sql`(select m.post_id, json_object_agg(m.key, m.value) as meta from ${postMeta} m
      where m.post_id = any(array(select id from page)) group by m.post_id) pm`, sql`pm.post_id = page.id`)
    .leftJoin(sql`(select tr.post_id, json_agg(json_build_object('id', t.id, 'taxonomy', t.taxonomy, 'name', t.name, 'slug', t.slug,
      'description', t.description, 'parent', t.parent, 'count', ${termCountOf('t')}) order by t.name, t.id) as terms
      from ${termRelationships} tr join ${terms} t on t.id = tr.term_id
      where tr.post_id = any(array(select id from page)) group by tr.post_id) pt`, sql`pt.post_id = page.id`)
    // Revisions a post at a time (an index scan of its own revisions): grouped for the page, the planner put the
    // grouping inside a nested loop and read every post's revisions once per post (200 of a page's 268 buffers).
    .leftJoin(sql`lateral (select count(*)::int as revisions, (array_agg(r.id order by r.date_gmt desc, r.id desc))[1] as latest
      from ${posts} r where r.type = 'revision' and r.parent = page.id) pr`, sql`true`)
    .orderBy(sql`page.n`)
}

/** A statement kept by {@link builtPage}: run with its placeholders' values. */
interface Built<T> { execute: (values?: Record<string, unknown>) => Promise<T> }

const builtPages = new WeakMap<object, Map<string, Built<any>>>()
/** Statements kept per database handle; past it the oldest goes. */
const BUILT_LIMIT = 256

/**
 * A list statement built once and run again with other values: building it
 * with drizzle (the filters, the ordering, the text) cost the gateway more
 * than PostgreSQL's execution of it. `key` holds everything the statement's
 * text is built from (the kind, the shape, the page size and offset).
 */
function builtPage<T> (d: ReturnType<typeof dbOf>, key: string, build: () => Built<T>): Built<T> {
  let kept = builtPages.get(d)
  if (kept === undefined) {
    kept = new Map()
    builtPages.set(d, kept)
  }
  let statement = kept.get(key) as Built<T> | undefined
  if (statement === undefined) {
    statement = build()
    if (kept.size >= BUILT_LIMIT) kept.delete(kept.keys().next().value!)
    kept.set(key, statement)
  }
  return statement
}

const estimates = new WeakMap<object, Map<string, { at: number, rows: number }>>()
const ESTIMATE_TTL_MS = 10_000

/** The planner's row estimate for the filter, kept a few seconds (it moves slowly). */
async function estimatedRows (d: ReturnType<typeof dbOf>, where: () => SQL, key: string): Promise<number> {
  let byFilter = estimates.get(d)
  if (byFilter === undefined) {
    byFilter = new Map()
    estimates.set(d, byFilter)
  }
  const known = byFilter.get(key)
  if (known !== undefined && Date.now() - known.at < ESTIMATE_TTL_MS) return known.rows
  const res = await d.execute(sql`explain (format json) select 1 from ${posts} where ${where()}`)
  const first = (res as unknown as { rows: Array<Record<string, unknown>> }).rows[0] ?? {}
  let plan = first['QUERY PLAN']
  if (typeof plan === 'string') plan = JSON.parse(plan)
  const rows = Math.round(Number((plan as Array<{ Plan?: { 'Plan Rows'?: number } }> | undefined)?.[0]?.Plan?.['Plan Rows'] ?? 0))
  if (byFilter.size >= 256) byFilter.clear()
  byFilter.set(key, { at: Date.now(), rows })
  return rows
}
