/**
 * Writes source records through the service's own routes (cms/v2, built in
 * this process on the switchable store), so every value is checked,
 * sanitised and stored as a client's would be; what the routes do not take
 * goes through the core's functions: users (no passwords), attachment files
 * (the media import), meta no package registered (kept as the source had it).
 */
import { createUser, findUserByLogin, importMedia, updateUser, type Services, type UserRecord } from '@cms/core'
import type { Store } from '@cms/store'
import { checksumOf, type SourceComment, type SourcePost, type SourceTerm, type SourceUser } from './model.js'
import { rewriteLinks } from './links.js'
import type { IdMap, Mapped, Pending } from './map.js'

/** What writing one record did. */
export type Outcome = { result: 'created' | 'updated' | 'unchanged' } | { result: 'skipped', reason: string } | { result: 'failed', reason: string }

/** What the writer needs of the app: a request made in this process. */
export interface InjectApp {
  inject: (req: { method: 'GET' | 'POST', url: string, headers?: Record<string, string>, payload?: string }) => Promise<{ statusCode: number, body: string, json: () => any }>
}

export class RestFailure extends Error {
  constructor (readonly status: number, readonly code: string, message: string, readonly data?: Record<string, unknown>) {
    super(`${code}: ${message}`)
  }
}

/** Source meta that describes the source's own files and editing state, not the content. */
const SOURCE_ONLY_META = new Set(['_wp_attached_file', '_wp_attachment_metadata', '_thumbnail_id', '_edit_lock', '_edit_last', '_wp_attachment_image_alt'])
const POST_STATUSES = new Set(['publish', 'future', 'draft', 'pending', 'private'])
const PATHS: Record<string, string> = { post: 'posts', page: 'pages', attachment: 'media' }

export interface WriterContext {
  app: InjectApp
  services: Services
  store: Store
  map: IdMap
  site: string
  /** Who owns what has no author here. */
  owner: UserRecord
  /** Every source author becomes this user (`--author`). */
  author?: UserRecord
  /** Source logins mapped to users here (`--authors`). */
  authors: ReadonlyMap<string, UserRecord>
  /** The attachment files fetched for this batch (source key -> file or error). */
  files: Map<string, { path?: string, error?: string }>
  baseUrl: string
}

export async function rest (app: InjectApp, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const res = await app.inject({ method, url: `/cms-json/cms/v2${path}`, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }) })
  const answer = res.body === '' ? undefined : res.json()
  if (res.statusCode >= 300) throw new RestFailure(res.statusCode, String(answer?.code ?? res.statusCode), String(answer?.message ?? res.body.slice(0, 200)), answer?.data)
  return answer
}

export async function writeUser (w: WriterContext, rec: SourceUser, mapped: Mapped | undefined): Promise<Outcome> {
  const checksum = checksumOf(rec)
  if (mapped?.checksum === checksum) return { result: 'unchanged' }
  if (mapped !== undefined) {
    // Only what the source says of a user it created; a matched user of the site is left as it is.
    if (mapped.newUrl === 'created') await updateUser(w.store, mapped.newId, { displayName: rec.displayName || rec.login, profile: { first_name: rec.firstName, last_name: rec.lastName } })
    w.map.put({ kind: 'user', key: rec.key, newId: mapped.newId, checksum, newUrl: mapped.newUrl ?? undefined })
    return { result: 'updated' }
  }
  const chosen = w.author ?? w.authors.get(rec.login)
  const existing = chosen ?? await findUserByLogin(w.store, rec.login) ?? (rec.email === '' ? undefined : await findUserByLogin(w.store, rec.email))
  if (existing !== undefined) {
    w.map.put({ kind: 'user', key: rec.key, newId: existing.id, checksum, newUrl: 'matched' })
    return { result: 'skipped', reason: w.author !== undefined ? 'author given by --author' : chosen !== undefined ? 'mapped to a user here by --authors' : 'a user of the same login or email exists here (linked to it)' }
  }
  const email = rec.email !== '' ? rec.email : `${rec.login.replace(/[^A-Za-z0-9._-]/g, '-')}@import.invalid`
  const roles = (rec.roles ?? []).filter((r) => ['administrator', 'editor', 'author', 'contributor', 'subscriber'].includes(r))
  const user = await createUser(w.store, { login: rec.login, email, roles: roles.length > 0 ? roles : ['author'], displayName: rec.displayName || rec.login, profile: { first_name: rec.firstName, last_name: rec.lastName } })
  w.map.put({ kind: 'user', key: rec.key, newId: user.id, checksum, newUrl: 'created' })
  return { result: 'created' }
}

