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
import { validateInner } from './validation.js'
import { SanitizeFailure, sanitizeInner } from './sanitize.js'
import { issue, MAX_ARRAY_ITEMS, overflowIssue, tooManyItems, type ValidationIssue } from './validation-issues.js'

export type { JsonSchema } from './schema.js'
export { MAX_DEPTH } from './php.js'
export { compileSchema } from './schema-normalize.js'
export { DEFAULT_MAX_LENGTH, MAX_ARRAY_ITEMS, type ValidationIssue } from './validation-issues.js'

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
