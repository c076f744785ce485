/**
 * Typographic texturizing as the core's renderer does it: curly quotes,
 * apostrophes and primes, dashes, ellipses, (tm), 2x4 and stray `&`, never
 * inside tags, comments or `pre, code, kbd, style, script, tt`.
 */
import { isWordChar } from './scan.js'

const SP = '(?:[\\r\\n\\t ]|\\u00a0|&nbsp;)'
const END = '\\n?$'

const OPEN_Q = '&#8220;'
const CLOSE_Q = '&#8221;'
const OPEN_SQ = '&#8216;'
const CLOSE_SQ = '&#8217;'
const APOS = '&#8217;'
const PRIME = '&#8242;'
const DOUBLE_PRIME = '&#8243;'
const EN_DASH = '&#8211;'
const EM_DASH = '&#8212;'

// Placeholders that survive the later passes (they look like comments).
const OPEN_Q_FLAG = '<!--oq-->'
const OPEN_SQ_FLAG = '<!--osq-->'
const APOS_FLAG = '<!--apos-->'

const NO_TEXTURIZE_TAGS = ['pre', 'code', 'kbd', 'style', 'script', 'tt']

const COCKNEY = ["'tain't", "'twere", "'twas", "'tis", "'twill", "'til", "'bout", "'nuff", "'round", "'cause", "'em"]

