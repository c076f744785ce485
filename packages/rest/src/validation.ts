/**
 * Validation of the kernel's validator (rest_validate_value_from_schema):
 * null when a value fits its schema, else the core's issue, type by type.
 */
import type { JsonSchema } from './schema.js'
import { fmtD, hasOwn, keysOf, isNumeric, isPlainObject, isScalar, isset, numberFormat, phpFloat, phpJsonEncode, phpToString, wpSprintfList } from './php.js'
import { ALLOWED_TYPES, containsUniqueItems, handleMultiType, restIsArray, restIsBoolean, restIsInteger, restIsObject, restSanitizeArray, uniqueItemsSteps, valuesEqual } from './value-types.js'
import { isEmail, isHexColor, isIpAddress, isUuid, isValidDate } from './formats.js'
import { matchesPattern } from './patterns.js'
import { FORBIDDEN, memberSchema, membersOpen, normalizeSchema, UNDESCRIBED } from './schema-normalize.js'
import { findMatching } from './combining.js'
import { SanitizeFailure, sanitizeInner, sanitizeSteps } from './sanitize.js'
import { countUnits, inSlices, memberKeys, UNIT_SLICE } from './slices.js'
import { DEFAULT_MAX_LENGTH, MAX_ARRAY_ITEMS, issue, tooManyItems, typeIssue, type ValidationIssue } from './validation-issues.js'

/** Effective lower/upper bound, accepting draft-4 boolean and draft-6 numeric exclusives. */
function bound (inclusive: unknown, exclusive: unknown): { limit: unknown; exclusive: boolean } {
  if (typeof exclusive === 'number') {
    return { limit: exclusive, exclusive: true }
  }
  return { limit: inclusive, exclusive: Boolean(exclusive) && exclusive !== '0' }
}

function lowerBound (args: JsonSchema): { limit: unknown; exclusive: boolean } {
  const b = bound(args.minimum, args.exclusiveMinimum)
  if (typeof args.exclusiveMinimum === 'number' && isset(args.minimum) && phpFloat(args.minimum) > args.exclusiveMinimum) {
    return { limit: args.minimum, exclusive: false }
  }
  return b
}

function upperBound (args: JsonSchema): { limit: unknown; exclusive: boolean } {
  const b = bound(args.maximum, args.exclusiveMaximum)
  if (typeof args.exclusiveMaximum === 'number' && isset(args.maximum) && phpFloat(args.maximum) < args.exclusiveMaximum) {
    return { limit: args.maximum, exclusive: false }
  }
  return b
}

function validateNumber (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  if (!isNumeric(value)) return typeIssue(param, phpToString(args.type))
  const v = phpFloat(value)

  if (isset(args.multipleOf)) {
    const rem = v % phpFloat(args.multipleOf)
    if (rem !== 0) return issue('rest_invalid_multiple', `${param} must be a multiple of ${phpToString(args.multipleOf)}.`)
  }

  const lo = lowerBound(args)
  const hi = upperBound(args)
  const hasMin = isset(lo.limit)
  const hasMax = isset(hi.limit)
  const min = phpFloat(lo.limit)
  const max = phpFloat(hi.limit)

  if (hasMin && !hasMax) {
    if (lo.exclusive && v <= min) return issue('rest_out_of_bounds', `${param} must be greater than ${fmtD(lo.limit)}`)
    if (!lo.exclusive && v < min) return issue('rest_out_of_bounds', `${param} must be greater than or equal to ${fmtD(lo.limit)}`)
  }
  if (hasMax && !hasMin) {
    if (hi.exclusive && v >= max) return issue('rest_out_of_bounds', `${param} must be less than ${fmtD(hi.limit)}`)
    if (!hi.exclusive && v > max) return issue('rest_out_of_bounds', `${param} must be less than or equal to ${fmtD(hi.limit)}`)
  }
  if (hasMin && hasMax) {
    const tooLow = lo.exclusive ? v <= min : v < min
    const tooHigh = hi.exclusive ? v >= max : v > max
    if (tooLow || tooHigh) {
      const a = lo.exclusive ? 'exclusive' : 'inclusive'
      const b = hi.exclusive ? 'exclusive' : 'inclusive'
      return issue('rest_out_of_bounds', `${param} must be between ${fmtD(lo.limit)} (${a}) and ${fmtD(hi.limit)} (${b})`)
    }
  }
  return null
}

