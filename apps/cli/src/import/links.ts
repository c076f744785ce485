/**
 * Links in content to the source site, rewritten to what they became here:
 * a post's or page's address, an attachment's file (a resized copy's too:
 * `photo-300x200.jpg` becomes the new full file), `?p=ID` addresses; and
 * block and class ids of images (`{"id":12}`, `wp-image-12`). A link whose
 * target has not been imported yet is left and reported as pending (the
 * end of the run tries it again).
 */
import type { IdMap } from './map.js'

const URL_RE = /https?:\/\/[^\s"'<>()]+/g
const SIZED = /-\d+x\d+(\.[A-Za-z0-9]+)$/

function hostOf (url: string): string {
  try { return new URL(url).host.toLowerCase() } catch { return '' }
}

/** The forms of one address the map may know it by. */
function candidates (url: string): string[] {
  const bare = url.replace(/[#?].*$/, '')
  const out = [url, bare, bare.endsWith('/') ? bare.slice(0, -1) : `${bare}/`]
  if (SIZED.test(bare)) out.push(bare.replace(SIZED, '$1'))
  return out.flatMap((u) => [u, u.replace(/^https:/, 'http:'), u.replace(/^http:/, 'https:')])
}

const QUERY_ID = /[?&](?:p|page_id|attachment_id)=(\d+)/
const IMAGE_ID = /wp-image-(\d+)|<!-- wp:image \{"id":(\d+)/g

/** The source ids a text refers to (`?p=` links, image ids): read ahead for its batch. */
export function linkedKeys (content: string): string[] {
  if (content === '') return []
  const ids = (content.match(URL_RE) ?? []).map((u) => QUERY_ID.exec(u)?.[1]).filter((id) => id !== undefined)
  return [...ids, ...[...content.matchAll(IMAGE_ID)].map((m) => m[1] ?? m[2]!)]
}

export interface Rewritten {
  content: string
  /** A link to the source site (or to an uploaded file) not known yet. */
  unresolved: boolean
  /** An image id not known yet: none was rewritten (all are, once every one is known: `ids` again). */
  unresolvedIds: boolean
}

/** `ids`: image ids too (only on text whose ids are all still the source's). */
export async function rewriteLinks (content: string, site: string, map: IdMap, ids = true): Promise<Rewritten> {
  const host = hostOf(site)
  if (content === '') return { content, unresolved: false, unresolvedIds: false }
  // Any address may be an attachment's file (uploads can live on another host); those of the site, or of uploads, must resolve.
  const found = [...new Set(content.match(URL_RE) ?? [])]
  const mustResolve = (u: string): boolean => (host !== '' && hostOf(u) === host) || /\/uploads\//.test(u)
  const byQuery = new Map<string, string>()
  for (const u of found) {
    const m = QUERY_ID.exec(u)
    if (m !== null) byQuery.set(u, m[1]!)
  }
  const imageIds = !ids ? [] : [...content.matchAll(IMAGE_ID)].map((m) => m[1] ?? m[2]!)
  // A `?p=` address is found by its id (read ahead with the batch): only the others by URL.
  const [byUrl, byKey] = await Promise.all([map.byUrl(found.filter((u) => !byQuery.has(u)).flatMap(candidates)), map.lookup('post', [...byQuery.values(), ...imageIds])])
  let unresolved = false
  const replacement = new Map<string, string>()
  for (const u of found) {
    const key = byQuery.get(u)
    const hit = key !== undefined ? byKey.get(key) : candidates(u).map((c) => byUrl.get(c)).find((r) => r !== undefined)
    if (hit?.newUrl != null) replacement.set(u, hit.newUrl)
    else if (mustResolve(u)) unresolved = true
  }
  let out = replacement.size === 0 ? content : content.replace(URL_RE, (u) => replacement.get(u) ?? u)
  // All or none: a text with some ids rewritten could not tell the rest from ids here.
  const unresolvedIds = ids && imageIds.some((id) => !byKey.has(id))
  if (ids && !unresolvedIds) out = out.replace(/(wp-image-|<!-- wp:image \{"id":)(\d+)/g, (whole, prefix: string, id: string) => `${prefix}${byKey.get(id)!.newId}`)
  return { content: out, unresolved, unresolvedIds }
}
