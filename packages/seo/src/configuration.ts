/**
 * The first-time configuration wizard (seo-rollback-assistant-addons.md
 * §1.3 "Configuration routes"), all `manage_seo_options`:
 *
 *   configuration/site_representation       company or person, names, logos (a media id or a URL), the person's user
 *   configuration/social_profiles           the site's profiles (`sameAs`, `article:publisher`, `twitter:site` of the head)
 *   configuration/check_capability          may the caller edit user N
 *   configuration/enable_tracking           the `tracking` option (`toggled_tracking` once it changes)
 *   configuration/save_configuration_state  and get_configuration_state: the finished steps
 *
 * What the real product answers as HTTP 200 or 500 with `success: false`
 * (an invalid profile, a capability the caller lacks) is an error here in
 * the `{code, message, data}` shape (CONVENTIONS.md §3); successes keep the
 * real `{"success": true, "status": 200}` shapes. Every value is checked
 * before anything is written, and each route writes its option once.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, Enum, RestError, route, sanitizeTextField, type RelativeRouteDecl } from '@cms/rest'
import { findUserById, type PackageApi } from '@cms/core'
import { mayManageSeo } from './access.js'
import { seoErrors } from './errors.js'
import type { HeadOptions } from './head.js'
import type { SeoOptions } from './state.js'

const OK = { success: true, status: 200 } as const
const OK_SCHEMA = Type.Object({ success: Type.Boolean(), status: Type.Integer() })
const URL_MAX = 2048

/** An absolute http(s) URL with a host, or undefined. */
export function webUrl (value: string): string | undefined {
  if (value.length > URL_MAX) return undefined
  try {
    const u = new URL(value.trim())
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' ? u.href : undefined
  } catch { return undefined }
}

/** The social-b handle of a handle (`@name`, `name`) or of a profile URL on its site; undefined when neither. */
function handleOf (value: string): string | undefined {
  const plain = /^@?([A-Za-z0-9_]{1,15})$/.exec(value.trim())
  if (plain !== null) return plain[1]
  const url = webUrl(value)
  if (url === undefined) return undefined
  const u = new URL(url)
  const path = /^\/@?([A-Za-z0-9_]{1,15})\/?$/.exec(u.pathname)
  return /^(www\.)?(x|twitter)\.com$/i.test(u.hostname) && path !== null ? path[1] : undefined
}