function validateInteger (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  const r = validateNumber(value, args, param)
  if (r) return r
  if (!restIsInteger(value)) return typeIssue(param, 'integer')
  return null
}

function validateString (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  if (typeof value !== 'string') return typeIssue(param, 'string')
  // Text columns cannot hold NUL; refusing it here names the parameter.
  if (value.includes('\u0000')) return issue('rest_invalid_characters', `${param} must not contain NUL characters.`)
  // A string of n UTF-16 units holds between n/2 and n characters: they are counted only when a bound lies between.
  const units = value.length
  const fewest = Math.ceil(units / 2)
  if (isset(args.minLength)) {
    const n = phpFloat(args.minLength)
    if (units < n || (fewest < n && codePointLength(value) < n)) {
      return issue('rest_too_short', `${param} must be at least ${numberFormat(n)} ${n === 1 ? 'character' : 'characters'} long.`)
    }
  }
  const max = isset(args.maxLength) ? phpFloat(args.maxLength) : DEFAULT_MAX_LENGTH
  if (units > max && (fewest > max || codePointLength(value) > max)) {
    return issue('rest_too_long', `${param} must be at most ${numberFormat(max)} ${max === 1 ? 'character' : 'characters'} long.`)
  }
  if (isset(args.pattern) && !matchesPattern(args.pattern, value)) {
    return issue('rest_invalid_pattern', `${param} does not match pattern ${phpToString(args.pattern)}.`)
  }
  return null
}

/**
 * The last long string counted and its length: a value checked against a
 * `oneOf` or `anyOf` is checked once per branch, and a megabyte string
 * costs milliseconds a count; the sliced count (`countSteps`) leaves it for
 * validateString. Forgotten once the current job ends, so it keeps no
 * request's text alive.
 */
let counted: { s: string, n: number } | undefined
const COUNT_KEPT_FROM = 64 * 1024

function keepCount (s: string, n: number): void {
  if (s.length < COUNT_KEPT_FROM) return
  if (counted === undefined) queueMicrotask(() => { counted = undefined })
  counted = { s, n }
}

/** A surrogate pair: two UTF-16 units, one character. A string without one has as many characters as units. */
const PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/

/**
 * The surrogate pairs that start from `from` to `to` (excluded). Tested first: a one-byte string (V8 keeps most
 * text so) cannot hold one and is not scanned at all, and a two-byte one is scanned natively; only a part holding a
 * pair is counted a unit at a time (about 4-7 ns a unit: 15-25 ms for a 1.9 MB string under load, issue 27).
 */
function pairsIn (s: string, from: number, to: number): number {
  // One unit past `to`: a pair that starts at its end.
  if (!PAIR.test(from === 0 && to >= s.length ? s : s.slice(from, to + 1))) return 0
  let n = 0
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i)
    // A high surrogate followed by a low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) { n++; i++ }
    }
  }
  return n
}

/** The length in characters (code points), as PHP's `mb_strlen()` counts them. */
function codePointLength (s: string): number {
  if (counted?.s === s) return counted.n
  const n = s.length - pairsIn(s, 0, s.length)
  keepCount(s, n)
  return n
}

