/**
 * Two small lookups (seo-rollback-assistant-addons.md §1.3):
 *
 * GET /seo/v1/available_posts: up to 100 recent published posts of a post
 * type whose title contains `search` (`[{id, title, slug}]`); an
 * unregistered `postType` is a 400. Permission: `manage_seo_options`.
 *
 * GET /seo/v1/meta/search: up to 25 custom fields of a post whose key
 * starts with `query` (`{"meta": [{key, value}]}`); with an empty query,
 * keys starting with `_` are left out, and values that are not plain
 * strings or numbers always are. `post_id` and `query` are left out of
 * the index, as in the real product (`handlerChecked`); the caller must be able to
 * edit the post (no `post_id`: refused).
 */
import { Type } from '@sinclair/typebox'
import { check, denied, endpoint, handlerChecked, route, type RestRequest, type RouteDecl, who } from '@cms/rest'
import { type PackageApi } from '@cms/core'
import { mayManageSeo, postLike } from './access.js'
import { seoErrors } from './errors.js'

const NS = 'seo/v1'

export function lookupRoutes (api: PackageApi): RouteDecl[] {
  const availablePosts = route({
    namespace: NS,
    path: `/${NS}/available_posts`,
    endpoints: [endpoint({
      methods: ['GET'],
      summary: 'Published posts of a type whose title contains a text (for a picker)',
      response: Type.Array(Type.Object({ id: Type.Integer(), title: Type.String(), slug: Type.String() })),
      args: {
        search: Type.String({ description: 'Text the title contains.', default: '' }),
        postType: Type.String({ description: 'The post type.', default: 'page' })
      },
      permission: mayManageSeo.because('§1.3 available posts: manage_seo_options'),
      handler: async (req) => {
        const { search, postType } = req.params
        const known = api.services.types.postTypes
        if (!known.has(postType) || ['revision', 'attachment'].includes(postType)) throw seoErrors.seo_invalid_post_type()
        const { posts } = await api.content.posts({ type: postType, status: ['publish'], ...(search === '' ? {} : { search: search.slice(0, 200), searchColumns: ['post_title'] }), orderby: 'date', order: 'desc', perPage: 100 })
        return posts.map((p) => ({ id: p.id, title: p.title, slug: p.slug }))
      }
    })]
  })

  const postOf = async (req: RestRequest): Promise<Awaited<ReturnType<PackageApi['content']['post']>>> => {
    const raw = req.params.post_id
    const id = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN
    if (!Number.isSafeInteger(id) || id <= 0) return undefined
    return await req.memo(`seo:post:${id}`, async () => await api.content.post(id))
  }

  const metaSearch = route({
    namespace: NS,
    path: `/${NS}/meta/search`,
    endpoints: [endpoint({
      methods: ['GET'],
      summary: 'Custom fields of a post whose key starts with a text (at most 25)',
      response: Type.Object({ meta: Type.Array(Type.Object({ key: Type.String(), value: Type.String() }), { maxItems: 25 }) }),
      args: { post_id: handlerChecked('The post whose fields to search.'), query: handlerChecked('What the keys start with.') },
      permission: check(async (req) => {
        const found = await postOf(req)
        return (found !== undefined && req.user.can('edit_post', postLike(found.post))) || denied(seoErrors.rest_forbidden(), req.user.id)
      },
      who.nobody('§1.3 meta search: no post_id is refused'),
      who.can('edit_others_posts', "§1.3 meta search: edit_post on the post (an administrator's published post)", { queryVars: { post_id: 'post' } })),
      handler: async (req) => {
        const found = (await postOf(req))!
        const query = typeof req.params.query === 'string' ? req.params.query.slice(0, 255) : ''
        const meta: Array<{ key: string, value: string }> = []
        for (const [key, value] of Object.entries(found.meta).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
          if (meta.length >= 25) break
          if (query === '' ? key.startsWith('_') : !key.startsWith(query)) continue
          if (typeof value !== 'string' && typeof value !== 'number') continue
          meta.push({ key, value: String(value) })
        }
        return { meta }
      }
    })]
  })
  return [availablePosts, metaSearch]
}
