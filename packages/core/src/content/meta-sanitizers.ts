/**
 * Sanitizers of registered meta: what a writer without `unfiltered_html`
 * may store in a key. Each meta declaration names its own (meta.ts), so the
 * rule moves with the declaration.
 */
import { allowedUrl, filterPostHtml } from './kses.js'

/** The value to store, or why it is refused (a 400 naming `meta.<key>`). */
export type Sanitized = { value: unknown } | { invalid: string }

/** Keys of builder settings that hold a URL (link and media controls). */
const URL_KEY = /^(?:url|href|src|link)$|_url$/i

/** Nesting deeper than this is refused rather than walked (builder trees are a few levels deep). */
const MAX_DEPTH = 256

/** Text without markup characters comes out of kses unchanged: skip the parse. */
const kses = (text: string): string => /[<>&\u00a0]/.test(text) ? filterPostHtml(text) : text

/** The core's `sanitize_key()`: lower case, letters, digits, `_` and `-`. */
function sanitizeKey (key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9_-]/g, '')
}

/**
 * Footnotes (a JSON list of `{id, content}`), as the core filters them:
 * each content through the post kses rules, ids through `sanitize_key`,
 * entries without both dropped; anything but a JSON list is stored empty.
 */
export function sanitizeFootnotes (value: unknown): Sanitized {
  if (typeof value !== 'string' || value === '') return { value }
  let list: unknown
  try { list = JSON.parse(value) } catch { return { value: '' } }
  if (!Array.isArray(list)) return { value: '' }
  const out: Array<{ id: string, content: string }> = []
  for (const note of list) {
    if (typeof note !== 'object' || note === null) continue
    const { id, content } = note as { id?: unknown, content?: unknown }
    if (typeof id !== 'string' || id === '' || typeof content !== 'string' || content === '') continue
    out.push({ id: sanitizeKey(id), content: kses(content) })
  }
  return { value: JSON.stringify(out) }
}

/**
 * A copy of a JSON value with every string filtered as the builder filters
 * its settings: text through the post kses rules, and URL settings with a
 * refused scheme (`javascript:`) emptied. Keys and other values are kept.
 * Walked without recursion: the depth is the writer's choice.
 */
function filterStrings (root: unknown): Sanitized {
  const clean = (v: unknown, key: string): unknown => {
    if (typeof v !== 'string') return v
    if (URL_KEY.test(key) && v.trim() !== '' && !allowedUrl(v)) return ''
    return kses(v)
  }
  const copy = (v: unknown): unknown => Array.isArray(v) ? new Array(v.length) : typeof v === 'object' && v !== null ? {} : v
  const out = { root: copy(clean(root, '')) }
  const stack: Array<{ from: unknown, to: unknown, depth: number }> = [{ from: root, to: out.root, depth: 0 }]
  while (stack.length > 0) {
    const { from, to, depth } = stack.pop()!
    if (typeof from !== 'object' || from === null) continue
    if (depth >= MAX_DEPTH) return { invalid: `nested more than ${MAX_DEPTH} levels deep` }
    const source = from as Record<string, unknown>
    const target = to as Record<string, unknown>
    for (const key of Object.keys(source)) {
      const value = source[key]
      const made = copy(clean(value, Array.isArray(from) ? '' : key))
      // Defined, not assigned: a `__proto__` key stays a plain key.
      Object.defineProperty(target, key, { value: made, enumerable: true, writable: true, configurable: true })
      if (typeof value === 'object' && value !== null) stack.push({ from: value, to: made, depth: depth + 1 })
    }
  }
  return { value: out.root }
}

/** Builder data: JSON carried as a string; it must parse, and its strings are filtered. */
export function sanitizeBuilderData (value: unknown, param: string): Sanitized {
  if (typeof value !== 'string' || value === '') return { value }
  let data: unknown
  try { data = JSON.parse(value) } catch { return { invalid: `${param} is not valid JSON.` } }
  const r = filterStrings(data)
  if ('invalid' in r) return { invalid: `${param} is ${r.invalid}.` }
  return { value: JSON.stringify(r.value) }
}

/** Builder settings kept as an object: its strings are filtered the same way. */
export function sanitizeBuilderObject (value: unknown, param: string): Sanitized {
  const r = filterStrings(value)
  return 'invalid' in r ? { invalid: `${param} is ${r.invalid}.` } : r
}