/** Whether validateString may count `value`'s characters: a bound between its fewest (units / 2) and most (units). */
function mayCount (value: string, args: JsonSchema): boolean {
  if (Array.isArray(args.anyOf) || Array.isArray(args.oneOf)) return true
  const units = value.length
  const fewest = Math.ceil(units / 2)
  const min = isset(args.minLength) ? phpFloat(args.minLength) : 0
  const max = isset(args.maxLength) ? phpFloat(args.maxLength) : DEFAULT_MAX_LENGTH
  return (fewest < min && min <= units) || (fewest <= max && max < units)
}

/** codePointLength of a long string, UNIT_SLICE units a turn, kept for the validation that follows at once. */
function * countSteps (s: string): Generator<void, void> {
  let pairs = 0
  yield * inSlices(s.length, (from, to) => { pairs += pairsIn(s, from, to); return null }, UNIT_SLICE, countUnits)
  keepCount(s, s.length - pairs)
}

function validateArray (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  const arr = arrayOf(value, param)
  if (!Array.isArray(arr)) return arr
  const r = itemsIssue(arr, args, param, 0, arr.length)
  return r ?? arrayIssue(arr, args, param)
}

/** validateArray's first checks: the list's members, or the issue. */
function arrayOf (value: unknown, param: string): unknown[] | ValidationIssue {
  if (!restIsArray(value)) return typeIssue(param, 'array')
  // A scalar is split no further than past the bound: a longer list is refused, whatever its length.
  const arr = restSanitizeArray(value, MAX_ARRAY_ITEMS)
  if (arr.length > MAX_ARRAY_ITEMS) return tooManyItems(param, MAX_ARRAY_ITEMS)
  return arr
}

/** validateArray's check of the items from `from` to `to` (excluded) against `items`. */
function itemsIssue (arr: unknown[], args: JsonSchema, param: string, from: number, to: number): ValidationIssue | null {
  if (isset(args.items) && !Array.isArray(args.items)) {
    for (let i = from; i < to; i++) {
      const r = validateInner(arr[i], args.items, `${param}[${i}]`)
      if (r) return r
    }
  }
  return null
}

/** validateArray's checks of the whole list, after its items. */
function arrayIssue (arr: unknown[], args: JsonSchema, param: string): ValidationIssue | null {
  const r = sizeIssue(arr, args, param)
  if (r) return r
  if (args.uniqueItems && !containsUniqueItems(arr)) return duplicates(param)
  return null
}

/** arrayIssue's item counts. */
function sizeIssue (arr: unknown[], args: JsonSchema, param: string): ValidationIssue | null {
  if (isset(args.minItems) && arr.length < phpFloat(args.minItems)) {
    const n = phpFloat(args.minItems)
    return issue('rest_too_few_items', `${param} must contain at least ${numberFormat(n)} ${n === 1 ? 'item' : 'items'}.`)
  }
  if (isset(args.maxItems) && arr.length > phpFloat(args.maxItems)) return tooManyItems(param, args.maxItems)
  return null
}

const duplicates = (param: string): ValidationIssue => issue('rest_duplicate_items', `${param} has duplicate items.`)

function validateObject (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  const keys = keysFor(value, args, param, keysOf)
  if (!Array.isArray(keys)) return keys
  const r = membersIssue(value, keys, args, param, 0, keys.length)
  return r ?? countIssue(keys.length, args, param)
}

/** Whether a list or an object has the member `name` (a list's are its indices). */
function hasMember (value: unknown, name: string): boolean {
  if (Array.isArray(value)) return /^(?:0|[1-9]\d*)$/.test(name) && Number(name) < value.length
  return isPlainObject(value) && hasOwn(value, name)
}

/**
 * validateObject's first checks: the object's member names (its required names checked), or the issue (null:
 * valid), listed by `list` (keysOf, or for a sliced walk the names the JSON thread's pieces brought, memberKeys).
 */
