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
    if (!lenient && args.uniqueItems && !containsUniqueItems(arr)) {
      throw new SanitizeFailure(issue('rest_duplicate_items', `${param} has duplicate items.`))
    }
    return arr
  }

  if (args.type === 'object') {
    if (!restIsObject(value) || value === '') return {}
    // No member has a schema or can be dropped: the members are kept as sent, without visiting them (issue 27). The
    // value is the request's own (a default is copied for each request), so it is handed on, not copied.
    if (membersOpen(args)) return Array.isArray(value) ? Array.from(value as unknown[]) : value
    const wasList = Array.isArray(value)
    const out: Record<string, unknown> = {}
    for (const [property, v] of entriesOf(value)) {
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
