/**
 * Parameter coercion and validation of the REST kernel.
 *
 * A port of the core's `rest_validate_value_from_schema()` /
 * `rest_sanitize_value_from_schema()` (src/wp-includes/rest-api.php) and of the
 * request-level pipeline `WP_REST_Request::has_valid_params()` +
 * `sanitize_params()` (src/wp-includes/rest-api/class-wp-rest-request.php),
 * with the same error codes and messages (see cms-core.md §3).
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

import { RestError } from './errors.js'

/** A JSON schema object (e.g. produced by @sinclair/typebox). */
export type JsonSchema = Record<string, any>

/** One declared handler argument. Its default is read from `schema.default`. */
export interface ArgSpec { name: string; schema: JsonSchema; required: boolean; /** false: passed on as sent, the handler checks it */ validate?: boolean }

/** One failed check, as the core's WP_Error: code, message, data (null when none). */
export interface ValidationIssue { code: string; message: string; data: unknown }

/** Largest list accepted anywhere in a value. */
export const MAX_ARRAY_ITEMS = 10_000
/** Deepest nesting of arrays/objects accepted in a value. */
export const MAX_DEPTH = 32

const ALLOWED_TYPES = ['array', 'object', 'string', 'number', 'integer', 'boolean', 'null']

// ---------------------------------------------------------------------------
// Small PHP emulation helpers
// ---------------------------------------------------------------------------

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k)

function isset (v: unknown): boolean {
  return v !== undefined && v !== null
}

function isPlainObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** PHP `is_array()` for decoded JSON / query values: lists and objects. */
function isPhpArray (v: unknown): v is unknown[] | Record<string, unknown> {
  return Array.isArray(v) || isPlainObject(v)
}

function isScalar (v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
}

/** Sets an own property, also for the key `__proto__`. */
function setOwn (o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') {
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
  } else {
    o[k] = v
  }
}

function entriesOf (v: unknown): Array<[string, unknown]> {
  if (Array.isArray(v)) return Array.from(v, (x, i) => [String(i), x] as [string, unknown])
  if (isPlainObject(v)) return Object.entries(v)
  return []
}

const PHP_WS = '[ \\t\\n\\r\\v\\f]'
/** PHP 8 numeric string: optional surrounding whitespace, decimal or exponent notation. */
const NUMERIC_RE = new RegExp(`^${PHP_WS}*[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?${PHP_WS}*$`)
const LEADING_NUMERIC_RE = new RegExp(`^${PHP_WS}*([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?)`)

/** PHP `is_numeric()`. */
function isNumeric (v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v)
  if (typeof v === 'string') return NUMERIC_RE.test(v)
  return false
}

/** PHP `(float)` cast. */
function phpFloat (v: unknown): number {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string') {
    const m = LEADING_NUMERIC_RE.exec(v)
    return m ? Number(m[1]) : 0
  }
  if (Array.isArray(v)) return v.length > 0 ? 1 : 0
  if (isPlainObject(v)) return Object.keys(v).length > 0 ? 1 : 0
  return 0
}

/** PHP `(int)` cast. */
function phpInt (v: unknown): number {
  const f = phpFloat(v)
  if (!Number.isFinite(f)) return 0
  const t = Math.trunc(f)
  return t === 0 ? 0 : t // no -0
}

/** PHP `(string)` of a float (precision 14, `%.14G` style). */
function phpFloatToString (x: number): string {
  if (Number.isNaN(x)) return 'NAN'
  if (!Number.isFinite(x)) return x > 0 ? 'INF' : '-INF'
  if (Object.is(x, -0)) return '-0'
  // An integral JSON number is a PHP int: printed in full.
  if (Number.isInteger(x) && Math.abs(x) < 9.2e18) return BigInt(x).toString()
  const exp = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(14)))))
  if (exp < -4 || exp >= 14) {
    let [mant = '', e = '0'] = x.toExponential(13).split('e')
    if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '.0')
    const en = Number(e)
    return `${mant}E${en < 0 ? '-' : '+'}${Math.abs(en)}`
  }
  return String(Number(x.toPrecision(14)))
}

/** PHP `(string)` cast. */
function phpToString (v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number') return phpFloatToString(v)
  if (v === true) return '1'
  if (v === false || v === null || v === undefined) return ''
  if (isPhpArray(v)) return 'Array'
  return String(v)
}

