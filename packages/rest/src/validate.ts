/**
 * Parameter coercion and validation of the REST kernel.
 *
 * A port of the core's `rest_validate_value_from_schema()` /
 * `rest_sanitize_value_from_schema()` (src/wp-includes/rest-api.php), value by
 * value, with the same error codes and messages (see cms-core.md §3).
 *
 * Values follow PHP semantics where they differ from JavaScript: a JSON object
 * and a JSON list are both "arrays"; numeric strings are numbers for the
 * numeric types; `(int)`/`(float)`/`(string)` casts behave like PHP's.
 *
 * Additions over the core (all documented at the place they are applied):
 * - `const` is read as a one-value `enum`;
 * - an `anyOf` made only of literals (`{const}`) and/or bare types (`{type}`),
 *   as TypeBox emits for `Type.Union`/`Type.Enum`/nullable unions, is read as
 *   the equivalent `enum` / multi-type schema so the messages are the core's
 *   enum / type messages;
 * - draft-6 numeric `exclusiveMinimum`/`exclusiveMaximum` (TypeBox) besides the
 *   draft-4 boolean form the core knows;
 * - abuse guards: arrays over {@link MAX_ARRAY_ITEMS} items and values nested
 *   deeper than {@link MAX_DEPTH} levels are reported as ordinary invalid values.
 */

import type { JsonSchema } from './schema.js'
import { entriesOf, fmtD, hasOwn, isPhpArray, isPlainObject, isScalar, isset, MAX_DEPTH, numberFormat, phpFloat, phpJsonEncode, phpToString, setOwn, isPhpIntKey, isNumeric, phpInt, wpSprintfList } from './php.js'
import { ALLOWED_TYPES, containsUniqueItems, handleMultiType, restIsArray, restIsBoolean, restIsInteger, restIsObject, restSanitizeArray, restSanitizeBoolean, valuesEqual } from './value-types.js'
import { isEmail, isHexColor, isIpAddress, isUuid, isValidDate, sanitizeTextField, sanitizeUrl } from './formats.js'
import { matchesPattern } from './patterns.js'

export type { JsonSchema } from './schema.js'
export { validateArgs, type ArgSpec } from './request-args.js'
export { MAX_DEPTH } from './php.js'

/** One failed check, as the core's WP_Error: code, message, data (null when none). */
export interface ValidationIssue { code: string; message: string; data: unknown }

/** Largest list accepted anywhere in a value. */
export const MAX_ARRAY_ITEMS = 10_000

/**
 * The bound of a string that declares no `maxLength` (characters): no
 * argument reaches a pattern, a format or a handler unbounded. Arguments the
 * handler checks itself (`unvalidated`: post content) are bounded by the
 * body limit instead.
 */
export const DEFAULT_MAX_LENGTH = 1024 * 1024

// ---------------------------------------------------------------------------
// Schema normalisation (TypeBox / draft-6 support)
// ---------------------------------------------------------------------------

const SIMPLE_BRANCH_KEYS = new Set(['type', 'const', 'title', 'description', '$id', 'examples', 'default'])

/**
 * A shallow copy of the schema with:
 * - `const` read as a one-value `enum`;
 * - an `anyOf` whose branches are only literals (`{const, type?}`) and/or bare
 *   types (`{type}`) replaced by the equivalent `enum`/`type` keywords when the
 *   parent has neither (TypeBox Union of Literals, Enum, nullable unions).
 *   Unions of literals plus a bare `null` become an enum that includes null.
 */
function normalizeSchema (schema: unknown): JsonSchema {
  if (!isPlainObject(schema)) return EMPTY_SCHEMA
  let args = normalized.get(schema)
  if (args === undefined) {
    args = normalizeOnce(schema)
    normalized.set(schema, args)
  }
  return args
}

/**
 * Normalized schemas by declared schema: every schema node is normalized once
 * (the first request, or `compileSchema` at registration), never per value.
 * Declared schemas are not changed after registration; the normalized copies
 * are shared, so callers never change them either (they copy to narrow `type`).
 */
const normalized = new WeakMap<object, JsonSchema>()
const EMPTY_SCHEMA: JsonSchema = Object.freeze({}) as JsonSchema

