/**
 * The formats the core checks (`date-time`, `hex-color`, `uuid`, `email`,
 * `ip`) and the sanitizers it applies (`sanitize_text_field()`,
 * `sanitize_textarea_field()`, `esc_url_raw()`), as in rest-api.php and
 * formatting.php.
 */
import { isPhpArray, isScalar, phpInt, phpToString, trimChars } from './php.js'

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2})(?::(\d{2}))?)?\n?$/

/**
 * rest_parse_date() !== false: the core's RFC 3339 regex, then `strtotime()`.
 * strtotime() accepts month 00-12, day 00-31 (overflowing into the next month,
 * so 2021-02-30 is accepted), hour 00-24, minute 00-59, second 00-60.
 */
export function isValidDate (v: unknown): boolean {
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
export function isHexColor (v: unknown): boolean {
  return isScalar(v) && HEX_COLOR_RE.test(phpToString(v))
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n?$/

/** wp_is_uuid(): lower-case hex only. */
export function isUuid (v: unknown): boolean {
  return typeof v === 'string' && UUID_RE.test(v)
}

/** is_email(). */
export function isEmail (v: unknown): boolean {
  if (!isScalar(v)) return false
  const email = phpToString(v)
  if (Buffer.byteLength(email, 'utf8') < 6) return false
  const at = email.indexOf('@', 1)
  if (at === -1) return false
  const local = email.slice(0, at)
  const domain = email.slice(at + 1)
  if (!/^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false
  if (/\.{2,}/.test(domain)) return false
  if (trimChars(domain, ' \t\n\r\0\x0B.') !== domain) return false
  const subs = domain.split('.')
  if (subs.length < 2) return false
  for (const sub of subs) {
    if (trimChars(sub, ' \t\n\r\0\x0B-') !== sub) return false
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
export function isIpAddress (v: unknown): boolean {
  if (typeof v !== 'string') return false
  return IPV4_RE.test(v) || isIpv6(v)
}

/**
 * `s` with some code units replaced, in one pass: `map` gives the
 * replacement of a code unit (`''` drops it) or undefined to keep it. A
 * global `replace` slows down with the number of matches on long strings
 * (a megabyte of `<a ` took seconds in sanitize_url()); this does not.
 */
function mapUnits (s: string, map: (c: number, i: number) => string | undefined): string {
  let out: Uint16Array | undefined
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const replacement = map(c, i)
    if (replacement === undefined) {
      if (out !== undefined) {
        if (n === out.length) out = grown(out)
        out[n++] = c
      }
      continue
    }
    if (out === undefined) {
      // The first change: what came before is copied once.
      out = new Uint16Array(Math.max(16, s.length + (s.length >> 1)))
      for (let k = 0; k < i; k++) out[k] = s.charCodeAt(k)
      n = i
    }
    for (let k = 0; k < replacement.length; k++) {
      if (n === out.length) out = grown(out)
      out[n++] = replacement.charCodeAt(k)
    }
  }
  return out === undefined ? s : fromUnits(out, n)
}

function grown (units: Uint16Array): Uint16Array {
  const bigger = new Uint16Array(units.length * 2)
  bigger.set(units)
  return bigger
}

/** The text of the first `n` code units (`apply` takes a typed array as it is; a spread iterates it, three times slower). */
function fromUnits (units: Uint16Array, n: number): string {
  let text = ''
  for (let i = 0; i < n; i += 8192) text += String.fromCharCode.apply(null, units.subarray(i, Math.min(n, i + 8192)) as unknown as number[])
  return text
}

/** After an `&`: an entity's name or number and its `;` (such an `&` is kept). */
const ENTITY_REST = /(?:[a-zA-Z][a-zA-Z0-9]*|#\d+|#x[0-9a-fA-F]+);/y

const HTML_ESCAPES: Record<number, string> = { 0x3c: '&lt;', 0x3e: '&gt;', 0x22: '&quot;', 0x27: '&#039;' }

/** A rough `esc_html()` for the lone `<` handling of sanitize_text_field(): `&` kept before an entity. */
function escHtml (s: string): string {
  return mapUnits(s, (c, i) => {
    if (c !== 0x26) return HTML_ESCAPES[c]
    ENTITY_REST.lastIndex = i + 1
    return ENTITY_REST.test(s) ? undefined : '&amp;'
  })
}

/** Runs of the `chars` code units made one `by` each, in one pass (`/[chars]+/g` replaced). */
function collapseRuns (s: string, isRunUnit: (c: number) => boolean, by: string): string {
  return mapUnits(s, (c, i) => isRunUnit(c) ? (i > 0 && isRunUnit(s.charCodeAt(i - 1)) ? '' : by) : undefined)
}

const isTextSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/** _sanitize_text_fields() (sanitize_text_field / sanitize_textarea_field). */
export function sanitizeTextField (v: unknown, keepNewlines = false): string {
  if (isPhpArray(v)) return ''
  let s = phpToString(v)
  if (s.includes('<')) {
    s = escapeLoneLessThan(s)
    // wp_strip_all_tags()
    s = stripScriptAndStyle(s)
    s = s.replace(/<[^>]*>/g, '').trim()
    s = s.replace(/<\n/g, '&lt;\n')
  }
  if (!keepNewlines) s = collapseRuns(s, isTextSpace, ' ')
  s = trimChars(s, ' \t\n\r\0\x0B')
  const stripped = stripOctets(s)
  if (stripped !== s) s = collapseRuns(stripped, (c) => c === 0x20, ' ').trim()
  return s
}

/**
 * wp_pre_kses_less_than(): a `<` without a closing `>` before the next `<`
 * becomes `&lt;` (the stretch up to that `<` is escaped), in one pass;
 * stretches that follow one another are escaped together.
 */
function escapeLoneLessThan (s: string): string {
  const parts: string[] = []
  let kept = 0
  let run = -1
  let i = s.indexOf('<')
  while (i !== -1) {
    let j = i + 1
    while (j < s.length && s[j] !== '<' && s[j] !== '>') j++
    if (j < s.length && s[j] === '>') {
      i = s.indexOf('<', j + 1)
      continue
    }
    // s[i..j) is escaped: with the stretch before when they touch.
    if (run === -1 || i !== kept) {
      if (run !== -1) parts.push(escHtml(s.slice(run, kept)))
      parts.push(s.slice(kept, i))
      run = i
    }
    kept = j
    i = j < s.length ? j : -1
  }
  if (run === -1) return s
  parts.push(escHtml(s.slice(run, kept)), s.slice(kept))
  return parts.join('')
}

const OPENING = /<(script|style)[^>]*>/gi

/**
 * `<script ...>...</script>` and `<style>` elements removed, as
 * `/<(script|style)[^>]*?>.*?<\/\1>/si` does, in one pass: once a closing
 * tag is missing after one opening it is missing after every later one (the
 * regex would rescan to the end from each).
 */
function stripScriptAndStyle (s: string): string {
  let out = ''
  let from = 0
  const unclosed = new Set<string>()
  OPENING.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = OPENING.exec(s)) !== null) {
    const tag = m[1]!.toLowerCase()
    const closing = unclosed.has(tag) ? null : new RegExp(`</${tag}>`, 'gi')
    if (closing !== null) closing.lastIndex = OPENING.lastIndex
    const c = closing?.exec(s) ?? null
    if (c === null) {
      unclosed.add(tag)
      OPENING.lastIndex = m.index + 1
      continue
    }
    out += s.slice(from, m.index)
    from = c.index + c[0].length
    OPENING.lastIndex = from
  }
  return from === 0 ? s : out + s.slice(from)
}

/**
 * `%0d` and `%0a` removed until none is left (the core's `_deep_replace()`
 * loops, rescanning the string each pass).
 */
function stripLineBreakOctets (s: string): string {
  return s.includes('%') ? stripTriples(s, (a, b) => a === 0x30 && (b === 0x61 || b === 0x64 || b === 0x41 || b === 0x44)) : s
}

const isHexCode = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)

/**
 * Percent-encoded octets removed until none is left (the core loops on
 * `/%[a-f0-9]{2}/i`, each pass rescanning the string).
 */
function stripOctets (s: string): string {
  return s.includes('%') ? stripTriples(s, (a, b) => isHexCode(a) && isHexCode(b)) : s
}

/**
 * Removes every `%xy` the test accepts, including those that form once one
 * is removed, in one pass: the output is a stack of code units (all ASCII
 * here, so surrogates never match) and a triple is popped as it completes.
 */
function stripTriples (s: string, accepts: (a: number, b: number) => boolean): string {
  const out = new Uint16Array(s.length)
  let n = 0
  for (let i = 0; i < s.length; i++) {
    out[n++] = s.charCodeAt(i)
    if (n >= 3 && out[n - 3] === 0x25 && accepts(out[n - 2]!, out[n - 1]!)) n -= 3
  }
  return n === s.length ? s : fromUnits(out, n)
}

const ALLOWED_PROTOCOLS = ['http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher',
  'nntp', 'feed', 'telnet', 'mms', 'rtsp', 'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn']

/** The ASCII code units sanitize_url() keeps: `a-z0-9-~+_.?#=!&;,/:%@$|*'()[]` in either case. */
const URL_UNITS = new Uint8Array(128)
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-~+_.?#=!&;,/:%@$|*\'()[]') URL_UNITS[c.charCodeAt(0)] = 1

/** esc_url_raw() / sanitize_url() (the `[`/`]` re-encoding is not reproduced). */
export function sanitizeUrl (v: unknown): string {
  let url = phpToString(v)
  if (url === '') return url
  url = url.replace(/^[ \t\n\r\0\x0B]+/, '')
  // Spaces made `%20` and the code units outside the allowed set dropped, in one pass.
  url = mapUnits(url, (c) => c === 0x20 ? '%20' : c >= 0x80 || URL_UNITS[c] === 1 ? undefined : '')
  if (url === '') return url
  if (!url.toLowerCase().startsWith('mailto:')) {
    url = stripLineBreakOctets(url)
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
