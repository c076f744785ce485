/**
 * What `rendered` goes through: blocks, texturizing, smilies, paragraphs,
 * shortcodes and image attributes for content; texturizing for titles; the
 * trimmed, rendered teaser for excerpts.
 */
import { autop } from '@wordpress/autop'
import { parse } from '@wordpress/block-serialization-default-parser'
import { texturize } from './texturize.js'

type Block = ReturnType<typeof parse>[number]

export const BLOCK_MARKER = '<!-- wp:'

export function hasBlocks (content: string): boolean {
  return content.includes(BLOCK_MARKER)
}

function renderBlock (block: Block): string {
  let out = ''
  let inner = 0
  for (const chunk of block.innerContent) {
    if (chunk === null) {
      const child = block.innerBlocks[inner++]
      if (child !== undefined) out += renderBlock(child)
    } else {
      out += chunk
    }
  }
  return out
}

/** Block delimiters removed; static blocks give their saved HTML. */
export function renderBlocks (content: string): string {
  if (!hasBlocks(content)) return content
  return parse(content).map(renderBlock).join('')
}

// Emoji the core substitutes for text smilies, longest first within each start.
const SMILIES: Record<string, string> = {
  ':neutral:': '\u{1F610}', ':twisted:': '\u{1F608}', ':arrow:': '\u27A1', ':shock:': '\u{1F62F}',
  ':smile:': '\u{1F642}', ':???:': '\u{1F615}', ':cool:': '\u{1F60E}', ':evil:': '\u{1F47F}',
  ':grin:': '\u{1F600}', ':idea:': '\u{1F4A1}', ':oops:': '\u{1F633}', ':razz:': '\u{1F61B}',
  ':roll:': '\u{1F644}', ':wink:': '\u{1F609}', ':cry:': '\u{1F625}', ':eek:': '\u{1F62E}',
  ':lol:': '\u{1F606}', ':mad:': '\u{1F621}', ':sad:': '\u{1F641}', '8-)': '\u{1F60E}',
  '8-O': '\u{1F62F}', ':-(': '\u{1F641}', ':-)': '\u{1F642}', ':-?': '\u{1F615}',
  ':-D': '\u{1F600}', ':-P': '\u{1F61B}', ':-o': '\u{1F62E}', ':-x': '\u{1F621}',
  ':-|': '\u{1F610}', ';-)': '\u{1F609}', '8O': '\u{1F62F}', ':(': '\u{1F641}',
  ':)': '\u{1F642}', ':?': '\u{1F615}', ':D': '\u{1F600}', ':P': '\u{1F61B}',
  ':o': '\u{1F62E}', ':x': '\u{1F621}', ':|': '\u{1F610}', ';)': '\u{1F609}',
  ':!:': '\u2757', ':?:': '\u2753'
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
const SPACE = '(?:[\\r\\n\\t ]|\\u00a0|&nbsp;)'
const SMILEY_RE = new RegExp(
  `(?<=${SPACE}|^)(?:${Object.keys(SMILIES).sort((a, b) => b.length - a.length).map(escapeRe).join('|')})(?=${SPACE}|$)`,
  'gm'
)
const SMILEY_IGNORED = /^<(code|pre|style|script|textarea)[^>]*>/

export function convertSmilies (text: string): string {
  let ignored = ''
  return text.split(/(<[^>]*>)/).map((part) => {
    if (ignored === '') {
      const m = SMILEY_IGNORED.exec(part)
      if (m !== null) ignored = m[1]!
    }
    let out = part
    if (ignored === '' && part !== '' && part[0] !== '<') out = part.replace(SMILEY_RE, (s) => SMILIES[s] ?? s)
    if (ignored !== '' && part === `</${ignored}>`) ignored = ''
    return out
  }).join('')
}

/** Stray `&` that is not an entity becomes `&#038;` (titles). */
export function convertChars (text: string): string {
  return text.includes('&') ? text.replace(/&([^#])(?![a-z1-4]{1,8};)/gi, '&#038;$1') : text
}

// The only shortcode the service knows renders nothing: there is no media library.
const SHORTCODE_RE = /(\[?)\[gallery(?![\w-])[^\]]*\](?:[^[]*?\[\/gallery\])?(\]?)/g

function doShortcodes (text: string): string {
  if (!text.includes('[')) return text
  // `[[gallery]]` is the escaped form: it prints the shortcode itself.
  return text.replace(SHORTCODE_RE, (whole: string, open: string, close: string) => open === '[' && close === ']' ? whole.slice(1, -1) : '')
}

export function stripShortcodes (text: string): string {
  return doShortcodes(text)
}

/** A paragraph holding nothing but a shortcode loses its `<p>`. */
function shortcodeUnautop (text: string): string {
  return text.replace(/<p>\s*(\[(?:gallery)\b[^\]]*\](?:[^[]*\[\/gallery\])?)\s*<\/p>/g, '$1')
}

/** `decoding="async"` on images, and lazy loading when they state their size. */
function imageAttributes (text: string): string {
  if (!text.includes('<img')) return text
  return text.replace(/<img\s[^>]+>/gi, (tag) => {
    let out = tag
    if (!/\sdecoding=/i.test(out)) out = out.replace(/^<img/i, '<img decoding="async"')
    if (!/\sloading=/i.test(out) && /\swidth=/i.test(out) && /\sheight=/i.test(out)) out = out.replace(/^<img/i, '<img loading="lazy"')
    return out
  })
}

/** `content.rendered`. */
export function renderContent (raw: string): string {
  if (raw === '') return ''
  const blocks = hasBlocks(raw)
  let s = renderBlocks(raw)
  s = texturize(s)
  s = convertSmilies(s)
  if (!blocks) s = autop(s)
  s = shortcodeUnautop(s)
  s = doShortcodes(s)
  s = imageAttributes(s)
  return s
}

/** `title.rendered`. */
export function renderTitle (raw: string): string {
  return convertChars(texturize(raw)).trim()
}

/** The part of the content before `<!--more-->`. */
export function teaser (content: string): string {
  const m = /<!--more(.*?)?-->/.exec(content)
  return m === null ? content : content.slice(0, m.index)
}

const EXCERPT_INNER = new Set<string | null>([null, 'core/freeform', 'core/heading', 'core/html', 'core/list', 'core/media-text', 'core/paragraph', 'core/preformatted', 'core/pullquote', 'core/quote', 'core/table', 'core/verse'])
const EXCERPT_WRAPPERS = new Set<string | null>(['core/columns', 'core/column', 'core/group'])

function excerptInner (block: Block): string {
  let out = ''
  for (const inner of block.innerBlocks) {
    if (!EXCERPT_INNER.has(inner.blockName) && !EXCERPT_WRAPPERS.has(inner.blockName)) continue
    if (EXCERPT_WRAPPERS.has(inner.blockName)) out += excerptInner(inner)
    else if (inner.innerBlocks.length === 0) out += renderBlock(inner)
  }
  return out
}

/** Only text-like blocks contribute to an automatic excerpt. */
export function excerptRemoveBlocks (content: string): string {
  if (!hasBlocks(content)) return content
  let out = ''
  for (const block of parse(content)) {
    if (EXCERPT_WRAPPERS.has(block.blockName)) {
      if (block.innerBlocks.length > 0) out += excerptInner(block)
      continue
    }
    if (!EXCERPT_INNER.has(block.blockName)) continue
    if (block.innerBlocks.some((b) => !EXCERPT_INNER.has(b.blockName) || b.innerBlocks.length > 0)) continue
    out += renderBlock(block)
  }
  return out
}

export function stripAllTags (text: string): string {
  return text.replace(/<(script|style)[^>]*?>.*?<\/\1>/gis, '').replace(/<[^>]*>?/g, '').trim()
}

/** Text after stripping tags cut to `words` words, with ` [&hellip;]` when cut. */
export function trimWords (text: string, words: number): string {
  const list = stripAllTags(text).split(/[\n\r\t ]+/).filter((w) => w !== '')
  if (list.length > words) return `${list.slice(0, Math.max(words, 0)).join(' ')} [&hellip;]`
  return list.join(' ')
}

const FOOTNOTE_REF = /<sup\b[^>]*\bdata-fn=[^>]*>.*?<\/sup>/gis

/** `excerpt.rendered`: the stored excerpt, or the trimmed teaser of the content. */
export function renderExcerpt (excerpt: string, content: string, length = 55): string {
  let text = excerpt
  if (excerpt.trim() === '') {
    let source = teaser(content)
    source = stripShortcodes(source)
    source = excerptRemoveBlocks(source)
    source = source.replace(FOOTNOTE_REF, '')
    source = renderContent(source).split(']]>').join(']]&gt;')
    text = trimWords(source, length)
  }
  if (text === '') return ''
  let s = texturize(text)
  s = convertSmilies(s)
  s = convertChars(s)
  s = autop(s)
  s = shortcodeUnautop(s)
  return s
}

