/**
 * Rendering (texturizing, paragraphs, shortcodes) is a pure function of the
 * stored text and the most expensive part of formatting a post: the result
 * is kept for texts seen recently, so a list of ten posts does not render
 * ten contents and ten excerpts on every request. Entries are weighed by
 * their characters (key and value), so a few large texts share the budget
 * with many small ones instead of being rendered on every read.
 */
import { LRUCache } from 'lru-cache'
import { renderContent, renderExcerpt, renderTitle } from './render.js'

/** Characters (keys and values) kept at most, one or two bytes each. */
const MAX_CHARS = 8_000_000
/** One entry may take half of it: a megabyte post and its rendering fit, a body at the 8 MiB limit does not. */
const MAX_ENTRY_CHARS = MAX_CHARS / 2

const rendered = new LRUCache<string, string>({
  maxSize: MAX_CHARS,
  maxEntrySize: MAX_ENTRY_CHARS,
  sizeCalculation: (value, key) => Math.max(1, key.length + value.length)
})

function memo (key: string, render: () => string): string {
  const hit = rendered.get(key)
  if (hit !== undefined) return hit
  const value = render()
  rendered.set(key, value)
  return value
}

export function renderedContent (raw: string, smilies = true): string {
  return raw === '' ? '' : memo(`c${smilies ? '' : 'n'}\0${raw}`, () => renderContent(raw, smilies))
}

export function renderedTitle (raw: string): string {
  return raw === '' ? renderTitle(raw) : memo(`t\0${raw}`, () => renderTitle(raw))
}

export function renderedExcerpt (excerpt: string, content: string, length?: number, smilies = true): string {
  return memo(`e${smilies ? '' : 'n'}\0${length ?? ''}\0${excerpt}\0${content}`, () => renderExcerpt(excerpt, content, length, smilies))
}
