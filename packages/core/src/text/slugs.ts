/**
 * Slugs as the core makes them: accents transliterated, lower case,
 * non-ASCII kept as `%xx` escapes, punctuation dropped, dashes collapsed.
 */
import { stripAllTags } from './render.js'
import { nextLineEnd, NextIndex } from './scan.js'

const SPECIAL: Record<string, string> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ł: 'l',
  Ł: 'L',
  ħ: 'h',
  Ħ: 'H',
  ı: 'i',
  ĳ: 'ij',
  Ĳ: 'IJ',
  ŀ: 'l',
  Ŀ: 'L',
  ŉ: 'n',
  ŋ: 'n',
  Ŋ: 'N',
  ſ: 's',
  ŧ: 't',
  Ŧ: 'T',
  ĸ: 'k',
  '€': 'E'
}

const SPECIAL_LETTERS = /[ßẞæÆœŒøØđĐðÐþÞłŁħĦıĳĲŀĿŉŋŊſŧŦĸ€]/g

/**
 * Accents removed: SPECIAL letters spelled out, then the string decomposed
 * (NFD), its combining accents (U+0300-U+036F) dropped and recomposed (NFC).
 * Text of ASCII and accented Latin letters (U+00C0-U+024F), the common
 * case and the one a megabyte of `é` made slow (half a second of
 * normalizing and a replace per accent), is read through a table of what
 * each letter becomes; other text goes through the normalizer once, its
 * accents dropped by one copy.
 */
export function removeAccents (s: string): string {
  if (/^[\x00-\x7f]*$/.test(s)) return s
  const latin = fromLatinTable(s)
  if (latin !== undefined) return latin
  const decomposed = s.replace(SPECIAL_LETTERS, (c) => SPECIAL[c] ?? c).normalize('NFD')
  return (ACCENT.test(decomposed) ? withoutAccents(decomposed) : decomposed).normalize('NFC')
}

const ACCENT = /[\u0300-\u036f]/
const LATIN_FIRST = 0xc0
const LATIN_LAST = 0x24f

/** What each letter of U+00C0-U+024F becomes, when that is ASCII (undefined: not ASCII, left to the normalizer). */
const LATIN: Array<string | undefined> = Array.from({ length: LATIN_LAST - LATIN_FIRST + 1 }, (_, i) => {
  const ch = String.fromCharCode(LATIN_FIRST + i)
  const out = (SPECIAL[ch] ?? ch).normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC')
  return /^[\x00-\x7f]*$/.test(out) ? out : undefined
})

/** `s` without accents when it holds only ASCII and table letters (then ASCII: nothing is left to recompose); undefined otherwise. */
function fromLatinTable (s: string): string | undefined {
  // A letter becomes at most two (`ß` is `ss`).
  const out = new Uint16Array(2 * s.length)
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) {
      out[n++] = c
      continue
    }
    const ascii = c >= LATIN_FIRST && c <= LATIN_LAST ? LATIN[c - LATIN_FIRST] : undefined
    if (ascii === undefined) return undefined
    for (let k = 0; k < ascii.length; k++) out[n++] = ascii.charCodeAt(k)
  }
  return fromCodeUnits(out, n)
}

function withoutAccents (s: string): string {
  const out = new Uint16Array(s.length)
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x300 || c > 0x36f) out[n++] = c
  }
  return fromCodeUnits(out, n)
}

/** The first `n` code units of `units` as a string (lone surrogates kept), in slices `fromCharCode` takes. */
function fromCodeUnits (units: Uint16Array, n: number): string {
  let text = ''
  for (let i = 0; i < n; i += 8192) text += String.fromCharCode.apply(null, units.subarray(i, Math.min(n, i + 8192)) as unknown as number[])
  return text
}

/**
 * The core's `/&.+?;/` (entities killed) in one pass: from an `&` the match
 * ends at the first `;` after at least one character, on the same line; when
 * there is none, no later `&` of that line has one either, so the scan goes
 * on after the line end (the regex rescans to the end from every `&`: a
 * megabyte of `&#1` took minutes).
 */
