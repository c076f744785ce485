/**
 * assistant/v1 routes over the page builder (seo-rollback-assistant-addons.md
 * §3.6), through the builder's service (its kit and settings as functions,
 * never its tables): `builder-kit` (read; POST shallow-merges into the kit
 * settings), `builder-kit/schema`, `builder-kit/fonts` (`edit_theme_options`),
 * `builder-library/template-types` (`edit_posts`),
 * `builder-library/{id}/sync-type` (`edit_post` on that document),
 * `builder-settings/supported-post-types` (`use_assistant`) and
 * `page-templates` (the post type's edit capability).
 */
import { Type } from '@sinclair/typebox'
import { check, denied, endpoint, invalidParam, route, who, type RestError, type RestRequest, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import type { BuilderService } from '@cms/builder'
import { LIBRARY_TYPE } from '@cms/builder'
import { mayEditPosts, mayEditThemeOptions, mayUseAssistant } from './access.js'
import { assistantErrors } from './errors.js'

/** A kit update: at most this many keys and this many bytes of JSON. */
const KIT_MAX_KEYS = 200
const KIT_MAX_BYTES = 256 * 1024
const TEMPLATE_TYPE = /^[a-z0-9_-]{1,50}$/
const LABELS: Record<string, string> = { page: 'Page', section: 'Section', container: 'Container', kit: 'Kit' }
/** The system fonts; the rest of the builder's list are web fonts. */
const FONTS: Record<string, string> = {
  Arial: 'system',
  Helvetica: 'system',
  Tahoma: 'system',
  'Times New Roman': 'system',
  'Trebuchet MS': 'system',
  Verdana: 'system',
  Georgia: 'system',
  'Courier New': 'system',
  Roboto: 'googlefonts',
  'Roboto Slab': 'googlefonts',
  'Open Sans': 'googlefonts',
  Lato: 'googlefonts',
  Montserrat: 'googlefonts',
  Poppins: 'googlefonts',
  Inter: 'googlefonts',
  'Playfair Display': 'googlefonts'
}
/** The capability that edits posts of a registered type: pages theirs, the others (posts, media, library templates) the posts'. */
const editCapability = (type: string): string => type === 'page' ? 'edit_pages' : 'edit_posts'

const kitUrl = (req: RestRequest<any>): string => req.siteUrl !== '' ? req.siteUrl : req.baseUrl

export function builderSiteRoutes (api: PackageApi, builder: BuilderService): RelativeRouteDecl[] {
  const mayEditDocument = check(async (req: RestRequest<any>): Promise<true | RestError> => {
    const refused = denied(assistantErrors.rest_forbidden(), req.user.id)
    if (!req.user.can('edit_posts')) return refused
    const found = await req.memo(`post:${String(req.params.id)}`, async () => await api.content.post(Number(req.params.id)))
    // An unknown id is the handler's 404.
    if (found === undefined) return true
    return req.user.can('edit_post', { type: found.post.type, author: found.post.author, status: found.post.status }) ? true : refused
  }, who.can('edit_others_posts', '§3.6 sync type: edit_post on that id (another\'s published post: editors and administrators)', { vars: { id: 'post' }, body: { template_type: 'page' } }))

  return [
    route({
      path: '/builder-kit',
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: {},
          summary: 'The active design kit\'s settings (colours, typography...)',
          response: Type.Object({}, { additionalProperties: true, description: 'The kit\'s settings (system_colors, custom_colors, system_typography, custom_typography...).' }),
          permission: mayEditThemeOptions,
          handler: async (req) => (await builder.kits.load(kitUrl(req))).settings
        }),
        endpoint({
          methods: ['POST'],
          args: {},
          summary: 'Merge the body\'s keys into the kit\'s settings',
          response: Type.Object({ success: Type.Boolean(), kit_id: Type.Integer(), message: Type.String(), updated_settings: Type.Object({}, { additionalProperties: true }) }),
          permission: mayEditThemeOptions.probing({ body: {} }),
          handler: async (req) => {
            const body = req.sentBody
            if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidParam('settings', 'The body must be an object of kit settings.')
            const update = body as Record<string, unknown>
            if (Object.keys(update).length > KIT_MAX_KEYS || JSON.stringify(update).length > KIT_MAX_BYTES) throw invalidParam('settings', `At most ${KIT_MAX_KEYS} keys and ${KIT_MAX_BYTES} bytes of settings.`)
            for (const list of ['system_colors', 'custom_colors', 'system_typography', 'custom_typography']) {
              const rows = update[list]
              if (rows !== undefined && (!Array.isArray(rows) || !rows.every((r) => typeof r === 'object' && r !== null && typeof (r as { _id?: unknown })._id === 'string'))) {
                throw invalidParam(list, `${list} must be a list of rows, each with an _id.`)
              }
            }
            const kit = await builder.kits.load(kitUrl(req))
            kit.settings = { ...kit.settings, ...update }
            await builder.kits.saveSettings(kit)
            return { success: true, kit_id: kit.id, message: 'Site settings updated successfully', updated_settings: update }
          }
        })
      ]
    }),
    route({
      path: '/builder-kit/schema',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The kit\'s controls per tab',
        response: Type.Record(Type.String(), Type.Record(Type.String(), Type.Object({ label: Type.String(), type: Type.String(), default: Type.Unknown(), fields: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })) })), { description: 'Tab -> control -> its description.' }),
        permission: mayEditThemeOptions,
        handler: () => {
          const factory = builder.factorySettings()
          const repeater = (label: string, def: unknown, fields: Record<string, string>): Record<string, unknown> => ({ label, type: 'repeater', default: def, fields: Object.entries(fields).map(([name, type]) => ({ name, type })) })
          return {
            'global-colors': {
              system_colors: repeater('System Colors', factory.system_colors, { _id: 'text', title: 'text', color: 'color' }),
              custom_colors: repeater('Custom Colors', factory.custom_colors, { _id: 'text', title: 'text', color: 'color' })
            },
            'global-typography': {
              system_typography: repeater('System Fonts', factory.system_typography, { _id: 'text', title: 'text', typography_typography: 'select', typography_font_family: 'font', typography_font_weight: 'select' }),
              custom_typography: repeater('Custom Fonts', factory.custom_typography, { _id: 'text', title: 'text', typography_typography: 'select', typography_font_family: 'font', typography_font_weight: 'select' })
            }
          }
        }
      })]
    }),
    route({
      path: '/builder-kit/fonts',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The fonts the builder offers',
        response: Type.Object({ fonts: Type.Record(Type.String(), Type.String(), { description: 'Font -> its group.' }), font_groups: Type.Record(Type.String(), Type.String()), google_fonts_enabled: Type.Boolean(), font_display_setting: Type.String(), total_fonts: Type.Integer() }),
        permission: mayEditThemeOptions,
        handler: async () => {
          const display = await builder.setting('builder_font_display')?.get() ?? 'auto'
          return { fonts: FONTS, font_groups: { system: 'System', googlefonts: 'Google' }, google_fonts_enabled: true, font_display_setting: display, total_fonts: Object.keys(FONTS).length }
        }
      })]
    }),
    route({
      path: '/builder-library/template-types',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The builder library\'s template types',
        response: Type.Object({ success: Type.Boolean(), data: Type.Array(Type.Object({ type: Type.String(), label: Type.String() })) }),
        permission: mayEditPosts,
        handler: () => ({ success: true, data: builder.templateTypes.map((type) => ({ type, label: LABELS[type] ?? type })) })
      })]
    }),
    route({
      path: '/builder-library/{id}/sync-type',
      vars: { id: '[\\d]+' },
      endpoints: [endpoint({
        methods: ['POST'],
        args: { template_type: Type.String({ description: 'The template type to record on the library document.' }) },
        summary: 'Record a library document\'s template type',
        response: Type.Object({ post_id: Type.Integer(), template_type: Type.String(), terms: Type.Array(Type.String()) }),
        permission: mayEditDocument,
        handler: async (req) => {
          const id = Number(req.params.id)
          const found = await req.memo(`post:${id}`, async () => await api.content.post(id))
          if (found === undefined || found.post.status === 'trash') throw assistantErrors.rest_post_invalid_id()
          if (found.post.type !== LIBRARY_TYPE) throw assistantErrors.invalid_post_type()
          const type = req.params.template_type
          if (!TEMPLATE_TYPE.test(type)) throw invalidParam('template_type', 'template_type is lowercase letters, digits, "_" and "-" (at most 50).')
          await api.content.updateMeta(id, { _builder_template_type: type })
          return { post_id: id, template_type: type, terms: [type] }
        }
      })]
    }),
    route({
      path: '/builder-settings/supported-post-types',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The post types the builder may edit',
        response: Type.Array(Type.String()),
        permission: mayUseAssistant,
        handler: async () => {
          const option = builder.setting('builder_cpt_support')
          if (option === undefined) throw assistantErrors.builder_not_active()
          return await option.get()
        }
      })]
    }),
    route({
      path: '/page-templates',
      endpoints: [endpoint({
        methods: ['GET'],
        args: { post_type: Type.String({ description: 'The post type whose templates are listed.', default: 'page' }) },
        summary: 'The page templates of the active theme for a post type',
        response: Type.Object({ success: Type.Boolean(), data: Type.Object({ post_type: Type.String(), templates: Type.Object({}, { additionalProperties: true }) }) }),
        permission: check((req) => {
          const type = String(req.params.post_type ?? 'page')
          // An unknown post type is refused (the product's rule), whoever asks.
          const known = api.services.types.postTypes.has(type)
          return known && req.user.can(editCapability(type)) ? true : denied(assistantErrors.rest_forbidden(), req.user.id)
        }, who.can('edit_pages', '§3.6 page templates: the post type\'s edit capability (pages: edit_pages)')),
        // The themes this service runs declare no page templates: the default one only.
        handler: (req) => ({ success: true, data: { post_type: req.params.post_type, templates: {} } })
      })]
    })
  ]
}
