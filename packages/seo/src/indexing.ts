/**
 * POST /seo/v1/indexing/{prepare, terms, posts, post-type-archives,
 * general, indexables-complete, complete} and /seo/v1/link-indexing/{posts,
 * terms} (seo-rollback-assistant-addons.md §1.3): building the indexables
 * of content that existed before the package, in bounded batches
 * (25/25/25/4/5). Each call answers `{objects, next_url}`: the rows it
 * built and, when its batch was full, the full REST URL to call again
 * (else false). Posts and terms are walked in id order from a cursor kept
 * in the `seo_indexing` option (keyset reads of at most a batch), so a call
 * costs the same at the first post and the hundred-thousandth. The steps
 * that build a batch are in the expensive rate-limit class. Permission:
 * `edit_posts`. The work covers every post, but an answer lists only the
 * post rows the caller may edit (the core's `postVisibility`): a
 * contributor learns progress and counts, not other users' private, draft
 * or future posts' titles, descriptions and keyphrases. A failure records `indexing_reason = indexing_failed`,
 * clears the start time and answers `500 seo_error_indexing`.
 */
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { endpoint, restUrl, route, type RestRequest, type RouteDecl } from '@cms/rest'
import { postVisibility, type PackageApi, type PackageOption } from '@cms/core'
import { mayEditPosts } from './access.js'
import { seoErrors } from './errors.js'
import {
  archiveIndexable, homeUrl, INDEXABLE_TYPES, INDEXABLE_VERSION, INDEXED_STATUSES, indexLinks, postIndexable, systemIndexables,
  termIndexable, upsertIndexables, type IndexableRow
} from './indexables.js'

const NS = 'seo/v1'
export const BATCH = { posts: 25, terms: 25, archives: 25, general: 4, links: 5 } as const

const state = Type.Object({
  indexing_first_time: Type.Boolean(),
  indexing_started: Type.Union([Type.Integer(), Type.Null()]),
  indexing_reason: Type.String(),
  indexables_indexing_completed: Type.Boolean(),
  posts_cursor: Type.Integer({ minimum: 0 }),
  terms_cursor: Type.Integer({ minimum: 0 })
}, { additionalProperties: false })

/** What each step of the indexing does, for the API reference. */
const STEP_SUMMARIES: Record<string, string> = {
  prepare: 'Start an indexing run',
  posts: 'Index the next batch of posts',
  terms: 'Index the next batch of terms',
  'post-type-archives': 'Index the post type archives',
  general: 'Index the site\'s general pages (home, search, 404, date archives)',
  'indexables-complete': 'Mark the indexables indexed',
  complete: 'Finish the indexing run',
  'link-posts': 'Index the links of the next batch of posts',
  'link-terms': 'Index the links of the next batch of terms'
}

export function declareIndexingState (api: PackageApi): PackageOption<typeof state> {
  return api.option('seo_indexing', state, {
    default: { indexing_first_time: true, indexing_started: null, indexing_reason: '', indexables_indexing_completed: false, posts_cursor: 0, terms_cursor: 0 },
    description: 'Where the SEO indexing stands (first run, start time, reason, completion, the walk\'s cursors).'
  })
}

interface Batch { objects: unknown[], full: boolean }

/** A post's row only for a caller who may edit the post; terms, archives and system pages are public. */
function mayEdit (req: RestRequest, row: unknown): boolean {
  const r = row as Record<string, unknown>
  if (r.object_type !== 'post') return true
  // Edit rights do not depend on the password (an editor sees a protected post's text anyway).
  return postVisibility(req.user, { type: String(r.object_sub_type), author: Number(r.author_id), status: String(r.post_status), password: '' }).edit
}