export async function writeTerm (w: WriterContext, rec: SourceTerm, mapped: Mapped | undefined): Promise<Outcome> {
  const checksum = checksumOf(rec)
  if (mapped?.checksum === checksum) return { result: 'unchanged' }
  const path = rec.kind === 'category' ? '/categories' : '/tags'
  const parent = rec.parent === undefined ? undefined : await w.map.get(rec.kind, rec.parent)
  const body = { name: rec.name, slug: rec.slug, description: rec.description, ...(rec.kind === 'category' ? { parent: parent?.newId ?? 0 } : {}) }
  if (mapped !== undefined) {
    await rest(w.app, 'POST', `${path}/${mapped.newId}`, body)
    w.map.put({ kind: rec.kind, key: rec.key, newId: mapped.newId, checksum })
    return { result: 'updated' }
  }
  try {
    const made = await rest(w.app, 'POST', path, body)
    w.map.put({ kind: rec.kind, key: rec.key, newId: made.id, checksum })
    return { result: 'created' }
  } catch (err) {
    if (!(err instanceof RestFailure) || err.code !== 'term_exists') throw err
    w.map.put({ kind: rec.kind, key: rec.key, newId: Number(err.data?.term_id), checksum })
    return { result: 'skipped', reason: 'a term of the same name exists here (linked to it)' }
  }
}

/** Why a post is not imported, if it is not. */
export function refusal (rec: SourcePost): string | undefined {
  if (PATHS[rec.type] === undefined) return `type ${rec.type} is not imported`
  if (rec.type !== 'attachment' && !POST_STATUSES.has(rec.status)) return `status ${rec.status} is not imported`
  if (rec.type === 'attachment' && rec.fileUrl === undefined) return 'an attachment without a file URL'
  return undefined
}

export async function writePost (w: WriterContext, rec: SourcePost, mapped: Mapped | undefined): Promise<Outcome> {
  const refused = refusal(rec)
  if (refused !== undefined) return { result: 'skipped', reason: refused }
  const checksum = checksumOf({ ...rec, comments: undefined })
  if (mapped?.checksum === checksum) return { result: 'unchanged' }
  const pending: Pending = {}
  const ref = async (key: string | undefined, what: 'parent' | 'featured'): Promise<number> => {
    if (key === undefined || key === '' || key === '0') return 0
    const hit = await w.map.get('post', key)
    if (hit === undefined) pending[what] = key
    return hit?.newId ?? 0
  }
  const authorKey = rec.author
  const author = w.author?.id ?? (authorKey === undefined ? undefined : (await w.map.get('user', authorKey))?.newId) ?? w.owner.id
  const parent = await ref(rec.parent, 'parent')
  const featured = await ref(rec.meta._thumbnail_id === undefined ? undefined : String(rec.meta._thumbnail_id), 'featured')
  const { content, unresolved, unresolvedIds } = await rewriteLinks(rec.content, w.site, w.map)
  if (unresolved) pending.content = true
  if (unresolvedIds) pending.ids = true
  const registered: Record<string, unknown> = {}
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(rec.meta)) {
    if (SOURCE_ONLY_META.has(key)) continue
    if (w.services.meta.get(key) !== undefined) registered[key] = value
    else kept[key] = value
  }
  const body: Record<string, unknown> = {
    title: rec.title,
    content,
    excerpt: rec.excerpt,
    slug: rec.slug,
    author,
    comment_status: rec.commentStatus === 'closed' ? 'closed' : 'open',
    ping_status: rec.pingStatus === 'closed' ? 'closed' : 'open',
    ...(rec.dateGmt !== undefined ? { date_gmt: rec.dateGmt } : rec.date !== '' ? { date: rec.date } : {}),
    ...(Object.keys(registered).length > 0 ? { meta: registered } : {})
  }
  if (rec.type !== 'attachment') {
    Object.assign(body, { status: rec.status, password: rec.password, featured_media: featured })
    if (rec.type === 'page') Object.assign(body, { parent, menu_order: rec.menuOrder })
    if (rec.type === 'post') {
      const [cats, tags] = await Promise.all([w.map.lookup('category', rec.categories), w.map.lookup('post_tag', rec.tags)])
      Object.assign(body, { sticky: rec.sticky, format: rec.format === '' ? 'standard' : rec.format, categories: [...cats.values()].map((t) => t.newId), tags: [...tags.values()].map((t) => t.newId) })
    }
  } else {
    Object.assign(body, { caption: rec.excerpt, description: content, alt_text: String(rec.meta._wp_attachment_image_alt ?? '') })
    delete body.content
    delete body.excerpt
  }
  const path = `/${PATHS[rec.type]!}`
  let id: number
  let answer: any
  if (mapped !== undefined) {
    id = mapped.newId
    answer = await rest(w.app, 'POST', `${path}/${id}`, body)
  } else if (rec.type === 'attachment') {
    const file = w.files.get(rec.key)
    if (file?.path === undefined) return { result: 'failed', reason: file?.error ?? 'the file was not fetched' }
    const made = await importMedia(w.services, file.path, { user: w.owner, post: parent, baseUrl: w.baseUrl })
    id = made.id
    answer = await rest(w.app, 'POST', `${path}/${id}`, body)
  } else {
    answer = await rest(w.app, 'POST', path, body)
    id = answer.id
  }
  if (Object.keys(kept).length > 0) await w.services.content.updateMeta(id, kept, [], { touch: false })
  if (Object.keys(pending).length > 0) pending.type = rec.type
  w.map.put({ kind: 'post', key: rec.key, newId: id, checksum, sourceUrl: rec.type === 'attachment' ? rec.fileUrl : rec.link, newUrl: rec.type === 'attachment' ? answer.source_url : answer.link, pending })
  return { result: mapped === undefined ? 'created' : 'updated' }
}

