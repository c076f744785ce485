/**
 * Parameter coercion/validation (cms-core.md §3): one row per rule, with the
 * exact code and message (and the sanitized value for coercion rows).
 */
import t from 'tap'
import { Type } from '@sinclair/typebox'
import {
  validateValue, sanitizeValue, parseValue, guardCounts, MAX_ARRAY_ITEMS, MAX_DEPTH
} from '../src/validate.js'
import type { JsonSchema } from '../src/validate.js'
import { validateArgs, type ArgSpec } from '../src/request-args.js'
import { RestError } from '../src/errors.js'
import { validateInner } from '../src/validation.js'
import { sanitizeInner } from '../src/sanitize.js'

interface Row {
  /** what the row checks */
  rule: string
  schema: JsonSchema
  value: unknown
  param?: string
  /** expected error code; absent = the value is valid */
  code?: string
  message?: string
  /** expected error data (default null for non-type errors) */
  data?: unknown
  /** expected sanitized value (valid rows) */
  out?: unknown
}

const nested = (depth: number): unknown => {
  let v: unknown = 1
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

const TYPE = (param: string): { param: string } => ({ param })

const rows: Row[] = [
  // ---- integer --------------------------------------------------------------
  { rule: 'integer: numeric string', schema: { type: 'integer' }, value: '5', out: 5 },
  { rule: 'integer: "5.0" is integral', schema: { type: 'integer' }, value: '5.0', out: 5 },
  { rule: 'integer: "1e0" is integral', schema: { type: 'integer' }, value: '1e0', out: 1 },
  { rule: 'integer: negative', schema: { type: 'integer' }, value: '-3', out: -3 },
  { rule: 'integer: JSON number', schema: { type: 'integer' }, value: 7, out: 7 },
  { rule: 'integer: integral float', schema: { type: 'integer' }, value: 7.0, out: 7 },
  { rule: 'integer: "1.5" rejected', schema: { type: 'integer' }, value: '1.5', param: 'per_page', code: 'rest_invalid_type', message: 'per_page is not of type integer.', data: TYPE('per_page') },
  { rule: 'integer: word rejected', schema: { type: 'integer' }, value: 'abc', code: 'rest_invalid_type', message: 'x is not of type integer.', data: TYPE('x') },
  { rule: 'integer: empty string rejected', schema: { type: 'integer' }, value: '', code: 'rest_invalid_type', message: 'x is not of type integer.', data: TYPE('x') },
  { rule: 'integer: boolean rejected', schema: { type: 'integer' }, value: true, code: 'rest_invalid_type', message: 'x is not of type integer.', data: TYPE('x') },
  { rule: 'integer: list rejected', schema: { type: 'integer' }, value: ['1'], code: 'rest_invalid_type', message: 'x is not of type integer.', data: TYPE('x') },
  { rule: 'integer: bounds checked before integral check', schema: { type: 'integer', minimum: 2 }, value: '1.5', code: 'rest_out_of_bounds', message: 'x must be greater than or equal to 2' },
  { rule: 'integer: non-integral within bounds', schema: { type: 'integer', minimum: 1 }, value: '1.5', code: 'rest_invalid_type', message: 'x is not of type integer.', data: TYPE('x') },

  // ---- number ---------------------------------------------------------------
  { rule: 'number: decimal string', schema: { type: 'number' }, value: '1.5', out: 1.5 },
  { rule: 'number: exponent string', schema: { type: 'number' }, value: '1e3', out: 1000 },
  { rule: 'number: JSON number', schema: { type: 'number' }, value: 2, out: 2 },
  { rule: 'number: word rejected', schema: { type: 'number' }, value: 'abc', code: 'rest_invalid_type', message: 'x is not of type number.', data: TYPE('x') },
  { rule: 'number: hex rejected', schema: { type: 'number' }, value: '0x1A', code: 'rest_invalid_type', message: 'x is not of type number.', data: TYPE('x') },

  // ---- boolean --------------------------------------------------------------
  { rule: 'boolean: true', schema: { type: 'boolean' }, value: true, out: true },
  { rule: 'boolean: false', schema: { type: 'boolean' }, value: false, out: false },
  { rule: 'boolean: "true"', schema: { type: 'boolean' }, value: 'true', out: true },
  { rule: 'boolean: "TRUE" (case-insensitive)', schema: { type: 'boolean' }, value: 'TRUE', param: 'sticky', out: true },
  { rule: 'boolean: "False"', schema: { type: 'boolean' }, value: 'False', out: false },
  { rule: 'boolean: "1"', schema: { type: 'boolean' }, value: '1', out: true },
  { rule: 'boolean: "0"', schema: { type: 'boolean' }, value: '0', out: false },
  { rule: 'boolean: int 1', schema: { type: 'boolean' }, value: 1, out: true },
  { rule: 'boolean: int 0', schema: { type: 'boolean' }, value: 0, out: false },
  { rule: 'boolean: "yes" rejected', schema: { type: 'boolean' }, value: 'yes', param: 'force', code: 'rest_invalid_type', message: 'force is not of type boolean.', data: TYPE('force') },
  { rule: 'boolean: empty string rejected', schema: { type: 'boolean' }, value: '', code: 'rest_invalid_type', message: 'x is not of type boolean.', data: TYPE('x') },
  { rule: 'boolean: int 2 rejected', schema: { type: 'boolean' }, value: 2, code: 'rest_invalid_type', message: 'x is not of type boolean.', data: TYPE('x') },

  // ---- string ---------------------------------------------------------------
  { rule: 'string: NUL refused (text columns cannot hold it)', schema: { type: 'string' }, value: 'a\u0000b', param: 'title', code: 'rest_invalid_characters', message: 'title must not contain NUL characters.' },
  { rule: 'string: string', schema: { type: 'string' }, value: 'abc', out: 'abc' },
  { rule: 'string: empty string', schema: { type: 'string' }, value: '', out: '' },
  { rule: 'string: JSON number rejected', schema: { type: 'string' }, value: 5, param: 'slug', code: 'rest_invalid_type', message: 'slug is not of type string.', data: TYPE('slug') },
  { rule: 'string: boolean rejected', schema: { type: 'string' }, value: true, code: 'rest_invalid_type', message: 'x is not of type string.', data: TYPE('x') },
  { rule: 'string: list rejected', schema: { type: 'string' }, value: ['a'], code: 'rest_invalid_type', message: 'x is not of type string.', data: TYPE('x') },

  // ---- array ----------------------------------------------------------------
  { rule: 'array: list of numeric strings', schema: { type: 'array', items: { type: 'integer' } }, value: ['1', '2'], out: [1, 2] },
  { rule: 'array: comma separated scalar', schema: { type: 'array', items: { type: 'integer' } }, value: '1,2', param: 'include', out: [1, 2] },
  { rule: 'array: whitespace separated scalar', schema: { type: 'array', items: { type: 'integer' } }, value: '1 2', out: [1, 2] },
  { rule: 'array: runs of separators', schema: { type: 'array', items: { type: 'string' } }, value: ' a, b,,c ', out: ['a', 'b', 'c'] },
  { rule: 'array: empty string is the empty list', schema: { type: 'array', items: { type: 'integer' } }, value: '', out: [] },
  { rule: 'array: JSON number is a one-item list', schema: { type: 'array', items: { type: 'integer' } }, value: 5, out: [5] },
  { rule: 'array: integer-keyed object re-indexed', schema: { type: 'array' }, value: { 0: 'a', 1: 'b' }, out: ['a', 'b'] },
  { rule: 'array: no items schema keeps values', schema: { type: 'array' }, value: ['x', 1], out: ['x', 1] },
  { rule: 'array: associative object rejected', schema: { type: 'array' }, value: { a: 1 }, code: 'rest_invalid_type', message: 'x is not of type array.', data: TYPE('x') },
  { rule: 'array: null rejected', schema: { type: 'array' }, value: null, code: 'rest_invalid_type', message: 'x is not of type array.', data: TYPE('x') },
  { rule: 'array: item names use param[index]', schema: { type: 'array', items: { type: 'integer' } }, value: 'a', param: 'include', code: 'rest_invalid_type', message: 'include[0] is not of type integer.', data: TYPE('include[0]') },
  { rule: 'array: second item reported with its index', schema: { type: 'array', items: { type: 'integer' } }, value: ['1', 'x'], param: 'include', code: 'rest_invalid_type', message: 'include[1] is not of type integer.', data: TYPE('include[1]') },
  { rule: 'array: item enum', schema: { type: 'array', items: { type: 'string', enum: ['post_title', 'post_content', 'post_excerpt'] } }, value: 'post_title,nope', param: 'search_columns', code: 'rest_not_in_enum', message: 'search_columns[1] is not one of post_title, post_content, and post_excerpt.' },
  { rule: 'array: minItems', schema: { type: 'array', minItems: 2 }, value: ['a'], code: 'rest_too_few_items', message: 'x must contain at least 2 items.' },
  { rule: 'array: minItems singular', schema: { type: 'array', minItems: 1 }, value: [], code: 'rest_too_few_items', message: 'x must contain at least 1 item.' },
  { rule: 'array: maxItems', schema: { type: 'array', maxItems: 25 }, value: Array.from({ length: 26 }, () => ({})), param: 'requests', code: 'rest_too_many_items', message: 'requests must contain at most 25 items.' },
  { rule: 'array: maxItems singular', schema: { type: 'array', maxItems: 1 }, value: 'a,b', code: 'rest_too_many_items', message: 'x must contain at most 1 item.' },
  { rule: 'array: uniqueItems', schema: { type: 'array', items: { type: 'string' }, uniqueItems: true }, value: 'aside,aside', param: 'format', code: 'rest_duplicate_items', message: 'format has duplicate items.' },
  { rule: 'array: uniqueItems is type-strict', schema: { type: 'array', uniqueItems: true }, value: ['1', 1], out: ['1', 1] },
  { rule: 'array: uniqueItems compares objects without key order', schema: { type: 'array', uniqueItems: true }, value: [{ a: 1, b: 2 }, { b: 2, a: 1 }], code: 'rest_duplicate_items', message: 'x has duplicate items.' },

  // ---- object ---------------------------------------------------------------
  { rule: 'object: associative', schema: { type: 'object' }, value: { a: 1 }, out: { a: 1 } },
  { rule: 'object: empty string is {}', schema: { type: 'object' }, value: '', out: {} },
  { rule: 'object: a list is accepted', schema: { type: 'object' }, value: ['a'], out: ['a'] },
  { rule: 'object: word rejected', schema: { type: 'object' }, value: 'abc', param: 'meta', code: 'rest_invalid_type', message: 'meta is not of type object.', data: TYPE('meta') },
  { rule: 'object: number rejected', schema: { type: 'object' }, value: 5, code: 'rest_invalid_type', message: 'x is not of type object.', data: TYPE('x') },
  { rule: 'object: required (list form)', schema: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } }, value: {}, param: 'meta', code: 'rest_property_required', message: 'a is a required property of meta.' },
  { rule: 'object: required (property form)', schema: { type: 'object', properties: { path: { type: 'string', required: true } } }, value: { method: 'POST' }, param: 'requests[1]', code: 'rest_property_required', message: 'path is a required property of requests[1].' },
  { rule: 'object: required property present as null', schema: { type: 'object', required: ['a'] }, value: { a: null }, out: { a: null } },
  { rule: 'object: additionalProperties false', schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, value: { a: 'x', b: 2 }, code: 'rest_additional_properties_forbidden', message: 'b is not a valid property of Object.' },
  { rule: 'object: additionalProperties schema validates extras', schema: { type: 'object', additionalProperties: { type: 'integer' } }, value: { x: 'abc' }, param: 'settings', code: 'rest_invalid_type', message: 'settings[x] is not of type integer.', data: TYPE('settings[x]') },
  { rule: 'object: additionalProperties schema coerces extras', schema: { type: 'object', additionalProperties: { type: 'integer' } }, value: { x: '5' }, out: { x: 5 } },
  { rule: 'object: nested names param[prop]', schema: { type: 'object', properties: { hide_title: { type: 'string', enum: ['yes', 'no'] } } }, value: { hide_title: 'maybe' }, param: 'meta.settings', code: 'rest_not_in_enum', message: 'meta.settings[hide_title] is not one of yes and no.' },
  { rule: 'object: deeper nesting param[a][b]', schema: { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'integer' } } } } }, value: { a: { b: 'x' } }, param: 'p', code: 'rest_invalid_type', message: 'p[a][b] is not of type integer.', data: TYPE('p[a][b]') },
  { rule: 'object: properties coerced, unknown kept without additionalProperties', schema: { type: 'object', properties: { a: { type: 'integer' } } }, value: { a: '1', z: 'k' }, out: { a: 1, z: 'k' } },
  { rule: 'object: patternProperties', schema: { type: 'object', patternProperties: { '^[a-z]+$': { type: 'integer' } }, additionalProperties: false }, value: { k: 'a' }, param: 'm', code: 'rest_invalid_type', message: 'm[k] is not of type integer.', data: TYPE('m[k]') },
  { rule: 'object: minProperties', schema: { type: 'object', minProperties: 1 }, value: {}, code: 'rest_too_few_properties', message: 'x must contain at least 1 property.' },
  { rule: 'object: minProperties plural', schema: { type: 'object', minProperties: 2 }, value: { a: 1 }, code: 'rest_too_few_properties', message: 'x must contain at least 2 properties.' },
  { rule: 'object: maxProperties', schema: { type: 'object', maxProperties: 1 }, value: { a: 1, b: 2 }, code: 'rest_too_many_properties', message: 'x must contain at most 1 property.' },
  { rule: 'object: maxProperties plural', schema: { type: 'object', maxProperties: 2 }, value: { a: 1, b: 2, c: 3 }, code: 'rest_too_many_properties', message: 'x must contain at most 2 properties.' },

  // ---- null -----------------------------------------------------------------
  { rule: 'null: null', schema: { type: 'null' }, value: null, out: null },
  { rule: 'null: empty string rejected', schema: { type: 'null' }, value: '', code: 'rest_invalid_type', message: 'x is not of type null.', data: TYPE('x') },

  // ---- multi-type -----------------------------------------------------------
  { rule: 'multi-type: null fits string,null', schema: { type: ['string', 'null'] }, value: null, out: null },
  { rule: 'multi-type: string fits string,null', schema: { type: ['string', 'null'] }, value: 'a', out: 'a' },
  { rule: 'multi-type: nothing fits', schema: { type: ['string', 'null'] }, value: 5, param: 'date', code: 'rest_invalid_type', message: 'date is not of type string,null.', data: TYPE('date') },
  { rule: 'multi-type: first fitting type wins (integer)', schema: { type: ['integer', 'string'] }, value: '5', out: 5 },
  { rule: 'multi-type: first fitting type wins (string)', schema: { type: ['string', 'integer'] }, value: '5', out: '5' },
  { rule: 'multi-type: falls back to a later type', schema: { type: ['integer', 'string'] }, value: 'abc', out: 'abc' },
  { rule: 'multi-type: empty string prefers string', schema: { type: ['array', 'string'] }, value: '', out: '' },
  { rule: 'multi-type: empty string without string', schema: { type: ['array', 'object'] }, value: '', out: [] },
  { rule: 'multi-type: bounds of the chosen type', schema: { type: ['integer', 'null'], minimum: 1 }, value: '0', code: 'rest_out_of_bounds', message: 'x must be greater than or equal to 1' },

  // ---- enum -----------------------------------------------------------------
  { rule: 'enum: member', schema: { type: 'string', enum: ['view', 'embed', 'edit'] }, value: 'edit', out: 'edit' },
  { rule: 'enum: three values (Oxford comma)', schema: { type: 'string', enum: ['view', 'embed', 'edit'] }, value: 'x', param: 'context', code: 'rest_not_in_enum', message: 'context is not one of view, embed, and edit.' },
  { rule: 'enum: two values', schema: { type: 'string', enum: ['yes', 'no'] }, value: 'x', code: 'rest_not_in_enum', message: 'x is not one of yes and no.' },
  { rule: 'enum: one value', schema: { type: 'string', enum: ['publish'] }, value: 'draft', param: 'status', code: 'rest_not_in_enum', message: 'status is not publish.' },
  { rule: 'enum: empty-string member prints as nothing', schema: { type: 'string', enum: ['', 'builder'] }, value: 'x', param: 'meta._probe_mode', code: 'rest_not_in_enum', message: 'meta._probe_mode is not one of  and builder.' },
  { rule: 'enum: four values', schema: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'] }, value: 'GET', param: 'requests[0][method]', code: 'rest_not_in_enum', message: 'requests[0][method] is not one of POST, PUT, PATCH, and DELETE.' },
  { rule: 'enum: value sanitized before comparing', schema: { type: 'integer', enum: [1, 2] }, value: '2', out: 2 },
  { rule: 'enum: int/float compare numerically', schema: { type: 'number', enum: [1, 2] }, value: '1.0', out: 1 },
  { rule: 'enum: strict comparison int vs string', schema: { type: 'integer', enum: ['1', '2'] }, value: '1', code: 'rest_not_in_enum', message: 'x is not one of 1 and 2.' },
  { rule: 'enum: boolean members', schema: { type: 'boolean', enum: [true] }, value: 'false', code: 'rest_not_in_enum', message: 'x is not 1.' },
  { rule: 'enum: non-scalar members JSON-encoded', schema: { enum: [{ a: 'b/c' }, [1]] }, value: 'x', code: 'rest_not_in_enum', message: 'x is not one of {"a":"b\\/c"} and [1].' },
  { rule: 'enum: non-scalar member matched by value', schema: { type: 'object', enum: [{ a: 1, b: 2 }] }, value: { b: 2, a: 1 }, out: { b: 2, a: 1 } },
  { rule: 'enum: type checked before enum', schema: { type: 'integer', enum: [1] }, value: 'x', code: 'rest_invalid_type', message: 'x is not of type integer.', data: TYPE('x') },
  { rule: 'const: a one-value enum', schema: { type: 'string', const: 'a' }, value: 'b', code: 'rest_not_in_enum', message: 'x is not a.' },
  { rule: 'const: matching value', schema: { type: 'string', const: 'a' }, value: 'a', out: 'a' },

  // ---- minimum / maximum / multipleOf ----------------------------------------
  { rule: 'bounds: minimum', schema: { type: 'integer', minimum: 1 }, value: '0', param: 'page', code: 'rest_out_of_bounds', message: 'page must be greater than or equal to 1' },
  { rule: 'bounds: minimum met', schema: { type: 'integer', minimum: 1 }, value: '1', out: 1 },
  { rule: 'bounds: exclusiveMinimum (draft 4)', schema: { type: 'integer', minimum: 1, exclusiveMinimum: true }, value: 1, code: 'rest_out_of_bounds', message: 'x must be greater than 1' },
  { rule: 'bounds: maximum', schema: { type: 'integer', maximum: 100 }, value: 101, code: 'rest_out_of_bounds', message: 'x must be less than or equal to 100' },
  { rule: 'bounds: exclusiveMaximum (draft 4)', schema: { type: 'integer', maximum: 100, exclusiveMaximum: true }, value: 100, code: 'rest_out_of_bounds', message: 'x must be less than 100' },
  { rule: 'bounds: both inclusive', schema: { type: 'integer', minimum: 1, maximum: 100 }, value: '101', param: 'per_page', code: 'rest_out_of_bounds', message: 'per_page must be between 1 (inclusive) and 100 (inclusive)' },
  { rule: 'bounds: both, min below', schema: { type: 'integer', minimum: 1, maximum: 100 }, value: '0', param: 'per_page', code: 'rest_out_of_bounds', message: 'per_page must be between 1 (inclusive) and 100 (inclusive)' },
  { rule: 'bounds: exclusive/exclusive', schema: { type: 'number', minimum: 0, maximum: 1, exclusiveMinimum: true, exclusiveMaximum: true }, value: 1, code: 'rest_out_of_bounds', message: 'x must be between 0 (exclusive) and 1 (exclusive)' },
  { rule: 'bounds: inclusive/exclusive', schema: { type: 'number', minimum: 0, maximum: 1, exclusiveMaximum: true }, value: 1, code: 'rest_out_of_bounds', message: 'x must be between 0 (inclusive) and 1 (exclusive)' },
  { rule: 'bounds: exclusive/inclusive', schema: { type: 'number', minimum: 0, maximum: 1, exclusiveMinimum: true }, value: 0, code: 'rest_out_of_bounds', message: 'x must be between 0 (exclusive) and 1 (inclusive)' },
  { rule: 'bounds: draft-6 exclusiveMinimum', schema: { type: 'number', exclusiveMinimum: 0 }, value: 0, code: 'rest_out_of_bounds', message: 'x must be greater than 0' },
  { rule: 'bounds: draft-6 exclusiveMaximum', schema: { type: 'integer', exclusiveMaximum: 10 }, value: '10', code: 'rest_out_of_bounds', message: 'x must be less than 10' },
  { rule: 'bounds: draft-6 mixed', schema: { type: 'integer', minimum: 1, exclusiveMaximum: 10 }, value: 10, code: 'rest_out_of_bounds', message: 'x must be between 1 (inclusive) and 10 (exclusive)' },
  { rule: 'bounds: draft-6 within', schema: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, value: '0.5', out: 0.5 },
  { rule: 'bounds: printed as integers', schema: { type: 'number', minimum: 1.5 }, value: 1, code: 'rest_out_of_bounds', message: 'x must be greater than or equal to 1' },
  { rule: 'multipleOf: integer', schema: { type: 'integer', multipleOf: 5 }, value: 7, code: 'rest_invalid_multiple', message: 'x must be a multiple of 5.' },
  { rule: 'multipleOf: fractional', schema: { type: 'number', multipleOf: 0.5 }, value: '1.25', code: 'rest_invalid_multiple', message: 'x must be a multiple of 0.5.' },
  { rule: 'multipleOf: met', schema: { type: 'number', multipleOf: 0.5 }, value: '1.5', out: 1.5 },

  // ---- strings: length / pattern ----------------------------------------------
  { rule: 'minLength', schema: { type: 'string', minLength: 2 }, value: 'a', code: 'rest_too_short', message: 'x must be at least 2 characters long.' },
  { rule: 'minLength singular', schema: { type: 'string', minLength: 1 }, value: '', code: 'rest_too_short', message: 'x must be at least 1 character long.' },
  { rule: 'minLength thousands separator', schema: { type: 'string', minLength: 1000 }, value: 'a', code: 'rest_too_short', message: 'x must be at least 1,000 characters long.' },
  { rule: 'maxLength', schema: { type: 'string', maxLength: 3 }, value: 'abcd', code: 'rest_too_long', message: 'x must be at most 3 characters long.' },
  { rule: 'maxLength singular', schema: { type: 'string', maxLength: 1 }, value: 'ab', code: 'rest_too_long', message: 'x must be at most 1 character long.' },
  { rule: 'maxLength counts characters, not bytes', schema: { type: 'string', maxLength: 2 }, value: 'é🙂', out: 'é🙂' },
  { rule: 'maxLength counts characters (over)', schema: { type: 'string', maxLength: 2 }, value: 'ééé', code: 'rest_too_long', message: 'x must be at most 2 characters long.' },
  { rule: 'pattern', schema: { type: 'string', pattern: '^[a-z]+$' }, value: 'ABC', code: 'rest_invalid_pattern', message: 'x does not match pattern ^[a-z]+$.' },
  { rule: 'pattern is unanchored', schema: { type: 'string', pattern: '[0-9]' }, value: 'abc1', out: 'abc1' },
  { rule: 'pattern is unicode', schema: { type: 'string', pattern: '^\\p{L}+$' }, value: 'héllo', out: 'héllo' },
  { rule: 'pattern containing #', schema: { type: 'string', pattern: '^#[0-9]+$' }, value: '#12', out: '#12' },

  // ---- formats ---------------------------------------------------------------
  { rule: 'date-time: date only rejected', schema: { type: 'string', format: 'date-time' }, value: '2020-01-01', param: 'after', code: 'rest_invalid_date', message: 'Invalid date.' },
  { rule: 'date-time: T separator', schema: { type: 'string', format: 'date-time' }, value: '2020-01-01T10:00:00', out: '2020-01-01T10:00:00' },
  { rule: 'date-time: space separator', schema: { type: 'string', format: 'date-time' }, value: '2020-01-01 10:00:00', out: '2020-01-01 10:00:00' },
  { rule: 'date-time: fraction and Z', schema: { type: 'string', format: 'date-time' }, value: '2020-01-01T10:00:00.123Z', out: '2020-01-01T10:00:00.123Z' },
  { rule: 'date-time: offset', schema: { type: 'string', format: 'date-time' }, value: '2020-01-01T10:00:00+02:00', out: '2020-01-01T10:00:00+02:00' },
  { rule: 'date-time: month 13 is not a date', schema: { type: 'string', format: 'date-time' }, value: '2020-13-01T00:00:00', code: 'rest_invalid_date', message: 'Invalid date.' },
  { rule: 'date-time: day 32 is not a date', schema: { type: 'string', format: 'date-time' }, value: '2020-01-32T00:00:00', code: 'rest_invalid_date', message: 'Invalid date.' },
  { rule: 'date-time: hour 25 is not a time', schema: { type: 'string', format: 'date-time' }, value: '2020-01-01T25:00:00', code: 'rest_invalid_date', message: 'Invalid date.' },
  { rule: 'date-time: garbage', schema: { type: 'string', format: 'date-time' }, value: 'yesterday', code: 'rest_invalid_date', message: 'Invalid date.' },
  { rule: 'format: only applied to strings', schema: { type: 'integer', format: 'date-time' }, value: 5, out: 5 },
  { rule: 'email: valid', schema: { type: 'string', format: 'email' }, value: 'a@b.co', out: 'a@b.co' },
  { rule: 'email: invalid', schema: { type: 'string', format: 'email' }, value: 'not-an-email', code: 'rest_invalid_email', message: 'Invalid email address.' },
  { rule: 'email: single-label domain', schema: { type: 'string', format: 'email' }, value: 'abc@localhost', code: 'rest_invalid_email', message: 'Invalid email address.' },
  { rule: 'hex-color: #rgb', schema: { type: 'string', format: 'hex-color' }, value: '#fff', out: '#fff' },
  { rule: 'hex-color: #rrggbb', schema: { type: 'string', format: 'hex-color' }, value: '#A0b1C2', out: '#A0b1C2' },
  { rule: 'hex-color: 4 digits', schema: { type: 'string', format: 'hex-color' }, value: '#abcd', code: 'rest_invalid_hex_color', message: 'Invalid hex color.' },
  { rule: 'hex-color: no #', schema: { type: 'string', format: 'hex-color' }, value: 'fff', code: 'rest_invalid_hex_color', message: 'Invalid hex color.' },
  { rule: 'uuid: lower-case', schema: { type: 'string', format: 'uuid' }, value: '123e4567-e89b-12d3-a456-426614174000', out: '123e4567-e89b-12d3-a456-426614174000' },
  { rule: 'uuid: upper-case rejected', schema: { type: 'string', format: 'uuid' }, value: '123E4567-E89B-12D3-A456-426614174000', param: 'app_id', code: 'rest_invalid_uuid', message: 'app_id is not a valid UUID.' },
  { rule: 'ip: IPv4', schema: { type: 'string', format: 'ip' }, value: '192.168.0.1', out: '192.168.0.1' },
  { rule: 'ip: IPv6 compressed', schema: { type: 'string', format: 'ip' }, value: '2001:db8::ff00:42:8329', out: '2001:db8::ff00:42:8329' },
  { rule: 'ip: IPv6 loopback', schema: { type: 'string', format: 'ip' }, value: '::1', out: '::1' },
  { rule: 'ip: IPv4-mapped IPv6', schema: { type: 'string', format: 'ip' }, value: '::ffff:1.2.3.4', out: '::ffff:1.2.3.4' },
  { rule: 'ip: octet out of range', schema: { type: 'string', format: 'ip' }, value: '256.1.1.1', param: 'ip', code: 'rest_invalid_ip', message: 'ip is not a valid IP address.' },
  { rule: 'ip: two ::', schema: { type: 'string', format: 'ip' }, value: '1::2::3', code: 'rest_invalid_ip', message: 'x is not a valid IP address.' },
  { rule: 'uri: never validated', schema: { type: 'string', format: 'uri' }, value: 'not a url', out: 'http://not%20a%20url' },
  { rule: 'uri: bad protocol sanitized away', schema: { type: 'string', format: 'uri' }, value: 'javascript:alert(1)', out: '' },
  { rule: 'uri: good URL kept', schema: { type: 'string', format: 'uri' }, value: 'https://example.com/a?b=c#d', out: 'https://example.com/a?b=c#d' },

  // ---- oneOf / anyOf -----------------------------------------------------------
  {
    rule: 'anyOf: one candidate left, with title',
    schema: {
      anyOf: [
        { type: 'array', items: { type: 'integer' }, title: 'Term ID List' },
        { type: 'object', title: 'Term ID Taxonomy Query', properties: { terms: { type: 'array' } }, additionalProperties: false }
      ]
    },
    value: 'abc',
    param: 'categories',
    code: 'rest_no_matching_schema',
    message: 'categories is not a valid Term ID List. Reason: categories[0] is not of type integer.',
    data: { position: 0 }
  },
  {
    rule: 'anyOf: one candidate left (object), with title',
    schema: {
      anyOf: [
        { type: 'array', items: { type: 'integer' }, title: 'Term ID List' },
        { type: 'object', title: 'Term ID Taxonomy Query', properties: { terms: { type: 'array' }, operator: { type: 'string' } }, additionalProperties: false }
      ]
    },
    value: { terms: [1], include_children: true },
    param: 'tags',
    code: 'rest_no_matching_schema',
    message: 'tags is not a valid Term ID Taxonomy Query. Reason: include_children is not a valid property of Object.',
    data: { position: 1 }
  },
  { rule: 'anyOf: single sub-schema without title', schema: { anyOf: [{ type: 'integer', minimum: 5 }] }, value: 'x', code: 'rest_no_matching_schema', message: 'x does not match the expected format. Reason: x is not of type integer.', data: { position: 0 } },
  { rule: 'anyOf: several candidates without titles', schema: { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'string', minLength: 10 }] }, value: 'abc', param: 'app_id', code: 'rest_no_matching_schema', message: 'app_id does not match any of the expected formats.' },
  { rule: 'anyOf: several candidates, all titled', schema: { anyOf: [{ type: 'string', format: 'uuid', title: 'UUID' }, { type: 'string', format: 'email', title: 'Email' }] }, value: 'abc', code: 'rest_no_matching_schema', message: 'x is not a valid UUID and Email.' },
  { rule: 'anyOf: type errors discarded first', schema: { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'integer', minimum: 1 }] }, value: 'abc', code: 'rest_no_matching_schema', message: 'x does not match the expected format. Reason: x is not a valid UUID.', data: { position: 0 } },
  {
    rule: 'anyOf: objects, the best-matching one explains',
    schema: {
      anyOf: [
        { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false },
        { type: 'object', properties: { b: { type: 'integer' }, c: { type: 'integer' } }, additionalProperties: false }
      ]
    },
    value: { b: 'x', c: 1 },
    code: 'rest_no_matching_schema',
    message: 'x does not match the expected format. Reason: x[b] is not of type integer.',
    data: { position: 1 }
  },
  { rule: 'anyOf: first match is used for coercion', schema: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }] }, value: '5', out: 5 },
  { rule: 'anyOf: sub-schemas inherit the parent type', schema: { type: 'integer', anyOf: [{ minimum: 5 }, { maximum: 0 }] }, value: '7', out: 7 },
  { rule: 'anyOf: inherited type, no branch fits', schema: { type: 'string', anyOf: [{ minLength: 3 }, { format: 'uuid' }] }, value: 'ab', code: 'rest_no_matching_schema', message: 'x does not match any of the expected formats.' },
  { rule: 'oneOf: exactly one match', schema: { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string', format: 'uuid' }] }, value: '5', out: 5 },
  { rule: 'oneOf: several matches', schema: { oneOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] }, value: 'abc', code: 'rest_one_of_multiple_matches', message: 'x matches more than one of the expected formats.', data: { positions: [0, 1] } },
  { rule: 'oneOf: several titled matches', schema: { oneOf: [{ type: 'string', title: 'Slug' }, { type: 'string', minLength: 1, title: 'Name' }] }, value: 'abc', code: 'rest_one_of_multiple_matches', message: 'x matches Slug and Name, but should match only one.', data: { positions: [0, 1] } },
  { rule: 'oneOf: no match, one candidate titled', schema: { oneOf: [{ type: 'integer', minimum: 1, title: 'Post ID' }] }, value: '0', code: 'rest_no_matching_schema', message: 'x is not a valid Post ID. Reason: x must be greater than or equal to 1', data: { position: 0 } },

  // ---- schema without type --------------------------------------------------------
  { rule: 'no type: any string', schema: { default: 'view' }, value: 'anything', out: 'anything' },
  { rule: 'no type: any list', schema: { default: 'view' }, value: [1, { a: 2 }], out: [1, { a: 2 }] },
  { rule: 'no type: any number', schema: {}, value: 5, out: 5 },

  // ---- TypeBox schemas -------------------------------------------------------------
  { rule: 'TypeBox Union of Literals: member', schema: Type.Union([Type.Literal('view'), Type.Literal('embed'), Type.Literal('edit')]), value: 'embed', out: 'embed' },
  { rule: 'TypeBox Union of Literals: enum message', schema: Type.Union([Type.Literal('view'), Type.Literal('embed'), Type.Literal('edit')]), value: 'x', param: 'context', code: 'rest_not_in_enum', message: 'context is not one of view, embed, and edit.' },
  { rule: 'TypeBox Enum', schema: Type.Enum({ A: 'asc', B: 'desc' }), value: 'up', param: 'order', code: 'rest_not_in_enum', message: 'order is not one of asc and desc.' },
  { rule: 'TypeBox numeric Literal coerces', schema: Type.Union([Type.Literal(10), Type.Literal(20)]), value: '20', out: 20 },
  { rule: 'TypeBox Literal', schema: Type.Literal('a'), value: 'b', code: 'rest_not_in_enum', message: 'x is not a.' },
  { rule: 'TypeBox nullable: null', schema: Type.Union([Type.String(), Type.Null()]), value: null, out: null },
  { rule: 'TypeBox nullable: string', schema: Type.Union([Type.String(), Type.Null()]), value: 'a', out: 'a' },
  { rule: 'TypeBox nullable: wrong type', schema: Type.Union([Type.String(), Type.Null()]), value: 5, code: 'rest_invalid_type', message: 'x is not of type string,null.', data: TYPE('x') },
  { rule: 'TypeBox Literals or Null', schema: Type.Union([Type.Literal('a'), Type.Null()]), value: 'b', code: 'rest_not_in_enum', message: 'x is not one of a and null.' },
  { rule: 'TypeBox Null', schema: Type.Null(), value: '', code: 'rest_invalid_type', message: 'x is not of type null.', data: TYPE('x') },
  { rule: 'TypeBox Integer minimum', schema: Type.Integer({ minimum: 1 }), value: '0', param: 'page', code: 'rest_out_of_bounds', message: 'page must be greater than or equal to 1' },
  { rule: 'TypeBox Number exclusiveMaximum', schema: Type.Number({ exclusiveMaximum: 5 }), value: 5, code: 'rest_out_of_bounds', message: 'x must be less than 5' },
  { rule: 'TypeBox Array of Integer', schema: Type.Array(Type.Integer()), value: '3,4', out: [3, 4] },
  { rule: 'TypeBox Union Integer | Array', schema: Type.Union([Type.Integer(), Type.Array(Type.Integer())]), value: '5', out: 5 },
  { rule: 'TypeBox Union Integer | Array: reason', schema: Type.Union([Type.Integer(), Type.Array(Type.Integer())]), value: 'a,b', code: 'rest_no_matching_schema', message: 'x does not match the expected format. Reason: x[0] is not of type integer.', data: { position: 1 } },
  { rule: 'TypeBox Object required', schema: Type.Object({ a: Type.String() }, { additionalProperties: false }), value: {}, code: 'rest_property_required', message: 'a is a required property of x.' },
  { rule: 'TypeBox Object additionalProperties', schema: Type.Object({ a: Type.String() }, { additionalProperties: false }), value: { a: 'x', b: 1 }, code: 'rest_additional_properties_forbidden', message: 'b is not a valid property of Object.' },
  { rule: 'TypeBox Object coerces', schema: Type.Object({ a: Type.Integer(), b: Type.Optional(Type.Boolean()) }), value: { a: '1', b: 'false' }, out: { a: 1, b: false } },
  { rule: 'TypeBox Record', schema: Type.Record(Type.String(), Type.Integer()), value: { k: '5' }, out: { k: 5 } },

  // ---- abuse guards ---------------------------------------------------------------
  { rule: `guard: list over ${MAX_ARRAY_ITEMS} items`, schema: { type: 'array' }, value: new Array(MAX_ARRAY_ITEMS + 1).fill(1), param: 'ids', code: 'rest_too_many_items', message: 'ids must contain at most 10,000 items.' },
  { rule: `guard: split list over ${MAX_ARRAY_ITEMS} items`, schema: { type: 'array' }, value: new Array(MAX_ARRAY_ITEMS + 1).fill('1').join(','), param: 'ids', code: 'rest_too_many_items', message: 'ids must contain at most 10,000 items.' },
  { rule: 'guard: large list nested in an untyped value', schema: {}, value: { a: new Array(MAX_ARRAY_ITEMS + 1).fill(0) }, param: 'p', code: 'rest_too_many_items', message: 'p[a] must contain at most 10,000 items.' },
  { rule: 'guard: large list nested deeper, named by its path', schema: {}, value: { z: [1], a: [{}, { b: { c: new Array(MAX_ARRAY_ITEMS + 1).fill(0) } }] }, param: 'p', code: 'rest_too_many_items', message: 'p[a][1][b][c] must contain at most 10,000 items.' },
  { rule: `guard: ${MAX_DEPTH} levels are fine`, schema: { type: 'array' }, value: nested(MAX_DEPTH), out: nested(MAX_DEPTH) },
  { rule: `guard: ${MAX_DEPTH + 1} levels rejected`, schema: { type: 'array' }, value: nested(MAX_DEPTH + 1), param: 'p', code: 'rest_too_deeply_nested', message: 'p must not be nested more than 32 levels deep.' },
  { rule: 'guard: 100000 levels, no stack overflow', schema: { type: 'array', uniqueItems: true }, value: nested(100_000), param: 'p', code: 'rest_too_deeply_nested', message: 'p must not be nested more than 32 levels deep.' }
]