function normalizeOnce (schema: Record<string, unknown>): JsonSchema {
  const args: JsonSchema = { ...schema }
  if (hasOwn(args, 'const') && !Array.isArray(args.enum)) args.enum = [args.const]

  const branches = args.anyOf
  if (Array.isArray(branches) && branches.length > 0 && !isset(args.type) && !Array.isArray(args.enum) &&
      branches.every((b) => isPlainObject(b) && Object.keys(b).every((k) => SIMPLE_BRANCH_KEYS.has(k)) &&
        (hasOwn(b, 'const') || typeof b.type === 'string'))) {
    const literals = branches.filter((b) => hasOwn(b, 'const'))
    const bare = branches.filter((b) => !hasOwn(b, 'const'))
    const types: string[] = []
    let typed = true
    for (const b of branches) {
      if (typeof b.type === 'string') {
        if (!types.includes(b.type)) types.push(b.type)
      } else {
        typed = false
      }
    }
    let collapse = false
    if (literals.length === 0) {
      collapse = true
    } else if (bare.every((b) => b.type === 'null')) {
      args.enum = [...literals.map((b) => b.const), ...(bare.length > 0 ? [null] : [])]
      collapse = true
    }
    if (collapse) {
      delete args.anyOf
      if (typed) args.type = types.length === 1 ? types[0] : types
    }
  }
  return args
}

/**
 * Normalizes a declared schema and every schema inside it, once (at
 * registration): requests then find each node ready.
 */
export function compileSchema (schema: unknown, depth = 0): void {
  if (!isPlainObject(schema) || depth > MAX_DEPTH) return
  const args = normalizeSchema(schema)
  const children: unknown[] = [args.items, args.additionalProperties]
  if (isPlainObject(args.properties)) children.push(...Object.values(args.properties))
  if (isPlainObject(args.patternProperties)) children.push(...Object.values(args.patternProperties))
  for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(args[key])) children.push(...(args[key] as unknown[]))
  for (const child of children) compileSchema(child, depth + 1)
}

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

// ---------------------------------------------------------------------------
// Validation (rest_validate_value_from_schema)
// ---------------------------------------------------------------------------

function issue (code: string, message: string, data: unknown = null): ValidationIssue {
  return { code, message, data }
}

function typeIssue (param: string, type: string): ValidationIssue {
  return issue('rest_invalid_type', `${param} is not of type ${type}.`, { param })
}

interface CombiningError { issue: ValidationIssue; schema: JsonSchema; index: number }

/** A branch of anyOf/oneOf with the parent's type when it has none (copies made once per branch and type). */
function withInheritedType (sub: unknown, args: JsonSchema): JsonSchema {
  if (!isPlainObject(sub)) return isset(args.type) ? { type: args.type } : {}
  if (isset(sub.type) || !isset(args.type)) return sub
  let byType = inherited.get(sub)
  if (byType === undefined) {
    byType = new Map()
    inherited.set(sub, byType)
  }
  const key = JSON.stringify(args.type)
  let schema = byType.get(key)
  if (schema === undefined) {
    schema = { ...sub, type: args.type }
    byType.set(key, schema)
  }
  return schema
}

const inherited = new WeakMap<object, Map<string, JsonSchema>>()

/** rest_format_combining_operation_error(). */
function formatCombiningError (param: string, e: CombiningError): ValidationIssue {
  const reason = e.issue.message
  if (isset(e.schema.title)) {
    return issue('rest_no_matching_schema', `${param} is not a valid ${phpToString(e.schema.title)}. Reason: ${reason}`, { position: e.index })
  }
  return issue('rest_no_matching_schema', `${param} does not match the expected format. Reason: ${reason}`, { position: e.index })
}

/** rest_get_combining_operation_error(). */
function combiningError (value: unknown, param: string, errors: CombiningError[]): ValidationIssue {
  if (errors.length === 1) return formatCombiningError(param, errors[0]!)

  const filtered = errors.filter((e) => {
    const data = e.issue.data as Record<string, unknown> | null
    return e.issue.code !== 'rest_invalid_type' || (isPlainObject(data) && isset(data.param) && data.param !== param)
  })
  if (filtered.length === 1) return formatCombiningError(param, filtered[0]!)

  if (filtered.length > 1 && filtered[0]!.schema.type === 'object') {
    let result: CombiningError | null = null
    let best = 0
    const keys = new Set(entriesOf(value).map(([k]) => k))
    for (const e of filtered) {
      if (isPlainObject(e.schema.properties)) {
        const n = Object.keys(e.schema.properties).filter((k) => keys.has(k)).length
        if (n > best) {
          result = e
          best = n
        }
      }
    }
    if (result !== null) return formatCombiningError(param, result)
  }

  const titles = errors.filter((e) => isset(e.schema.title)).map((e) => phpToString(e.schema.title))
  if (titles.length === errors.length) {
    return issue('rest_no_matching_schema', `${param} is not a valid ${wpSprintfList(titles)}.`)
  }
  return issue('rest_no_matching_schema', `${param} does not match any of the expected formats.`)
}

