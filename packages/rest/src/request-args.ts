/**
 * The request-level pipeline of the core, `WP_REST_Request::has_valid_params()`
 * + `sanitize_params()` (class-wp-rest-request.php): defaults, required
 * arguments, every declared argument validated and sanitized, all failures
 * answered together.
 */
import { RestError } from './errors.js'
import type { JsonSchema } from './schema.js'
import { hasOwn, isPlainObject, isset, setOwn } from './php.js'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { compileSchema, parseValue, parseValueSteps, sanitizeStrict, type ValidationIssue } from './validate.js'
import { argsOf } from './arg-marks.js'
import type { EndpointDecl } from './route.js'

/** One declared handler argument. Its default is read from `schema.default`. */
export interface ArgSpec { name: string; schema: JsonSchema; required: boolean; /** false: passed on as sent, the handler checks it */ validate?: boolean }

/**
 * The whole pipeline for one request: `present` holds the merged raw values of the request
 * (path/query/body already merged; values are strings, arrays and objects as parsed from a
 * query string or JSON). Applies defaults for absent args (sanitized too), checks required args
 * (absent or null -> throws RestError rest_missing_callback_param, 400, message "Missing parameter(s): a, b",
 * data {status:400, params:[...]}), validates every present arg that has a schema (all failures collected ->
 * throws RestError rest_invalid_param 400 "Invalid parameter(s): p1, p2" with data {status, params: {p: message}, details: {p: {code, message, data}}}),
 * then returns the sanitized values of the declared args only: an argument the endpoint does not
 * declare never reaches its permission check or handler (issue 27: an undeclared `orderby` reached
 * a query and failed with a 500). The core passes undeclared ones on; this service does not.
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
  return compileArgs(args)(present)
}

/**
 * An endpoint's arguments compiled: the whole request-level check as one closure; `sliced`, the same check with a
 * turn of the event loop before each heavy argument (a list, an object, a long string) and between its walks, for
 * a large body (issue 27).
 */
export interface ArgsValidator {
  (present: Record<string, unknown>): Record<string, unknown>
  sliced: (present: Record<string, unknown>) => Promise<Record<string, unknown>>
}

/** The outcome of parsing a constant (a default): computed once, copied per request. */
type Parsed = { ok: true, value: unknown } | { ok: false, issue: ValidationIssue }

interface CompiledArg {
  name: string
  schema: JsonSchema
  /** Required and without a default: absent or null is missing. */
  mustBeSent: boolean
  validate: boolean
  /** The default validated and sanitized, when there is one. */
  byDefault: Parsed | undefined
}

/**
 * Compiles {@link validateArgs} for one list of arguments: the order, the
 * required set, the normalized schemas and every default's validated value
 * are worked out here, once, so a request only checks what it sent.
 */
export function compileArgs (args: ArgSpec[]): ArgsValidator {
  // A later declaration of a name replaces an earlier one in its place.
  const specs = new Map<string, ArgSpec>()
  for (const arg of args) specs.set(arg.name, arg)
  const compiled: CompiledArg[] = [...specs.values()].map((arg) => {
    const schema = isPlainObject(arg.schema) ? arg.schema : {}
    const def = isPlainObject(arg.schema) ? arg.schema.default : undefined
    compileSchema(schema)
    return {
      name: arg.name,
      schema,
      mustBeSent: arg.required && !isset(def),
      validate: arg.validate !== false,
      byDefault: isset(def) ? parseValue(def, schema, arg.name) : undefined
    }
  })
  const checked = compiled.filter((arg) => arg.validate)

  // No closures are made per request (tsx names every one it creates, at a cost).
  const validate = ((present) => {
    const steps = checkArgs(compiled, checked, present, false)
    let step = steps.next()
    while (step.done !== true) step = steps.next()
    return step.value
  }) as ArgsValidator
  validate.sliced = async (present) => {
    const steps = checkArgs(compiled, checked, present, true)
    for (;;) {
      // A turn before each heavy argument and between its walks.
      await nextTurn()
      argsCounts.turns++
      const step = steps.next()
      if (step.done === true) return step.value
    }
  }
  return validate
}