t.test('validateValue / sanitizeValue table', async (t) => {
  for (const row of rows) {
    const param = row.param ?? 'x'
    const got = validateValue(row.value, row.schema, param)
    if (row.code !== undefined) {
      t.strictSame(got, { code: row.code, message: row.message, data: row.data ?? null }, row.rule)
    } else {
      t.equal(got, null, `${row.rule}: valid`)
      if ('out' in row) t.strictSame(sanitizeValue(row.value, row.schema, param), row.out, `${row.rule}: sanitized`)
    }
  }
})

// Issue 27: the guard visits containers only and names one only when it refuses it (counted, never timed).
t.test('the abuse guard visits each container once and names none of a valid value', async (t) => {
  const members = Object.fromEntries(Array.from({ length: 22_500 }, (_, i) => [`k${i}`, i % 2 === 0 ? { type: 'text', n: i } : 'plain']))
  const before = { ...guardCounts }
  t.equal(validateValue({ content: members }, {}, 'content'), null)
  t.equal(guardCounts.visited - before.visited, 2 + 11_250, 'the value, its one member and the 11,250 objects among 22,500 members')
  t.equal(guardCounts.named, before.named, 'no name made')
  t.match(validateValue({ a: [[new Array(MAX_ARRAY_ITEMS + 1).fill(0)]] }, {}, 'p'), { message: 'p[a][0][0] must contain at most 10,000 items.' })
  t.equal(guardCounts.named, before.named + 1, 'one name made, for the refusal')
})