function keysFor (value: unknown, args: JsonSchema, param: string, list: (value: unknown) => string[]): string[] | ValidationIssue | null {
  if (!restIsObject(value)) return typeIssue(param, 'object')
  if (typeof value === 'object' && value !== null && membersOpen(args)) return validateOpenObject(value, args, param)
  if (Array.isArray(args.required)) { // draft 4
    for (const name of args.required) {
      if (!hasMember(value, phpToString(name))) return issue('rest_property_required', `${phpToString(name)} is a required property of ${param}.`)
    }
  } else if (isPlainObject(args.properties)) { // draft 3
    for (const [name, prop] of Object.entries(args.properties)) {
      if (isPlainObject(prop) && prop.required === true && !hasMember(value, name)) {
        return issue('rest_property_required', `${name} is a required property of ${param}.`)
      }
    }
  }
  return list(value)
}

/** validateObject's check of the members `keys` names from `from` to `to` (excluded). */
function membersIssue (value: unknown, keys: string[], args: JsonSchema, param: string, from: number, to: number): ValidationIssue | null {
  const members = value as Record<string, unknown>
  for (let i = from; i < to; i++) {
    const property = keys[i]!
    const v = members[property]
    const schema = memberSchema(args, property)
    if (schema === FORBIDDEN) return issue('rest_additional_properties_forbidden', `${property} is not a valid property of Object.`)
    if (schema !== UNDESCRIBED) {
      const r = validateInner(v, schema, `${param}[${property}]`)
      if (r) return r
    }
  }
  return null
}

/** validateObject's member counts (`count` members), after the members. */
function countIssue (count: number, args: JsonSchema, param: string): ValidationIssue | null {
  if (isset(args.minProperties) && count < phpFloat(args.minProperties)) {
    const n = phpFloat(args.minProperties)
    return issue('rest_too_few_properties', `${param} must contain at least ${numberFormat(n)} ${n === 1 ? 'property' : 'properties'}.`)
  }
  if (isset(args.maxProperties) && count > phpFloat(args.maxProperties)) {
    const n = phpFloat(args.maxProperties)
    return issue('rest_too_many_properties', `${param} must contain at most ${numberFormat(n)} ${n === 1 ? 'property' : 'properties'}.`)
  }
  return null
}

/**
 * validateInner with a `yield` (a point where the caller may wait for the next turn) after each MEMBER_SLICE members
 * of a list or an object at the top (each checked for duplicates, `uniqueItems`, and sanitized for an `enum` a slice
 * a turn too), or UNIT_SLICE units of a long string whose characters are counted: the same outcome. Other values
 * (and anyOf/oneOf or several types at the top) are validated at once. `listed`: the object's keys as the JSON
 * thread's pieces brought them (listed-keys.ts), else they are listed at once.
 */
export function * validateSteps (value: unknown, schema: unknown, param: string, listed?: string[]): Generator<void, ValidationIssue | null> {
  const args = normalizeSchema(schema)
  if (typeof value === 'string' && value.length > UNIT_SLICE && mayCount(value, args)) yield * countSteps(value)
  if (Array.isArray(args.anyOf) || Array.isArray(args.oneOf) || (args.type !== 'array' && args.type !== 'object')) {
    return validateInner(value, schema, param)
  }
  let r: ValidationIssue | null
  if (args.type === 'array') {
    const arr = arrayOf(value, param)
    if (!Array.isArray(arr)) return arr
    r = (yield * inSlices(arr.length, (from, to) => itemsIssue(arr, args, param, from, to))) ?? sizeIssue(arr, args, param)
    if (r === null && args.uniqueItems && !(yield * uniqueItemsSteps(arr))) r = duplicates(param)
  } else {
    const keys = keysFor(value, args, param, (v) => memberKeys(v, listed))
    r = !Array.isArray(keys)
      ? keys
      : (yield * inSlices(keys.length, (from, to) => membersIssue(value, keys, args, param, from, to))) ?? countIssue(keys.length, args, param)
  }
  if (r) return r
  if (Array.isArray(args.enum) && args.enum.length > 0) {
    let sanitized: unknown
    try {
      sanitized = yield * sanitizeSteps(value, args, param, validateInner, listed)
    } catch (e) {
      if (e instanceof SanitizeFailure) return e.issue
      throw e
    }
    return enumIssue(sanitized, args, param)
  }
  return null
}

