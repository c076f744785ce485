/**
 * What a writer without `unfiltered_html` may store in the builder's meta
 * (`_builder_data`, `_builder_page_settings`) and in the builder data the
 * package writes itself (templates): every string through the core's post
 * HTML filter, URL settings with a refused scheme (`javascript:`) emptied.
 */
import { allowedUrl, textPool, type Sanitized } from '@cms/core'
import { DEFAULT_TEXT_LIMITS, scanJson, type TextLimits } from '@cms/rest'

/** Keys of builder settings that hold a URL (link and media controls). */
const URL_KEY = /^(?:url|href|src|link)$|_url$/i

/** Nesting deeper than this is refused rather than walked (builder trees are a few levels deep). */
export const MAX_DEPTH = 256

/**
 * Values copied (or filtered texts written back) between two turns of the event loop: a walk over builder
 * data of the most strings the limits allow (50,000) took about 30 ms of
 * the request thread in one piece; in slices of this many, other requests
 * are answered between them (issue 27).
 */
export const WALK_SLICE = 2000

/** Slices walked (for tests that count the work, never for timing). */
export const walkCounts = { slices: 0 }

const nextTurn = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }

/** Text without markup characters comes out of the filter unchanged: it is not queued. */
const MARKUP = /[<>&\u00a0]/

/**
 * A copy of a JSON value with every string filtered as the builder filters
 * its settings: text through the post rules, and URL settings with a
 * refused scheme emptied. Keys and other values are kept. Walked without
 * recursion: the depth is the writer's choice. The strings with markup
 * are collected while walking and filtered together at the end, in the
 * core's text pool (`textPool.filterMany`: a cost per byte, where one
 * filter call per string made thousands of small strings cost seconds, and
 * off the request thread once they are large). The walk yields to the
 * event loop every `WALK_SLICE` values.
 */
export async function filterStrings (root: unknown): Promise<Sanitized> {
  /** Where each queued string goes: its container and key. */
  const slots: Array<[Record<string, unknown>, string]> = []
  const texts: string[] = []
  const clean = (v: unknown, key: string): unknown => {
    if (typeof v !== 'string') return v
    if (URL_KEY.test(key) && v.trim() !== '' && !allowedUrl(v)) return ''
    return v
  }
  const queue = (target: Record<string, unknown>, key: string): void => {
    const v = target[key]
    if (typeof v === 'string' && MARKUP.test(v)) {
      slots.push([target, key])
      texts.push(v)
    }
  }
  const copy = (v: unknown): unknown => Array.isArray(v) ? new Array(v.length) : typeof v === 'object' && v !== null ? {} : v
  const out = { root: copy(clean(root, '')) }
  queue(out, 'root')
  // Each container with its keys and where the walk is in them: a container of many members (a list of 15,000
  // elements) is left between two slices too, not only between two containers.
  interface Open { from: Record<string, unknown>, to: Record<string, unknown>, depth: number, keys: string[], next: number, list: boolean }
  const stack: Open[] = []
  const open = (from: unknown, to: unknown, depth: number): string | undefined => {
    if (typeof from !== 'object' || from === null) return undefined
    if (depth >= MAX_DEPTH) return `nested more than ${MAX_DEPTH} levels deep`
    stack.push({ from: from as Record<string, unknown>, to: to as Record<string, unknown>, depth, keys: Object.keys(from), next: 0, list: Array.isArray(from) })
    return undefined
  }
  const tooDeep = open(root, out.root, 0)
  if (tooDeep !== undefined) return { invalid: tooDeep }
  let copied = 0
  walkCounts.slices++
  while (stack.length > 0) {
    if (copied >= WALK_SLICE) {
      copied = 0
      walkCounts.slices++
      await nextTurn()
    }
    const top = stack[stack.length - 1]!
    if (top.next >= top.keys.length) {
      stack.pop()
      continue
    }
    const key = top.keys[top.next++]!
    const value = top.from[key]
    const made = copy(clean(value, top.list ? '' : key))
    // Defined, not assigned: a `__proto__` key stays a plain key.
    Object.defineProperty(top.to, key, { value: made, enumerable: true, writable: true, configurable: true })
    queue(top.to, key)
    copied++
    const refused = open(value, made, top.depth + 1)
    if (refused !== undefined) return { invalid: refused }
  }
  const filtered = await textPool.filterMany(texts)
  for (let i = 0; i < filtered.length; i++) {
    // Written back in slices too.
    if (i > 0 && i % WALK_SLICE === 0) {
      walkCounts.slices++
      await nextTurn()
    }
    const [target, key] = slots[i]!
    Object.defineProperty(target, key, { value: filtered[i], enumerable: true, writable: true, configurable: true })
  }
  return { value: out.root }
}

/**
 * The sanitizer of builder data: JSON carried as a string; it must parse,
 * and its strings are filtered. Its nesting and strings are counted before
 * the parse against the deployment's text limits (`CMS_JSON_MAX_DEPTH`,
 * `CMS_TEXT_MAX_STRINGS`), as a request body is: the filter's work is
 * bounded before it starts.
 */
export function builderDataSanitizer (limits: TextLimits = DEFAULT_TEXT_LIMITS): (value: unknown, param: string) => Promise<Sanitized> {
  return async (value, param) => {
    if (typeof value !== 'string' || value === '') return { value }
    const shape = scanJson(value, limits)
    if (shape instanceof Error) return { invalid: `${param} holds too much text: ${shape.message.replace(/^.*: /, '')}` }
    let data: unknown
    try { data = JSON.parse(value) } catch { return { invalid: `${param} is not valid JSON.` } }
    const r = await filterStrings(data)
    if ('invalid' in r) return { invalid: `${param} is ${r.invalid}.` }
    return { value: JSON.stringify(r.value) }
  }
}

/** Builder settings kept as an object: its strings are filtered the same way. */
export async function sanitizeBuilderObject (value: unknown, param: string): Promise<Sanitized> {
  const r = await filterStrings(value)
  return 'invalid' in r ? { invalid: `${param} is ${r.invalid}.` } : r
}
