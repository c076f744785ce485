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
 * thread per 2 MB, against about 1.5 ms to hash it), and the digest of a
 * text over `DIGEST_SLICE` is made a slice a turn.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
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
 * Characters of a long text hashed in one turn of the event loop: hashing a
 * 1.9 MB text in one piece held the request thread 10-26 ms under load
 * (issue 27); in slices of this many, other requests are answered between
 * them. A text of at most one slice is hashed at once.
 */
export const DIGEST_SLICE = 128 * 1024

/** Slices hashed between two turns (for tests that count the work, never for timing). */
export const digestCounts = { slices: 0 }

// UTF-16 code units, not UTF-8: UTF-8 makes a lone surrogate the bytes of U+FFFD (two texts, one key), and a slice
// may end inside a pair. The same bytes whether a text is hashed at once or in slices.
const partOf = (t: string, digest: string): string => `\0${t.length}:${digest}`

/**
 * The cache's key of a kind of rendering and its texts: each text as its
 * length and itself, or its digest when long; undefined when a text is
 * longer than one slice (`keyOf` hashes it over several turns). Each text
 * is hashed on its own: hashing a string joined from others is many times
 * slower (V8 walks the joined string's pieces character by character).
 */
export function cacheKey (kind: string, ...texts: string[]): string | undefined {
  let key = kind
  for (const t of texts) {
    if (t.length > DIGEST_SLICE) return undefined
    key += t.length <= DIGEST_KEYS_FROM ? partOf(t, t) : partOf(t, createHash('sha1').update(t, 'utf16le').digest('base64'))
  }
  return key
}

/** The same key as `cacheKey`, a long text hashed a slice a turn. */
export async function keyOf (kind: string, ...texts: string[]): Promise<string> {
  let key = kind
  for (const t of texts) {
    if (t.length <= DIGEST_KEYS_FROM) {
      key += partOf(t, t)
      continue
    }
    const hash = createHash('sha1')
    for (let at = 0; at < t.length; at += DIGEST_SLICE) {
      if (at > 0) await nextTurn()
      hash.update(t.length <= DIGEST_SLICE ? t : t.slice(at, at + DIGEST_SLICE), 'utf16le')
      digestCounts.slices++
    }
    key += partOf(t, hash.digest('base64'))
  }
  return key
}

async function memoAsync (keyed: Promise<string>, render: () => Promise<string>): Promise<string> {
  const key = await keyed
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
  return raw === '' ? '' : kept(cacheKey(`c${smilies ? '' : 'n'}`, raw))
}

export function keptTitle (raw: string): string | undefined {
  return raw === '' ? '' : kept(cacheKey('t', raw))
}

export function keptExcerpt (excerpt: string, content: string, length?: number, smilies = true): string | undefined {
  return kept(cacheKey(`e${smilies ? '' : 'n'}${length ?? ''}`, excerpt, content))
}

/** A kept rendering; undefined too when a text is too long to key at once (it is looked up after `keyOf`). */
const kept = (key: string | undefined): string | undefined => key === undefined ? undefined : rendered.get(key)

export async function renderedContent (raw: string, smilies = true): Promise<string> {
  return raw === '' ? '' : await memoAsync(keyOf(`c${smilies ? '' : 'n'}`, raw), async () => await textPool.renderContent(raw, smilies))
}

/** Titles are mostly a line, but a title is any string up to the argument bound (a megabyte): through the pool too. */
export async function renderedTitle (raw: string): Promise<string> {
  return raw === '' ? '' : await memoAsync(keyOf('t', raw), async () => await textPool.renderTitle(raw))
}

export async function renderedExcerpt (excerpt: string, content: string, length?: number, smilies = true): Promise<string> {
  return await memoAsync(keyOf(`e${smilies ? '' : 'n'}${length ?? ''}`, excerpt, content), async () => await textPool.renderExcerpt(excerpt, content, length, smilies))
}
