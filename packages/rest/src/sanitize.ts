/**
 * Sanitizing of the kernel's validator (rest_sanitize_value_from_schema):
 * coerces a value to its schema. Picking an anyOf/oneOf branch validates the
 * value against each; the validator is passed in (`validate`) so that the
 * validator, which sanitizes enum values before comparing them, can use this
 * module without an import cycle.
 */
import { entriesOf, isPlainObject, isset, phpFloat, phpInt, phpToString, setOwn } from './php.js'
import { ALLOWED_TYPES, containsUniqueItems, handleMultiType, restIsObject, restSanitizeArray, restSanitizeBoolean } from './value-types.js'
import { isHexColor, sanitizeTextField, sanitizeUrl } from './formats.js'
import { membersOpen, normalizeSchema, patternPropertySchema, propertySchema } from './schema-normalize.js'
import { findMatching, type BranchValidator } from './combining.js'
import type { JsonSchema } from './schema.js'
import { issue, type ValidationIssue } from './validation-issues.js'

/** Raised where the core's sanitizer returns a WP_Error (anyOf/oneOf mismatch, duplicate items). */
export class SanitizeFailure extends Error {
  readonly issue: ValidationIssue
  constructor (i: ValidationIssue) {
    super(i.message)
    this.issue = i
  }
}

/**
 * @param validate the validator of an anyOf/oneOf branch (validation.ts).
 * @param lenient when true, the cases where the core returns a WP_Error are
 *   ignored (the value is sanitized as far as possible instead).
 */
export function sanitizeInner (value: unknown, schema: unknown, param: string, lenient: boolean, validate: BranchValidator): unknown {
  let args = normalizeSchema(schema)

  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(args[key])) continue
    const m = findMatching(key, value, args, param, validate)
    if (m.issue) {
      if (!lenient) throw new SanitizeFailure(m.issue)
      continue
    }
    if (!isset(args.type)) args = { ...args, type: m.schema.type }
    value = sanitizeInner(value, m.schema, param, lenient, validate)
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
      arr = arr.map((v, i) => sanitizeInner(v, items, `${param}[${i}]`, lenient, validate))
    }
    return uniqueOut(arr, args, param, lenient)
  }

  if (args.type === 'object') {
    if (!restIsObject(value) || value === '') return {}
    // No member has a schema or can be dropped: the members are kept as sent, without visiting them (issue 27). The
    // value is the request's own (a default is copied for each request), so it is handed on, not copied.
    if (membersOpen(args)) return Array.isArray(value) ? Array.from(value as unknown[]) : value
    const entries = entriesOf(value)
    const out: Record<string, unknown> = {}
    sanitizeMembers(out, entries, args, param, lenient, validate, 0, entries.length)
    return objectOut(out, Array.isArray(value))
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

/** The sanitized list, refused when its items are not unique as the schema asks. */
function uniqueOut (arr: unknown[], args: JsonSchema, param: string, lenient: boolean): unknown[] {
  if (!lenient && args.uniqueItems && !containsUniqueItems(arr)) {
    throw new SanitizeFailure(issue('rest_duplicate_items', `${param} has duplicate items.`))
  }
  return arr
}

/** The sanitized object, a list again when it was one and its keys are still 0, 1, 2… */
function objectOut (out: Record<string, unknown>, wasList: boolean): unknown {
  if (wasList) {
    const keys = Object.keys(out)
    if (keys.every((k, i) => k === String(i))) return keys.map((k) => out[k])
  }
  return out
}

/** The members from `from` to `to` (excluded) sanitized into `out`. */
function sanitizeMembers (out: Record<string, unknown>, entries: Array<[string, unknown]>, args: JsonSchema, param: string,
  lenient: boolean, validate: BranchValidator, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const [property, v] = entries[i]!
    const ps = propertySchema(args, property)
    if (ps !== undefined) {
      setOwn(out, property, sanitizeInner(v, ps, `${param}[${property}]`, lenient, validate))
      continue
    }
    const pp = patternPropertySchema(property, args)
    if (pp !== null) {
      setOwn(out, property, sanitizeInner(v, pp, `${param}[${property}]`, lenient, validate))
      continue
    }
    if (args.additionalProperties === false) continue
    if (isPlainObject(args.additionalProperties)) {
      setOwn(out, property, sanitizeInner(v, args.additionalProperties, `${param}[${property}]`, lenient, validate))
      continue
    }
    setOwn(out, property, v)
  }
}

/**
 * sanitizeInner (strict) with a `yield` (a point where the caller may wait for the next turn) after each `slice`
 * members of a list or an object at the top, `counted` told of each slice: the same value and failures. Other values
 * (and anyOf/oneOf or several types at the top) are sanitized at once.
 */
export function * sanitizeSteps (value: unknown, schema: unknown, param: string, validate: BranchValidator, slice: number,
  counted: (from: number, to: number) => void): Generator<void, unknown> {
  const args = normalizeSchema(schema)
  if (Array.isArray(args.anyOf) || Array.isArray(args.oneOf)) return sanitizeInner(value, schema, param, false, validate)
  if (args.type === 'array' && isPlainObject(args.items) && Object.keys(args.items).length > 0) {
    const items = args.items
    const arr = restSanitizeArray(value)
    const out: unknown[] = []
    for (let from = 0; from < arr.length; from += slice) {
      if (from > 0) yield
      const to = Math.min(arr.length, from + slice)
      counted(from, to)
      for (let i = from; i < to; i++) out.push(sanitizeInner(arr[i], items, `${param}[${i}]`, false, validate))
    }
    return uniqueOut(out, args, param, false)
  }
  if (args.type === 'object' && restIsObject(value) && value !== '' && !membersOpen(args)) {
    const entries = entriesOf(value)
    const out: Record<string, unknown> = {}
    for (let from = 0; from < entries.length; from += slice) {
      if (from > 0) yield
      const to = Math.min(entries.length, from + slice)
      counted(from, to)
      sanitizeMembers(out, entries, args, param, false, validate, from, to)
    }
    return objectOut(out, Array.isArray(value))
  }
  return sanitizeInner(value, schema, param, false, validate)
}
