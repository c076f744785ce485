/**
 * `/cms/v2/media`: the media library, the collection controller
 * (content/collection.ts) configured for attachments. Attachments are posts
 * of type `attachment` (the posts' store, query, schema fields,
 * capabilities and writes); what they add is their file (attachments.ts):
 * uploads arrive as a raw body named by Content-Disposition or as a
 * multipart form, streamed to a work file, identified by their content,
 * stored with their image sizes, then recorded. Reading an attached file
 * follows its post; deleting needs `force` (attachments have no trash) and
 * removes the files. `/media/{id}/post-process` makes an image's sizes again.
 */
import { Type } from '@sinclair/typebox'
import { eq } from 'drizzle-orm'
import { argsOf, ContextArg, endpoint, Enum, everyone, route, validateArgs, who, type RelativeRouteDecl, type RestError, type RestRequest } from '@cms/rest'
import type { Store } from '@cms/store'
import type { MediaServices as Services } from './services.js'
import { ATTACHMENT_META, ATTACHMENT_TYPE, canRead, contentErrors, defineCollection, deleteArgs, deletePostFully, denied, getMeta, getPost, ownSlugIds, posts, preparePost, writePost, type PostRow, type PostTypeDefinition, type ReadRule } from '../index.js'
import { checkParent, createAttachment, plainText, postParams, regenerateSizes } from './attachments.js'
import { mediaErrors } from './errors.js'
import { MEDIA_EXAMPLES } from './examples.js'
import { attachmentOf, formatMedia, keysOf } from './media-format.js'
import { mediaItemSchema, mediaListArgs, mediaWriteArgs } from './media-schema.js'
import { receiveBody } from './upload.js'

/** The `attachment` post type as the core declares it: no archive, not in menus, created by `upload_files`. */
export const ATTACHMENT_POST_TYPE: PostTypeDefinition = {
  slug: ATTACHMENT_TYPE.type,
  name: 'Media',
  singularName: 'Media',
  restBase: ATTACHMENT_TYPE.restBase,
  supports: ['title', 'author', 'comments'],
  icon: 'admin-media',
  showInNavMenus: false,
  capabilities: { create_posts: 'upload_files' }
}

/** Whether the caller may read each attachment: an inherited status follows its parent (public when unattached). */
async function canReadMedia (store: Store, req: RestRequest, rows: PostRow[]): Promise<boolean[]> {
  const parentIds = [...new Set(rows.filter((r) => r.status === 'inherit').map((r) => r.parent).filter((id) => id !== 0))]
  const parents = new Map<number, PostRow | undefined>(await Promise.all(parentIds.map(async (id) => [id, await getPost(store, id)] as const)))
  return rows.map((post) => {
    if (post.status !== 'inherit') return canRead(req.user, post)
    const parent = parents.get(post.parent)
    return post.parent === 0 || parent === undefined || parent.type === 'attachment' || canRead(req.user, parent)
  })
}

/** The MIME types a list asks for: a media type (`image/`), a MIME type or its major part; both must hold when both are given. */
function mimeTypesOf (p: Record<string, unknown>): string[] {
  const mimeTypes: string[] = []
  if (typeof p.media_type === 'string') mimeTypes.push(`${p.media_type}/`)
  if (typeof p.mime_type === 'string' && p.mime_type !== '') mimeTypes.push(p.mime_type.includes('/') ? p.mime_type : `${p.mime_type}/`)
  return mimeTypes.length === 2 ? [mimeTypes[1]!.startsWith(mimeTypes[0]!) ? mimeTypes[1]! : '\0'] : mimeTypes
}

