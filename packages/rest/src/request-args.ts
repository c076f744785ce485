/**
 * The request-level pipeline of the core, `WP_REST_Request::has_valid_params()`
 * + `sanitize_params()` (class-wp-rest-request.php): defaults, required
 * arguments, every declared argument validated and sanitized, all failures
 * answered together.
 */
import { RestError } from './errors.js'
import type { JsonSchema } from './schema.js'
import { hasOwn, isPlainObject, isset, setOwn } from './php.js'
import { parseValue, sanitizeStrict, type ValidationIssue } from './validate.js'

/** One declared handler argument. Its default is read from `schema.default`. */
export interface ArgSpec { name: string; schema: JsonSchema; required: boolean; /** false: passed on as sent, the handler checks it */ validate?: boolean }

/**
 * The whole pipeline for one request: `present` holds the merged raw values of the request
 * (path/query/body already merged; values are strings, arrays and objects as parsed from a
 * query string or JSON). Applies defaults for absent args (sanitized too), checks required args
 * (absent or null -> throws RestError rest_missing_callback_param, 400, message "Missing parameter(s): a, b",
 * data {status:400, params:[...]}), validates every present arg that has a schema (all failures collected ->
 * throws RestError rest_invalid_param 400 "Invalid parameter(s): p1, p2" with data {status, params: {p: message}, details: {p: {code, message, data}}}),
 * then returns the sanitized values for the declared args plus the undeclared ones unchanged.
 *
 * Details as in the core:
 * - a default is used when the arg is absent or null (`get_param()` skips null values);
 *   `default: null` is no default;
 * - a required arg that is absent/null but has a default is not missing;
 * - a null value is not validated; it is sanitized (integer -> 0, string -> "",
 *   `['string','null']` -> null); when that gives null the default (if any) is used;
 * - defaults are validated and sanitized like sent values;
 * - invalid params are listed in declaration order; `details` is `[]` when empty.
 */
export function validateArgs (args: ArgSpec[], present: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(present)) setOwn(out, k, v)

  const specs = new Map<string, ArgSpec>()
  for (const arg of args) specs.set(arg.name, arg)
  const ordered = [...specs.values()]

  const rawOf = (name: string): unknown => (hasOwn(present, name) ? present[name] : undefined)
  const defaultOf = (arg: ArgSpec): unknown => (isPlainObject(arg.schema) ? arg.schema.default : undefined)

  const missing: string[] = []
  for (const arg of ordered) {
    const raw = rawOf(arg.name)
    if (arg.required && (raw === undefined || raw === null) && !isset(defaultOf(arg))) missing.push(arg.name)
  }
  if (missing.length > 0) {
    throw new RestError('rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, 400, { params: missing })
  }

  const params: Record<string, string> = {}
  const details: Record<string, ValidationIssue> = {}
  const fail = (name: string, i: ValidationIssue): void => {
    setOwn(params, name, i.message)
    setOwn(details, name, { code: i.code, message: i.message, data: i.data ?? null })
  }

  for (const arg of ordered) {
    const name = arg.name
    if (arg.validate === false) continue
    const schema = isPlainObject(arg.schema) ? arg.schema : {}
    const raw = rawOf(name)
    const def = defaultOf(arg)

    if (raw !== undefined && raw !== null) {
      const r = parseValue(raw, schema, name)
      if (r.ok) setOwn(out, name, r.value)
      else fail(name, r.issue)
      continue
    }

    if (raw === null) {
      const r = sanitizeStrict(null, schema, name)
      if (!r.ok) {
        fail(name, r.issue)
        continue
      }
      if (r.value !== null || !isset(def)) {
        setOwn(out, name, r.value)
        continue
      }
    }

    if (isset(def)) {
      const r = parseValue(def, schema, name)
      if (r.ok) setOwn(out, name, r.value)
      else fail(name, r.issue)
    }
  }

  const invalid = Object.keys(params)
  if (invalid.length > 0) {
    throw new RestError('rest_invalid_param', `Invalid parameter(s): ${invalid.join(', ')}`, 400, {
      params,
      details: Object.keys(details).length > 0 ? details : []
    })
  }
  return out
}
