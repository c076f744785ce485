/**
 * The strings of a JSON value filtered as the builder filters its data:
 * text through the post rules, and settings named like a URL (`urlKey`)
 * with a refused scheme (`javascript:`) emptied. Keys and other values are
 * kept. One walk for both places it runs (issue 27):
 *
 *   - in the text pool's thread, whole (`filterJsonText`: builder data
 *     carried as JSON text is scanned, parsed, filtered and written back
 *     there, none of it on the request thread);
 *   - on the request thread for a value already parsed (`filterJsonValue`,
 *     the builder's objects), yielding to the event loop every `WALK_SLICE`
 *     values, the strings filtered in the pool.
 *
 * Walked without recursion: the depth is the writer's choice. The strings
 * with markup are collected while walking and filtered together at the end
 * (`filterPostHtmlMany`: a cost per byte, where one filter call per string
 * made thousands of small strings cost seconds). Imports nothing of the
 * kernel but its JSON scan, which imports nothing else (text-worker.mjs).
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import { scanJson, type TextLimits } from '@cms/rest/json-scan'
import { allowedUrl, filterPostHtmlMany } from './kses.js'

/** Nesting deeper than this is refused rather than walked (builder trees are a few levels deep). */
export const MAX_JSON_DEPTH = 256

/**
 * Values copied (or filtered texts written back) between two turns of the
 * event loop when the walk runs on the request thread: builder data of the
 * most strings the limits allow (50,000) took about 30 ms in one piece.
 */
export const WALK_SLICE = 2000

/** Slices walked on the request thread, and turns taken between slices of members written as JSON (`jsonOfSliced`): for tests that count the work, never for timing. */
export const walkCounts = { slices: 0, written: 0 }

/** Text without markup characters comes out of the filter unchanged: it is not queued. */
const MARKUP = /[<>&\u00a0]/

/** What the walk asks of its driver: a turn of the event loop, or the filtered texts. */
type Step = { turn: true } | { texts: string[] }

/** The filtered copy, or why the value was refused. */
export type Walked = { value: unknown } | { invalid: string }

/**
 * The walk: yields `{ turn }` every `WALK_SLICE` values (a driver on the
 * request thread yields to the loop there) and once `{ texts }`, to be
 * answered with the filtered texts; returns the filtered copy.
 */
function * walk (root: unknown, urlKey: RegExp): Generator<Step, Walked, string[] | undefined> {
  /** Where each queued string goes: its container and key. */
  const slots: Array<[Record<string, unknown>, string]> = []
  const texts: string[] = []
  const clean = (v: unknown, key: string): unknown => {
    if (typeof v !== 'string') return v
    if (urlKey.test(key) && v.trim() !== '' && !allowedUrl(v)) return ''
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
    if (depth >= MAX_JSON_DEPTH) return `nested more than ${MAX_JSON_DEPTH} levels deep`
    stack.push({ from: from as Record<string, unknown>, to: to as Record<string, unknown>, depth, keys: Object.keys(from), next: 0, list: Array.isArray(from) })
    return undefined
  }
  const tooDeep = open(root, out.root, 0)
  if (tooDeep !== undefined) return { invalid: tooDeep }
  let copied = 0
  while (stack.length > 0) {
    if (copied >= WALK_SLICE) {
      copied = 0
      yield { turn: true }
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
  const filtered = texts.length === 0 ? [] : (yield { texts }) ?? []
  for (let i = 0; i < filtered.length; i++) {
    // Written back in slices too.
    if (i > 0 && i % WALK_SLICE === 0) yield { turn: true }
    const [target, key] = slots[i]!
    Object.defineProperty(target, key, { value: filtered[i], enumerable: true, writable: true, configurable: true })
  }
  return { value: out.root }
}

/** A parsed value's strings filtered on this thread's event loop, a slice a turn; `filterMany` filters the texts (the pool). */
export async function filterJsonValue (root: unknown, urlKey: RegExp, filterMany: (texts: string[]) => Promise<string[]>): Promise<Walked> {
  const steps = walk(root, urlKey)
  walkCounts.slices++
  let step = steps.next()
  while (step.done !== true) {
    if ('texts' in step.value) step = steps.next(await filterMany(step.value.texts))
    else {
      walkCounts.slices++
      await nextTurn()
      step = steps.next()
    }
  }
  return step.value
}

/** Why a JSON text was refused, to follow the name of the value that held it. */
export type JsonTextOutcome = { json: string } | { invalid: string }

/**
 * JSON carried as text, whole, on the thread that calls it (a worker of the
 * text pool): its nesting and strings counted against `limits` before it is
 * parsed, then parsed, its strings filtered, and written back as JSON.
 */
export function filterJsonText (json: string, limits: TextLimits, urlKey: RegExp): JsonTextOutcome {
  const shape = scanJson(json, limits)
  if (shape instanceof Error) return { invalid: `holds too much text: ${shape.message.replace(/^.*: /, '')}` }
  let data: unknown
  try { data = JSON.parse(json) } catch { return { invalid: 'is not valid JSON.' } }
  const steps = walk(data, urlKey)
  let step = steps.next()
  while (step.done !== true) step = steps.next('texts' in step.value ? filterPostHtmlMany(step.value.texts) : undefined)
  return 'invalid' in step.value ? { invalid: `is ${step.value.invalid}.` } : { json: JSON.stringify(step.value.value) }
}

/**
 * `JSON.stringify(value)` of a parsed JSON value (plain objects, arrays and
 * primitives) on the request thread, its outer members written
 * `WALK_SLICE` at a time (one `JSON.stringify` of each slice, its brackets
 * cut) with a turn of the event loop between: a template's content of tens
 * of thousands of members written in one piece was one long task (issue 27).
 * The same text as `JSON.stringify` of the whole (the same members in the
 * same order; a member whose value writes nothing is left out, as there).
 */
export async function jsonOfSliced (value: unknown): Promise<string> {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null'
  const list = Array.isArray(value)
  const keys = list ? [] : Object.keys(value)
  const n = list ? value.length : keys.length
  if (n <= WALK_SLICE) return JSON.stringify(value)
  const parts: string[] = []
  for (let i = 0; i < n; i += WALK_SLICE) {
    if (i > 0) {
      walkCounts.written++
      await nextTurn()
    }
    let slice: unknown
    if (list) slice = (value as unknown[]).slice(i, i + WALK_SLICE)
    else {
      // No prototype: a `__proto__` member is a plain member here too. Object.keys' order is kept (integer keys
      // first, ascending, then the others as they came), and a slice of it sorts the same way.
      const part = Object.create(null) as Record<string, unknown>
      for (const k of keys.slice(i, i + WALK_SLICE)) part[k] = (value as Record<string, unknown>)[k]
      slice = part
    }
    const inner = JSON.stringify(slice).slice(1, -1)
    if (inner !== '') parts.push(inner)
  }
  return list ? `[${parts.join(',')}]` : `{${parts.join(',')}}`
}
