/**
 * builder/v1/documents `/{id}/media/import` (builder-family.md §3; the
 * real route's code was not found, this contract is the issue's): for a
 * builder document, every image reference `{url, id}` in its builder data
 * whose URL is not local is fetched through the core's SSRF-guarded
 * outbound client into the media library (the core's `importMedia`,
 * attached to the document), and the data is rewritten to the new
 * attachment's id and URL in one write. Answers
 * `{success: true, data: {imported: [{from, id, url}], skipped: [{url, reason}]}}`;
 * a document with nothing to import answers empty lists. A reference that
 * cannot be fetched is skipped with its reason; when nothing was imported
 * the document is left as it was. Needs `edit_post` on the document and
 * `upload_files`; an unknown id is `404 rest_post_invalid_id`, a post that
 * is not a builder document `404 not_a_builder_document`.
 */
import { Type } from '@sinclair/typebox'
import { check, denied, endpoint, route, who, type RelativeRouteDecl, type RestRequest, successObject } from '@cms/rest'
import { findUserById, importMedia, outboundClientFromEnv, type PackageApi } from '@cms/core'
import { builderErrors } from './errors.js'
import { MAX_DEPTH } from './sanitize.js'

/** At most this many distinct images fetched per request (the rest are skipped, to import with another call). */
export const IMPORT_LIMIT = 50

interface ImageRef { holder: Record<string, unknown>, url: string }

/** Every object with a string `url` and an `id` key, walked without recursion. */
function imageRefs (root: unknown): ImageRef[] {
  const out: ImageRef[] = []
  const stack: Array<{ v: unknown, depth: number }> = [{ v: root, depth: 0 }]
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!
    if (typeof v !== 'object' || v === null || depth > MAX_DEPTH) continue
    const o = v as Record<string, unknown>
    if (!Array.isArray(v) && typeof o.url === 'string' && o.url !== '' && Object.hasOwn(o, 'id')) out.push({ holder: o, url: o.url })
    const children = Array.isArray(v) ? v : Object.values(o)
    for (let i = children.length - 1; i >= 0; i--) stack.push({ v: children[i], depth: depth + 1 })
  }
  return out
}

export function documentRoutes (api: PackageApi): RelativeRouteDecl[] {
  const outbound = outboundClientFromEnv()
  const documentOf = async (req: RestRequest<any>): Promise<NonNullable<Awaited<ReturnType<PackageApi['content']['post']>>>> => {
    const found = await api.content.post(Number(req.params.id))
    if (found === undefined || found.post.type === 'revision' || found.post.type === 'attachment') throw builderErrors.rest_post_invalid_id()
    return found
  }
  return [route({
    path: '/{id}/media/import',
    vars: { id: '[\\d]+' },
    endpoints: [endpoint({
      methods: ['POST'],
      // Limited as expensive (rate limits): fetches and decodes remote images.
      rateClass: 'expensive',
      args: { id: Type.Integer({ description: 'Unique identifier for the document.' }) },
      summary: "Import a builder document's remote images into the media library",
      response: successObject({ data: Type.Object({ imported: Type.Array(Type.Object({ from: Type.String(), id: Type.Integer(), url: Type.String() })), skipped: Type.Array(Type.Object({ url: Type.String(), reason: Type.String() })) }) }),
      permission: check(async (req) => {
        const refuse = denied(builderErrors.rest_forbidden(), req.user.id)
        if (!req.user.can('upload_files')) return refuse
        const found = await api.content.post(Number(req.params.id))
        // An unknown id is the handler's 404.
        if (found === undefined) return true
        return req.user.can('edit_post', { type: found.post.type, author: found.post.author, status: found.post.status }) ? true : refuse
      }, who.can('edit_others_posts', "§3 media import: edit_post on the document (an administrator's published post) and upload_files", { vars: { id: 'post' } })),
      handler: async (req) => {
        const { post, meta } = await documentOf(req)
        if (meta._builder_edit_mode !== 'builder') throw builderErrors.not_a_builder_document()
        const raw = typeof meta._builder_data === 'string' ? meta._builder_data : ''
        const imported: Array<{ from: string, id: number, url: string }> = []
        const skipped: Array<{ url: string, reason: string }> = []
        if (raw === '') return { success: true, data: { imported, skipped } }
        let data: unknown
        try { data = JSON.parse(raw) } catch { throw builderErrors.rest_invalid_param({ params: { id: 'The document\'s builder data is not valid JSON.' } }, 'Invalid parameter(s): id') }
        const locals = [req.baseUrl, req.siteUrl].map((u) => `${u.replace(/\/+$/, '')}/`)
        const user = await findUserById(api.services.store, req.user.id)
        const done = new Map<string, { id: number, url: string } | string>()
        const refs = imageRefs(data)
        for (const ref of refs) {
          if (done.has(ref.url)) continue
          let why: string | undefined
          if (!/^https?:\/\//i.test(ref.url)) why = /^[a-z][a-z0-9+.-]*:/i.test(ref.url) ? 'unsupported_url: only http and https URLs are fetched' : 'local: a relative URL is already local'
          else if (locals.some((l) => ref.url.startsWith(l))) why = 'local: already in this site'
          else if (done.size >= IMPORT_LIMIT) why = `limit: at most ${IMPORT_LIMIT} images per request`
          if (why !== undefined) {
            done.set(ref.url, why)
            continue
          }
          try {
            const got = await importMedia(api.services, ref.url, { user: user!, post: post.id, baseUrl: req.baseUrl, outbound })
            done.set(ref.url, { id: got.id, url: got.sourceUrl })
            imported.push({ from: ref.url, id: got.id, url: got.sourceUrl })
          } catch (err) {
            done.set(ref.url, `unreachable: ${(err as Error).message.slice(0, 300)}`)
          }
        }
        for (const [url, result] of done) if (typeof result === 'string') skipped.push({ url, reason: result })
        if (imported.length > 0) {
          for (const ref of refs) {
            const result = done.get(ref.url)
            if (typeof result === 'object') {
              ref.holder.url = result.url
              ref.holder.id = result.id
            }
          }
          await api.content.updateMeta(post.id, { _builder_data: JSON.stringify(data) })
        }
        return { success: true, data: { imported, skipped } }
      }
    })]
  })]
}
