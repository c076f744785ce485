/**
 * Rendering (texturizing, paragraphs, shortcodes) is a pure function of the
 * stored text and the most expensive part of formatting a post: the result
 * is kept for texts seen recently, so a list of ten posts does not render
 * ten contents and ten excerpts on every request. Entries are weighed by
 * their characters (key and value), so a few large texts share the budget
 * with many small ones instead of being rendered on every read. Contents
 * and excerpts are rendered in the text pool (text-pool.ts: a large one off
 * the request thread), and a text already being rendered is waited for,
 * not rendered again by a second request. A long text is kept under a
 * digest of it, not under itself: looking up a megabyte key compares it
 * character by character with the one kept (about 10 ms of the request
 * thread per 2 MB, against about 1.5 ms to hash it).
 */
import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { textPool } from '../text/text-pool.js'

/** Characters (keys and values) kept at most, one or two bytes each. */
const MAX_CHARS = 8_000_000
/** One entry may take half of it: a megabyte post and its rendering fit, a body at the 8 MiB limit does not. */
const MAX_ENTRY_CHARS = MAX_CHARS / 2

const rendered = new LRUCache<string, string>({
  maxSize: MAX_CHARS,
  maxEntrySize: MAX_ENTRY_CHARS,
  sizeCalculation: (value, key) => Math.max(1, key.length + value.length)
})

/** Renderings under way, by key: concurrent reads of one text share one. */
const pending = new Map<string, Promise<string>>()

/** Texts longer than this are part of a key as a digest (shorter ones cost less to compare than to hash). */
export const DIGEST_KEYS_FROM = 4096

/**
 * The cache's key of a kind of rendering and its texts: each text as its
 * length and itself, or its digest when long. Each text is hashed on its
 * own: hashing a string joined from others is many times slower (V8 walks
 * the joined string's pieces character by character).
 */
export function cacheKey (kind: string, ...texts: string[]): string {
  let key = kind
  for (const t of texts) key += `\0${t.length}:${t.length <= DIGEST_KEYS_FROM ? t : createHash('sha1').update(t).digest('base64')}`
  return key
}

async function memoAsync (key: string, render: () => Promise<string>): Promise<string> {
  const hit = rendered.get(key)
  if (hit !== undefined) return hit
  const running = pending.get(key)
  if (running !== undefined) return await running
  const work = render().then((value) => {
    rendered.set(key, value)
    return value
  }).finally(() => pending.delete(key))
  pending.set(key, work)
  return await work
}

/**
 * The renderings when kept already, without a promise (undefined when not):
 * a page's formatting asks these first, and awaits the rendering only on a
 * miss (three async calls a post, thirty a page, were most of a hit's cost).
 */
export function keptContent (raw: string, smilies = true): string | undefined {
  return raw === '' ? '' : rendered.get(cacheKey(`c${smilies ? '' : 'n'}`, raw))
}

export function keptTitle (raw: string): string | undefined {
  return raw === '' ? '' : rendered.get(cacheKey('t', raw))
}

export function keptExcerpt (excerpt: string, content: string, length?: number, smilies = true): string | undefined {
  return rendered.get(cacheKey(`e${smilies ? '' : 'n'}${length ?? ''}`, excerpt, content))
}

export async function renderedContent (raw: string, smilies = true): Promise<string> {
  return raw === '' ? '' : await memoAsync(cacheKey(`c${smilies ? '' : 'n'}`, raw), async () => await textPool.renderContent(raw, smilies))
}

/** Titles are mostly a line, but a title is any string up to the argument bound (a megabyte): through the pool too. */
export async function renderedTitle (raw: string): Promise<string> {
  return raw === '' ? '' : await memoAsync(cacheKey('t', raw), async () => await textPool.renderTitle(raw))
}

export async function renderedExcerpt (excerpt: string, content: string, length?: number, smilies = true): Promise<string> {
  return await memoAsync(cacheKey(`e${smilies ? '' : 'n'}${length ?? ''}`, excerpt, content), async () => await textPool.renderExcerpt(excerpt, content, length, smilies))
}
