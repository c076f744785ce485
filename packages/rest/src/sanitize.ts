/**
 * Sanitizing of the kernel's validator (rest_sanitize_value_from_schema):
 * coerces a value to its schema. Picking an anyOf/oneOf branch validates the
 * value against each; the validator is passed in (`validate`) so that the
 * validator, which sanitizes enum values before comparing them, can use this
 * module without an import cycle.
 */
import { isPlainObject, isset, keysOf, phpFloat, phpInt, phpToString, setOwn } from './php.js'
import { ALLOWED_TYPES, containsUniqueItems, handleMultiType, restIsObject, restSanitizeArray, restSanitizeBoolean, uniqueItemsSteps } from './value-types.js'
import { isHexColor, sanitizeTextField, sanitizeUrl } from './formats.js'
import { FORBIDDEN, memberSchema, membersOpen, normalizeSchema, UNDESCRIBED } from './schema-normalize.js'
import { findMatching, type BranchValidator } from './combining.js'
import type { JsonSchema } from './schema.js'
import { issue, type ValidationIssue } from './validation-issues.js'
import { inSlices, memberKeys } from './slices.js'

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
    const arr = restSanitizeArray(value)
    const items = itemsOf(args)
    const out = items === undefined ? arr : sanitizeItems([], arr, items, param, lenient, validate, 0, arr.length)
    if (!lenient && args.uniqueItems && !containsUniqueItems(out)) throw duplicates(param)
    return out
  }

  if (args.type === 'object') {
    if (!restIsObject(value) || value === '') return {}
    // No member has a schema or can be dropped: the members are kept as sent, without visiting them (issue 27). The
    // value is the request's own (a default is copied for each request), so it is handed on, not copied.
    if (membersOpen(args)) return Array.isArray(value) ? Array.from(value as unknown[]) : value
    const keys = keysOf(value)
    const out: Record<string, unknown> = {}
    sanitizeMembers(out, value, keys, args, param, lenient, validate, 0, keys.length)
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

/** The schema of a list's items, when it has one that says something. */
function itemsOf (args: JsonSchema): Record<string, unknown> | undefined {
  return isPlainObject(args.items) && Object.keys(args.items).length > 0 ? args.items : undefined
}

/** The items of `arr` from `from` to `to` (excluded) sanitized onto `out`. */
function sanitizeItems (out: unknown[], arr: unknown[], items: Record<string, unknown>, param: string, lenient: boolean,
  validate: BranchValidator, from: number, to: number): unknown[] {
  for (let i = from; i < to; i++) out.push(sanitizeInner(arr[i], items, `${param}[${i}]`, lenient, validate))
  return out
}

const duplicates = (param: string): SanitizeFailure => new SanitizeFailure(issue('rest_duplicate_items', `${param} has duplicate items.`))

/** The sanitized object, a list again when it was one and its keys are still 0, 1, 2… */
function objectOut (out: Record<string, unknown>, wasList: boolean): unknown {
  if (wasList) {
    const keys = Object.keys(out)
    if (keys.every((k, i) => k === String(i))) return keys.map((k) => out[k])
  }
  return out
}

/** The members of `value` that `keys` names from `from` to `to` (excluded) sanitized into `out`. */
function sanitizeMembers (out: Record<string, unknown>, value: unknown, keys: string[], args: JsonSchema, param: string,
  lenient: boolean, validate: BranchValidator, from: number, to: number): null {
  const members = value as Record<string, unknown>
  for (let i = from; i < to; i++) {
    const property = keys[i]!
    const v = members[property]
    const schema = memberSchema(args, property)
    if (schema === FORBIDDEN) continue
    setOwn(out, property, schema === UNDESCRIBED ? v : sanitizeInner(v, schema, `${param}[${property}]`, lenient, validate))
  }
  return null
}

/**
 * sanitizeInner (strict) with a `yield` (a point where the caller may wait for the next turn) after each
 * MEMBER_SLICE members of a list or an object at the top (slices.ts; a list's items checked for duplicates a slice a
 * turn too): the same value and failures. Other values (and anyOf/oneOf or several types at the top) are sanitized
 * at once. `listed`: the object's keys as the JSON thread's pieces brought them (listed-keys.ts), else listed at once.
 */
export function * sanitizeSteps (value: unknown, schema: unknown, param: string, validate: BranchValidator,
  listed?: string[]): Generator<void, unknown> {
  const args = normalizeSchema(schema)
  if (Array.isArray(args.anyOf) || Array.isArray(args.oneOf)) return sanitizeInner(value, schema, param, false, validate)
  if (args.type === 'array') {
    const arr = restSanitizeArray(value)
    const items = itemsOf(args)
    const out: unknown[] = items === undefined ? arr : []
    if (items !== undefined) yield * inSlices(arr.length, (from, to) => { sanitizeItems(out, arr, items, param, false, validate, from, to); return null })
    if (args.uniqueItems && !(yield * uniqueItemsSteps(out))) throw duplicates(param)
    return out
  }
  if (args.type === 'object' && restIsObject(value) && value !== '' && !membersOpen(args)) {
    const keys = memberKeys(value, listed)
    const out: Record<string, unknown> = {}
    yield * inSlices(keys.length, (from, to) => sanitizeMembers(out, value, keys, args, param, false, validate, from, to))
    return objectOut(out, Array.isArray(value))
  }
  return sanitizeInner(value, schema, param, false, validate)
}