t.test('sanitizeValue rows (values assumed valid)', async (t) => {
  const cases: Array<{ rule: string; schema: JsonSchema; value: unknown; out: unknown }> = [
    { rule: 'object: unknown props dropped when additionalProperties is false', schema: { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false }, value: { a: '1', b: 'x' }, out: { a: 1 } },
    { rule: 'boolean: strings other than false/0 are true', schema: { type: 'boolean' }, value: 'yes', out: true },
    { rule: 'integer: int cast', schema: { type: 'integer' }, value: '12.9', out: 12 },
    { rule: 'integer: null is 0', schema: { type: 'integer' }, value: null, out: 0 },
    { rule: 'number: null is 0', schema: { type: 'number' }, value: null, out: 0 },
    { rule: 'string: null is ""', schema: { type: 'string' }, value: null, out: '' },
    { rule: 'array: null is []', schema: { type: 'array' }, value: null, out: [] },
    { rule: 'multi-type: no fitting type gives null', schema: { type: ['integer', 'boolean'] }, value: 'abc', out: null },
    { rule: 'date-time: sanitize_text_field', schema: { type: 'string', format: 'date-time' }, value: ' 2020-01-01T10:00:00 ', out: '2020-01-01T10:00:00' },
    { rule: 'hex-color: invalid becomes ""', schema: { type: 'string', format: 'hex-color' }, value: 'red', out: '' },
    { rule: 'uri: relative path kept', schema: { type: 'string', format: 'uri' }, value: '/a/b', out: '/a/b' }
  ]
  for (const c of cases) t.strictSame(sanitizeValue(c.value, c.schema, 'x'), c.out, c.rule)
})