export async function writeComment (w: WriterContext, postKey: string, rec: SourceComment, mapped: Mapped | undefined): Promise<Outcome> {
  if (rec.type !== 'comment') return { result: 'skipped', reason: `${rec.type} comments are not imported` }
  const checksum = checksumOf(rec)
  if (mapped?.checksum === checksum) return { result: 'unchanged' }
  const post = await w.map.get('post', postKey)
  if (post === undefined) return { result: 'failed', reason: `its post ${postKey} was not imported` }
  const parent = rec.parent === undefined ? undefined : await w.map.get('comment', rec.parent)
  const body = {
    post: post.newId,
    parent: parent?.newId ?? 0,
    author_name: rec.authorName,
    author_email: rec.authorEmail,
    author_url: rec.authorUrl,
    ...(/^[0-9a-fA-F.:]+$/.test(rec.authorIp) ? { author_ip: rec.authorIp } : {}),
    ...(rec.dateGmt === '' ? {} : { date_gmt: rec.dateGmt }),
    content: rec.content,
    status: rec.status
  }
  if (mapped !== undefined) {
    await rest(w.app, 'POST', `/comments/${mapped.newId}`, body)
    w.map.put({ kind: 'comment', key: rec.key, newId: mapped.newId, checksum })
    return { result: 'updated' }
  }
  let made: any
  try {
    made = await rest(w.app, 'POST', '/comments', body)
  } catch (err) {
    if (!(err instanceof RestFailure) || err.code !== 'rest_comment_closed') throw err
    // Comments closed at the source after these were written: open for the import, closed again.
    const kind = await rest(w.app, 'POST', `/posts/${post.newId}`, { comment_status: 'open' }).then(() => 'posts', async () => await rest(w.app, 'POST', `/pages/${post.newId}`, { comment_status: 'open' }).then(() => 'pages'))
    made = await rest(w.app, 'POST', '/comments', body)
    await rest(w.app, 'POST', `/${kind}/${post.newId}`, { comment_status: 'closed' })
  }
  w.map.put({ kind: 'comment', key: rec.key, newId: made.id, checksum })
  return { result: 'created' }
}

/** Resolves what a post could not when it was written (its targets came later). */
export async function resolvePending (w: WriterContext, row: Mapped): Promise<void> {
  const pending = row.pending ?? {}
  const path = `/${PATHS[pending.type ?? 'post'] ?? 'posts'}/${row.newId}`
  const body: Record<string, unknown> = {}
  if (pending.parent !== undefined) {
    const hit = await w.map.get('post', pending.parent)
    if (hit !== undefined) body.parent = hit.newId
  }
  if (pending.featured !== undefined) {
    const hit = await w.map.get('post', pending.featured)
    if (hit !== undefined) body.featured_media = hit.newId
  }
  if ((pending.content === true || pending.ids === true) && pending.type !== 'attachment') {
    const current = await rest(w.app, 'GET', `${path}?context=edit`)
    const raw = String(current.content?.raw ?? '')
    const { content } = await rewriteLinks(raw, w.site, w.map, pending.ids === true)
    if (content !== raw) body.content = content
  }
  if (Object.keys(body).length > 0) await rest(w.app, 'POST', path, body)
  await w.map.clearPending('post', row.key)
}
