/**
 * Content functions for packages (`api.content`), so no package
 * queries the core's tables: posts by query with the list route's filters
 * (the same query engine, post-query.ts), one post with its meta and terms,
 * a user's meta. Reads see every row unless `as` names a caller, whose
 * read rule then applies as it does on the list route. Writes for a
 * package's own documents: a new post of a registered type with its meta,
 * and meta changes of one post, each in one transaction; the package checks
 * the caller's rights first (the capability function) and sanitizes what it
 * stores.
 */
import { eq, inArray } from 'drizzle-orm'
import type { Principal } from '@cms/rest'
import { dbOf, getOptions, type Queryable, type Store } from '@cms/store'
import { nowSeconds } from '../base/dates.js'
import { getMeta, getPost, getPostTerms, insertNewPost, setMeta, withDescendants, type PostRow, type PostTerms, type TermRow } from './post-store.js'
import { listTerms } from './term-store.js'
import { readRule, runListQuery, type ListQuery, type MetaClause, type TaxClause } from './post-query.js'
import { ATTACHMENT_META, permalink, permalinkPrefix } from './post-types.js'
import { fileUrl } from './uploads.js'
import { postMeta, posts } from './schema.js'
import { getUserMetas } from '../users/store.js'

/** The list route's filters (cms/v2 `GET /posts` arguments), as values. */
export interface PostsQuery {
  /** `post` by default; `page`, or any registered type, or several. */
  type?: string | readonly string[]
  /** Default `['publish']`. */
  status?: string[]
  search?: string
  /** The columns the search looks in (`post_title`, `post_excerpt`, `post_content`; default all three). */
  searchColumns?: Array<'post_title' | 'post_excerpt' | 'post_content'>
  /** Meta conditions, all of which must hold. */
  meta?: MetaClause[]
  author?: number[]
  authorExclude?: number[]
  include?: number[]
  exclude?: number[]
  slug?: string[]
  parent?: number[]
  after?: Date
  before?: Date
  modifiedAfter?: Date
  modifiedBefore?: Date
  /** Only posts with a larger id: with `orderby: 'id', order: 'asc'`, walks every post a batch at a time (keyset, no offset). */
  idAfter?: number
  /** Posts in any of these categories (their children included with `includeChildren`). */
  categories?: number[]
  categoriesExclude?: number[]
  tags?: number[]
  tagsExclude?: number[]
  includeChildren?: boolean
  sticky?: boolean
  orderby?: 'date' | 'id' | 'include' | 'modified' | 'parent' | 'relevance' | 'slug' | 'include_slugs' | 'title' | 'author' | 'menu_order'
  order?: 'asc' | 'desc'
  /** Default 10; at most 100. */
  perPage?: number
  page?: number
  offset?: number
  /** Read as this caller (their read rule applies); without it every row is readable. */
  as?: Principal
}

export interface PostWithDetails {
  post: PostRow
  /** Every stored meta value of the post (registered keys and the core's private ones). */
  meta: Record<string, unknown>
  terms: PostTerms
}

/** What `media(id)` answers. */
export interface MediaDetails {
  id: number
  /** The attachment's status (`inherit`, or `private`, `trash`...). */
  status: string
  url: string
  mime: string
  /** Of an image, in pixels (undefined for other files). */
  width?: number
  height?: number
  alt: string
  caption: string
}

/** A new post a package writes (its own document type, a draft...). */
export interface NewContent {
  type: string
  title: string
  status: 'publish' | 'draft' | 'private' | 'pending'
  author: number
  content?: string
  /** Meta keys to store with it (the package sanitizes them); a `JsonText` (`@cms/store/columns`) is stored as its text. */
  meta?: Record<string, unknown>
  /** The configured site URL the stored guid is built on when the `home` option is empty (`req.siteUrl`). */
  siteUrl: string
}

