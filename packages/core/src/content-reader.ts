/**
 * Content read functions for packages (`api.content`), so no package
 * queries the core's tables: posts by query with the list route's filters
 * (the same query engine, post-query.ts), one post with its meta and terms,
 * a user's meta. Reads see every row unless `as` names a caller, whose
 * read rule then applies as it does on the list route.
 */
import type { Principal } from '@cms/rest'
import type { Store } from '@cms/store'
import { getMeta, getPost, getPostTerms, withDescendants, type PostRow, type PostTerms } from './content/post-store.js'
import { readRule, runListQuery, type ListQuery, type TaxClause } from './content/post-query.js'
import { getUserMetas } from './users/store.js'

/** The list route's filters (cms/v2 `GET /posts` arguments), as values. */
export interface PostsQuery {
  /** `post` by default; `page`, or any registered type. */
  type?: string
  /** Default `['publish']`. */
  status?: string[]
  search?: string
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

export interface ContentReader {
  posts: (query?: PostsQuery) => Promise<{ posts: PostRow[], total: number }>
  /** A post with its meta and terms, or undefined. */
  post: (id: number) => Promise<PostWithDetails | undefined>
  /** A user's meta (every key, or the keys named). */
  userMeta: (userId: number, keys?: readonly string[]) => Promise<Record<string, unknown>>
}

export function contentReader (store: () => Store): ContentReader {
  const db = store
  return {
    async posts (query = {}) {
      const type = query.type ?? 'post'
      const tax: TaxClause[] = []
      for (const [ids, operator] of [[query.categories, 'IN'], [query.categoriesExclude, 'NOT IN'], [query.tags, 'IN'], [query.tagsExclude, 'NOT IN']] as const) {
        if (ids === undefined || ids.length === 0) continue
        tax.push({ termIds: query.includeChildren === true ? await withDescendants(db(), ids) : [...ids], operator })
      }
      const q: ListQuery = {
        type,
        statuses: query.status ?? ['publish'],
        search: query.search,
        searchColumns: [],
        exact: false,
        hideProtected: false,
        readable: query.as === undefined ? null : readRule(query.as, type, 'read'),
        searchable: query.as === undefined ? null : readRule(query.as, type, 'edit'),
        after: query.after,
        before: query.before,
        modifiedAfter: query.modifiedAfter,
        modifiedBefore: query.modifiedBefore,
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
    async userMeta (userId, keys) {
      return await getUserMetas(store(), userId, keys)
    }
  }
}
