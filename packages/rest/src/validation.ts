/**
 * Validation of the kernel's validator (rest_validate_value_from_schema):
 * null when a value fits its schema, else the core's issue, type by type.
 */
import type { JsonSchema } from './schema.js'
import { entriesOf, fmtD, hasOwn, isNumeric, isPlainObject, isScalar, isset, numberFormat, phpFloat, phpJsonEncode, phpToString, wpSprintfList } from './php.js'
import { ALLOWED_TYPES, containsUniqueItems, handleMultiType, restIsArray, restIsBoolean, restIsInteger, restIsObject, restSanitizeArray, valuesEqual } from './value-types.js'
import { isEmail, isHexColor, isIpAddress, isUuid, isValidDate } from './formats.js'
import { matchesPattern } from './patterns.js'
import { membersOpen, normalizeSchema, patternPropertySchema, propertySchema } from './schema-normalize.js'
import { findMatching } from './combining.js'
import { SanitizeFailure, sanitizeInner } from './sanitize.js'
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
 * costs milliseconds a count. Forgotten once the current job ends, so it
 * keeps no request's text alive.
 */
let counted: { s: string, n: number } | undefined
const COUNT_KEPT_FROM = 64 * 1024

/** The length in characters (code points), as PHP's `mb_strlen()` counts them. */
function codePointLength (s: string): number {
  if (counted?.s === s) return counted.n
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // A high surrogate followed by a low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++ }
    }
  }
  if (s.length >= COUNT_KEPT_FROM) {
    if (counted === undefined) queueMicrotask(() => { counted = undefined })
    counted = { s, n }
  }
  return n
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
  const arr = restSanitizeArray(value)
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
  if (isset(args.minItems) && arr.length < phpFloat(args.minItems)) {
    const n = phpFloat(args.minItems)
    return issue('rest_too_few_items', `${param} must contain at least ${numberFormat(n)} ${n === 1 ? 'item' : 'items'}.`)
  }
  if (isset(args.maxItems) && arr.length > phpFloat(args.maxItems)) return tooManyItems(param, args.maxItems)
  if (args.uniqueItems && !containsUniqueItems(arr)) return issue('rest_duplicate_items', `${param} has duplicate items.`)
  return null
}

function validateObject (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  const entries = entriesFor(value, args, param)
  if (!Array.isArray(entries)) return entries
  const r = membersIssue(entries, args, param, 0, entries.length)
  return r ?? countIssue(entries, args, param)
}

/** validateObject's first checks: the object's members (its required names checked), or the issue (null: valid). */
function entriesFor (value: unknown, args: JsonSchema, param: string): Array<[string, unknown]> | ValidationIssue | null {
  if (!restIsObject(value)) return typeIssue(param, 'object')
  if (typeof value === 'object' && value !== null && membersOpen(args)) return validateOpenObject(value, args, param)
  const entries = entriesOf(value)
  const keys = new Set(entries.map(([k]) => k))

  if (Array.isArray(args.required)) { // draft 4
    for (const name of args.required) {
      if (!keys.has(phpToString(name))) return issue('rest_property_required', `${phpToString(name)} is a required property of ${param}.`)
    }
  } else if (isPlainObject(args.properties)) { // draft 3
    for (const [name, prop] of Object.entries(args.properties)) {
      if (isPlainObject(prop) && prop.required === true && !keys.has(name)) {
        return issue('rest_property_required', `${name} is a required property of ${param}.`)
      }
    }
  }
  return entries
}

/** validateObject's check of the members from `from` to `to` (excluded). */
function membersIssue (entries: Array<[string, unknown]>, args: JsonSchema, param: string, from: number, to: number): ValidationIssue | null {
  for (let i = from; i < to; i++) {
    const [property, v] = entries[i]!
    const ps = propertySchema(args, property)
    if (ps !== undefined) {
      const r = validateInner(v, ps, `${param}[${property}]`)
      if (r) return r
      continue
    }
    const pp = patternPropertySchema(property, args)
    if (pp !== null) {
      const r = validateInner(v, pp, `${param}[${property}]`)
      if (r) return r
      continue
    }
    if (isset(args.additionalProperties)) {
      if (args.additionalProperties === false) {
        return issue('rest_additional_properties_forbidden', `${property} is not a valid property of Object.`)
      }
      if (isPlainObject(args.additionalProperties)) {
        const r = validateInner(v, args.additionalProperties, `${param}[${property}]`)
        if (r) return r
      }
    }
  }
  return null
}