export function indexingRoutes (api: PackageApi): RouteDecl[] {
  const store = (): PackageApi['services']['store'] => api.services.store
  const option = declareIndexingState(api)
  const update = async (patch: Record<string, unknown>): Promise<void> => { await option.set({ ...(await option.get()), ...patch }) }
  const home = async (req: RestRequest): Promise<string> => await homeUrl(store(), req.siteUrl)

  // `heavy`: the step builds a batch of rows (reads posts or terms, parses content for links):
  // counted in the expensive rate-limit class. The others only move the run's state.
  const steps: Record<string, { path: string, heavy?: true, run: (req: RestRequest) => Promise<Batch> }> = {
    prepare: {
      path: '/indexing/prepare',
      run: async () => {
        await update({ indexing_first_time: false, indexing_started: Math.floor(Date.now() / 1000), posts_cursor: 0, terms_cursor: 0 })
        return { objects: [], full: false }
      }
    },
    posts: {
      path: '/indexing/posts',
      heavy: true,
      run: async (req) => {
        const s = await option.get()
        const { posts } = await api.content.posts({ type: INDEXABLE_TYPES, status: INDEXED_STATUSES, orderby: 'id', order: 'asc', perPage: BATCH.posts, idAfter: s.posts_cursor })
        if (posts.length === 0) return { objects: [], full: false }
        const ids = posts.map((p) => p.id)
        const current = await store().execute<{ object_id: string | number, object_last_modified: Date | string | null, version: number }>(sql`
          select object_id, object_last_modified, version from seo_indexables
          where object_key = any(${sql.param(ids.map((id) => `post:${id}`))}::text[])`)
        const fresh = new Set(current.filter((r) => r.version >= INDEXABLE_VERSION && r.object_last_modified !== null).map((r) => {
          const post = posts.find((p) => p.id === Number(r.object_id))
          return post !== undefined && new Date(r.object_last_modified!).getTime() >= post.modifiedGmt.getTime() ? post.id : 0
        }))
        const h = await home(req)
        const rows: Array<Record<string, unknown>> = []
        for (const post of posts) {
          if (fresh.has(post.id)) continue
          const found = await api.content.post(post.id)
          if (found !== undefined) rows.push(postIndexable(found, h))
        }
        const objects = await upsertIndexables(store(), rows)
        await update({ posts_cursor: posts.at(-1)!.id })
        return { objects, full: posts.length >= BATCH.posts }
      }
    },
    terms: {
      path: '/indexing/terms',
      heavy: true,
      run: async (req) => {
        const s = await option.get()
        const terms = await api.content.terms({ taxonomy: ['category', 'post_tag'], idAfter: s.terms_cursor, perPage: BATCH.terms })
        if (terms.length === 0) return { objects: [], full: false }
        const h = await home(req)
        const objects = await upsertIndexables(store(), terms.map((t) => termIndexable(t, h)))
        await update({ terms_cursor: terms.at(-1)!.id })
        return { objects, full: terms.length >= BATCH.terms }
      }
    },
    'post-type-archives': {
      path: '/indexing/post-type-archives',
      heavy: true,
      run: async (req) => {
        // Of the indexable types only `post` has an archive (pages have none).
        const missing = await store().execute(sql`select 1 from seo_indexables where object_key = 'post-type-archive:post'`)
        if (missing.length > 0) return { objects: [], full: false }
        return { objects: await upsertIndexables(store(), [archiveIndexable('post', await home(req))]), full: false }
      }
    },
    general: {
      path: '/indexing/general',
      heavy: true,
      run: async (req) => {
        const all = systemIndexables(await home(req))
        const have = new Set((await store().execute<{ object_key: string }>(sql`select object_key from seo_indexables
          where object_key = any(${sql.param(all.map((r) => String(r.object_key)))}::text[])`)).map((r) => r.object_key))
        const objects = await upsertIndexables(store(), all.filter((r) => !have.has(String(r.object_key))).slice(0, BATCH.general))
        return { objects, full: false }
      }
    },
    'indexables-complete': {
      path: '/indexing/indexables-complete',
      run: async () => {
        await update({ indexables_indexing_completed: true })
        return { objects: [], full: false }
      }
    },
    complete: {
      path: '/indexing/complete',
      run: async () => {
        await update({ indexing_reason: '', indexing_started: null })
        return { objects: [], full: false }
      }
    },
    'link-posts': {
      path: '/link-indexing/posts',
      heavy: true,
      run: async (req) => {
        const due = await store().execute<{ object_id: string | number }>(sql`select object_id from seo_indexables
          where object_type = 'post' and post_status = 'publish' and link_count is null order by object_id limit ${BATCH.links}`)
        const h = await home(req)
        const ids: number[] = []
        for (const row of due) {
          const found = await api.content.post(Number(row.object_id))
          if (found === undefined) continue
          await indexLinks(store(), api.content, found.post.id, found.post.content, h)
          ids.push(found.post.id)
        }
        const objects = ids.length === 0 ? [] : await store().execute<IndexableRow>(sql`select * from seo_indexables where object_type = 'post' and object_id = any(${sql.param(ids)}::bigint[]) order by object_id`)
        return { objects, full: due.length >= BATCH.links }
      }
    },
    'link-terms': {
      path: '/link-indexing/terms',
      heavy: true,
      run: async () => {
        // Term descriptions are plain text here (the core filters them): no links to index.
        const due = await store().execute(sql`update seo_indexables set link_count = 0 where object_id in (
          select object_id from seo_indexables where object_type = 'term' and link_count is null limit ${BATCH.links}) and object_type = 'term' returning *`)
        return { objects: due, full: due.length >= BATCH.links }
      }
    }
  }

  return Object.entries(steps).map(([key, step]) => route({
    namespace: NS,
    path: `/${NS}${step.path}`,
    endpoints: [endpoint({
      methods: ['POST'],
      ...(step.heavy === true ? { rateClass: 'expensive' as const } : {}),
      args: {},
      summary: STEP_SUMMARIES[key]!,
      response: Type.Object({
        objects: Type.Array(Type.Object({}, { additionalProperties: true, description: 'An indexable row (object_id, object_type, permalink...).' })),
        next_url: Type.Union([Type.String(), Type.Literal(false)], { description: 'The step again while more is due, else false.' })
      }),
      permission: mayEditPosts.because(`§1.3 ${step.path.startsWith('/link') ? 'link indexing' : 'indexing'}: edit_posts`),
      handler: async (req) => {
        try {
          const { objects, full } = await step.run(req)
          return { objects: objects.filter((row) => mayEdit(req, row)), next_url: full ? restUrl(req.baseUrl, `/${NS}${step.path}`) : false }
        } catch (err) {
          await update({ indexing_reason: 'indexing_failed', indexing_started: null }).catch(() => {})
          throw seoErrors.seo_error_indexing({ stackTrace: String((err as Error)?.message ?? err).slice(0, 500) })
        }
      }
    })]
  }))
}