function killEntities (s: string): string {
  const semicolon = new NextIndex(s, ';')
  let lineEnd = -2
  let out = ''
  let from = 0
  let amp = s.indexOf('&')
  while (amp !== -1) {
    if (lineEnd !== -1 && lineEnd <= amp) lineEnd = nextLineEnd(s, amp + 1)
    const end = semicolon.at(amp + 2)
    if (end !== -1 && (lineEnd === -1 || end < lineEnd)) {
      out += s.slice(from, amp)
      from = end + 1
      amp = s.indexOf('&', from)
    } else {
      amp = lineEnd === -1 ? -1 : s.indexOf('&', lineEnd + 1)
    }
  }
  return from === 0 ? s : out + s.slice(from)
}

/** Percent-encodes non-ASCII characters (lower-case hex), at most 200 characters of output. */
function uriEncodeUtf8 (s: string, limit = 200): string {
  let out = ''
  for (const ch of s) {
    const code = ch.codePointAt(0)!
    const piece = code < 128 ? ch : [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')
    if (out.length + piece.length > limit) break
    out += piece
  }
  return out
}

const STRIPPED_OCTETS = [
  '%c2%ad', '%c2%a1', '%c2%bf', '%c2%ab', '%c2%bb', '%e2%80%b9', '%e2%80%ba',
  '%e2%80%98', '%e2%80%99', '%e2%80%9c', '%e2%80%9d', '%e2%80%9a', '%e2%80%9b', '%e2%80%9e', '%e2%80%9f',
  '%e2%80%a2', '%c2%a9', '%c2%ae', '%c2%b0', '%e2%80%a6', '%e2%84%a2',
  '%c2%b4', '%cb%8a', '%cc%81', '%cd%81', '%cc%80', '%cc%84', '%cc%8c',
  '%e2%80%8b', '%e2%80%8c', '%e2%80%8d', '%e2%80%8e', '%e2%80%8f', '%e2%80%aa', '%e2%80%ab',
  '%e2%80%ac', '%e2%80%ad', '%e2%80%ae', '%ef%bb%bf', '%ef%bf%bc'
]
const DASH_OCTETS = [
  '%c2%a0', '%e2%80%93', '%e2%80%94',
  '%e2%80%80', '%e2%80%81', '%e2%80%82', '%e2%80%83', '%e2%80%84', '%e2%80%85', '%e2%80%86',
  '%e2%80%87', '%e2%80%88', '%e2%80%89', '%e2%80%8a', '%e2%80%a8', '%e2%80%a9', '%e2%80%af'
]

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)

/**
 * The core's three replaces, `%xx` to `---xx---`, other `%` dropped,
 * `---xx---` back to `%xx` (so a literal `---xx---` becomes `%xx` too), as
 * two scans that copy slices (replaces with a `$1` per match took a third
 * of a second on a megabyte of `%e9`).
 */
function keepOctets (s: string): string {
  if (!s.includes('%') && !s.includes('---')) return s
  // `%xx` marked, other `%` dropped (a `%xx` of three code units grows to eight).
  const marked = new Uint16Array(Math.ceil(s.length * 8 / 3) + 8)
  let m = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c !== 0x25) {
      marked[m++] = c
    } else if (isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2))) {
      marked[m++] = 0x2d
      marked[m++] = 0x2d
      marked[m++] = 0x2d
      marked[m++] = s.charCodeAt(i + 1)
      marked[m++] = s.charCodeAt(i + 2)
      marked[m++] = 0x2d
      marked[m++] = 0x2d
      marked[m++] = 0x2d
      i += 2
    }
  }
  // `---xx---` made `%xx`, leftmost first, matches not overlapping.
  const out = new Uint16Array(m)
  let n = 0
  const dash = (at: number): boolean => marked[at] === 0x2d && marked[at + 1] === 0x2d && marked[at + 2] === 0x2d
  for (let i = 0; i < m; i++) {
    if (i + 8 <= m && dash(i) && isHex(marked[i + 3]!) && isHex(marked[i + 4]!) && dash(i + 5)) {
      out[n++] = 0x25
      out[n++] = marked[i + 3]!
      out[n++] = marked[i + 4]!
      i += 7
    } else {
      out[n++] = marked[i]!
    }
  }
  return fromCodeUnits(out, n)
}