t.test('parseValue reports sanitizer failures', async (t) => {
  // "1" and "01" differ as strings, both become 1: the core's sanitizer fails on the duplicate.
  t.strictSame(parseValue('1,01', { type: 'array', items: { type: 'integer' }, uniqueItems: true }, 'ids'),
    { ok: false, issue: { code: 'rest_duplicate_items', message: 'ids has duplicate items.', data: null } })
  t.strictSame(parseValue('1,2', { type: 'array', items: { type: 'integer' }, uniqueItems: true }, 'ids'),
    { ok: true, value: [1, 2] })
})

// ---------------------------------------------------------------------------
// validateArgs pipeline
// ---------------------------------------------------------------------------

function thrown (fn: () => unknown): RestError {
  try {
    fn()
  } catch (e) {
    if (e instanceof RestError) return e
    throw e
  }
  throw new Error('expected a RestError')
}

const collectionArgs: ArgSpec[] = [
  { name: 'context', schema: { type: 'string', enum: ['view', 'embed', 'edit'], default: 'view' }, required: false },
  { name: 'page', schema: { type: 'integer', default: 1, minimum: 1 }, required: false },
  { name: 'per_page', schema: { type: 'integer', default: 10, minimum: 1, maximum: 100 }, required: false },
  { name: 'include', schema: { type: 'array', items: { type: 'integer' }, default: [] }, required: false },
  { name: 'sticky', schema: { type: 'boolean' }, required: false },
  { name: 'after', schema: { type: 'string', format: 'date-time' }, required: false }
]

