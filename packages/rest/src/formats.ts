/**
 * The formats the core checks (`date-time`, `hex-color`, `uuid`, `email`,
 * `ip`) and the sanitizers it applies (`sanitize_text_field()`,
 * `sanitize_textarea_field()`, `esc_url_raw()`), as in rest-api.php and
 * formatting.php.
 */
import { isPhpArray, isScalar, phpInt, phpToString } from './php.js'

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
export function isIpAddress (v: unknown): boolean {
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
export function sanitizeTextField (v: unknown, keepNewlines = false): string {
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
export function sanitizeUrl (v: unknown): string {
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
