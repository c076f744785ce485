/**
 * Values derived from an argument's JSON schema: one that should pass
 * validation (probes, load), and fast-check arbitraries of values that
 * should not (fuzzing). Only schema keywords are read, never route names.
 */
import fc from 'fast-check'
import type { JsonSchema } from '@cms/rest'
import { BASE } from '../helpers.js'

import { typesOf, validValue } from '@cms/core/testing'

// --- bad values ---------------------------------------------------------------

const BIG = 2 ** 53 + 1

/** Scalars that are wrong for most arguments, whatever their type. */
const wrongScalars: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  null, true, false, 0, -1, 1.5, -0.000001, 1e308, -1e308, BIG, -BIG, 2147483648, -2147483649,
  '', ' ', 'null', 'undefined', 'NaN', 'Infinity', '-Infinity', '-0', '0x1F', '1e3', '+1', '--1', ' 1', '1 ',
  '١٢٣', '１２３', 'true', 'yes', 'maybe', '[]', '{}', '\u0000', 'a\u0000b', '\u202e\u0041', '😀', 'é',
  "' OR 1=1 --", '"; DROP TABLE x; --', '${7*7}', '{{7*7}}', '<script>alert(1)</script>', '%00', '%', '%zz', // eslint-disable-line no-template-curly-in-string -- a template-injection probe, literally
  '../../../../etc/passwd', '\\..\\..\\windows', 'a\r\nX-Injected: 1',
  // Names Object.prototype answers to: a value used as a key must find nothing (issue 27).
  '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'
)

const nested: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant({ a: { b: { c: { d: 1 } } } }),
  fc.constant([[[[1]]]]),
  fc.constant({ raw: { raw: { raw: 'x' } } }),
  fc.constant({ __proto__: { admin: true }, constructor: { prototype: { x: 1 } } }),
  fc.constant(deep(40)),
  fc.constant(deep(200)),
  fc.object({ maxDepth: 3, maxKeys: 4 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 })
)

function deep (depth: number): unknown {
  let v: unknown = 'bottom'
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { x: v } : [v]
  return v
}

const hugeArrays: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(Array.from({ length: 1001 }, (_, i) => i)),
  fc.constant(Array.from({ length: 10_001 }, () => 1)),
  fc.constant(Array.from({ length: 30_000 }, () => 'x')),
  fc.constant(Array.from({ length: 200 }, () => ({ a: [1, 2, 3] })))
)

const longStrings: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 256, max: 70_000 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => '😀'.repeat(n)),
  fc.constant('%'.repeat(5000)),
  fc.constant('\u0000'.repeat(3000))
)

const anyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 })
)

const badDates = fc.constantFrom(
  '2024-13-01T00:00:00', '2024-02-30T00:00:00', '2024-01-01T24:61:61', '0000-00-00 00:00:00', '0000-00-00T00:00:00',
  '9999999-01-01T00:00:00', '2024-01-01T00:00:00+99:99', '2024-01-01T00:00:00Zjunk', 'yesterday', 'now', '1e10',
  '2024/01/01', '01-01-2024', '-2024-01-01T00:00:00', '2024-01-01T00:00:00.999999999999Z', 'T', '2024-W01', ''
)

const badUris = fc.constantFrom(
  'javascript:alert(1)', 'data:text/html,<b>x</b>', 'http://', '://x', 'http:///x', 'http://[::1', 'http://%zz/',
  'file:///etc/passwd', 'gopher://127.0.0.1:25/', 'http://user:pass@127.0.0.1/', '\\\\host\\share', 'http://a b/',
  `${BASE}/?p=-1`, `${BASE}/?p=99999999999999999999`, `${BASE}/?page_id=../../etc`, 'http://127.0.0.1:1/',
  'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:127.0.0.1]:1/', 'http://0x7f000001:1/', 'http://localhost:1/'
)