const replaceAll = (s: string, list: string[], by: string): string => list.reduce((acc, x) => acc.split(x).join(by), s)

const alternation = (list: string[]): RegExp => new RegExp(list.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')

/*
 * One pass each instead of a pass per entry (60 passes over a megabyte of
 * `%e9`). Same result: no entry of a list overlaps another (none ends with
 * the start of one) and a `-` put in is part of none. Removing the
 * stripped octets can join two halves into an entry the earlier passes no
 * longer see (the core's order), so they are removed entry by entry as the
 * core does, only when the text holds one of them.
 */
const DASH_OCTET = alternation(DASH_OCTETS)
const DASH_ENTITY = alternation(['&nbsp;', '&#160;', '&ndash;', '&#8211;', '&mdash;', '&#8212;'])
const STRIPPED_OCTET = new RegExp(alternation(STRIPPED_OCTETS).source)

/** The slug of a title (or of a requested slug), at most SLUG_LENGTH characters; `fallback` when nothing is left. */
export function sanitizeSlug (title: string, fallback = ''): string {
  let s = removeAccents(stripAllTags(title))
  s = keepOctets(s)

  if (!/^[\x00-\x7f]*$/.test(s)) s = uriEncodeUtf8(s.toLowerCase())
  s = s.toLowerCase()
  s = s.replace(DASH_OCTET, '-')
  s = s.replace(DASH_ENTITY, '-')
  s = s.replace(/\//g, '-')
  if (STRIPPED_OCTET.test(s)) s = replaceAll(s, STRIPPED_OCTETS, '')
  s = s.replace(/%c3%97/g, 'x')
  s = truncateSlug(dashed(killEntities(s)), SLUG_LENGTH)
  return s === '' ? fallback : s
}

/** The longest slug, as the core's slug columns hold them (longer ones are cut, `%xx` escapes kept whole). */
const SLUG_LENGTH = 200

/**
 * The core's last steps in one pass: `.` and runs of spaces made `-`, what
 * is not `[%a-z0-9_-]` dropped, runs of `-` made one, none at either end (a
 * chain of global replaces slows down with the number of matches: a
 * megabyte of `1.` took half a second).
 */
function dashed (s: string): string {
  const out = new Uint16Array(s.length)
  let n = 0
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i)
    if (c === 0x2e || c === 0x20) c = 0x2d
    else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x25 || c === 0x5f || c === 0x2d)) continue
    if (c === 0x2d && (n === 0 || out[n - 1] === 0x2d)) continue
    out[n++] = c
  }
  if (n > 0 && out[n - 1] === 0x2d) n--
  return fromCodeUnits(out, n)
}

/** Cuts a slug so a `-N` suffix still fits in 200 characters, without splitting a `%xx` escape. */
export function truncateSlug (slug: string, length: number): string {
  if (slug.length <= length) return slug
  let cut = slug.slice(0, length)
  const escape = cut.lastIndexOf('%')
  if (escape !== -1 && escape > cut.length - 3) cut = cut.slice(0, escape)
  return cut.replace(/-+$/, '')
}

/** Slugs the core keeps for feeds and embeds. */
export const RESERVED_SLUGS = new Set(['feed', 'rdf', 'rss', 'rss2', 'atom', 'embed'])

/** Whether a slug may not be used as is (pages also refuse page-number-like slugs). */
export function isReservedSlug (slug: string, hierarchical: boolean): boolean {
  return RESERVED_SLUGS.has(slug) || (hierarchical && /^(page)?\d+$/.test(slug))
}

/** `sanitize_html_class`: only `[A-Za-z0-9_-]`, percent escapes dropped. */
export function htmlClass (s: string): string {
  return s.replace(/%[a-fA-F0-9][a-fA-F0-9]/g, '').replace(/[^A-Za-z0-9_-]/g, '')
}