interface PipelineRow {
  rule: string
  args: ArgSpec[]
  present: Record<string, unknown>
  /** expected result */
  out?: Record<string, unknown>
  /** expected error: code, message and data */
  code?: string
  message?: string
  data?: unknown
}

const pipeline: PipelineRow[] = [
  {
    rule: 'defaults applied and sanitized, present values coerced, unknown params left out (issue 27)',
    args: collectionArgs,
    present: { per_page: '5', include: '1,2', sticky: 'TRUE', search: 'x', _fields: 'id' },
    out: { per_page: 5, include: [1, 2], sticky: true, context: 'view', page: 1 }
  },
  {
    rule: 'default values go through the sanitizer',
    args: [
      { name: 'n', schema: { type: 'integer', default: '10' }, required: false },
      { name: 'list', schema: { type: 'array', items: { type: 'string' }, default: 'a,b' }, required: false }
    ],
    present: {},
    out: { n: 10, list: ['a', 'b'] }
  },
  {
    rule: 'missing required params, in declaration order, absent or null',
    args: [
      { name: 'a', schema: { type: 'integer' }, required: true },
      { name: 'b', schema: { type: 'string' }, required: true },
      { name: 'c', schema: { type: 'string' }, required: false },
      { name: 'd', schema: { type: 'string' }, required: true }
    ],
    present: { b: null, d: 'ok', c: 'bad?' },
    code: 'rest_missing_callback_param',
    message: 'Missing parameter(s): a, b',
    data: { status: 400, params: ['a', 'b'] }
  },
  {
    rule: 'missing is checked before validity',
    args: [
      { name: 'requests', schema: { type: 'array', maxItems: 25 }, required: true },
      { name: 'validation', schema: { type: 'string', enum: ['normal'] }, required: false }
    ],
    present: { validation: 'bad' },
    code: 'rest_missing_callback_param',
    message: 'Missing parameter(s): requests',
    data: { status: 400, params: ['requests'] }
  },
  {
    rule: 'a required arg with a default is never missing',
    args: [{ name: 'format', schema: { type: 'string', default: 'json' }, required: true }],
    present: {},
    out: { format: 'json' }
  },
  {
    rule: 'all invalid params collected, in declaration order',
    args: collectionArgs,
    present: { include: 'a', per_page: '1.5', context: 'x', page: '0', after: '2020-01-01' },
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): context, page, per_page, include, after',
    data: {
      status: 400,
      params: {
        context: 'context is not one of view, embed, and edit.',
        page: 'page must be greater than or equal to 1',
        per_page: 'per_page is not of type integer.',
        include: 'include[0] is not of type integer.',
        after: 'Invalid date.'
      },
      details: {
        context: { code: 'rest_not_in_enum', message: 'context is not one of view, embed, and edit.', data: null },
        page: { code: 'rest_out_of_bounds', message: 'page must be greater than or equal to 1', data: null },
        per_page: { code: 'rest_invalid_type', message: 'per_page is not of type integer.', data: { param: 'per_page' } },
        include: { code: 'rest_invalid_type', message: 'include[0] is not of type integer.', data: { param: 'include[0]' } },
        after: { code: 'rest_invalid_date', message: 'Invalid date.', data: null }
      }
    }
  },
  {
    rule: 'a failure of the sanitizer (duplicates after coercion) is an invalid param',
    args: [{ name: 'ids', schema: { type: 'array', items: { type: 'integer' }, uniqueItems: true }, required: false }],
    present: { ids: '1,01' },
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): ids',
    data: { status: 400, params: { ids: 'ids has duplicate items.' }, details: { ids: { code: 'rest_duplicate_items', message: 'ids has duplicate items.', data: null } } }
  },
  {
    rule: 'null skips validation and is coerced by type',
    args: [
      { name: 'author', schema: { type: 'integer', minimum: 1 }, required: false },
      { name: 'slug', schema: { type: 'string', enum: ['a'] }, required: false },
      { name: 'date', schema: { type: ['string', 'null'], format: 'date-time' }, required: false },
      { name: 'meta', schema: { type: 'object' }, required: false },
      { name: 'raw', schema: {}, required: false }
    ],
    present: { author: null, slug: null, date: null, meta: null, raw: null },
    out: { author: 0, slug: '', date: null, meta: {}, raw: null }
  },
  {
    rule: 'a null that stays null falls back to the default',
    args: [{ name: 'status', schema: { type: ['string', 'null'], default: 'publish' }, required: false }],
    present: { status: null },
    out: { status: 'publish' }
  },
  {
    rule: 'TypeBox union arg: null fits, other values coerced',
    args: [
      { name: 'parent', schema: Type.Union([Type.Integer(), Type.Null()]), required: false },
      { name: 'order', schema: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }), required: false }
    ],
    present: { parent: '4' },
    out: { parent: 4, order: 'desc' }
  },
  {
    rule: 'args without a type accept anything and keep it',
    args: [{ name: 'format', schema: { default: 'json' }, required: false }],
    present: { format: { weird: ['x'] } },
    out: { format: { weird: ['x'] } }
  },
  {
    rule: 'undeclared params are never validated, nor handed on',
    args: [{ name: 'page', schema: { type: 'integer' }, required: false }],
    present: { other: [1, { a: 'b' }], page: '2', constructor: 'x' },
    out: { page: 2 }
  },
  {
    rule: 'abusive values are ordinary invalid params',
    args: [
      { name: 'deep', schema: { type: 'object' }, required: false },
      { name: 'ids', schema: { type: 'array', items: { type: 'integer' } }, required: false }
    ],
    present: { deep: { a: nested(100_000) }, ids: new Array(20_000).fill('1').join(',') },
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): deep, ids',
    data: {
      status: 400,
      params: { deep: 'deep must not be nested more than 32 levels deep.', ids: 'ids must contain at most 10,000 items.' },
      details: {
        deep: { code: 'rest_too_deeply_nested', message: 'deep must not be nested more than 32 levels deep.', data: null },
        ids: { code: 'rest_too_many_items', message: 'ids must contain at most 10,000 items.', data: null }
      }
    }
  }
]

