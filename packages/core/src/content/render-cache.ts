/**
 * Rendering (texturizing, paragraphs, shortcodes) is a pure function of the
 * stored text and the most expensive part of formatting a post: the result
 * is kept for texts seen recently, so a list of ten posts does not render
 * ten contents and ten excerpts on every request. Entries are weighed by
 * their characters (key and value), so a few large texts share the budget
 * with many small ones instead of being rendered on every read. Contents
 * and excerpts are rendered in the text pool (text-pool.ts: a large one off
 * the request thread), and a text already being rendered is waited for,
 * not rendered again by a second request.
 */
import { LRUCache } from 'lru-cache'
import { renderTitle } from './render.js'
import { textPool } from './text-pool.js'

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

function memo (key: string, render: () => string): string {
  const hit = rendered.get(key)
  if (hit !== undefined) return hit
  const value = render()
  rendered.set(key, value)
  return value
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

export async function renderedContent (raw: string): Promise<string> {
  return raw === '' ? '' : await memoAsync(`c\0${raw}`, async () => await textPool.renderContent(raw))
}

/** Titles are short (a line): rendered inline. */
export function renderedTitle (raw: string): string {
  return raw === '' ? renderTitle(raw) : memo(`t\0${raw}`, () => renderTitle(raw))
}

export async function renderedExcerpt (excerpt: string, content: string, length?: number): Promise<string> {
  return await memoAsync(`e\0${length ?? ''}\0${excerpt}\0${content}`, async () => await textPool.renderExcerpt(excerpt, content, length))
}
