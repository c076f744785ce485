/**
 * The AI content planner (seo-rollback-assistant-addons.md §1.3), behind
 * the upstream `content-planner` (`CMS_UPSTREAM_CONTENT_PLANNER_URL`) with
 * the user's AI tokens (ai-generator.ts):
 *
 *   ai_content_planner/get_outline      an outline for a planned post
 *   ai_content_planner/get_suggestions  ideas for the next post, from the type's recent published posts
 *
 * Permission: `edit_posts` of the given post type (an unknown type is
 * refused). Arguments (the 100 `recent_content` items of exactly `title`
 * <= 500 and `description` <= 1,000 characters, the editor enum) are
 * checked before the upstream is asked for. The recent posts sent are
 * published and not password-protected (read from the indexables).
 */
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { check, denied, endpoint, Enum, kernelErrors, route, who, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { EDITORS, type AiAccess } from './ai-generator.js'
import { seoErrors } from './errors.js'

export const PLANNER_UPSTREAM = 'content-planner'
const RECENT = 100

const recentItem = Type.Object({
  title: Type.String({ maxLength: 500 }),
  description: Type.String({ maxLength: 1000 })
}, { additionalProperties: false })

export function contentPlannerRoutes (api: PackageApi, access: AiAccess): RelativeRouteDecl[] {
  /** `edit_posts` in the post type's own names; an unknown type is refused. */
  const mayPlan = check((req: RestRequest<{ post_type: string }>) => {
    const type = api.services.types.postTypes.get(req.params.post_type)
    return (type !== undefined && req.user.can(type.capabilities.edit_posts ?? 'edit_posts')) || denied(seoErrors.seo_planner_forbidden(), req.user.id)
  }, who.can('edit_posts', '§1.3 content planner: edit_posts of the post type', { body: { post_type: 'post' }, query: { post_type: 'post' } }))
  const ask = async (req: RestRequest, path: string, json: unknown): Promise<Record<string, unknown>> => {
    const client = api.upstream(PLANNER_UPSTREAM)
    const body = (await access.withToken(req, client, async (token) => await client.request(path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, json }))).json()
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw kernelErrors.rest_upstream_error({ upstream: PLANNER_UPSTREAM }, 'The content planner answered no object.')
    return body as Record<string, unknown>
  }

  const outline = route({
    path: '/ai_content_planner/get_outline',
    endpoints: [endpoint({
      methods: ['POST'],
      // Each call is a request to the AI provider, paid from the site's quota.
      rateClass: 'expensive',
      args: {
        post_type: Type.String({ description: 'The planned post\'s type.', maxLength: 20 }),
        language: Type.String({ description: 'The content\'s language.', maxLength: 50 }),
        title: Type.String({ description: 'The planned title.', maxLength: 500 }),
        intent: Type.String({ description: 'The search intent.', maxLength: 200 }),
        explanation: Type.String({ description: 'Why this post.', maxLength: 2000 }),
        keyphrase: Type.String({ description: 'The focus keyphrase.', maxLength: 200 }),
        meta_description: Type.String({ description: 'The planned meta description.', maxLength: 1000 }),
        editor: Enum(EDITORS, { description: 'The editor in use.' }),
        category: Type.Object({ name: Type.String({ maxLength: 200 }), id: Type.Integer({ minimum: -1 }) }, { description: 'The planned category (name empty and id -1: none).' }),
        recent_content: Type.Array(recentItem, { description: 'Recent posts, each exactly a title and a description.', maxItems: RECENT })
      },
      summary: 'An outline for a planned post',
      response: Type.Object({ outline: Type.Array(Type.Unknown(), { description: 'The content planner\'s outline, passed on.' }) }),
      permission: mayPlan,
      handler: async (req) => {
        const { post_type: postType, language, editor, title, intent, explanation, keyphrase, meta_description: metaDescription, category, recent_content: recent } = req.params
        const body = await ask(req, 'content-planner/next-post-outline', {
          post_type: postType,
          language,
          editor,
          recent_content: recent,
          post: { title, intent, explanation, keyphrase, meta_description: metaDescription, category }
        })
        if (!Array.isArray(body.outline)) throw kernelErrors.rest_upstream_error({ upstream: PLANNER_UPSTREAM }, 'The content planner answered no outline.')
        return { outline: body.outline }
      }
    })]
  })

  const suggestions = route({
    path: '/ai_content_planner/get_suggestions',
    endpoints: [endpoint({
      methods: ['GET'],
      rateClass: 'expensive',
      args: {
        post_type: Type.String({ description: 'The planned post\'s type.', maxLength: 20 }),
        language: Type.String({ description: 'The content\'s language.', maxLength: 50 }),
        editor: Enum(EDITORS, { description: 'The editor in use.' })
      },
      summary: 'Ideas for the next post',
      response: Type.Object({ suggestions: Type.Unknown({ description: 'The content planner\'s ideas, passed on.' }), recent_content: Type.Array(Type.Object({ title: Type.String(), description: Type.String() })) }),
      permission: mayPlan,
      handler: async (req) => {
        const { post_type: postType, language, editor } = req.params
        api.upstream(PLANNER_UPSTREAM) // unconfigured: the 503 before any work
        const rows = await api.services.store.execute<{ title: string | null, description: string | null, breadcrumb_title: string | null }>(sql`
          select title, description, breadcrumb_title from seo_indexables
          where object_type = 'post' and object_sub_type = ${postType} and post_status = 'publish' and is_protected = false
          order by object_last_modified desc nulls last, object_id desc limit ${RECENT}`)
        const recent = rows.map((r) => ({ title: (r.breadcrumb_title ?? r.title ?? '').slice(0, 500), description: (r.description ?? '').slice(0, 1000) }))
        const body = await ask(req, 'content-planner/next-post-suggestions', { post_type: postType, language, editor, recent_content: recent })
        if (!Array.isArray(body.suggestions)) throw kernelErrors.rest_upstream_error({ upstream: PLANNER_UPSTREAM }, 'The content planner answered no suggestions.')
        return { suggestions: body.suggestions, recent_content: recent }
      }
    })]
  })

  return [outline, suggestions]
}
