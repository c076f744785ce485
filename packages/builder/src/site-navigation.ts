/**
 * builder/v1 site-navigation (builder-family.md §2.6): the editor's recent
 * builder documents and "add new". `recent-posts` (needs `edit_posts`):
 * documents built with the builder (`_builder_edit_mode` = builder),
 * published or draft, kits left out, newest modified first, as the caller
 * may read them. `add-new-post`: a builder draft of a registered type the
 * caller may create (unknown type `400 post_type_not_found`, a type the
 * caller may not create `403 post_type_not_allowed`; the real product
 * answers these with numeric codes and HTTP 500).
 */
import { Type } from '@sinclair/typebox'
import { endpoint, IntList, invalidParam, route, StringList, type RelativeRouteDecl } from '@cms/rest'
import { adminLink, type PackageApi, type PostRow } from '@cms/core'
import { mayEditPosts } from './access.js'
import { builderErrors } from './errors.js'
import { LIBRARY_TYPE } from './kit.js'

/** The builder document type of a post (`cms-page`, `cms-post`, or the library template's type). */
export function docType (post: PostRow, meta: Record<string, unknown>): string {
  if (post.type === LIBRARY_TYPE) return typeof meta._builder_template_type === 'string' && meta._builder_template_type !== '' ? meta._builder_template_type : 'page'
  return post.type === 'page' ? 'cms-page' : 'cms-post'
}

/** The builder's editor for a post, under the admin front end (CMS_ADMIN_URL); null without one. */
export function editUrl (api: PackageApi, id: number): string | null {
  return adminLink(api.services.settings, `post.php?post=${id}&action=builder`)
}

const DOC_LABELS: Record<string, string> = { 'cms-page': 'Page', 'cms-post': 'Post', page: 'Page', section: 'Section', container: 'Container', kit: 'Kit' }

export function siteNavigationRoutes (api: PackageApi): RelativeRouteDecl[] {
  return [
    route({
      path: '/site-navigation/recent-posts',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {
          posts_per_page: Type.Integer({ description: 'How many documents (1 to 100).' }),
          post_type: StringList({ description: 'Post types to list.', default: ['page', 'post', LIBRARY_TYPE] }),
          post__not_in: Type.Optional(IntList({ description: 'Ids to leave out.' }))
        },
        summary: 'Builder documents, most recently modified first',
        response: Type.Array(Type.Object({ id: Type.Integer(), title: Type.String(), edit_url: Type.Union([Type.String(), Type.Null()], { description: 'An admin screen under CMS_ADMIN_URL; null without one.' }), date_modified: Type.Integer({ description: 'Unix seconds.' }), type: Type.Object({ post_type: Type.String(), doc_type: Type.String(), label: Type.String() }) })),
        permission: mayEditPosts.probing({ query: { posts_per_page: 5 } }),
        handler: async (req) => {
          const perPage = req.params.posts_per_page
          if (perPage < 1 || perPage > 100) throw invalidParam('posts_per_page', 'posts_per_page must be between 1 (inclusive) and 100 (inclusive)')
          const types = [...new Set(req.params.post_type)].filter((t) => /^[a-z0-9_-]{1,20}$/.test(t))
          if (types.length === 0) return []
          const { posts } = await api.content.posts({
            type: types,
            status: ['publish', 'draft'],
            exclude: req.params.post__not_in ?? [],
            meta: [{ key: '_builder_edit_mode', equals: 'builder' }, { key: '_builder_template_type', notEquals: 'kit' }],
            orderby: 'modified',
            order: 'desc',
            perPage,
            as: req.user
          })
          const out = []
          for (const post of posts) {
            const meta = (await api.content.post(post.id))?.meta ?? {}
            const doc = docType(post, meta)
            out.push({
              id: post.id,
              title: post.title,
              edit_url: editUrl(api, post.id),
              date_modified: Math.floor(post.modifiedGmt.getTime() / 1000),
              type: { post_type: post.type, doc_type: doc, label: DOC_LABELS[doc] ?? doc }
            })
          }
          return out
        }
      })]
    }),
    route({
      path: '/site-navigation/add-new-post',
      endpoints: [endpoint({
        methods: ['POST'],
        args: { post_type: Type.String({ description: 'The post type of the new document.', default: 'post' }) },
        summary: 'Create a builder draft',
        response: Type.Object({ id: Type.Integer(), edit_url: Type.Union([Type.String(), Type.Null()], { description: 'An admin screen under CMS_ADMIN_URL; null without one.' }) }),
        permission: mayEditPosts.because("§2.6 add new: the type's create capability (posts: edit_posts)").probing({ body: { post_type: 'post' } }),
        handler: async (req) => {
          const type = api.services.types.postTypes.get(req.params.post_type)
          if (type === undefined || type.slug === 'attachment' || !type.showUi) throw builderErrors.post_type_not_found(undefined, `Post type ${req.params.post_type.slice(0, 20)} does not exist.`)
          if (!req.user.can(type.capabilities.create_posts ?? 'edit_posts')) throw builderErrors.post_type_not_allowed()
          const post = await api.content.createPost({
            type: type.slug,
            title: '',
            status: 'draft',
            author: req.user.id,
            siteUrl: req.siteUrl,
            meta: { _builder_edit_mode: 'builder', _builder_template_type: type.slug === 'page' ? 'cms-page' : 'cms-post' }
          })
          return { id: post.id, edit_url: editUrl(api, post.id) }
        }
      })]
    })
  ]
}
