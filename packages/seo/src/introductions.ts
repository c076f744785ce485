/**
 * What a user has seen or dismissed on the SEO screens
 * (seo-rollback-assistant-addons.md §1.3), all `edit_posts`:
 *
 *   introductions/{introduction_id}/seen         a known introduction seen (or not), per user
 *   alerts/dismiss                               a known alert dismissed, per user
 *   video_embed_permission                       GET / POST the user's consent to embedded videos
 *   ai_content_planner/banner_permanent_dismissal  the content planner's banner, per user
 *   new-content-type-visibility/dismiss-post-type and dismiss-taxonomy: a new content type reviewed (site-wide)
 *
 * Per-user values live in private user meta (state.ts). Success bodies keep
 * the real product's shapes (`{"json": {"success": true}}` where it wraps
 * them); its 400-with-a-body failures are errors in the usual shape.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, Enum, route, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { mayEditPosts } from './access.js'
import { seoErrors } from './errors.js'
import { updateOption, USER_KEYS, type SeoOptions, type UserState } from './state.js'

/** The introductions the package knows (the real free plugin's). */
export const INTRODUCTIONS = ['ai-brand-insights-free-trial', 'ai-brand-insights-post-launch', 'ai-brand-insights-pre-launch', 'ai-fix-assessments-upsell', 'black-friday-announcement', 'docs-addon-upsell'] as const

/** The alerts users may dismiss (the real free plugin's, product names neutral). */
export const ALERTS = ['ai_generator_tip_notification', 'black-friday-2023-product-editor-checklist', 'black-friday-2023-sidebar-checklist', 'black-friday-promotion', 'performance-addon-pre-publish-notification', 'review-site-notification', 'webinar-promo-notification'] as const

type Seen = Record<string, { is_seen: boolean, seen_on: number }>

export function introductionRoutes (api: PackageApi, users: UserState, options: SeoOptions): RelativeRouteDecl[] {
  const seen = route({
    path: '/introductions/{introduction_id}/seen',
    vars: { introduction_id: '[\\w-]+' },
    args: { introduction_id: Type.String({ description: 'The introduction.', pattern: '^[\\w-]+$' }) },
    endpoints: [endpoint({
      methods: ['POST'],
      args: { is_seen: Type.Boolean({ description: 'Whether the user saw it.', default: true }) },
      summary: 'Mark an introduction seen',
      response: Type.Object({ json: Type.Object({ success: Type.Boolean() }) }),
      permission: mayEditPosts.probing({ vars: { introduction_id: 'black-friday-announcement' } }),
      handler: async (req) => {
        const id = String(req.params.introduction_id)
        if (!(INTRODUCTIONS as readonly string[]).includes(id)) throw seoErrors.seo_unknown_introduction()
        const isSeen = req.params.is_seen
        await users.update<Seen>(req.user.id, USER_KEYS.introductions, (current) => ({ ...current, [id]: { is_seen: isSeen, seen_on: isSeen ? Math.floor(Date.now() / 1000) : 0 } }))
        return { json: { success: true } }
      }
    })]
  })

  const alerts = route({
    path: '/alerts/dismiss',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { key: Enum(ALERTS, { description: 'The alert to dismiss.' }) },
      summary: 'Dismiss an alert for the current user',
      response: Type.Object({ success: Type.Boolean(), status: Type.Integer() }),
      permission: mayEditPosts.probing({ body: { key: 'black-friday-promotion' } }),
      handler: async (req) => {
        const key = req.params.key
        await users.update<Record<string, boolean>>(req.user.id, USER_KEYS.alertsDismissed, (current) => ({ ...current, [key]: true }))
        return { success: true, status: 200 }
      }
    })]
  })

  const video = route({
    path: '/video_embed_permission',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: {},
        summary: 'Whether the current user allowed embedded videos',
        response: Type.Object({ json: Type.Object({ value: Type.Boolean() }) }),
        permission: mayEditPosts,
        handler: async (req) => ({ json: { value: await users.get<boolean>(req.user.id, USER_KEYS.videoEmbedPermission) === true } })
      }),
      endpoint({
        methods: ['POST'],
        args: { value: Type.Boolean({ description: 'Allow embedded videos.', default: true }) },
        summary: 'Allow or refuse embedded videos for the current user',
        response: Type.Object({ json: Type.Object({ success: Type.Boolean() }) }),
        permission: mayEditPosts,
        handler: async (req) => {
          await users.set(req.user.id, USER_KEYS.videoEmbedPermission, req.params.value)
          return { json: { success: true } }
        }
      })
    ]
  })

  const banner = route({
    path: '/ai_content_planner/banner_permanent_dismissal',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { is_dismissed: Type.Boolean({ description: 'Whether the banner stays hidden.' }) },
      summary: 'Hide the content planner\'s banner for the current user',
      response: Type.Object({ success: Type.Boolean() }),
      permission: mayEditPosts,
      handler: async (req) => {
        await users.set(req.user.id, USER_KEYS.plannerBannerDismissed, req.params.is_dismissed)
        return { success: true }
      }
    })]
  })

  // The real handler reads the snake_case names while declaring camelCase ones: both are taken here.
  const dismissNew = (kind: 'post-type' | 'taxonomy'): RelativeRouteDecl => {
    const arg = kind === 'post-type' ? 'postTypeName' : 'taxonomyName'
    const snake = kind === 'post-type' ? 'post_type_name' : 'taxonomy_name'
    const option = kind === 'post-type' ? options.new_post_types : options.new_taxonomies
    const noun = kind === 'post-type' ? 'Post type' : 'Taxonomy'
    return route({
      path: `/new-content-type-visibility/dismiss-${kind}`,
      endpoints: [endpoint({
        methods: ['POST'],
        args: { [arg]: Type.Optional(Type.String({ description: `The ${noun.toLowerCase()} reviewed.`, maxLength: 100 })) },
        summary: `Mark a new ${noun.toLowerCase()} reviewed`,
        response: Type.Object({ message: Type.String(), success: Type.Boolean(), status: Type.Integer() }),
        permission: mayEditPosts,
        handler: async (req) => {
          const fromBody = (req.sentBody as Record<string, unknown> | undefined)?.[snake] ?? req.query[snake]
          const name = req.params[arg] ?? (typeof fromBody === 'string' ? fromBody : undefined)
          if (name === undefined || name === '') return { message: `${noun} is not new.`, success: true, status: 200 }
          const registry = api.services.types
          if (!(kind === 'post-type' ? registry.postTypes : registry.taxonomies).has(name)) {
            throw kind === 'post-type' ? seoErrors.seo_invalid_post_type_name() : seoErrors.seo_invalid_taxonomy_name()
          }
          let wasNew = false
          await updateOption(api, option, (current) => {
            wasNew = current.includes(name)
            return current.filter((n) => n !== name)
          })
          if (!wasNew) return { message: `${noun} is not new.`, success: true, status: 200 }
          return { message: `${noun} is no longer new.`, success: true, status: 200 }
        }
      })]
    })
  }

  return [seen, alerts, video, banner, dismissNew('post-type'), dismissNew('taxonomy')]
}
