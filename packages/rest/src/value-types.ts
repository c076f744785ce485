/**
 * The core's type checks and coercions (`rest_is_boolean()`,
 * `rest_is_integer()`, `rest_is_array()`, `rest_sanitize_array()`...), the
 * best type of a multi-type schema, and JSON-schema equality for `enum` and
 * `uniqueItems`.
 */
import { entriesOf, hasOwn, isNumeric, isPhpArray, isPhpIntKey, isPlainObject, isScalar, MAX_DEPTH, parseList, phpFloat, phpToString } from './php.js'
import { inSlices } from './slices.js'

export const ALLOWED_TYPES = ['array', 'object', 'string', 'number', 'integer', 'boolean', 'null']

/** rest_is_boolean(). */
export function restIsBoolean (v: unknown): boolean {
  if (typeof v === 'boolean') return true
  if (typeof v === 'string') return ['false', 'true', '0', '1'].includes(v.toLowerCase())
  if (typeof v === 'number') return v === 0 || v === 1
  return false
}

/** rest_is_integer(). */
export function restIsInteger (v: unknown): boolean {
  if (!isNumeric(v)) return false
  const f = phpFloat(v)
  return Math.round(f) === f
}

/** rest_is_array(): a scalar (split as a list) or an array whose keys are all integers. */
export function restIsArray (v: unknown): boolean {
  if (isScalar(v)) return true
  if (Array.isArray(v)) return true
  if (isPlainObject(v)) return Object.keys(v).every(isPhpIntKey)
  return false
}

/** rest_sanitize_array(); with `most`, a scalar's list cut past `most` items (parseList). */
export function restSanitizeArray (v: unknown, most?: number): unknown[] {
  if (isScalar(v)) return parseList(v, most)
  if (Array.isArray(v)) return Array.from(v)
  if (isPlainObject(v)) return Object.values(v)
  return []
}

/** rest_is_object(): an object, a list, or the empty string. */
export function restIsObject (v: unknown): boolean {
  return v === '' || isPhpArray(v)
}

/** rest_sanitize_boolean(). */
export function restSanitizeBoolean (v: unknown): boolean {
  if (typeof v === 'string') {
    const l = v.toLowerCase()
    if (l === 'false' || l === '0' || l === '') return false
    return true
  }
  if (typeof v === 'number') return v !== 0
  if (Array.isArray(v)) return v.length > 0
  if (isPlainObject(v)) return Object.keys(v).length > 0
  return Boolean(v)
}

const BEST_TYPE_CHECKS: Record<string, (v: unknown) => boolean> = {
  array: restIsArray,
  object: restIsObject,
  integer: restIsInteger,
  number: isNumeric,
  boolean: restIsBoolean,
  string: (v) => typeof v === 'string',
  null: (v) => v === null
}

/** rest_get_best_type_for_value(). */
export function getBestType (v: unknown, types: unknown[]): string {
  if (v === '' && types.includes('string')) return 'string'
  for (const t of types) {
    if (typeof t === 'string' && hasOwn(BEST_TYPE_CHECKS, t) && BEST_TYPE_CHECKS[t]!(v)) return t
  }
  return ''
}

/** rest_handle_multi_type_schema(). */
export function handleMultiType (v: unknown, types: unknown[]): string {
  const invalid = types.filter((t) => typeof t !== 'string' || !ALLOWED_TYPES.includes(t))
  const best = getBestType(v, types)
  if (best) return best
  if (invalid.length === 0) return ''
  return phpToString(invalid[0]) // back compat: an unknown type accepts the value
}

/** Canonical form of a value for uniqueItems (rest_stabilize_value + serialize). */
export function stableKey (v: unknown, depth = 0): string {
  if (depth > MAX_DEPTH * 2) throw new RangeError('value nested too deeply')
  if (v === null || v === undefined) return 'N'
  if (typeof v === 'string') return 's' + JSON.stringify(v)
  if (typeof v === 'number') return 'n' + String(v)
  if (typeof v === 'boolean') return v ? 'b1' : 'b0'
  if (isPhpArray(v)) {
    const e = entriesOf(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return 'a{' + e.map(([k, x]) => JSON.stringify(k) + ':' + stableKey(x, depth + 1)).join(',') + '}'
  }
  return 'u'
}

/** rest_validate_array_contains_unique_items(). */
export function containsUniqueItems (arr: unknown[]): boolean {
  return uniqueFrom(arr, new Set(), 0, arr.length)
}

/** containsUniqueItems of the items `from`..`to` (excluded), beside the keys of the ones before them (`seen`). */
function uniqueFrom (arr: unknown[], seen: Set<string>, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const k = stableKey(arr[i])
    if (seen.has(k)) return false
    seen.add(k)
  }
  return true
}

/** containsUniqueItems, MEMBER_SLICE items a turn (slices.ts): the same answer. */
export function * uniqueItemsSteps (arr: unknown[]): Generator<void, boolean> {
  const seen = new Set<string>()
  return (yield * inSlices(arr.length, (from, to) => uniqueFrom(arr, seen, from, to) ? null : false)) ?? true
}

const sizeOf = (v: unknown[] | Record<string, unknown>): number => Array.isArray(v) ? v.length : Object.keys(v).length

/** rest_are_values_equal(): JSON-schema equality, key order ignored for objects. */
export function valuesEqual (a: unknown, b: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH * 2) throw new RangeError('value nested too deeply')
  if (isPhpArray(a) && isPhpArray(b)) {
    // The sizes first: a large value is told from an enum's without listing its members.
    if (sizeOf(a) !== sizeOf(b)) return false
    const ea = entriesOf(a)
    const mb = new Map(entriesOf(b))
    for (const [k, x] of ea) {
      if (!mb.has(k) || !valuesEqual(x, mb.get(k), depth + 1)) return false
    }
    return true
  }
  return a === b
}