/** validateObject's member counts, after the members. */
function countIssue (entries: Array<[string, unknown]>, args: JsonSchema, param: string): ValidationIssue | null {
  if (isset(args.minProperties) && entries.length < phpFloat(args.minProperties)) {
    const n = phpFloat(args.minProperties)
    return issue('rest_too_few_properties', `${param} must contain at least ${numberFormat(n)} ${n === 1 ? 'property' : 'properties'}.`)
  }
  if (isset(args.maxProperties) && entries.length > phpFloat(args.maxProperties)) {
    const n = phpFloat(args.maxProperties)
    return issue('rest_too_many_properties', `${param} must contain at most ${numberFormat(n)} ${n === 1 ? 'property' : 'properties'}.`)
  }
  return null
}

/**
 * Members of a list or an object validated (or sanitized) in one turn by the sliced walks (issue 27: a 22,500-member
 * argument was one task). Each member's own walk is whole: a member holding most of the value is not sliced.
 */
export const MEMBER_SLICE = 2_048

/** The slices the sliced walks took and the most members in one (for tests that count the work, never for timing). */
export const memberSliceCounts = { slices: 0, most: 0 }

/** A slice of `from`..`to` members counted. */
export function countSlice (from: number, to: number): void {
  memberSliceCounts.slices++
  if (to - from > memberSliceCounts.most) memberSliceCounts.most = to - from
}

/** `check` of `n` members, MEMBER_SLICE at a time with a `yield` between: its first issue, or null. */
function * inSlices (n: number, check: (from: number, to: number) => ValidationIssue | null): Generator<void, ValidationIssue | null> {
  for (let from = 0; from < n; from += MEMBER_SLICE) {
    if (from > 0) yield
    const to = Math.min(n, from + MEMBER_SLICE)
    countSlice(from, to)
    const r = check(from, to)
    if (r !== null) return r
  }
  return null
}

/**
 * validateInner with a `yield` (a point where the caller may wait for the next turn) after each MEMBER_SLICE members
 * of a list or an object at the top: the same outcome. Other values (and anyOf/oneOf or several types at the top)
 * are validated at once.
 */
export function * validateSteps (value: unknown, schema: unknown, param: string): Generator<void, ValidationIssue | null> {
  const args = normalizeSchema(schema)
  if (Array.isArray(args.anyOf) || Array.isArray(args.oneOf) || (args.type !== 'array' && args.type !== 'object')) {
    return validateInner(value, schema, param)
  }
  let r: ValidationIssue | null
  if (args.type === 'array') {
    const arr = arrayOf(value, param)
    if (!Array.isArray(arr)) return arr
    r = (yield * inSlices(arr.length, (from, to) => itemsIssue(arr, args, param, from, to))) ?? arrayIssue(arr, args, param)
  } else {
    const entries = entriesFor(value, args, param)
    r = !Array.isArray(entries)
      ? entries
      : (yield * inSlices(entries.length, (from, to) => membersIssue(entries, args, param, from, to))) ?? countIssue(entries, args, param)
  }
  if (r) return r
  if (Array.isArray(args.enum) && args.enum.length > 0) return validateEnum(value, args, param)
  return null
}

/**
 * validateObject for a schema that says nothing of the members
 * (`membersOpen`): the same checks, required names and member counts, without
 * listing the members.
 */
function validateOpenObject (value: object, args: JsonSchema, param: string): ValidationIssue | null {
  const has = (name: string): boolean => Array.isArray(value) ? /^(?:0|[1-9]\d*)$/.test(name) && Number(name) < value.length : hasOwn(value, name)
  if (Array.isArray(args.required)) { // draft 4
    for (const name of args.required) {
      if (!has(phpToString(name))) return issue('rest_property_required', `${phpToString(name)} is a required property of ${param}.`)
    }
  }
  if (!isset(args.minProperties) && !isset(args.maxProperties)) return null
  const count = Array.isArray(value) ? value.length : Object.keys(value).length
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

/** rest_validate_enum(). */
function validateEnum (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  let sanitized: unknown
  try {
    sanitized = sanitizeInner(value, args, param, false, validateInner)
  } catch (e) {
    if (e instanceof SanitizeFailure) return e.issue
    throw e
  }
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