export interface ContentReader {
  posts: (query?: PostsQuery) => Promise<{ posts: PostRow[], total: number }>
  /** A post with its meta and terms, or undefined. */
  post: (id: number) => Promise<PostWithDetails | undefined>
  /**
   * Several posts with their meta and terms in three reads whatever their
   * number (at most 100 ids), in the order asked; ids without a post are
   * left out. For a package that adds data to each post of a list.
   */
  postsWithDetails: (ids: readonly number[]) => Promise<PostWithDetails[]>
  /**
   * Terms of one or more taxonomies in id order after `idAfter` (at most 100 at a time), or those named by `include`;
   * `search` matches name or slug (as the terms list does), `hideEmpty` leaves out terms no published post carries,
   * `offset` skips that many. `orderby: 'name'` sorts by name (case-insensitive, then id), as the terms list's default.
   */
  terms: (query: { taxonomy: string | readonly string[], idAfter?: number, include?: number[], slug?: string[], perPage?: number, search?: string, hideEmpty?: boolean, offset?: number, orderby?: 'id' | 'name' }) => Promise<TermRow[]>
  /**
   * A media item (attachment) as the media library knows it: its file's URL
   * under `home`, MIME type, pixel size (images), alt text and caption; no
   * file is read. Undefined when `id` is not an attachment.
   */
  media: (id: number, home: string) => Promise<MediaDetails | undefined>
  /** A user's meta (every key, or the keys named). */
  userMeta: (userId: number, keys?: readonly string[]) => Promise<Record<string, unknown>>
  /**
   * Writes a new post (no terms, no revision) and its meta in one
   * transaction, or in the caller's `tx` (a package that creates a post
   * only when another process has not: under its own lock, with the option
   * that names the post written in the same transaction).
   */
  createPost: (input: NewContent, tx?: Queryable) => Promise<PostRow>
  /**
   * Sets and removes meta keys of one post in one transaction and marks it
   * modified; false when there is no such post. `{ touch: false }` leaves
   * the post row as it is (no new modified date, so no `post.updated`
   * event): for data a package derives from the post (computed scores).
   */
  updateMeta: (id: number, set: Record<string, unknown>, remove?: readonly string[], opts?: { touch?: boolean }) => Promise<boolean>
  /**
   * Meta changes of several posts in one transaction (each post marked
   * modified): all are written or none. Answers the ids that exist (the
   * others are left out).
   */
  updateMetas: (changes: ReadonlyArray<{ id: number, set: Record<string, unknown>, remove?: readonly string[] }>) => Promise<number[]>
  /** Removes a meta key from every post (a package's derived data); answers how many posts had it. */
  deleteMetaEverywhere: (key: string) => Promise<number>
}