export function configurationRoutes (api: PackageApi, head: HeadOptions, options: SeoOptions): RelativeRouteDecl[] {
  const representation = route({
    path: '/configuration/site_representation',
    endpoints: [endpoint({
      methods: ['POST'],
      args: {
        company_or_person: Enum(['company', 'person'], { description: 'Whom the site represents.' }),
        company_name: Type.Optional(Type.String({ description: 'The organization\'s name.', maxLength: 200 })),
        company_logo: Type.Optional(Type.String({ description: 'The organization\'s logo URL (used when no media id is given).', maxLength: URL_MAX })),
        person_logo: Type.Optional(Type.String({ description: 'The person\'s logo URL.', maxLength: URL_MAX })),
        description: Type.Optional(Type.String({ description: 'The organization\'s description.', maxLength: 1000 })),
        company_logo_id: Type.Optional(Type.Integer({ description: 'The organization\'s logo, a media id of this site.', minimum: 0 })),
        person_logo_id: Type.Optional(Type.Integer({ description: 'The person\'s logo, a media id of this site.', minimum: 0 })),
        company_or_person_user_id: Type.Optional(Type.Integer({ description: 'The user the site represents (person).', minimum: 0 }))
      },
      summary: 'Set whom the site represents in its structured data',
      response: OK_SCHEMA,
      permission: mayManageSeo,
      handler: async (req) => {
        const p = req.params
        const next = { ...await head.representation.get(), company_or_person: p.company_or_person }
        if (p.company_name !== undefined) next.company_name = sanitizeTextField(p.company_name)
        if (p.description !== undefined) next.description = sanitizeTextField(p.description, true)
        for (const key of ['company_logo', 'person_logo'] as const) {
          const given = p[key]
          if (given === undefined) continue
          const url = given === '' ? '' : webUrl(given)
          if (url === undefined) throw seoErrors.seo_invalid_logo({ params: { [key]: 'Not a valid http(s) URL.' } })
          next[key] = url
        }
        for (const [arg, key] of [['company_logo_id', 'company_logo_id'], ['person_logo_id', 'person_logo_id']] as const) {
          const id = p[arg]
          if (id === undefined) continue
          if (id > 0 && (await api.content.media(id, req.siteUrl))?.mime.startsWith('image/') !== true) {
            throw seoErrors.seo_invalid_logo({ params: { [arg]: 'Not an image of the media library.' } })
          }
          next[key] = id
        }
        if (p.company_or_person_user_id !== undefined) {
          if (p.company_or_person_user_id > 0 && await findUserById(api.services.store, p.company_or_person_user_id) === undefined) throw seoErrors.seo_invalid_user()
          next.person_user_id = p.company_or_person_user_id
        }
        await head.representation.set(next)
        return OK
      }
    })]
  })

  const social = route({
    path: '/configuration/social_profiles',
    endpoints: [endpoint({
      methods: ['POST'],
      args: {
        social_a_site: Type.Optional(Type.String({ description: 'The site\'s profile URL on social network A.', maxLength: URL_MAX })),
        social_b_site: Type.Optional(Type.String({ description: 'The site\'s handle or profile URL on social network B.', maxLength: URL_MAX })),
        other_social_urls: Type.Optional(Type.Array(Type.String({ maxLength: URL_MAX }), { description: 'Other profile URLs (empty entries are dropped).', maxItems: 50 }))
      },
      summary: 'Set the site\'s social profiles',
      response: OK_SCHEMA,
      permission: mayManageSeo,
      handler: async (req) => {
        const p = req.params
        const next = { ...await head.social.get() }
        const failures: string[] = []
        if (p.social_a_site !== undefined) {
          const url = p.social_a_site.trim() === '' ? '' : webUrl(p.social_a_site)
          if (url === undefined) failures.push('social_a_site')
          else next.social_a_site = url
        }
        if (p.social_b_site !== undefined) {
          const handle = p.social_b_site.trim() === '' ? '' : handleOf(p.social_b_site)
          if (handle === undefined) failures.push('social_b_site')
          else next.social_b_site = handle
        }
        if (p.other_social_urls !== undefined) {
          const urls: string[] = []
          p.other_social_urls.forEach((given, i) => {
            if (given.trim() === '') return
            const url = webUrl(given)
            if (url === undefined) failures.push(`other_social_urls-${i}`)
            else urls.push(url)
          })
          next.other_social_urls = urls
        }
        // Any invalid value: nothing saved, every invalid one named.
        if (failures.length > 0) {
          throw new RestError('seo_invalid_social_profiles', `Some social profiles are not valid: ${failures.join(', ')}.`, 400, {
            failures,
            params: Object.fromEntries(failures.map((f) => [f, f === 'social_b_site' ? 'Not a valid handle or profile URL.' : 'Not a valid http(s) URL.']))
          })
        }
        await head.social.set(next)
        return OK
      }
    })]
  })

  const capability = route({
    path: '/configuration/check_capability',
    endpoints: [endpoint({
      methods: ['GET'],
      args: { user_id: Type.Integer({ description: 'The user the caller would edit.', minimum: 1 }) },
      summary: 'Whether the caller may edit a user',
      response: OK_SCHEMA,
      permission: mayManageSeo.probing({ query: { user_id: 1 } }),
      handler: async (req) => {
        const user = await findUserById(api.services.store, req.params.user_id)
        if (user === undefined || !req.user.can('edit_user', { id: user.id })) throw seoErrors.seo_cannot_edit_user()
        return OK
      }
    })]
  })

  const tracking = route({
    path: '/configuration/enable_tracking',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { tracking: Type.Boolean({ description: 'Share usage data.' }) },
      summary: 'Switch usage tracking',
      response: OK_SCHEMA,
      permission: mayManageSeo,
      handler: async (req) => {
        if (await options.tracking.get() !== req.params.tracking) {
          await api.services.store.transaction(async (tx) => {
            await options.toggled_tracking.set(true, tx)
            await options.tracking.set(req.params.tracking, tx)
          })
        }
        return OK
      }
    })]
  })

  const saveState = route({
    path: '/configuration/save_configuration_state',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { finishedSteps: Type.Array(Type.String({ pattern: '^[A-Za-z0-9_-]{1,60}$' }), { description: 'The wizard\'s finished steps.', maxItems: 20 }) },
      summary: 'Record the configuration wizard\'s finished steps',
      response: OK_SCHEMA,
      permission: mayManageSeo,
      handler: async (req) => {
        const steps = [...new Set(req.params.finishedSteps)]
        await api.services.store.transaction(async (tx) => {
          await options.configuration_finished_steps.set(steps, tx)
          // The wizard has three steps: all done ends the first-time install.
          if (steps.length === 3) await options.first_time_install.set(false, tx)
        })
        return OK
      }
    })]
  })

  const getState = route({
    path: '/configuration/get_configuration_state',
    endpoints: [endpoint({
      methods: ['GET'],
      args: {},
      summary: 'The configuration wizard\'s finished steps',
      response: Type.Object({ success: Type.Boolean(), status: Type.Integer(), data: Type.Array(Type.String()) }),
      permission: mayManageSeo,
      handler: async () => ({ ...OK, data: await options.configuration_finished_steps.get() })
    })]
  })

  return [representation, social, capability, tracking, saveState, getState]
}
