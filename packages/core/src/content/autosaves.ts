/**
 * `/cms/v2/{posts|pages}/{id}/autosaves` and `/{parent}/autosaves/{id}`:
 * unsaved editor state. The author's own draft is updated in place; any
 * other post gets one autosave per user, never a regular revision.
 */
import { createHash } from 'node:crypto'
import { and, desc, eq, like } from 'drizzle-orm'
import { Type } from '@sinclair/typebox'
import { argsFromSchema, check, contextParam, endpoint, route, RestResponse, who, type RelativeRouteDecl, type RestError, type RestRequest } from '@cms/rest'
import type { ContentServices as Services } from './services.js'
import { contentErrors, denied } from './errors.js'
import { canEdit } from './post-format.js'
import { postItemSchema, revisionItemSchema } from './post-schema.js'
import { getMeta, getPost, type PostRow } from './post-store.js'
import { permalink, siteSettings, type PostType, type SiteSettings } from './post-types.js'
import { preparePost, savePost } from './post-write.js'
import { updatePermissionFor } from './posts.js'
import { itemLoader } from './request-reads.js'
import { isAutosave, latestAutosave, upsertAutosave } from './revision-store.js'
import { formatRevision, loadParent, revisionLinks } from './revisions.js'
import { posts } from './schema.js'

/** A stand-in for the preview nonce: stable per post and user, meaningless elsewhere. */
function previewToken (postId: number, userId: number): string {
  return createHash('sha256').update(`preview:${postId}:${userId}`).digest('hex').slice(0, 10)
}

export function autosaveRoutes (services: Services, spec: PostType): RelativeRouteDecl[] {
  const { store } = services
  const schema = revisionItemSchema(spec, services.meta, true)
  const plural = spec.restBase
  const loader = itemLoader(store, spec.type)
  const createPermission = updatePermissionFor(store, spec, loader)

  const format = async (row: PostRow, req: RestRequest, settings: SiteSettings): Promise<Record<string, unknown>> => {
    const meta = (await getMeta(store, [row.id])).get(row.id)!
    const out = await formatRevision(row, meta, req, settings)
    if (row.type === 'revision' && isAutosave(row)) {
      const parentType = (await getPost(store, row.parent))?.type ?? spec.type
      out.preview_link = `${permalink(settings.home, parentType, row.parent)}&preview_id=${row.parent}&preview_nonce=${previewToken(row.parent, req.user.id)}&preview=true`
    } else {
      out.preview_link = `${permalink(settings.home, row.type, row.id)}&preview=true`
    }
    const links = await revisionLinks(store, row, req.baseUrl)
    if (links !== undefined) out._links = links
    return out
  }

  const listPermission = async (req: RestRequest): Promise<true | RestError> => {
    const parent = await loadParent(store, spec, req.params.id)
    if (parent === undefined) return contentErrors.rest_post_invalid_parent()
    if (!canEdit(req.user, parent)) return denied(contentErrors.rest_cannot_read(undefined, 'Sorry, you are not allowed to view autosaves of this post.'), req.user.id)
    return true
  }

  const list = async (req: RestRequest): Promise<unknown> => {
    const parent = (await loadParent(store, spec, req.params.id))!
    const settings = await siteSettings(store, req, services.meta)
    const rows = await store.db.select().from(posts)
      .where(and(eq(posts.type, 'revision'), eq(posts.parent, parent.id), like(posts.slug, `${parent.id}-autosave%`)))
      .orderBy(desc(posts.dateGmt), desc(posts.id))
    return await Promise.all(rows.map((row) => format(row, req, settings)))
  }

  const create = async (req: RestRequest): Promise<RestResponse> => {
    const post = (await loader.load(req))!
    loader.forget(req)
    const settings = await siteSettings(store, req, services.meta)
    const user = req.user
    // `parent` names the autosaved post here, never a new page parent.
    const { parent: _autosaveParent, ...fields } = req.params
    const prepared = await preparePost(store, spec, fields, user, settings, post)
    let result: PostRow
    if ((post.status === 'draft' || post.status === 'auto-draft') && post.author === user.id) {
      // The author's own draft: the post itself is saved, without a revision.
      await savePost(store, spec, prepared, user, settings, post, { revision: false })
      result = (await getPost(store, post.id))!
    } else {
      const texts = {
        title: prepared.row.title ?? post.title,
        content: prepared.row.content ?? post.content,
        excerpt: prepared.row.excerpt ?? post.excerpt
      }
      result = await store.transaction(async (tx) => await upsertAutosave(tx, post, user.id, settings, texts, prepared.meta?.set ?? {}, prepared.utf8))
    }
    return new RestResponse(await format(result, req, settings), 200)
  }

  const readPermission = async (req: RestRequest): Promise<true | RestError> => {
    const parent = await loadParent(store, spec, req.params.parent)
    if (parent === undefined) return contentErrors.rest_post_invalid_parent()
    if (!canEdit(req.user, parent)) return denied(contentErrors.rest_cannot_read(), req.user.id)
    return true
  }

  // The core ignores `{id}` here and answers the latest autosave of the post.
  const read = async (req: RestRequest): Promise<unknown> => {
    const parent = (await loadParent(store, spec, req.params.parent))!
    const autosave = await latestAutosave(store, parent.id)
    if (autosave === undefined) throw contentErrors.rest_post_no_autosave()
    return await format(autosave, req, await siteSettings(store, req, services.meta))
  }

  const parentArg = Type.Optional(Type.Integer({ description: 'The ID for the parent of the autosave.' }))
  // An autosave takes what an update of the post takes (the core's parent controller's EDITABLE args).
  const saveArgs = argsFromSchema(postItemSchema(spec, services.meta), 'update')
  // §10: autosaves follow the parent's update permission (edit_post on an administrator's published post).
  const item = spec.type
  const edit = `edit_others_${spec.restBase === 'pages' ? 'pages' : 'posts'}`
  return [
    route({
      path: `/${plural}/{id}/autosaves`,
      vars: { id: '[\\d]+' },
      // The core names the post `parent` in the arguments; `{id}` is listed too, as every path variable is.
      args: { parent: parentArg, id: Type.Optional(Type.Integer({ description: 'The ID for the parent of the autosave.' })) },
      schema,
      endpoints: [
        endpoint({ methods: ['GET'], summary: `List autosaves of a ${spec.type}`, args: { context: contextParam(schema) }, permission: check(listPermission, who.can(edit, '§10 autosave list needs edit_post on the parent', { vars: { id: item } })), handler: list }),
        endpoint({ methods: ['POST'], summary: `Autosave a ${spec.type}`, status: 200, args: saveArgs, permission: check(createPermission, who.can(edit, "§10 autosave = the parent's update permission", { vars: { id: item }, body: { title: 'Probe autosave' } })), handler: create })
      ]
    }),
    route({
      path: `/${plural}/{parent}/autosaves/{id}`,
      vars: { parent: '[\\d]+', id: '[\\d]+' },
      args: { parent: parentArg, id: Type.Optional(Type.Integer({ description: 'The ID for the autosave.' })) },
      schema,
      endpoints: [endpoint({
        methods: ['GET'],
        summary: `Read the latest autosave of a ${spec.type}`,
        args: { context: contextParam(schema) },
        permission: check(readPermission, who.can(edit, '§10 autosaves need edit_post on the parent', { vars: { parent: item, id: `${item}.autosave` } })),
        handler: read
      })]
    })
  ]
}