type Match = { schema: JsonSchema; issue?: undefined } | { schema?: undefined; issue: ValidationIssue }

/** rest_find_any_matching_schema(). */
function findAnyMatchingSchema (value: unknown, args: JsonSchema, param: string): Match {
  const errors: CombiningError[] = []
  const list = args.anyOf as unknown[]
  for (let index = 0; index < list.length; index++) {
    const schema = withInheritedType(list[index], args)
    const res = validateInner(value, schema, param)
    if (res === null) return { schema }
    errors.push({ issue: res, schema, index })
  }
  return { issue: combiningError(value, param, errors) }
}

/** rest_find_one_matching_schema(). */
function findOneMatchingSchema (value: unknown, args: JsonSchema, param: string): Match {
  const matching: Array<{ schema: JsonSchema; index: number }> = []
  const errors: CombiningError[] = []
  const list = args.oneOf as unknown[]
  for (let index = 0; index < list.length; index++) {
    const schema = withInheritedType(list[index], args)
    const res = validateInner(value, schema, param)
    if (res === null) matching.push({ schema, index })
    else errors.push({ issue: res, schema, index })
  }
  if (matching.length === 0) return { issue: combiningError(value, param, errors) }
  if (matching.length > 1) {
    const positions = matching.map((m) => m.index)
    const titles = matching.filter((m) => isset(m.schema.title)).map((m) => phpToString(m.schema.title))
    if (titles.length === matching.length) {
      return { issue: issue('rest_one_of_multiple_matches', `${param} matches ${wpSprintfList(titles)}, but should match only one.`, { positions }) }
    }
    return { issue: issue('rest_one_of_multiple_matches', `${param} matches more than one of the expected formats.`, { positions }) }
  }
  return { schema: matching[0]!.schema }
}

function findMatching (key: 'anyOf' | 'oneOf', value: unknown, args: JsonSchema, param: string): Match {
  return key === 'anyOf' ? findAnyMatchingSchema(value, args, param) : findOneMatchingSchema(value, args, param)
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
  const len = codePointLength(value)
  if (isset(args.minLength) && len < phpFloat(args.minLength)) {
    const n = phpFloat(args.minLength)
    return issue('rest_too_short', `${param} must be at least ${numberFormat(n)} ${n === 1 ? 'character' : 'characters'} long.`)
  }
  const max = isset(args.maxLength) ? phpFloat(args.maxLength) : DEFAULT_MAX_LENGTH
  if (len > max) {
    return issue('rest_too_long', `${param} must be at most ${numberFormat(max)} ${max === 1 ? 'character' : 'characters'} long.`)
  }
  if (isset(args.pattern) && !matchesPattern(args.pattern, value)) {
    return issue('rest_invalid_pattern', `${param} does not match pattern ${phpToString(args.pattern)}.`)
  }
  return null
}

/** The length in characters (code points), as PHP's `mb_strlen()` counts them. */
function codePointLength (s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // A high surrogate followed by a low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++ }
    }
  }
  return n
}

function tooManyItems (param: string, n: unknown): ValidationIssue {
  const f = phpFloat(n)
  return issue('rest_too_many_items', `${param} must contain at most ${numberFormat(f)} ${f === 1 ? 'item' : 'items'}.`)
}