t.test('validateArgs pipeline table', async (t) => {
  for (const row of pipeline) {
    if (row.code !== undefined) {
      const e = thrown(() => validateArgs(row.args, row.present))
      t.equal(e.code, row.code, `${row.rule}: code`)
      t.equal(e.status, 400, `${row.rule}: status`)
      t.equal(e.message, row.message, `${row.rule}: message`)
      t.strictSame(e.data, row.data, `${row.rule}: data`)
    } else {
      t.strictSame(validateArgs(row.args, row.present), row.out, row.rule)
    }
  }
})

t.test('rest_invalid_param wire shape', async (t) => {
  const e = thrown(() => validateArgs(collectionArgs, { per_page: '1.5' }))
  t.equal(JSON.stringify(e.toBody()),
    '{"code":"rest_invalid_param","message":"Invalid parameter(s): per_page","data":{"status":400,' +
    '"params":{"per_page":"per_page is not of type integer."},' +
    '"details":{"per_page":{"code":"rest_invalid_type","message":"per_page is not of type integer.","data":{"param":"per_page"}}}}}')
  const m = thrown(() => validateArgs([{ name: 'requests', schema: { type: 'array' }, required: true }], {}))
  t.equal(JSON.stringify(m.toBody()),
    '{"code":"rest_missing_callback_param","message":"Missing parameter(s): requests","data":{"status":400,"params":["requests"]}}')
})

