/**
 * PHP semantics the core's validator relies on, where they differ from
 * JavaScript: `is_numeric()`, the `(int)`/`(float)`/`(string)` casts,
 * `wp_json_encode()`, integer array keys, `wp_parse_list()`, and the
 * messages' number and `%l` list formatting.
 */

/** Deepest nesting of arrays/objects accepted in a value. */
export const MAX_DEPTH = 32

export const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k)

export function isset (v: unknown): boolean {
  return v !== undefined && v !== null
}

export function isPlainObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** PHP `is_array()` for decoded JSON / query values: lists and objects. */
export function isPhpArray (v: unknown): v is unknown[] | Record<string, unknown> {
  return Array.isArray(v) || isPlainObject(v)
}

export function isScalar (v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
}

/** Sets an own property, also for the key `__proto__`. */
export function setOwn (o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') {
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
  } else {
    o[k] = v
  }
}

/** The member names `entriesOf` lists, without the pairs: a list's indices as strings, an object's own keys. */
export function keysOf (v: unknown): string[] {
  if (Array.isArray(v)) return Array.from(v, (_, i) => String(i))
  if (isPlainObject(v)) return Object.keys(v)
  return []
}

export function entriesOf (v: unknown): Array<[string, unknown]> {
  if (Array.isArray(v)) return Array.from(v, (x, i) => [String(i), x] as [string, unknown])
  if (isPlainObject(v)) return Object.entries(v)
  return []
}

const PHP_WS = '[ \\t\\n\\r\\v\\f]'
/** PHP 8 numeric string: optional surrounding whitespace, decimal or exponent notation. */
const NUMERIC_RE = new RegExp(`^${PHP_WS}*[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?${PHP_WS}*$`)
const LEADING_NUMERIC_RE = new RegExp(`^${PHP_WS}*([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?)`)

/** PHP `is_numeric()`. */
export function isNumeric (v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v)
  if (typeof v === 'string') return NUMERIC_RE.test(v)
  return false
}

/** PHP `(float)` cast. */
export function phpFloat (v: unknown): number {
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
export function phpInt (v: unknown): number {
  const f = phpFloat(v)
  if (!Number.isFinite(f)) return 0
  const t = Math.trunc(f)
  return t === 0 ? 0 : t // no -0
}

/** PHP `(string)` of a float (precision 14, `%.14G` style). */
export function phpFloatToString (x: number): string {
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
export function phpToString (v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number') return phpFloatToString(v)
  if (v === true) return '1'
  if (v === false || v === null || v === undefined) return ''
  if (isPhpArray(v)) return 'Array'
  return String(v)
}

/** `number_format_i18n()` with the default (en_US) separators and no decimals. */
export function numberFormat (n: unknown): string {
  const f = phpFloat(n)
  const r = Math.round(Math.abs(f)) * (f < 0 ? -1 : 1)
  const s = String(Math.abs(r)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return r < 0 ? `-${s}` : s
}

/** sprintf `%d`. */
export function fmtD (n: unknown): string {
  return String(phpInt(n))
}

/** `wp_sprintf()`'s `%l` list: "A", "A and B", "A, B, and C". */
export function wpSprintfList (items: string[]): string {
  if (items.length === 0) return ''
  if (items.length === 1) return items[0]!
  if (items.length === 2) return `${items[0]} and ${items[1]}`
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`
}

export function phpJsonString (s: string): string {
  return JSON.stringify(s)
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}

/** `wp_json_encode()` with PHP's default flags (escaped slashes and unicode; `{}` is `[]`). */
export function phpJsonEncode (v: unknown, depth = 0): string {
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
export function isPhpIntKey (k: string): boolean {
  if (!/^(?:0|-?[1-9]\d*)$/.test(k)) return false
  if (k.replace('-', '').length < 19) return true
  const b = BigInt(k)
  return b <= 9223372036854775807n && b >= -9223372036854775808n
}

/**
 * `wp_parse_list()` of a scalar: split on commas and (ASCII) whitespace. With `most`, split no further than past
 * `most` items (a list that holds more is cut, enough to tell: a 1.9 MB string was split into 130,000 items in one
 * turn to be refused as over 10,000, issue 27). Only the first and the last part may be empty.
 */
export function parseList (v: string | number | boolean, most?: number): string[] {
  return phpToString(v).split(/[ \t\n\v\f\r,]+/, most === undefined ? undefined : most + 3).filter((s) => s !== '')
}

/**
 * PHP `trim($s, $chars)` without a regex: `/^[c]+|[c]+$/` rescans every run
 * of those characters inside the string (quadratic on a long one).
 */
export function trimChars (s: string, chars: string): string {
  let start = 0
  let end = s.length
  while (start < end && chars.includes(s[start]!)) start++
  while (end > start && chars.includes(s[end - 1]!)) end--
  return start === 0 && end === s.length ? s : s.slice(start, end)
}
