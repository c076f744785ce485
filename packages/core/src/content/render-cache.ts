/**
 * Rendering (texturizing, paragraphs, shortcodes) is a pure function of the
 * stored text and the most expensive part of formatting a post: the result
 * is kept for texts seen recently, so a list of ten posts does not render
 * ten contents and ten excerpts on every request.
 */
import { renderContent, renderExcerpt, renderTitle } from './render.js'

/** Characters (keys and values) kept at most, one or two bytes each. */
const MAX_CHARS = 4_000_000
/** Texts longer than this are rendered every time (rare, and they would crowd out the rest). */
const MAX_TEXT = 200_000

const rendered = new Map<string, string>()
let chars = 0

function memo (key: string, render: () => string): string {
  const hit = rendered.get(key)
  if (hit !== undefined) return hit
  const value = render()
  if (key.length > MAX_TEXT) return value
  // Oldest first out (a Map iterates in insertion order).
  while (chars + key.length + value.length > MAX_CHARS && rendered.size > 0) {
    const [oldKey, oldValue] = rendered.entries().next().value as [string, string]
    rendered.delete(oldKey)
    chars -= oldKey.length + oldValue.length
  }
  rendered.set(key, value)
  chars += key.length + value.length
  return value
}

export function renderedContent (raw: string): string {
  return raw === '' ? '' : memo(`c\0${raw}`, () => renderContent(raw))
}

export function renderedTitle (raw: string): string {
  return raw === '' ? renderTitle(raw) : memo(`t\0${raw}`, () => renderTitle(raw))
}

export function renderedExcerpt (excerpt: string, content: string, length?: number): string {
  return memo(`e\0${length ?? ''}\0${excerpt}\0${content}`, () => renderExcerpt(excerpt, content, length))
}