export function mediaRoutes (services: Services): RelativeRouteDecl[] {
  const { store } = services
  // The type /cms/v2/types lists, as the core registers it (once per deployment).
  if (!services.types.postTypes.has(ATTACHMENT_TYPE.type)) services.types.registerPostType(ATTACHMENT_POST_TYPE)
  const place = services.media
  const schema = mediaItemSchema(services.meta)
  const writeArgs = mediaWriteArgs(services.meta)
  const writeArgInfo = argsOf(endpoint({ methods: ['POST'], args: writeArgs, permission: everyone, handler: () => null }))

  /** Who may upload, and attach to the post and author given (checked again for multipart fields). */
  const checkUpload = async (req: RestRequest, params: Record<string, unknown>): Promise<true | RestError> => {
    const user = req.user
    if (!user.can('upload_files')) return denied(mediaErrors.rest_cannot_create(), user.id)
    if (typeof params.author === 'number' && params.author !== user.id && !user.can('edit_others_posts')) {
      return denied(contentErrors.rest_cannot_edit_others(), user.id)
    }
    try {
      await checkParent(store, user, params.post)
    } catch (err) {
      return err as RestError
    }
    return true
  }

  // Reading follows the file's status (an unattached upload is public); uploading needs upload_files;
  // editing and deleting another's file (the probe's is an administrator's) edit_others_posts / delete_others_posts.
  const own = { vars: { id: 'media' } }
  const media = defineCollection<Record<string, unknown>>({
    services,
    type: ATTACHMENT_TYPE.type,
    base: ATTACHMENT_TYPE.restBase,
    caps: 'posts',
    schema,
    args: { list: mediaListArgs(services.meta), create: writeArgs, read: { context: ContextArg() }, update: writeArgs, remove: deleteArgs() },
    endpoints: {
      list: { summary: 'List media', example: MEDIA_EXAMPLES.list, cases: [who.everyone('media lists are public')] },
      create: {
        summary: 'Upload a file (raw body with Content-Disposition, or multipart/form-data with a `file` part)',
        example: MEDIA_EXAMPLES.create,
        allowBatch: false,
        streamBody: { maxBytes: () => place.maxBytes, tooLarge: () => mediaErrors.rest_upload_too_large({ max_bytes: place.maxBytes }) },
        cases: [who.can('upload_files', '§13 uploading needs upload_files (authors and up)')]
      },
      read: { summary: 'Read a media item', example: MEDIA_EXAMPLES.read, cases: [who.everyone('an unattached upload is as public as a published post', own)] },
      update: { summary: 'Update a media item', cases: [who.can('edit_others_posts', "§13 edit_post on another's attachment: edit_others_posts", { ...own, body: { title: 'Probe edit' } })] },
      remove: {
        summary: 'Delete a media item and its files (force=true required)',
        cases: [who.can('delete_others_posts', "§13 delete_post on another's attachment: delete_others_posts", { ...own, query: { force: true } })]
      }
    },
    access: {
      publicStatuses: ['inherit', 'publish'],
      canRead: async (req, rows) => await canReadMedia(store, req, rows),
      create: async (req) => await checkUpload(req, req.params)
    },
    // The posts' readability rule; an inherited status follows the parent post, checked per row (canRead).
    query: (req, q) => {
      const rule = q.readable as ReadRule
      return {
        hideProtected: false,
        searchable: null,
        readable: req.params.context === 'edit' || rule.any.includes('inherit') ? rule : { ...rule, any: [...rule.any, 'inherit'] },
        mimeTypes: mimeTypesOf(req.params)
      }
    },
    view: {
      details: async (rows) => {
        const metas = await getMeta(store, rows.map((r) => r.id))
        return new Map(rows.map((r) => [r.id, metas.get(r.id) ?? {}]))
      },
      format: async (req, post, meta, { settings, context, slugIsUnique }) => await formatMedia(post, meta, { req, settings, context, store, slugIsUnique }),
      ownSlugs: async (rows) => await ownSlugIds(store, rows, false)
    },
    write: {
      create: async (req, settings) => {
        const received = await receiveBody(req.body, req.headers, place.work)
        let params: Record<string, unknown>
        try {
          // Fields of a multipart form are arguments like those of the query string, and are checked as such.
          params = Object.keys(received.fields).length === 0
            ? { ...req.params }
            : { ...req.params, ...validateArgs(writeArgInfo, Object.assign(Object.create(null) as Record<string, unknown>, req.query, received.fields)) }
          const allowed = await checkUpload(req, params)
          if (allowed !== true) throw allowed
        } catch (err) {
          await received.file.remove()
          throw err
        }
        return { post: await createAttachment(services, { file: received.file, params, user: req.user, settings }) }
      },
      update: async (req, existing, settings) => {
        const p = req.params
        if (p.post !== undefined && p.post !== existing.parent) await checkParent(store, req.user, p.post)
        const prepared = await preparePost(store, ATTACHMENT_TYPE, postParams(p), req.user, settings, existing)
        if (typeof p.post === 'number') prepared.row.parent = p.post
        if (typeof p.alt_text === 'string') {
          prepared.meta ??= { set: {}, remove: [] }
          prepared.meta.set[ATTACHMENT_META.alt] = plainText(p.alt_text)
        }
        return (await writePost(store, ATTACHMENT_TYPE, prepared, req.user, settings, existing, { revision: false })).post
      },
      // No trash: deleting needs `force`, and the files go with the row.
      destroy: async (post) => {
        const a = attachmentOf((await getMeta(store, [post.id])).get(post.id) ?? {})
        await store.transaction(async (tx) => {
          // Posts that showed it lose their featured image, as the core deletes their thumbnail reference.
          await tx.update(posts).set({ featuredMedia: 0 }).where(eq(posts.featuredMedia, post.id))
          await deletePostFully(tx, post)
        })
        await place.storage.remove(keysOf(a))
      }
    }
  })

  const postProcess = async (req: RestRequest): Promise<unknown> => {
    const post = await media.mustLoad(req)
    const a = attachmentOf((await getMeta(store, [post.id])).get(post.id) ?? {})
    await regenerateSizes(services, post, a)
    return await media.answer(req, (await getPost(store, post.id))!, 'edit')
  }

  return [
    ...media.routes,
    route({
      path: '/media/{id}/post-process',
      vars: { id: '[\\d]+' },
      allowBatch: true,
      endpoints: [
        endpoint({
          methods: ['POST'],
          args: {
            id: Type.Integer({ description: 'Unique identifier for the attachment.' }),
            action: Enum(['create-image-subsizes'], { description: 'The post-processing action to run.' })
          },
          summary: 'Make the sizes of an image again',
          response: schema,
          permission: media.update.because('regenerating sizes is editing the attachment').probing({ body: { action: 'create-image-subsizes' } }),
          handler: postProcess
        })
      ]
    })
  ]
}
