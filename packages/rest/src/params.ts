/**
 * Where parameters come from and which source wins. Query strings (and
 * form bodies) are read the PHP way (`a[]=1&a[]=2`, `categories[terms][]=3`);
 * a repeated plain name keeps its last value. Path variables win over
 * everything else.
 *
 * Reading is linear in the input and bounded as PHP bounds it: the first
 * {@link MAX_INPUT_VARS} non-empty `name=value` parts are read and the rest
 * ignored (PHP's `max_input_vars`), and a name nested deeper than
 * {@link MAX_INPUT_NESTING} brackets is dropped whole (PHP's
 * `max_input_nesting_level`). PHP's behaviour was chosen over a 400: the
 * core's clients get what the core gives them, and an oversized input
 * costs no more than reading it once.
 */
import qs from 'qs'

/** PHP's `max_input_vars` default: parts past this many are ignored. */
export const MAX_INPUT_VARS = 1000
/** PHP's `max_input_nesting_level` default: a name with more bracket levels is dropped. */
export const MAX_INPUT_NESTING = 64

const QS_OPTIONS: qs.IParseOptions = {
  depth: MAX_INPUT_NESTING,
  arrayLimit: 1000,
  parameterLimit: MAX_INPUT_VARS,
  duplicates: 'last',
  allowPrototypes: false,
  strictDepth: false
}

export function parseQuery (search: string): Record<string, unknown> {
  if (search === '') return {}
  const { parts, nested } = inputVars(search)
  // Most query strings are flat (`per_page=10&page=2`): read those without qs,
  // with the same result (test/params.test.ts compares the two).
  if (!nested) return parseFlat(parts)
  return parseNested(parts)
}

/**
 * Names with brackets: qs builds the arrays and objects from the names
 * alone. The values are decoded here and handed to it by their index (qs
 * rewrites every `%5B`/`%5D` of its whole input, values included, with a
 * global replace that took seconds on a megabyte of them).
 */
function parseNested (parts: string[]): Record<string, unknown> {
  const values: string[] = []
  const keys: string[] = []
  for (const part of parts) {
    const eq = nameEnd(part)
    if (eq === -1) {
      keys.push(part)
    } else {
      keys.push(`${part.slice(0, eq)}=${values.length}`)
      values.push(decodeComponent(part.slice(eq + 1)))
    }
  }
  return qs.parse(keys.join('&'), {
    ...QS_OPTIONS,
    decoder: (str, decoder, charset, type) => type === 'value' ? values[Number(str)] : decoder(str, decoder, charset)
  }) as Record<string, unknown>
}

/** Where qs ends a name: at `]=` when there is one, else at the first `=`; -1 when there is no value. */
function nameEnd (part: string): number {
  const bracketEq = part.indexOf(']=')
  return bracketEq === -1 ? part.indexOf('=') : bracketEq + 1
}

/**
 * The parts PHP would read: at most {@link MAX_INPUT_VARS} non-empty ones, in
 * one pass that stops there (a megabyte of `&` is not split into a million
 * strings), without the names nested too deep; and whether any name has a
 * bracket (raw or percent-encoded), which needs qs.
 */
function inputVars (search: string): { parts: string[], nested: boolean } {
  const parts: string[] = []
  let nested = false
  let start = 0
  while (start <= search.length && parts.length < MAX_INPUT_VARS) {
    let end = search.indexOf('&', start)
    if (end === -1) end = search.length
    if (end > start) {
      const part = search.slice(start, end)
      if (BRACKET.test(part)) {
        const eq = nameEnd(part)
        if (nestingOf(decodeComponent(eq === -1 ? part : part.slice(0, eq))) <= MAX_INPUT_NESTING) {
          nested = true
          parts.push(part)
        }
      } else {
        parts.push(part)
      }
    }
    start = end + 1
  }
  return { parts, nested }
}

/** A bracket, raw or percent-encoded: maybe a PHP-style array or object, read by qs. */
const BRACKET = /\[|%5b|%5d|\]/i

/** How many `[...]` levels a name has, as qs splits it (a group is `[`, no bracket, `]`); counting stops past the limit. */
function nestingOf (key: string): number {
  let levels = 0
  let open = false
  for (let i = key.indexOf('['); i !== -1 && i < key.length; i++) {
    const c = key.charCodeAt(i)
    if (c === 0x5b) {
      open = true
    } else if (c === 0x5d && open) {
      open = false
      if (++levels > MAX_INPUT_NESTING) break
    }
  }
  return levels
}

function parseFlat (parts: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const part of parts) {
    const eq = part.indexOf('=')
    const key = decodeComponent(eq === -1 ? part : part.slice(0, eq))
    // qs drops empty names and names of Object.prototype members.
    if (key === '' || key in Object.prototype) continue
    out[key] = eq === -1 ? '' : decodeComponent(part.slice(eq + 1))
  }
  return out
}

/** As qs decodes: `+` is a space, a malformed escape is kept as written. */
function decodeComponent (s: string): string {
  const spaced = plusToSpace(s)
  if (!spaced.includes('%')) return spaced
  try { return decodeURIComponent(spaced) } catch { return spaced }
}

/**
 * Every `+` made a space, by copying code units once: a global replace
 * slows down with the number of matches on long strings (a megabyte of `-+`
 * took 0.3 to 1.4 s, a query value of GET / with it seconds).
 */
function plusToSpace (s: string): string {
  if (!s.includes('+')) return s
  const units = new Uint16Array(s.length)
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    units[i] = c === 0x2b ? 0x20 : c
  }
  let text = ''
  // `apply` takes the typed array as it is (a spread iterates it: three times slower).
  for (let i = 0; i < units.length; i += 8192) text += String.fromCharCode.apply(null, units.subarray(i, i + 8192) as unknown as number[])
  return text
}

export function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Query < body < path variables. Defaults are applied by validation. */
export function mergeParams (
  query: Record<string, unknown>,
  body: unknown,
  pathVars: Record<string, string>
): Record<string, unknown> {
  const merged: Record<string, unknown> = Object.assign(Object.create(null), query)
  if (isPlainObject(body)) Object.assign(merged, body)
  return Object.assign(merged, pathVars)
}

/** Global parameters that steer the response rather than the handler. */
export const GLOBAL_PARAMS = ['_fields', '_embed', '_envelope', '_pretty', '_jsonp', '_method', 'rest_route'] as const