t.test('validateArgs does not mutate its input', async (t) => {
  const present = { include: '1,2', extra: { a: 1 } }
  const copy = structuredClone(present)
  const out = validateArgs(collectionArgs, present)
  t.strictSame(present, copy)
  t.notOk('extra' in out, 'undeclared values are left out')
})

t.test('keys like __proto__ are plain data', async (t) => {
  const value = JSON.parse('{"__proto__":{"polluted":1},"a":"1"}') as Record<string, unknown>
  const out = sanitizeValue(value, { type: 'object', properties: { a: { type: 'integer' } } }, 'x') as Record<string, unknown>
  t.equal(out.a, 1)
  t.ok(Object.prototype.hasOwnProperty.call(out, '__proto__'))
  t.equal(({} as Record<string, unknown>).polluted, undefined)
  t.equal(validateValue(value, { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false }, 'x')?.message,
    '__proto__ is not a valid property of Object.')
})

/**
 * An object whose schema says nothing of its members (a builder's element
 * tree, `{type: 'object'}`) is validated and sanitized without visiting its
 * members (issue 27: a template's content of tens of thousands of members held
 * the request thread 40-80 ms in one piece). Counted with a proxy that counts
 * every member read and key listing, never timed.
 */
t.test('objects without member rules are not walked', async (t) => {
  const counted = (n: number): { value: Record<string, unknown>, reads: () => number } => {
    let reads = 0
    const target = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, '<i>x</i>']))
    const value = new Proxy(target, {
      get (o, k) { reads++; return Reflect.get(o, k) },
      ownKeys (o) { reads++; return Reflect.ownKeys(o) },
      getOwnPropertyDescriptor (o, k) { reads++; return Reflect.getOwnPropertyDescriptor(o, k) }
    })
    return { value, reads: () => reads }
  }
  const open = counted(20_000)
  t.equal(validateInner(open.value, { type: 'object' }, 'content'), null)
  t.equal(sanitizeInner(open.value, { type: 'object' }, 'content', false, validateInner), open.value, 'handed on as sent')
  t.equal(open.reads(), 0, 'no member read')
  // A schema with member rules still visits every member: the count above can fail.
  const closed = counted(20_000)
  t.equal(validateInner(closed.value, { type: 'object', additionalProperties: { type: 'string' } }, 'content'), null)
  t.ok(closed.reads() >= 20_000, 'members with a schema are read')

  // The same answers as the walk: required names, member counts, lists kept lists, `__proto__` kept as data.
  const rows: Array<[unknown, JsonSchema, string | null]> = [
    [{ a: 1 }, { type: 'object', required: ['a'] }, null],
    [{ b: 1 }, { type: 'object', required: ['a'] }, 'a is a required property of x.'],
    [[1, 2], { type: 'object', required: ['1'] }, null],
    [[1, 2], { type: 'object', required: ['2'] }, '2 is a required property of x.'],
    [[1, 2], { type: 'object', required: ['length'] }, 'length is a required property of x.'],
    [{ a: 1, b: 2 }, { type: 'object', maxProperties: 1 }, 'x must contain at most 1 property.'],
    [[1, 2], { type: 'object', minProperties: 3 }, 'x must contain at least 3 properties.'],
    [{ a: 1 }, { type: 'object', additionalProperties: true }, null],
    ['', { type: 'object', minProperties: 1 }, 'x must contain at least 1 property.']
  ]
  for (const [value, schema, message] of rows) t.equal(validateValue(value, schema, 'x')?.message ?? null, message, JSON.stringify([value, schema]))
  const list = [{ t: '<b>a</b>' }, 'b']
  const out = parseValue(list, { type: 'object' }, 'x')
  t.strictSame(out, { ok: true, value: list })
  t.not((out as { value: unknown }).value, list, 'a list sent for an object is copied, as the walk did')
  const proto = JSON.parse('{"__proto__":{"polluted":1},"a":"1"}') as Record<string, unknown>
  const kept = sanitizeValue(proto, { type: 'object' }, 'x') as Record<string, unknown>
  t.ok(Object.prototype.hasOwnProperty.call(kept, '__proto__'))
  t.equal(({} as Record<string, unknown>).polluted, undefined)
})