function validateArray (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  if (!restIsArray(value)) return typeIssue(param, 'array')
  const arr = restSanitizeArray(value)
  if (arr.length > MAX_ARRAY_ITEMS) return tooManyItems(param, MAX_ARRAY_ITEMS)

  if (isset(args.items) && !Array.isArray(args.items)) {
    for (let i = 0; i < arr.length; i++) {
      const r = validateInner(arr[i], args.items, `${param}[${i}]`)
      if (r) return r
    }
  }
  if (isset(args.minItems) && arr.length < phpFloat(args.minItems)) {
    const n = phpFloat(args.minItems)
    return issue('rest_too_few_items', `${param} must contain at least ${numberFormat(n)} ${n === 1 ? 'item' : 'items'}.`)
  }
  if (isset(args.maxItems) && arr.length > phpFloat(args.maxItems)) return tooManyItems(param, args.maxItems)
  if (args.uniqueItems && !containsUniqueItems(arr)) return issue('rest_duplicate_items', `${param} has duplicate items.`)
  return null
}

/** The schema of `property` among patternProperties, or null. */
function patternPropertySchema (property: string, args: JsonSchema): unknown {
  if (isPlainObject(args.patternProperties)) {
    for (const [pattern, child] of Object.entries(args.patternProperties)) {
      if (matchesPattern(pattern, property)) return child
    }
  }
  return null
}

function propertySchema (args: JsonSchema, property: string): unknown {
  const props = args.properties
  if (isPlainObject(props) && hasOwn(props, property) && isset(props[property])) return props[property]
  return undefined
}