export function contentReader (store: () => Store): ContentReader {
  const db = store
  return {
    async posts (query = {}) {
      const type = query.type ?? 'post'
      const types = typeof type === 'string' ? [type] : [...type]
      const tax: TaxClause[] = []
      for (const [ids, operator] of [[query.categories, 'IN'], [query.categoriesExclude, 'NOT IN'], [query.tags, 'IN'], [query.tagsExclude, 'NOT IN']] as const) {
        if (ids === undefined || ids.length === 0) continue
        tax.push({ termIds: query.includeChildren === true ? await withDescendants(db(), ids) : [...ids], operator })
      }
      const q: ListQuery = {
        type,
        statuses: query.status ?? ['publish'],
        search: query.search,
        searchColumns: query.searchColumns ?? [],
        meta: query.meta,
        exact: false,
        hideProtected: false,
        readable: query.as === undefined ? null : types.map((t) => readRule(query.as!, t, 'read')),
        searchable: query.as === undefined ? null : types.map((t) => readRule(query.as!, t, 'edit')),
        after: query.after,
        before: query.before,
        modifiedAfter: query.modifiedAfter,
        modifiedBefore: query.modifiedBefore,
        idAfter: query.idAfter,
        author: query.author ?? [],
        authorExclude: query.authorExclude ?? [],
        include: query.include ?? [],
        exclude: query.exclude ?? [],
        slugs: query.slug,
        parent: query.parent ?? [],
        parentExclude: [],
        sticky: query.sticky,
        tax,
        taxRelation: 'AND',
        orderby: query.orderby ?? 'date',
        order: query.order ?? 'desc',
        perPage: Math.min(100, Math.max(1, query.perPage ?? 10)),
        page: Math.max(1, query.page ?? 1),
        offset: query.offset
      }
      const { rows, total } = await runListQuery(db(), q)
      return { posts: rows, total }
    },
    async post (id) {
      const post = await getPost(db(), id)
      if (post === undefined) return undefined
      const meta = (await getMeta(db(), [id])).get(id) ?? {}
      const terms = (await getPostTerms(db(), [id])).get(id) ?? { category: [], post_tag: [] }
      return { post, meta, terms }
    },
    async postsWithDetails (ids) {
      const wanted = [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2147483647))].slice(0, 100)
      if (wanted.length === 0) return []
      const rows = await dbOf(db()).select().from(posts).where(inArray(posts.id, wanted))
      const found = rows.map((r) => r.id)
      const metas = await getMeta(db(), found)
      const terms = await getPostTerms(db(), found)
      const byId = new Map(rows.map((r) => [r.id, r]))
      return wanted.flatMap((id) => {
        const post = byId.get(id)
        return post === undefined ? [] : [{ post, meta: metas.get(id) ?? {}, terms: terms.get(id) ?? { category: [], post_tag: [] } }]
      })
    },
    async terms (query) {
      const { rows } = await listTerms(db(), {
        taxonomy: query.taxonomy,
        include: query.include ?? [],
        exclude: [],
        ...(query.slug === undefined ? {} : { slugs: query.slug }),
        ...(query.search === undefined ? {} : { search: query.search }),
        ...(query.offset === undefined ? {} : { offset: Math.max(0, query.offset) }),
        hideEmpty: query.hideEmpty === true,
        orderby: query.orderby ?? 'id',
        order: 'asc',
        perPage: Math.min(100, Math.max(1, query.perPage ?? 100)),
        page: 1,
        ...(query.idAfter === undefined ? {} : { idAfterTerm: query.idAfter })
      })
      return rows
    },
    async media (id, home) {
      const post = await getPost(db(), id)
      if (post === undefined || post.type !== 'attachment') return undefined
      const meta = (await getMeta(db(), [id])).get(id) ?? {}
      const key = meta[ATTACHMENT_META.file]
      const m = meta[ATTACHMENT_META.metadata] as { width?: unknown, height?: unknown } | undefined
      const size = (v: unknown): number | undefined => typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined
      const width = size(m?.width)
      const height = size(m?.height)
      return {
        id,
        status: post.status,
        url: typeof key === 'string' && key !== '' ? fileUrl(home, key) : '',
        mime: typeof meta[ATTACHMENT_META.mime] === 'string' ? meta[ATTACHMENT_META.mime] as string : '',
        ...(width === undefined || height === undefined ? {} : { width, height }),
        alt: typeof meta[ATTACHMENT_META.alt] === 'string' ? meta[ATTACHMENT_META.alt] as string : '',
        caption: post.excerpt
      }
    },
    async userMeta (userId, keys) {
      return await getUserMetas(store(), userId, keys)
    },
    async createPost (input, inTx) {
      const now = nowSeconds()
      const { home } = await getOptions(inTx ?? db(), ['home'])
      const storedHome = String(home) === '' ? input.siteUrl : String(home)
      const row: PostRow = {
        id: 0,
        type: input.type,
        author: input.author,
        status: input.status,
        dateGmt: input.status === 'draft' || input.status === 'pending' ? null : now,
        modifiedGmt: now,
        slug: '',
        title: input.title,
        content: input.content ?? '',
        excerpt: '',
        password: '',
        parent: 0,
        menuOrder: 0,
        commentStatus: 'closed',
        pingStatus: 'closed',
        format: 'standard',
        sticky: false,
        template: '',
        featuredMedia: 0,
        guid: ''
      }
      const write = async (tx: Queryable): Promise<PostRow> => {
        const written = await insertNewPost(tx, row, { checkSlug: false, hierarchical: false, guidPrefix: permalinkPrefix(storedHome, input.type) })
        const id = written.id
        if (input.meta !== undefined) await setMeta(tx, id, input.meta)
        return { ...row, id, guid: permalink(storedHome, input.type, id) }
      }
      return inTx === undefined ? await db().transaction(write) : await write(inTx)
    },
    async updateMeta (id, set, remove = [], opts = {}) {
      return await db().transaction(async (tx) => {
        const [row] = opts.touch === false
          ? await tx.select({ id: posts.id }).from(posts).where(eq(posts.id, id)).for('update')
          : await tx.update(posts).set({ modifiedGmt: nowSeconds() }).where(eq(posts.id, id)).returning({ id: posts.id })
        if (row === undefined) return false
        await setMeta(tx, id, set, remove)
        return true
      })
    },
    async updateMetas (changes) {
      return await db().transaction(async (tx) => {
        const done: number[] = []
        for (const change of changes) {
          const [row] = await tx.update(posts).set({ modifiedGmt: nowSeconds() }).where(eq(posts.id, change.id)).returning({ id: posts.id })
          if (row === undefined) continue
          await setMeta(tx, change.id, change.set, change.remove ?? [])
          done.push(change.id)
        }
        return done
      })
    },
    async deleteMetaEverywhere (key) {
      const gone = await db().db.delete(postMeta).where(eq(postMeta.key, key)).returning({ id: postMeta.postId })
      return gone.length
    }
  }
}