/** `number_format_i18n()` with the default (en_US) separators and no decimals. */
function numberFormat (n: unknown): string {
  const f = phpFloat(n)
  const r = Math.round(Math.abs(f)) * (f < 0 ? -1 : 1)
  const s = String(Math.abs(r)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return r < 0 ? `-${s}` : s
}

/** sprintf `%d`. */
function fmtD (n: unknown): string {
  return String(phpInt(n))
}

/** `wp_sprintf()`'s `%l` list: "A", "A and B", "A, B, and C". */
export function wpSprintfList (items: string[]): string {
  if (items.length === 0) return ''
  if (items.length === 1) return items[0]!
  if (items.length === 2) return `${items[0]} and ${items[1]}`
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`
}

function phpJsonString (s: string): string {
  return JSON.stringify(s)
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}

/** `wp_json_encode()` with PHP's default flags (escaped slashes and unicode; `{}` is `[]`). */
function phpJsonEncode (v: unknown, depth = 0): string {
  if (depth > MAX_DEPTH * 2) return 'null'
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'string') return phpJsonString(v)
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : '0'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (Array.isArray(v)) return '[' + v.map((x) => phpJsonEncode(x, depth + 1)).join(',') + ']'
  if (isPlainObject(v)) {
    const e = Object.entries(v)
    if (e.every(([k], i) => k === String(i))) return '[' + e.map(([, x]) => phpJsonEncode(x, depth + 1)).join(',') + ']'
    return '{' + e.map(([k, x]) => phpJsonString(k) + ':' + phpJsonEncode(x, depth + 1)).join(',') + '}'
  }
  return 'null'
}

/** Whether a key of a decoded JSON object would be an integer key of a PHP array. */
function isPhpIntKey (k: string): boolean {
  if (!/^(?:0|-?[1-9]\d*)$/.test(k)) return false
  if (k.replace('-', '').length < 19) return true
  const b = BigInt(k)
  return b <= 9223372036854775807n && b >= -9223372036854775808n
}

/** `wp_parse_list()` of a scalar: split on commas and (ASCII) whitespace. */
function parseList (v: string | number | boolean): string[] {
  return phpToString(v).split(/[ \t\n\v\f\r,]+/).filter((s) => s !== '')
}

// ---------------------------------------------------------------------------
// Type checks (rest_is_* helpers)
// ---------------------------------------------------------------------------

/** rest_is_boolean(). */
function restIsBoolean (v: unknown): boolean {
  if (typeof v === 'boolean') return true
  if (typeof v === 'string') return ['false', 'true', '0', '1'].includes(v.toLowerCase())
  if (typeof v === 'number') return v === 0 || v === 1
  return false
}

/** rest_is_integer(). */
function restIsInteger (v: unknown): boolean {
  if (!isNumeric(v)) return false
  const f = phpFloat(v)
  return Math.round(f) === f
}

/** rest_is_array(): a scalar (split as a list) or an array whose keys are all integers. */
function restIsArray (v: unknown): boolean {
  if (isScalar(v)) return true
  if (Array.isArray(v)) return true
  if (isPlainObject(v)) return Object.keys(v).every(isPhpIntKey)
  return false
}

/** rest_sanitize_array(). */
function restSanitizeArray (v: unknown): unknown[] {
  if (isScalar(v)) return parseList(v)
  if (Array.isArray(v)) return Array.from(v)
  if (isPlainObject(v)) return Object.values(v)
  return []
}

/** rest_is_object(): an object, a list, or the empty string. */
function restIsObject (v: unknown): boolean {
  return v === '' || isPhpArray(v)
}

/** rest_sanitize_boolean(). */
function restSanitizeBoolean (v: unknown): boolean {
  if (typeof v === 'string') {
    const l = v.toLowerCase()
    if (l === 'false' || l === '0' || l === '') return false
    return true
  }
  if (typeof v === 'number') return v !== 0
  if (Array.isArray(v)) return v.length > 0
  if (isPlainObject(v)) return Object.keys(v).length > 0
  return Boolean(v)
}

const BEST_TYPE_CHECKS: Record<string, (v: unknown) => boolean> = {
  array: restIsArray,
  object: restIsObject,
  integer: restIsInteger,
  number: isNumeric,
  boolean: restIsBoolean,
  string: (v) => typeof v === 'string',
  null: (v) => v === null
}

/** rest_get_best_type_for_value(). */
function getBestType (v: unknown, types: unknown[]): string {
  if (v === '' && types.includes('string')) return 'string'
  for (const t of types) {
    if (typeof t === 'string' && hasOwn(BEST_TYPE_CHECKS, t) && BEST_TYPE_CHECKS[t]!(v)) return t
  }
  return ''
}

/** rest_handle_multi_type_schema(). */
function handleMultiType (v: unknown, types: unknown[]): string {
  const invalid = types.filter((t) => typeof t !== 'string' || !ALLOWED_TYPES.includes(t))
  const best = getBestType(v, types)
  if (best) return best
  if (invalid.length === 0) return ''
  return phpToString(invalid[0]) // back compat: an unknown type accepts the value
}

/** Canonical form of a value for uniqueItems (rest_stabilize_value + serialize). */
function stableKey (v: unknown, depth = 0): string {
  if (depth > MAX_DEPTH * 2) throw new RangeError('value nested too deeply')
  if (v === null || v === undefined) return 'N'
  if (typeof v === 'string') return 's' + JSON.stringify(v)
  if (typeof v === 'number') return 'n' + String(v)
  if (typeof v === 'boolean') return v ? 'b1' : 'b0'
  if (isPhpArray(v)) {
    const e = entriesOf(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return 'a{' + e.map(([k, x]) => JSON.stringify(k) + ':' + stableKey(x, depth + 1)).join(',') + '}'
  }
  return 'u'
}

/** rest_validate_array_contains_unique_items(). */
function containsUniqueItems (arr: unknown[]): boolean {
  const seen = new Set<string>()
  for (const item of arr) {
    const k = stableKey(item)
    if (seen.has(k)) return false
    seen.add(k)
  }
  return true
}

/** rest_are_values_equal(): JSON-schema equality, key order ignored for objects. */
function valuesEqual (a: unknown, b: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH * 2) throw new RangeError('value nested too deeply')
  if (isPhpArray(a) && isPhpArray(b)) {
    const ea = entriesOf(a)
    const mb = new Map(entriesOf(b))
    if (ea.length !== mb.size) return false
    for (const [k, x] of ea) {
      if (!mb.has(k) || !valuesEqual(x, mb.get(k), depth + 1)) return false
    }
    return true
  }
  return a === b
}

// ---------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2})(?::(\d{2}))?)?\n?$/

/**
 * rest_parse_date() !== false: the core's RFC 3339 regex, then `strtotime()`.
 * strtotime() accepts month 00-12, day 00-31 (overflowing into the next month,
 * so 2021-02-30 is accepted), hour 00-24, minute 00-59, second 00-60.
 */
function isValidDate (v: unknown): boolean {
  if (!isScalar(v)) return false
  const m = DATE_RE.exec(phpToString(v))
  if (!m) return false
  const [, , mo, d, h, mi, s, tzh, tzm] = m.map((x) => (x === undefined ? undefined : Number(x)))
  if (mo! > 12 || d! > 31 || h! > 24 || mi! > 59 || s! > 60) return false
  if (tzh !== undefined && tzh > 24) return false
  if (tzm !== undefined && tzm > 59) return false
  return true
}

const HEX_COLOR_RE = /^#([A-Fa-f0-9]{3}){1,2}\n?$/

/** rest_parse_hex_color(). */
function isHexColor (v: unknown): boolean {
  return isScalar(v) && HEX_COLOR_RE.test(phpToString(v))
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n?$/

/** wp_is_uuid(): lower-case hex only. */
function isUuid (v: unknown): boolean {
  return typeof v === 'string' && UUID_RE.test(v)
}

/** is_email(). */
function isEmail (v: unknown): boolean {
  if (!isScalar(v)) return false
  const email = phpToString(v)
  if (Buffer.byteLength(email, 'utf8') < 6) return false
  const at = email.indexOf('@', 1)
  if (at === -1) return false
  const local = email.slice(0, at)
  const domain = email.slice(at + 1)
  if (!/^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false
  if (/\.{2,}/.test(domain)) return false
  if (domain.replace(/^[ \t\n\r\0\x0B.]+|[ \t\n\r\0\x0B.]+$/g, '') !== domain) return false
  const subs = domain.split('.')
  if (subs.length < 2) return false
  for (const sub of subs) {
    if (sub.replace(/^[ \t\n\r\0\x0B-]+|[ \t\n\r\0\x0B-]+$/g, '') !== sub) return false
    if (!/^[a-z0-9-]+$/i.test(sub)) return false
  }
  return true
}

const IPV4_RE = /^(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\n?$/

/** Requests' Ipv6::uncompress(). */
function ipv6Uncompress (ip: string): string {
  if (ip.split('::').length - 1 !== 1) return ip
  const [ip1 = '', ip2 = ''] = ip.split('::')
  const count = (s: string): number => s.split(':').length - 1
  const c1 = ip1 === '' ? -1 : count(ip1)
  let c2 = ip2 === '' ? -1 : count(ip2)
  if (ip2.includes('.')) c2++
  const rep = (s: string, n: number): string => s.repeat(Math.max(0, n))
  if (c1 === -1 && c2 === -1) return '0:0:0:0:0:0:0:0'
  if (c1 === -1) return ip.replace('::', rep('0:', 7 - c2))
  if (c2 === -1) return ip.replace('::', rep(':0', 7 - c1))
  return ip.replace('::', ':' + rep('0:', 6 - c2 - c1))
}

/** Requests' Ipv6::check_ipv6(). */
function isIpv6 (input: string): boolean {
  const ip = ipv6Uncompress(input)
  let v6 = ip
  let v4 = ''
  if (ip.includes('.')) {
    const pos = ip.lastIndexOf(':')
    v6 = pos === -1 ? '' : ip.slice(0, pos)
    v4 = ip.slice(pos + 1)
  }
  const p6 = v6.split(':')
  const p4 = v4.split('.')
  if (!((p6.length === 8 && p4.length === 1) || (p6.length === 6 && p4.length === 4))) return false
  for (const part of p6) {
    if (part === '' || part.length > 4 || !/^[0-9a-f]+$/i.test(part)) return false
  }
  if (p4.length === 4) {
    for (const part of p4) {
      const n = phpInt(part)
      if (String(n) !== part || n < 0 || n > 255) return false
    }
  }
  return true
}

/** rest_is_ip_address(). */
function isIpAddress (v: unknown): boolean {
  if (typeof v !== 'string') return false
  return IPV4_RE.test(v) || isIpv6(v)
}

/** A rough `esc_html()` for the lone `<` handling of sanitize_text_field(). */
function escHtml (s: string): string {
  return s
    .replace(/&(?!(?:[a-zA-Z][a-zA-Z0-9]*|#\d+|#x[0-9a-fA-F]+);)/g, '&amp;')
    .replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&#039;')
}

/** _sanitize_text_fields() (sanitize_text_field / sanitize_textarea_field). */
function sanitizeTextField (v: unknown, keepNewlines = false): string {
  if (isPhpArray(v)) return ''
  let s = phpToString(v)
  if (s.includes('<')) {
    // wp_pre_kses_less_than(): a `<` without a closing `>` becomes `&lt;`.
    s = s.replace(/<[^>]*?((?=<)|>|$)/g, (m) => (m.includes('>') ? m : escHtml(m)))
    // wp_strip_all_tags()
    s = s.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, '')
    s = s.replace(/<[^>]*>/g, '').trim()
    s = s.replace(/<\n/g, '&lt;\n')
  }
  if (!keepNewlines) s = s.replace(/[\r\n\t ]+/g, ' ')
  s = s.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, '')
  let found = false
  let m: RegExpExecArray | null
  while ((m = /%[a-f0-9]{2}/i.exec(s)) !== null) {
    s = s.split(m[0]).join('')
    found = true
  }
  if (found) s = s.replace(/ +/g, ' ').trim()
  return s
}

const ALLOWED_PROTOCOLS = ['http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher',
  'nntp', 'feed', 'telnet', 'mms', 'rtsp', 'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn']

/** esc_url_raw() / sanitize_url() (the `[`/`]` re-encoding is not reproduced). */
function sanitizeUrl (v: unknown): string {
  let url = phpToString(v)
  if (url === '') return url
  url = url.replace(/^[ \t\n\r\0\x0B]+/, '').replace(/ /g, '%20')
  url = url.replace(/[^a-z0-9\-~+_.?#=!&;,/:%@$|*'()[\]\u0080-\uffff]/gi, '')
  if (url === '') return url
  if (!url.toLowerCase().startsWith('mailto:')) {
    let prev: string
    do {
      prev = url
      url = url.replace(/%0d|%0a/gi, '')
    } while (prev !== url)
  }
  url = url.split(';//').join('://')
  if (!url.includes(':') && !['/', '#', '?'].includes(url[0]!) && !/^[a-z0-9-]+?\.php/i.test(url)) {
    url = 'http://' + url
  }
  if (url[0] === '/') return url
  const colon = url.indexOf(':')
  if (colon !== -1) {
    const scheme = url.slice(0, colon)
    if (!scheme.includes('/?')) {
      const clean = scheme.replace(/\s/g, '').toLowerCase()
      if (!ALLOWED_PROTOCOLS.includes(clean)) return ''
      if (url.slice(colon + 1) !== url.slice(colon + 1).trim()) return ''
    }
  }
  return url
}

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
  const args: JsonSchema = isPlainObject(schema) ? { ...schema } : {}
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

function withInheritedType (sub: unknown, args: JsonSchema): JsonSchema {
  const schema: JsonSchema = isPlainObject(sub) ? { ...sub } : {}
  if (!isset(schema.type) && isset(args.type)) schema.type = args.type
  return schema
}

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

/** Compiles a schema `pattern` like the core's `#pattern#u` (unanchored, unicode). */
const patternCache = new Map<string, RegExp | null>()
function compilePattern (pattern: string): RegExp | null {
  if (patternCache.has(pattern)) return patternCache.get(pattern)!
  let re: RegExp | null = null
  try {
    re = new RegExp(pattern, 'u')
  } catch {
    try {
      re = new RegExp(pattern)
    } catch {
      re = null
    }
  }
  if (patternCache.size > 500) patternCache.clear()
  patternCache.set(pattern, re)
  return re
}

/** rest_validate_json_schema_pattern(). */
function matchesPattern (pattern: unknown, value: string): boolean {
  const re = compilePattern(phpToString(pattern))
  return re !== null && re.test(value)
}

function validateString (value: unknown, args: JsonSchema, param: string): ValidationIssue | null {
  if (typeof value !== 'string') return typeIssue(param, 'string')
  // Text columns cannot hold NUL; refusing it here names the parameter.
  if (value.includes('\u0000')) return issue('rest_invalid_characters', `${param} must not contain NUL characters.`)
  const len = [...value].length
  if (isset(args.minLength) && len < phpFloat(args.minLength)) {
    const n = phpFloat(args.minLength)
    return issue('rest_too_short', `${param} must be at least ${numberFormat(n)} ${n === 1 ? 'character' : 'characters'} long.`)
  }
  if (isset(args.maxLength) && len > phpFloat(args.maxLength)) {
    const n = phpFloat(args.maxLength)
    return issue('rest_too_long', `${param} must be at most ${numberFormat(n)} ${n === 1 ? 'character' : 'characters'} long.`)
  }
  if (isset(args.pattern) && !matchesPattern(args.pattern, value)) {
    return issue('rest_invalid_pattern', `${param} does not match pattern ${phpToString(args.pattern)}.`)
  }
  return null
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
  const args = normalizeSchema(schema)

  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(args[key])) continue
    const m = findMatching(key, value, args, param)
    if (m.issue) return m.issue
    if (!isset(args.type) && isset(m.schema.type)) args.type = m.schema.type
  }

  if (Array.isArray(args.type)) {
    const best = handleMultiType(value, args.type)
    if (!best) return typeIssue(param, args.type.map(phpToString).join(','))
    args.type = best
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
  const args = normalizeSchema(schema)

  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(args[key])) continue
    const m = findMatching(key, value, args, param)
    if (m.issue) {
      if (!lenient) throw new SanitizeFailure(m.issue)
      continue
    }
    if (!isset(args.type)) args.type = m.schema.type
    value = sanitizeInner(value, m.schema, param, lenient)
  }

  if (Array.isArray(args.type)) {
    const best = handleMultiType(value, args.type)
    if (!best) return null
    args.type = best
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

function sanitizeStrict (value: unknown, schema: JsonSchema, param: string):
{ ok: true; value: unknown } | { ok: false; issue: ValidationIssue } {
  try {
    return { ok: true, value: sanitizeInner(value, schema, param, false) }
  } catch (e) {
    if (e instanceof SanitizeFailure) return { ok: false, issue: { code: e.issue.code, message: e.issue.message, data: e.issue.data ?? null } }
    if (e instanceof RangeError) return { ok: false, issue: overflowIssue(param) }
    throw e
  }
}

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
