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
  return parseGrouped(parts)
}

/** qs's `arrayLimit`: an index below it makes an array, at or above it an object key. */
const ARRAY_LIMIT = 1000

/** A parent's parts, and for `name[i]` parts their indexes (read once, with the kind). */
interface Listed { kind: 'flat' | 'push' | 'index' | 'qs', parts: string[], indexes: number[] }

/**
 * Names read by their first segment, what qs calls the parent. A parent
 * whose parts are all `name=v`, all `name[]=v`, or all `name[i]=v`, is read here, in one
 * pass, with qs's result; any other goes to qs, which builds each part into
 * a whole object and merges it with a count of the array's elements: for
 * hundreds of `include[]` parts that was quadratic (6-20 ms for 700 of
 * them; issue 27). Parents are independent in qs's merge, so they are
 * read apart and put back in the order qs would (first appearance).
 */
function parseGrouped (parts: string[]): Record<string, unknown> {
  const parents = new Map<string, Listed>()
  for (const part of parts) {
    const eq = nameEnd(part)
    // qs reads `%5B`/`%5D` as brackets before it splits a name.
    const raw = (eq === -1 ? part : part.slice(0, eq)).replace(/%5b/gi, '[').replace(/%5d/gi, ']')
    const key = decodeComponent(raw)
    const open = key.indexOf('[')
    // A name that begins with a bracket is read by qs as its first group's: leave all of it to qs.
    if (open === 0) return parseNested(parts)
    const parent = open === -1 ? key : key.slice(0, open)
    const kind = parent === '' || Object.hasOwn(Object.prototype, parent)
      ? 'qs'
      : open === -1 ? 'flat' : eq === -1 ? 'qs' : segmentKind(key, open, raw)
    const index = kind === 'index' ? Number(key.slice(open + 1, -1)) : -1
    const listed = parents.get(parent)
    if (listed === undefined) parents.set(parent, { kind, parts: [part], indexes: [index] })
    else {
      if (listed.kind !== kind) listed.kind = 'qs'
      listed.parts.push(part)
      listed.indexes.push(index)
    }
  }
  const rest: string[] = []
  for (const listed of parents.values()) if (listed.kind === 'qs') rest.push(...listed.parts)
  const read = rest.length === 0 ? {} : parseNested(rest)
  const out: Record<string, unknown> = {}
  for (const [parent, listed] of parents) {
    if (listed.kind === 'flat') out[parent] = valueOf(listed.parts.at(-1)!)
    else if (listed.kind === 'push') out[parent] = listed.parts.map(valueOf)
    else if (listed.kind === 'index') out[parent] = indexed(listed)
    else if (Object.hasOwn(read, parent)) out[parent] = read[parent]
  }
  return out
}

/** A part's value as qs reads it ('' without `=`). */
function valueOf (part: string): string {
  const eq = nameEnd(part)
  return eq === -1 ? '' : decodeComponent(part.slice(eq + 1))
}

/** `name[]` (as the raw name ends, as qs tells a push), `name[i]` with i an index qs makes an array of, or anything else. */
function segmentKind (key: string, open: number, raw: string): Listed['kind'] {
  if (!key.endsWith(']')) return 'qs'
  if (key.length === open + 2) return raw.endsWith('[]') ? 'push' : 'qs'
  const index = key.slice(open + 1, -1)
  return /^(?:0|[1-9]\d*)$/.test(index) && Number(index) < ARRAY_LIMIT ? 'index' : 'qs'
}

/**
 * `name[i]=v` parts as qs reads them: a repeated name keeps its last value
 * in its first place; in that order each value goes to its index, or after
 * the last element when the index is taken; then the holes are closed.
 */
function indexed ({ parts, indexes }: Listed): string[] {
  const last = new Map<number, string>()
  for (let i = 0; i < parts.length; i++) last.set(indexes[i]!, valueOf(parts[i]!))
  const sparse: string[] = []
  for (const [index, value] of last) {
    if (Object.hasOwn(sparse, index)) sparse[sparse.length] = value
    else sparse[index] = value
  }
  return sparse.filter(() => true)
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
