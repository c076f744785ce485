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
 *
 * One module per concern: schema-normalize.ts (each schema node read once),
 * validation.ts (validating), sanitize.ts (coercing), combining.ts (anyOf and
 * oneOf branches), validation-issues.ts (the issues and bounds). This one is
 * their public API, with the abuse guard run before either walk.
 */
import type { JsonSchema } from './schema.js'
import { isPhpArray, isPhpIntKey, MAX_DEPTH } from './php.js'
import { validateInner, validateSteps } from './validation.js'
import { takeListedKeys } from './listed-keys.js'
import { SanitizeFailure, sanitizeInner, sanitizeSteps } from './sanitize.js'
import { issue, MAX_ARRAY_ITEMS, overflowIssue, tooManyItems, type ValidationIssue } from './validation-issues.js'

export type { JsonSchema } from './schema.js'
export { MAX_DEPTH } from './php.js'
export { compileSchema } from './schema-normalize.js'
export { DEFAULT_MAX_LENGTH, MAX_ARRAY_ITEMS, type ValidationIssue } from './validation-issues.js'

// ---------------------------------------------------------------------------
// Abuse guard
// ---------------------------------------------------------------------------

/** Members the guard visited (for tests that count the work, never for timing). */
export const guardCounts = { visited: 0, named: 0, yields: 0 }

/** Members the sliced guard meets between two of its yields (each container's members in order; issue 27). */
export const GUARD_SLICE = 4096

/**
 * Iterative scan: lists over MAX_ARRAY_ITEMS or nesting over MAX_DEPTH.
 * Only containers are visited, and a container's name (`param[a][b]`) is
 * made only when it is refused: naming every member of a 22,500-member
 * object (a template's content) was most of the scan's 5-10 ms (issue 27).
 */
function guardIssue (value: unknown, param: string): ValidationIssue | null {
  if (!isPhpArray(value)) return null
  const steps = guardSteps(value, param, Infinity)
  let step = steps.next()
  while (step.done !== true) step = steps.next()
  return step.value
}

/**
 * The guard's scan, yielding (a point where the caller may wait for the next turn) each time it has met `slice`
 * members, inside a container too: a 22,500-member argument's scan was one task (issue 27). The same visits in the
 * same order whatever the slice, so the same answer. `listed`: the value's keys as the JSON thread's pieces brought
 * them (listed-keys.ts), not listed again.
 */
function * guardSteps (value: unknown, param: string, slice: number, listed?: string[]): Generator<void, ValidationIssue | null> {
  if (!isPhpArray(value)) return null
  // Every container met: its parent's place here and its key in the parent, so its name is made only when needed.
  const parents: number[] = [-1]
  const keysIn: Array<string | number> = ['']
  // The containers still to visit: each one's place above and its depth.
  const todo: number[] = [0]
  const depths: number[] = [1]
  const containers: Array<unknown[] | Record<string, unknown>> = [value]
  const meet = (child: unknown, parent: number, key: string | number, depth: number): void => {
    if (typeof child !== 'object' || child === null || !isPhpArray(child)) return
    parents.push(parent)
    keysIn.push(key)
    containers.push(child)
    todo.push(parents.length - 1)
    depths.push(depth)
  }
  const nameOf = (at: number): string => {
    guardCounts.named++
    let name = ''
    for (let i = at; i > 0; i = parents[i]!) name = `[${keysIn[i]!}]${name}`
    return `${param}${name}`
  }
  // Members met since the last yield.
  let met = 0
  while (todo.length > 0) {
    const at = todo.pop()!
    const depth = depths.pop()!
    const v = containers[at]!
    guardCounts.visited++
    if (depth > MAX_DEPTH) {
      return issue('rest_too_deeply_nested', `${param} must not be nested more than ${MAX_DEPTH} levels deep.`)
    }
    if (Array.isArray(v)) {
      if (v.length > MAX_ARRAY_ITEMS) return tooManyItems(nameOf(at), MAX_ARRAY_ITEMS)
      for (let i = v.length - 1; i >= 0; i--) {
        if (++met > slice) {
          met = 1
          guardCounts.yields++
          yield
        }
        meet(v[i], at, i, depth + 1)
      }
    } else {
      const keys = at === 0 && listed !== undefined ? listed : Object.keys(v)
      if (keys.length > MAX_ARRAY_ITEMS && keys.every(isPhpIntKey)) return tooManyItems(nameOf(at), MAX_ARRAY_ITEMS)
      for (let i = keys.length - 1; i >= 0; i--) {
        if (++met > slice) {
          met = 1
          guardCounts.yields++
          yield
        }
        meet(v[keys[i]!], at, keys[i]!, depth + 1)
      }
    }
  }
  return null
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

/** WordPress rest_validate_value_from_schema: null when valid. */
export function validateValue (value: unknown, schema: JsonSchema, param: string): ValidationIssue | null {
  const g = guardIssue(value, param)
  if (g) return g
  return validateGuarded(value, schema, param)
}

/** validateValue past the abuse guard (the value passed it). */
function validateGuarded (value: unknown, schema: JsonSchema, param: string): ValidationIssue | null {
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
    return sanitizeInner(value, schema, param, true, validateInner)
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

/**
 * parseValue in its three walks, the guard, the validation and the sanitizing, with a `yield` between them: a point
 * where the caller may wait for the next turn of the event loop (issue 27: the three walks of a 22,500-member value
 * and the GC they cause were one macrotask), and inside the validation and the sanitizing after each MEMBER_SLICE
 * members of a list or an object at the top (validateSteps, sanitizeSteps; slices.ts), and of UNIT_SLICE units of a
 * long string whose characters are counted. An object put together from the JSON thread's pieces is not listed at
 * once: its keys came with them (listed-keys.ts). The same outcome as parseValue.
 */
export function * parseValueSteps (value: unknown, schema: JsonSchema, param: string):
Generator<void, { ok: true; value: unknown } | { ok: false; issue: ValidationIssue }> {
  const listed = takeListedKeys(value)
  const g = yield * guardSteps(value, param, GUARD_SLICE, listed)
  if (g) return { ok: false, issue: g }
  yield
  let invalid: ValidationIssue | null
  try {
    const r = yield * validateSteps(value, schema, param, listed)
    invalid = r === null ? null : { code: r.code, message: r.message, data: r.data ?? null }
  } catch (e) {
    if (!(e instanceof RangeError)) throw e
    invalid = overflowIssue(param)
  }
  if (invalid) return { ok: false, issue: invalid }
  yield
  try {
    return { ok: true, value: yield * sanitizeSteps(value, schema, param, validateInner, listed) }
  } catch (e) {
    if (e instanceof SanitizeFailure) return { ok: false, issue: { code: e.issue.code, message: e.issue.message, data: e.issue.data ?? null } }
    if (e instanceof RangeError) return { ok: false, issue: overflowIssue(param) }
    throw e
  }
}

export function sanitizeStrict (value: unknown, schema: JsonSchema, param: string):
{ ok: true; value: unknown } | { ok: false; issue: ValidationIssue } {
  try {
    return { ok: true, value: sanitizeInner(value, schema, param, false, validateInner) }
  } catch (e) {
    if (e instanceof SanitizeFailure) return { ok: false, issue: { code: e.issue.code, message: e.issue.message, data: e.issue.data ?? null } }
    if (e instanceof RangeError) return { ok: false, issue: overflowIssue(param) }
    throw e
  }
}