/** Turns the sliced validation waited for (for tests that count the work, never for timing). */
export const argsCounts = { turns: 0 }

/** Characters from which a string argument is worth a turn of its own. */
const HEAVY_CHARS = 64 * 1024

/** An argument whose walks may be long: a list or an object (of any size: weighing it would be a walk), or a long string. */
function heavy (raw: unknown): boolean {
  return (typeof raw === 'object' && raw !== null) || (typeof raw === 'string' && raw.length >= HEAVY_CHARS)
}

/**
 * The request-level check, in steps: sliced, it yields (a point where the caller waits for the next turn) before
 * each heavy argument and between its walks (parseValueSteps); else it runs through without yielding.
 */
function * checkArgs (compiled: CompiledArg[], checked: CompiledArg[], present: Record<string, unknown>, sliced: boolean): Generator<void, Record<string, unknown>> {
  let missing: string[] | undefined
  for (const arg of compiled) {
    if (!arg.mustBeSent) continue
    const raw = hasOwn(present, arg.name) ? present[arg.name] : undefined
    if (raw === undefined || raw === null) (missing ??= []).push(arg.name)
  }
  if (missing !== undefined) {
    throw new RestError('rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, 400, { params: missing })
  }

  const out: Record<string, unknown> = {}
  for (const arg of compiled) {
    // Passed on as sent (the handler checks it), or checked and set below.
    if (!arg.validate && hasOwn(present, arg.name)) setOwn(out, arg.name, present[arg.name])
  }
  const failures: Failures = { params: undefined, details: undefined }
  for (const arg of checked) {
    const name = arg.name
    const raw = hasOwn(present, name) ? present[name] : undefined
    if (raw !== undefined && raw !== null) {
      if (sliced && heavy(raw)) {
        yield
        settle(out, failures, name, yield * parseValueSteps(raw, arg.schema, name))
      } else settle(out, failures, name, parseValue(raw, arg.schema, name))
      continue
    }
    if (raw === null) {
      const r = sanitizeStrict(null, arg.schema, name)
      if (!r.ok) {
        fail(failures, name, r.issue)
        continue
      }
      if (r.value !== null || arg.byDefault === undefined) {
        setOwn(out, name, r.value)
        continue
      }
    }
    const def = arg.byDefault
    if (def !== undefined) settle(out, failures, name, def.ok ? { ok: true, value: copyOf(def.value) } : def)
  }

  const { params, details } = failures
  if (params !== undefined) {
    throw new RestError('rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, 400, {
      params,
      details: Object.keys(details!).length > 0 ? details : []
    })
  }
  return out
}

/** The invalid arguments of one request, by name, in declaration order. */
interface Failures { params: Record<string, string> | undefined, details: Record<string, ValidationIssue> | undefined }

function fail (failures: Failures, name: string, i: ValidationIssue): void {
  setOwn(failures.params ??= {}, name, i.message)
  setOwn(failures.details ??= {}, name, { code: i.code, message: i.message, data: i.data ?? null })
}

function settle (out: Record<string, unknown>, failures: Failures, name: string, r: Parsed): void {
  if (r.ok) setOwn(out, name, r.value)
  else fail(failures, name, r.issue)
}

const validators = new WeakMap<object, ArgsValidator>()

/**
 * The compiled validator of an endpoint, made when its route is registered
 * and shared by HTTP, batch and `_embed` (one per declaration).
 */
export function endpointValidator (ep: EndpointDecl<any>): ArgsValidator {
  let validate = validators.get(ep)
  if (validate === undefined) {
    validate = compileArgs(argsOf(ep))
    validators.set(ep, validate)
  }
  return validate
}

/** A fresh copy of a default, so a handler changing its params changes no other request's. */
function copyOf (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyOf)
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) setOwn(out, k, copyOf(v))
    return out
  }
  return value
}