/** A string's characters are counted only when its length in UTF-16 units leaves a bound undecided. */
t.test('string bounds count characters only when undecided', async (t) => {
  const pair = '\u{1F600}' // one character, two units
  const rows: Array<[string, JsonSchema, string | null]> = [
    [pair.repeat(3), { type: 'string', maxLength: 3 }, null],
    [pair.repeat(3), { type: 'string', maxLength: 2 }, 'x must be at most 2 characters long.'],
    [pair.repeat(3), { type: 'string', minLength: 4 }, 'x must be at least 4 characters long.'],
    [pair.repeat(3), { type: 'string', minLength: 3 }, null],
    ['abc', { type: 'string', minLength: 4 }, 'x must be at least 4 characters long.'],
    ['abc', { type: 'string', maxLength: 1 }, 'x must be at most 1 character long.'],
    ['a' + pair, { type: 'string', minLength: 2, maxLength: 2 }, null]
  ]
  for (const [value, schema, message] of rows) t.equal(validateValue(value, schema, 'x')?.message ?? null, message, JSON.stringify([value.length, schema]))
})

/** How many characters `fn` reads with `charCodeAt` (the count of a string's characters reads them so). */
function charactersRead<T> (fn: () => T): { value: T, reads: number } {
  const proto = String.prototype
  const charCodeAt = proto.charCodeAt
  let reads = 0
  // A spy for the length of one call, restored before anything else runs.
  proto.charCodeAt = function (this: string, i: number) { reads++; return charCodeAt.call(this, i) }
  try {
    return { value: fn(), reads }
  } finally {
    proto.charCodeAt = charCodeAt
  }
}

/** A long string checked against every branch of a `oneOf` has its characters counted once, not once a branch. */
t.test('a long string is counted once across the branches of oneOf', async (t) => {
  const value = 'a\u{1F600}'.repeat(100_000) // 300,000 units, 200,000 characters: every bound below is undecided by units
  const branch = (maxLength: number, title: string): JsonSchema => ({ type: 'string', maxLength, title })
  const schema: JsonSchema = { oneOf: [branch(150_000, 'Short'), branch(250_000, 'Long'), branch(260_000, 'Longer')] }
  const first = charactersRead(() => validateValue(value, schema, 'x')?.message)
  t.equal(first.value, 'x matches Long and Longer, but should match only one.')
  t.ok(first.reads <= value.length, `${first.reads} characters read for ${value.length} units`)
  // Once the job has ended the count is forgotten: the same string is counted again.
  await new Promise((resolve) => setImmediate(resolve))
  const later = charactersRead(() => validateValue(value, branch(150_000, 'Short'), 'x')?.message)
  t.equal(later.value, 'x must be at most 150,000 characters long.')
  t.ok(later.reads > 0, 'counted again in a later job')
})