/** Values that should fail validation (or test the handler's limits) for this schema. */
export function badValue (schema: JsonSchema): fc.Arbitrary<unknown> {
  const types = typesOf(schema)
  const specific: Array<fc.Arbitrary<unknown>> = []
  if (types.includes('integer') || types.includes('number')) {
    const min = typeof schema.minimum === 'number' ? schema.minimum : undefined
    const max = typeof schema.maximum === 'number' ? schema.maximum : undefined
    specific.push(fc.constantFrom<unknown>(
      ...(min !== undefined ? [min - 1, min - 0.5, String(min - 1)] : []),
      ...(max !== undefined ? [max + 1, max + 0.5, String(max + 1)] : []),
      '1.5', 'abc', '1,2', '1;2', [1, 2], { n: 1 }, 99999999999999999999, '99999999999999999999999', -BIG // eslint-disable-line @typescript-eslint/no-loss-of-precision -- a number JSON cannot keep exactly, on purpose
    ))
    specific.push(fc.double().map((d) => d))
    specific.push(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((b) => b.toString()))
  }
  if (types.includes('string') || types.length === 0) {
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      const first = String(schema.enum[0])
      specific.push(fc.constantFrom<unknown>(first.toUpperCase() + 'X', `${first} `, ` ${first}`, `${first},${first}`, 'not-a-member', [first, 'x'], { [first]: 1 }))
    }
    if (typeof schema.maxLength === 'number') specific.push(fc.constant('x'.repeat(schema.maxLength + 1)))
    if (typeof schema.minLength === 'number' && schema.minLength > 0) specific.push(fc.constant(''))
    if (schema.format === 'date-time' || /date|after|before/i.test(String(schema.description ?? ''))) specific.push(badDates)
    if (schema.format === 'uri') specific.push(badUris)
    if (schema.format === 'email') specific.push(fc.constantFrom('no-at-sign', '@example.com', 'a@', 'a@b', `${'a'.repeat(300)}@example.com`, 'a@b@c.com'))
    specific.push(longStrings)
  }
  if (types.includes('boolean')) specific.push(fc.constantFrom<unknown>('maybe', 2, -1, '1.0', 'TRUE ', [true], { v: true }))
  if (types.includes('array')) {
    specific.push(hugeArrays)
    const items = (schema.items ?? {}) as JsonSchema
    specific.push(fc.array(fc.oneof(wrongScalars, badValue2(items)), { minLength: 1, maxLength: 6 }))
    if (schema.uniqueItems === true) specific.push(fc.constant([validValue(items), validValue(items)]))
    if (typeof schema.maxItems === 'number') specific.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, () => validValue(items))))
  }
  if (types.includes('object')) {
    specific.push(fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(wrongScalars, nested), { maxKeys: 5 }))
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>
    const keys = Object.keys(props)
    if (keys.length > 0) {
      specific.push(fc.constantFrom(...keys).chain((key) => badValue2(props[key]!).map((v) => ({ ...(validValue(schema) as object), [key]: v }))))
    }
  }
  return fc.oneof(
    { arbitrary: fc.oneof(...(specific.length > 0 ? specific : [anyString])), weight: 5 },
    { arbitrary: wrongScalars, weight: 3 },
    { arbitrary: nested, weight: 2 },
    { arbitrary: anyString, weight: 1 }
  )
}

/** One level of nesting only: a bad value for a property or an item, without recursing further. */
function badValue2 (schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.oneof(wrongScalars, fc.constant(validValue(schema)), anyString)
}

/** A good value most of the time, so requests also reach handlers. */
export function someValue (schema: JsonSchema, name: string): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: badValue(schema), weight: 3 },
    { arbitrary: fc.constant(null).map(() => validValue(schema, name)), weight: 2 }
  )
}

/** Path variable values: negative, enormous, traversal, NUL, unicode (already URL-encoded where needed). */
export const badSegments: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '-1', '0', '00', '1.5', '1e3', '99999999999999999999', '2147483648', '9223372036854775808', ' 1', '%201',
    '..', '...', '%2e%2e', '%2E%2E%2F', '..%2F..%2Fetc%2Fpasswd', '..%5C..%5C', '%00', '1%00', '%00.json', '%0d%0aX-Injected:%201',
    '%C3%A9', '%F0%9F%98%80', '%E2%80%AE', '%EF%BC%91', '%C0%AE%C0%AE', '%FF', '%', '%zz', 'me', 'ME', 'null', 'undefined',
    `${'9'.repeat(400)}`, 'a'.repeat(600), '1;2', '1,2', '%3B', '%2F', '~', '*',
    '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'
  ),
  fc.integer({ min: -1_000_000, max: 10_000_000 }).map(String),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }).map((s) => encodeURIComponent(s))
)

/** Names of parameters no route declares (unknown properties). */
export const unknownNames: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'id', 'ID', '_fields', '_embed',
    '_envelope', '_pretty', 'context', 'rest_route', '_method', 'x'.repeat(300), 'a[b]', '', ' ', 'é'),
  fc.string({ minLength: 1, maxLength: 10 })
)