/**
 * validateObject for a schema that says nothing of the members
 * (`membersOpen`): the same checks, required names and member counts, without
 * listing the members.
 */
function validateOpenObject (value: object, args: JsonSchema, param: string): ValidationIssue | null {
  if (Array.isArray(args.required)) { // draft 4
    for (const name of args.required) {
      if (!hasMember(value, phpToString(name))) return issue('rest_property_required', `${phpToString(name)} is a required property of ${param}.`)
    }
  }
  if (!isset(args.minProperties) && !isset(args.maxProperties)) return null
  return countIssue(Array.isArray(value) ? value.length : Object.keys(value).length, args, param)
}

/** rest_validate_enum(). */
function validateEnum (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  let sanitized: unknown
  try {
    sanitized = sanitizeInner(value, args, param, false, validateInner)
  } catch (e) {
    if (e instanceof SanitizeFailure) return e.issue
    throw e
  }
  return enumIssue(sanitized, args, param)
}

/** validateEnum's check of the value sanitized. */
function enumIssue (sanitized: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  const list = args.enum as unknown[]
  for (const ev of list) {
    if (valuesEqual(sanitized, ev)) return null
  }
  const encoded = list.map((ev) => (isScalar(ev) ? phpToString(ev) : phpJsonEncode(ev)))
  if (encoded.length === 1) return issue('rest_not_in_enum', `${param} is not ${encoded[0]}.`)
  return issue('rest_not_in_enum', `${param} is not one of ${wpSprintfList(encoded)}.`)
}

export function validateInner (value: unknown, schema: unknown, param: string): ValidationIssue | null {
  let args = normalizeSchema(schema)

  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(args[key])) continue
    const m = findMatching(key, value, args, param, validateInner)
    if (m.issue) return m.issue
    if (!isset(args.type) && isset(m.schema.type)) args = { ...args, type: m.schema.type }
  }

  if (Array.isArray(args.type)) {
    const best = handleMultiType(value, args.type)
    if (!best) return typeIssue(param, args.type.map(phpToString).join(','))
    args = { ...args, type: best }
  }

  let r: ValidationIssue | null = null
  switch (args.type) {
    case 'null': r = value === null ? null : typeIssue(param, 'null'); break
    case 'boolean': r = restIsBoolean(value) ? null : typeIssue(param, 'boolean'); break
    case 'object': r = validateObject(value, args, param); break
    case 'array': r = validateArray(value, args, param); break
    case 'number': r = validateNumber(value, args, param); break
    case 'string': r = validateString(value, args, param); break
    case 'integer': r = validateInteger(value, args, param); break
    default: break // no (or an unknown) type: any value
  }
  if (r) return r

  if (Array.isArray(args.enum) && args.enum.length > 0) {
    r = validateEnum(value, args, param)
    if (r) return r
  }

  if (isset(args.format) && (!isset(args.type) || args.type === 'string' || !ALLOWED_TYPES.includes(args.type))) {
    switch (args.format) {
      case 'hex-color':
        if (!isHexColor(value)) return issue('rest_invalid_hex_color', 'Invalid hex color.')
        break
      case 'date-time':
        if (!isValidDate(value)) return issue('rest_invalid_date', 'Invalid date.')
        break
      case 'email':
        if (!isEmail(value)) return issue('rest_invalid_email', 'Invalid email address.')
        break
      case 'ip':
        if (!isIpAddress(value)) return issue('rest_invalid_ip', `${param} is not a valid IP address.`)
        break
      case 'uuid':
        if (!isUuid(value)) return issue('rest_invalid_uuid', `${param} is not a valid UUID.`)
        break
      default: break // `uri` and the others are never validated
    }
  }
  return null
}
