/**
 * builder/v1 template-library/templates (builder-family.md §2.8): the
 * local template library. GET answers `{templates, config}`: the local
 * templates (types page, section, container) newest first when `source` is
 * `local` or absent (the only source this service has; any other source
 * lists nothing), published ones only, and `config` per template type (the
 * real product's remote feed is not fetched: a fixed object). POST saves a
 * template: a library post, published when the caller may publish
 * (`publish_posts`) and pending review otherwise (a contributor's), titled
 * "(no title)" when no title is given, with `_builder_template_type`, `_builder_data` (the content
 * as JSON, its strings filtered for writers without `unfiltered_html`) and
 * `_builder_page_settings`, and answers the template item. Both need
 * `edit_posts`.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, Enum, handlerChecked, invalidParam, isPlainObject, Raw, route, type RelativeRouteDecl, anyObject } from '@cms/rest'
import { adminLink, findUserById, jsonOfSliced, textPool, type PackageApi, type PostRow } from '@cms/core'
import type { JsonText } from '@cms/store/columns'
import { mayEditPosts } from './access.js'
import { LIBRARY_TYPE } from './kit.js'
import { builderDataSanitizer, filterStrings } from './sanitize.js'

export const TEMPLATE_TYPES = ['page', 'section', 'container'] as const

const LABELS: Record<string, string> = { page: 'Page', section: 'Section', container: 'Container' }

/**
 * "November 28, 2026". One formatter, made when first needed and kept: `toLocaleDateString` with options builds ICU's
 * date format on every call, two a template listed, 10-16 ms of the request thread for a page of them (issue 27).
 */
let dateFormat: Intl.DateTimeFormat | undefined
const humanDate = (d: Date): string => (dateFormat ??= new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' })).format(d)

const TEMPLATE_ITEM = Type.Object({
  template_id: Type.Integer(),
  source: Type.String(),
  type: Type.Unknown({ description: 'The template type.' }),
  title: Type.String(),
  thumbnail: Type.Boolean(),
  date: Type.Integer({ description: 'Unix seconds.' }),
  human_date: Type.String(),
  human_modified_date: Type.String(),
  author: Type.String(),
  status: Type.String(),
  hasPageSettings: Type.Boolean(),
  tags: Type.Array(Type.String()),
  export_link: Type.Union([Type.String(), Type.Null()], { description: 'An admin screen under CMS_ADMIN_URL; null without one.' }),
  url: Type.String()
})

export function templateRoutes (api: PackageApi): RelativeRouteDecl[] {
  const { store } = api.services
  /** A template's content is builder data: filtered as `_builder_data` is (sanitize.ts). */
  const builderData = builderDataSanitizer(api.services.settings.textLimits)
  async function itemOf (post: PostRow, meta: Record<string, unknown>, home: string): Promise<Record<string, unknown>> {
    const author = post.author === 0 ? undefined : await findUserById(store, post.author)
    const settings = meta._builder_page_settings
    const date = post.dateGmt ?? post.modifiedGmt
    return {
      template_id: post.id,
      source: 'local',
      type: meta._builder_template_type,
      title: post.title,
      thumbnail: false,
      date: Math.floor(date.getTime() / 1000),
      human_date: humanDate(date),
      human_modified_date: humanDate(post.modifiedGmt),
      author: author?.displayName ?? '',
      status: post.status,
      hasPageSettings: isPlainObject(settings) && Object.keys(settings).length > 0,
      tags: [],
      // The export runs in the admin front end (CMS_ADMIN_URL); null without one.
      export_link: adminLink(api.services.settings, `admin-ajax.php?action=builder_library_direct_actions&library_action=export_template&source=local&template_id=${post.id}`),
      url: `${home}/?p=${post.id}`
    }
  }
  return [route({
    path: '/template-library/templates',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: { source: handlerChecked('Only this library source (`local`).') },
        summary: 'The local templates and the library configuration',
        response: Type.Object({ templates: Type.Array(TEMPLATE_ITEM), config: anyObject('The library configuration.') }),
        permission: mayEditPosts,
        handler: async (req) => {
          const source = (req.params as Record<string, unknown>).source
          const config = Object.fromEntries(TEMPLATE_TYPES.map((t) => [t, { title: LABELS[t], categories: [] }]))
          if (source !== undefined && source !== 'local') return { templates: [], config }
          const { posts } = await api.content.posts({ type: LIBRARY_TYPE, status: ['publish'], meta: [{ key: '_builder_template_type', notEquals: 'kit' }], perPage: 100, orderby: 'date', order: 'desc' })
          const templates = []
          for (const post of posts) {
            const meta = (await api.content.post(post.id))?.meta ?? {}
            if ((TEMPLATE_TYPES as readonly unknown[]).includes(meta._builder_template_type)) templates.push(await itemOf(post, meta, req.baseUrl))
          }
          return { templates, config }
        }
      }),
      endpoint({
        methods: ['POST'],
        args: {
          type: Enum(TEMPLATE_TYPES, { description: 'The template type.' }),
          title: Type.Optional(Type.String({ description: 'The template title.', maxLength: 1000 })),
          content: Type.Optional(Raw<unknown>({ description: 'Page-builder data (the element tree).', type: 'object' })),
          page_settings: handlerChecked('The page settings of the template.')
        },
        summary: 'Save a template to the local library',
        response: TEMPLATE_ITEM,
        permission: mayEditPosts.probing({ body: { type: 'section', title: 'Probe', content: [] } }),
        handler: async (req) => {
          const params = req.params as Record<string, unknown>
          const filtered = !req.user.can('unfiltered_html')
          let settings: unknown = params.page_settings ?? {}
          if (!isPlainObject(settings)) throw invalidParam('page_settings', 'page_settings must be an object.')
          // Stored as JSON text: written here a slice of members a turn, then (for a filtered writer) scanned,
          // parsed, filtered and written back in the text pool, as `_builder_data` is, with the text its column
          // stores (issue 27: a walk over tens of thousands of members, and writing them as JSON in one piece, held
          // the request thread).
          const json = await jsonOfSliced(req.params.content ?? [])
          let content: JsonText | string = json
          if (filtered) {
            const c = await builderData(json, 'content')
            if ('invalid' in c) throw invalidParam('content', c.invalid)
            content = c.stored ?? String(c.value)
            const s = await filterStrings(settings)
            if ('invalid' in s) throw invalidParam('page_settings', `page_settings is ${s.invalid}.`)
            settings = s.value
          }
          // The column's text of a long one made in the pool too (a trusted writer's content is not filtered).
          if (typeof content === 'string') content = await textPool.storedJson(content) ?? content
          // As the real library saves: "(no title)" for an empty title; published only by a user who may publish,
          // else pending review (a contributor's template does not reach everyone's library).
          const title = req.params.title === undefined || req.params.title === '' ? '(no title)' : req.params.title
          const publish = api.services.types.postTypes.get(LIBRARY_TYPE)?.capabilities.publish_posts ?? 'publish_posts'
          const post = await api.content.createPost({
            type: LIBRARY_TYPE,
            title: filtered ? String((await filterStrings(title) as { value: unknown }).value) : title,
            status: req.user.can(publish) ? 'publish' : 'pending',
            author: req.user.id,
            siteUrl: req.siteUrl,
            meta: { _builder_template_type: req.params.type, _builder_edit_mode: 'builder', _builder_data: content, _builder_page_settings: settings }
          })
          const meta = (await api.content.post(post.id))?.meta ?? {}
          return await itemOf(post, meta, req.baseUrl)
        }
      })
    ]
  })]
}