const STATIC: Array<[string, string]> = [
  ['...', '&#8230;'],
  ['``', OPEN_Q],
  ["''", CLOSE_Q],
  [' (tm)', ' &#8482;'],
  ...COCKNEY.map((w): [string, string] => [w, w.replace(/'/g, APOS)])
]

const re = (source: string): RegExp => new RegExp(source, 'g')

const APOS_RULES: Array<[RegExp, string]> = [
  // '99' and '99" read as an abbreviated year closing a quotation.
  [re(`'(\\d\\d)'(?=${END}|[.,:;!?)}\\-\\]]|&gt;|${SP})`), `${APOS_FLAG}$1${CLOSE_SQ}`],
  [re(`'(\\d\\d)"(?=${END}|[.,:;!?)}\\-\\]]|&gt;|${SP})`), `${APOS_FLAG}$1${CLOSE_Q}`],
  // '99, '99s: an apostrophe, but never '9, '99%, '999 or '99.0.
  [re(`'(?=\\d\\d(?:${END}|(?![%\\d]|[.,]\\d)))`), APOS_FLAG],
  // Quoted numbers like '0.42'.
  [re(`(?<=^|${SP})'(\\d[.,\\d]*)'`), `${OPEN_SQ_FLAG}$1${CLOSE_SQ}`],
  // Opening quote at the start, or after ( { < [ " - or a space.
  [re(`(?<=^|[([{"\\-]|&lt;|${SP})'`), OPEN_SQ_FLAG],
  // Apostrophe inside a word.
  [re(`(?<!${SP})'(?!${END}|[.,:;!?"'(){}[\\]\\-]|&[lg]t;|${SP})`), APOS_FLAG]
]

const QUOTE_RULES: Array<[RegExp, string]> = [
  [re(`(?<=^|${SP})"(\\d[.,\\d]*)"`), `${OPEN_Q_FLAG}$1${CLOSE_Q}`],
  [re(`(?<=^|[([{\\-]|&lt;|${SP})"(?!${SP})`), OPEN_Q_FLAG]
]

const DASH_RULES: Array<[RegExp, string]> = [
  [/---/g, EM_DASH],
  [re(`(?<=^|${SP})--(?=$|${SP})`), EM_DASH],
  [/(?<!xn)--/g, EN_DASH],
  [re(`(?<=^|${SP})-(?=$|${SP})`), EN_DASH]
]

const STRAY_AMP = /&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)/gi

function applyRules (s: string, rules: Array<[RegExp, string]>): string {
  for (const [pattern, replacement] of rules) s = s.replace(pattern, replacement)
  return s
}

/** Closing quotes versus primes (9' and 10") within each quotation. */
function primes (haystack: string, needle: string, prime: string, openQuote: string, closeQuote: string): string {
  const flag = '<!--cms-prime-or-quote-->'
  const quotePattern = re(`${needle}(?=${END}|[.,:;!?)}\\-\\]]|&gt;|${SP})`)
  const primePattern = re(`(?<=\\d)${needle}`)
  const flagAfterDigit = re(`(?<=\\d)${flag}`)
  const flagNoDigit = re(`(?<!\\d)${flag}`)
  const sentences = haystack.split(openQuote)
  for (let key = 0; key < sentences.length; key++) {
    let sentence = sentences[key]!
    if (!sentence.includes(needle)) continue
    if (key !== 0 && !sentence.includes(closeQuote)) {
      let count = 0
      sentence = sentence.replace(quotePattern, () => { count++; return flag })
      if (count > 1) {
        let count2 = 0
        sentence = sentence.replace(flagNoDigit, () => { count2++; return closeQuote })
        if (count2 === 0) {
          // The rightmost quote before a period, else the rightmost candidate, closes the quotation.
          const withPeriod = sentence.lastIndexOf(`${flag}.`)
          const pos = withPeriod !== -1 ? withPeriod : sentence.lastIndexOf(flag)
          sentence = sentence.slice(0, pos) + closeQuote + sentence.slice(pos + flag.length)
        }
        sentence = sentence.replace(primePattern, prime).replace(flagAfterDigit, prime).split(flag).join(closeQuote)
      } else if (count === 1) {
        sentence = sentence.split(flag).join(closeQuote).replace(primePattern, prime)
      } else {
        sentence = sentence.replace(primePattern, prime)
      }
    } else {
      sentence = sentence.replace(primePattern, prime).replace(quotePattern, closeQuote)
    }
    if (needle === '"' && sentence.includes('"')) sentence = sentence.split('"').join(closeQuote)
    sentences[key] = sentence
  }
  return sentences.join(openQuote)
}

const isNumberChar = (c: string | undefined): boolean => c !== undefined && ((c >= '0' && c <= '9') || c === '.' || c === ',')
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9'
const boundary = (s: string, i: number): boolean => isWordChar(s[i - 1]) !== isWordChar(s[i])

/**
 * `2x4` becomes `2&#215;4`: the core's
 * `/\b(0[\d.,]+|[1-9][\d.,]*)x(\d[\d.,]*)\b/g` by one scan over runs of
 * `[\d.,]` (the pattern backtracks through a whole run from each of its
 * starts, quadratic on `1.1.1.…y1x1`). A run decides its match the same way
 * from any start inside it, so it is read once.
 */
function dimensions (s: string): string {
  let out = ''
  let from = 0
  let i = 0
  while (i < s.length) {
    if (!isNumberChar(s[i])) {
      i++
      continue
    }
    let run = i
    while (isNumberChar(s[run])) run++
    // [i, run) is a run of [\d.,]; the factor must end at `run` with an `x` and a digit after it.
    if (s[run] !== 'x' || !isDigit(s[run + 1])) {
      i = run
      continue
    }
    let end = run + 2
    while (isNumberChar(s[end])) end++
    while (end > run + 1 && !boundary(s, end)) end--
    let start = -1
    if (end > run + 1) {
      for (let k = i; k < run; k++) {
        if (!isDigit(s[k]) || !boundary(s, k)) continue
        if (s[k] === '0' ? run - k >= 2 : true) {
          start = k
          break
        }
      }
    }
    if (start < 0) {
      // No match starts in this run; the second factor's run is read next as a run of its own.
      i = run + 1
      continue
    }
    out += `${s.slice(from, start)}${s.slice(start, run)}&#215;${s.slice(run + 1, end)}`
    from = i = end
  }
  return from === 0 ? s : out + s.slice(from)
}

function texturizeText (s: string): string {
  for (const [from, to] of STATIC) if (s.includes(from)) s = s.split(from).join(to)
  if (s.includes("'")) {
    s = applyRules(s, APOS_RULES)
    s = primes(s, "'", PRIME, OPEN_SQ_FLAG, CLOSE_SQ)
    s = s.split(APOS_FLAG).join(APOS).split(OPEN_SQ_FLAG).join(OPEN_SQ)
  }
  if (s.includes('"')) {
    s = applyRules(s, QUOTE_RULES)
    s = primes(s, '"', DOUBLE_PRIME, OPEN_Q_FLAG, CLOSE_Q)
    s = s.split(OPEN_Q_FLAG).join(OPEN_Q)
  }
  if (s.includes('-')) s = applyRules(s, DASH_RULES)
  if (/(?<=\d)x\d/.test(s)) s = dimensions(s)
  return s.includes('&') ? s.replace(STRAY_AMP, '&#038;') : s
}

/** Splits text into HTML comments, elements and the text between them. */
export function splitHtml (text: string): string[] {
  const out: string[] = []
  let i = 0
  while (i < text.length) {
    const lt = text.indexOf('<', i)
    if (lt === -1) {
      out.push(text.slice(i))
      break
    }
    if (lt > i) out.push(text.slice(i, lt))
    let end: number
    if (text.startsWith('<!--', lt)) {
      const close = text.indexOf('-->', lt + 2)
      end = close === -1 ? text.length : close + 3
    } else {
      const gt = text.indexOf('>', lt + 1)
      end = gt === -1 ? text.length : gt + 1
    }
    out.push(text.slice(lt, end))
    i = end
  }
  return out
}

function pushPop (element: string, stack: string[]): void {
  let opening: boolean
  let offset: number
  if (element.length > 1 && element[1] !== '/') {
    opening = true
    offset = 1
  } else if (stack.length === 0) {
    return
  } else {
    opening = false
    offset = 2
  }
  const space = element.indexOf(' ')
  const tag = space === -1 ? element.slice(offset, -1) : element.slice(offset, space)
  if (!NO_TEXTURIZE_TAGS.includes(tag)) return
  if (opening) stack.push(tag)
  else if (stack[stack.length - 1] === tag) stack.pop()
}

export function texturize (text: string): string {
  if (text === '') return text
  const stack: string[] = []
  const parts = splitHtml(text)
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (part[0] === '<') {
      if (part.startsWith('<!--')) continue
      const element = part.includes('&') ? part.replace(STRAY_AMP, '&#038;') : part
      parts[i] = element
      pushPop(element, stack)
    } else if (part.trim() === '') {
      continue
    } else if (stack.length === 0) {
      parts[i] = texturizeText(part)
    }
  }
  return parts.join('')
}