function validateObject (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  if (!restIsObject(value)) return typeIssue(param, 'object')
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

  for (const [property, v] of entries) {
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

/** rest_validate_enum(). */
function validateEnum (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  let sanitized: unknown
  try {
    sanitized = sanitizeInner(value, args, param, false)
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

function validateInner (value: unknown, schema: unknown, param: string): ValidationIssue | null {
  let args = normalizeSchema(schema)

  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(args[key])) continue
    const m = findMatching(key, value, args, param)
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

// ---------------------------------------------------------------------------
// Sanitizing (rest_sanitize_value_from_schema)
// ---------------------------------------------------------------------------

/** Raised where the core's sanitizer returns a WP_Error (anyOf/oneOf mismatch, duplicate items). */
class SanitizeFailure extends Error {
  readonly issue: ValidationIssue
  constructor (i: ValidationIssue) {
    super(i.message)
    this.issue = i
  }
}

/**
 * @param lenient when true, the cases where the core returns a WP_Error are
 *   ignored (the value is sanitized as far as possible instead).
 */
function sanitizeInner (value: unknown, schema: unknown, param: string, lenient: boolean): unknown {
  let args = normalizeSchema(schema)

  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(args[key])) continue
    const m = findMatching(key, value, args, param)
    if (m.issue) {
      if (!lenient) throw new SanitizeFailure(m.issue)
      continue
    }
    if (!isset(args.type)) args = { ...args, type: m.schema.type }
    value = sanitizeInner(value, m.schema, param, lenient)
  }

  if (Array.isArray(args.type)) {
    const best = handleMultiType(value, args.type)
    if (!best) return null
    args = { ...args, type: best }
  }

  if (args.type === 'array') {
    let arr = restSanitizeArray(value)
    if (isPlainObject(args.items) && Object.keys(args.items).length > 0) {
      const items = args.items
      arr = arr.map((v, i) => sanitizeInner(v, items, `${param}[${i}]`, lenient))
    }
    if (!lenient && args.uniqueItems && !containsUniqueItems(arr)) {
      throw new SanitizeFailure(issue('rest_duplicate_items', `${param} has duplicate items.`))
    }
    return arr
  }

  if (args.type === 'object') {
    if (!restIsObject(value) || value === '') return {}
    const wasList = Array.isArray(value)
    const out: Record<string, unknown> = {}
    for (const [property, v] of entriesOf(value)) {
      const ps = propertySchema(args, property)
      if (ps !== undefined) {
        setOwn(out, property, sanitizeInner(v, ps, `${param}[${property}]`, lenient))
        continue
      }
      const pp = patternPropertySchema(property, args)
      if (pp !== null) {
        setOwn(out, property, sanitizeInner(v, pp, `${param}[${property}]`, lenient))
        continue
      }
      if (args.additionalProperties === false) continue
      if (isPlainObject(args.additionalProperties)) {
        setOwn(out, property, sanitizeInner(v, args.additionalProperties, `${param}[${property}]`, lenient))
        continue
      }
      setOwn(out, property, v)
    }
    if (wasList) {
      const keys = Object.keys(out)
      if (keys.every((k, i) => k === String(i))) return keys.map((k) => out[k])
    }
    return out
  }

  if (args.type === 'null') return null
  if (args.type === 'integer') return phpInt(value)
  if (args.type === 'number') return phpFloat(value)
  if (args.type === 'boolean') return restSanitizeBoolean(value)

  if (isset(args.format) && (!isset(args.type) || args.type === 'string' || !ALLOWED_TYPES.includes(args.type))) {
    switch (args.format) {
      case 'hex-color': return value === '' || isHexColor(value) ? phpToString(value) : ''
      case 'date-time':
      case 'email':
      case 'ip':
      case 'uuid':
      case 'text-field':
        return sanitizeTextField(value)
      case 'textarea-field': return sanitizeTextField(value, true)
      case 'uri': return sanitizeUrl(value)
      default: break
    }
  }

  if (args.type === 'string') return phpToString(value)
  return value
}

// ---------------------------------------------------------------------------
// Abuse guard
// ---------------------------------------------------------------------------

/** Iterative scan: lists over MAX_ARRAY_ITEMS or nesting over MAX_DEPTH. */
function guardIssue (value: unknown, param: string): ValidationIssue | null {
  const stack: Array<{ v: unknown; name: string; depth: number }> = [{ v: value, name: param, depth: 1 }]
  while (stack.length > 0) {
    const { v, name, depth } = stack.pop()!
    if (!isPhpArray(v)) continue
    if (depth > MAX_DEPTH) {
      return issue('rest_too_deeply_nested', `${param} must not be nested more than ${MAX_DEPTH} levels deep.`)
    }
    if (Array.isArray(v)) {
      if (v.length > MAX_ARRAY_ITEMS) return tooManyItems(name, MAX_ARRAY_ITEMS)
      for (let i = v.length - 1; i >= 0; i--) {
        if (isPhpArray(v[i])) stack.push({ v: v[i], name: `${name}[${i}]`, depth: depth + 1 })
      }
    } else {
      const keys = Object.keys(v)
      if (keys.length > MAX_ARRAY_ITEMS && keys.every(isPhpIntKey)) return tooManyItems(name, MAX_ARRAY_ITEMS)
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!
        const child = v[k]
        if (isPhpArray(child)) stack.push({ v: child, name: `${name}[${k}]`, depth: depth + 1 })
      }
    }
  }
  return null
}

function overflowIssue (param: string): ValidationIssue {
  return issue('rest_too_deeply_nested', `${param} must not be nested more than ${MAX_DEPTH} levels deep.`)
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

/** WordPress rest_validate_value_from_schema: null when valid. */
export function validateValue (value: unknown, schema: JsonSchema, param: string): ValidationIssue | null {
  const g = guardIssue(value, param)
  if (g) return g
  try {
    const r = validateInner(value, schema, param)
    return r === null ? null : { code: r.code, message: r.message, data: r.data ?? null }
  } catch (e) {
    if (e instanceof RangeError) return overflowIssue(param)
    throw e
  }
}

/**
 * WordPress rest_sanitize_value_from_schema: coerced value (assumes valid).
 * Where the core would return a WP_Error (no matching anyOf/oneOf schema,
 * duplicates after coercion) this returns the best-effort coerced value; use
 * {@link parseValue} to get those failures.
 */
export function sanitizeValue (value: unknown, schema: JsonSchema, param: string): unknown {
  try {
    return sanitizeInner(value, schema, param, true)
  } catch (e) {
    if (e instanceof RangeError) return null
    throw e
  }
}

/** rest_parse_request_arg(): validate, then sanitize (sanitizer failures reported too). */
export function parseValue (value: unknown, schema: JsonSchema, param: string):
{ ok: true; value: unknown } | { ok: false; issue: ValidationIssue } {
  const invalid = validateValue(value, schema, param)
  if (invalid) return { ok: false, issue: invalid }
  return sanitizeStrict(value, schema, param)
}

export function sanitizeStrict (value: unknown, schema: JsonSchema, param: string):
{ ok: true; value: unknown } | { ok: false; issue: ValidationIssue } {
  try {
    return { ok: true, value: sanitizeInner(value, schema, param, false) }
  } catch (e) {
    if (e instanceof SanitizeFailure) return { ok: false, issue: { code: e.issue.code, message: e.issue.message, data: e.issue.data ?? null } }
    if (e instanceof RangeError) return { ok: false, issue: overflowIssue(param) }
    throw e
  }
}
