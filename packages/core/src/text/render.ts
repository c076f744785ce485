/**
 * What `rendered` goes through: blocks, texturizing, smilies, paragraphs,
 * shortcodes and image attributes for content; texturizing for titles; the
 * trimmed, rendered teaser for excerpts.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import { autop } from './autop.js'
import { parseBlocks, type Block } from './blocks.js'
import { texturize } from './texturize.js'
import { doShortcodes, shortcodeUnautop, stripShortcodes } from './shortcodes.js'

export { stripShortcodes }
import { nextLineEnd, NextIndex } from './scan.js'

export const BLOCK_MARKER = '<!-- wp:'

export function hasBlocks (content: string): boolean {
  return content.includes(BLOCK_MARKER)
}

/** Characters `hasBlocksSliced` searches in one turn of the event loop. */
const SEARCH_SLICE = 256 * 1024

/**
 * `hasBlocks` for the request thread (a post's `block_version`): a long
 * content searched a slice a turn, each slice overlapping the next by the
 * marker's length but one (issue 27: a 1.9 MB content searched whole).
 */
export async function hasBlocksSliced (content: string): Promise<boolean> {
  for (let at = 0; at < content.length; at += SEARCH_SLICE) {
    if (at > 0) await nextTurn()
    if (content.slice(at, at + SEARCH_SLICE + BLOCK_MARKER.length - 1).includes(BLOCK_MARKER)) return true
  }
  return false
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
  return parseBlocks(content).map(renderBlock).join('')
}

// Emoji the core substitutes for text smilies, longest first within each start.
const SMILIES: Record<string, string> = {
  ':neutral:': '\u{1F610}',
  ':twisted:': '\u{1F608}',
  ':arrow:': '\u27A1',
  ':shock:': '\u{1F62F}',
  ':smile:': '\u{1F642}',
  ':???:': '\u{1F615}',
  ':cool:': '\u{1F60E}',
  ':evil:': '\u{1F47F}',
  ':grin:': '\u{1F600}',
  ':idea:': '\u{1F4A1}',
  ':oops:': '\u{1F633}',
  ':razz:': '\u{1F61B}',
  ':roll:': '\u{1F644}',
  ':wink:': '\u{1F609}',
  ':cry:': '\u{1F625}',
  ':eek:': '\u{1F62E}',
  ':lol:': '\u{1F606}',
  ':mad:': '\u{1F621}',
  ':sad:': '\u{1F641}',
  '8-)': '\u{1F60E}',
  '8-O': '\u{1F62F}',
  ':-(': '\u{1F641}',
  ':-)': '\u{1F642}',
  ':-?': '\u{1F615}',
  ':-D': '\u{1F600}',
  ':-P': '\u{1F61B}',
  ':-o': '\u{1F62E}',
  ':-x': '\u{1F621}',
  ':-|': '\u{1F610}',
  ';-)': '\u{1F609}',
  '8O': '\u{1F62F}',
  ':(': '\u{1F641}',
  ':)': '\u{1F642}',
  ':?': '\u{1F615}',
  ':D': '\u{1F600}',
  ':P': '\u{1F61B}',
  ':o': '\u{1F62E}',
  ':x': '\u{1F621}',
  ':|': '\u{1F610}',
  ';)': '\u{1F609}',
  ':!:': '\u2757',
  ':?:': '\u2753'
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
const SPACE = '(?:[\\r\\n\\t ]|\\u00a0|&nbsp;)'
const SMILEY_RE = new RegExp(
  `(?<=${SPACE}|^)(?:${Object.keys(SMILIES).sort((a, b) => b.length - a.length).map(escapeRe).join('|')})(?=${SPACE}|$)`,
  'gm'
)
const SMILEY_IGNORED = /^<(code|pre|style|script|textarea)[^>]*>/

/**
 * `text.split(/(<[^>]*>)/)`: text and tags alternating, by one scan (the
 * pattern rescans to the end from every `<` that no `>` follows).
 */
export function splitTags (text: string): string[] {
  const out: string[] = []
  let from = 0
  for (;;) {
    const lt = text.indexOf('<', from)
    if (lt < 0) break
    const gt = text.indexOf('>', lt + 1)
    if (gt < 0) break
    out.push(text.slice(from, lt), text.slice(lt, gt + 1))
    from = gt + 1
  }
  out.push(text.slice(from))
  return out
}

export function convertSmilies (text: string): string {
  let ignored = ''
  return splitTags(text).map((part) => {
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

const IMG_OPEN = /<img\s/gi

function withImageAttributes (tag: string): string {
  let out = tag
  if (!/\sdecoding=/i.test(out)) out = out.replace(/^<img/i, '<img decoding="async"')
  if (!/\sloading=/i.test(out) && /\swidth=/i.test(out) && /\sheight=/i.test(out)) out = out.replace(/^<img/i, '<img loading="lazy"')
  return out
}

/**
 * `decoding="async"` on images, and lazy loading when they state their size:
 * each `<img\s[^>]+>` (the core's pattern), found by a scan that stops at the
 * first image with no `>` after it (no later one can have one either).
 */
function imageAttributes (text: string): string {
  if (!text.includes('<img')) return text
  let out = ''
  let from = 0
  IMG_OPEN.lastIndex = 0
  for (let m = IMG_OPEN.exec(text); m !== null; m = IMG_OPEN.exec(text)) {
    const gt = text.indexOf('>', m.index + 5)
    if (gt < 0) break
    if (gt === m.index + 5) {
      IMG_OPEN.lastIndex = m.index + 1
      continue
    }
    out += text.slice(from, m.index) + withImageAttributes(text.slice(m.index, gt + 1))
    from = IMG_OPEN.lastIndex = gt + 1
  }
  return out + text.slice(from)
}

/** `content.rendered` (smilies as emoji unless the site's `use_smilies` is off). */
export function renderContent (raw: string, smilies = true): string {
  if (raw === '') return ''
  const blocks = hasBlocks(raw)
  let s = renderBlocks(raw)
  s = texturize(s)
  if (smilies) s = convertSmilies(s)
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

/**
 * The part of the content before `<!--more-->`: the first `<!--more` with a
 * `-->` after it on the same line (the core's `/<!--more(.*?)?-->/`).
 */
export function teaser (content: string): string {
  let search = 0
  for (;;) {
    const at = content.indexOf('<!--more', search)
    if (at < 0) return content
    const end = content.indexOf('-->', at + 8)
    if (end < 0) return content
    const lineEnd = nextLineEnd(content, at + 8)
    if (lineEnd < 0 || lineEnd >= end) return content.slice(0, at)
    // Every `<!--more` before that line end meets it first.
    search = lineEnd + 1
  }
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
  for (const block of parseBlocks(content)) {
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

const SCRIPT_OR_STYLE = /<(script|style)/gi

/**
 * `/<(script|style)[^>]*?>.*?<\/\1>/gis` removed, by a scan: a name whose end
 * tag does not occur further on is not looked for again.
 */
function stripScripts (text: string): string {
  const nextGt = new NextIndex(text, '>')
  const closing: Record<string, { re: RegExp, at: number }> = {}
  let out = ''
  let from = 0
  SCRIPT_OR_STYLE.lastIndex = 0
  for (let m = SCRIPT_OR_STYLE.exec(text); m !== null; m = SCRIPT_OR_STYLE.exec(text)) {
    const name = m[1]!.toLowerCase()
    const gt = nextGt.at(m.index + m[0].length)
    if (gt < 0) break
    const close = closing[name] ??= { re: new RegExp(`</${name}>`, 'gi'), at: -2 }
    if (close.at !== -1 && close.at < gt + 1) {
      close.re.lastIndex = gt + 1
      close.at = close.re.exec(text)?.index ?? -1
    }
    if (close.at === -1) {
      SCRIPT_OR_STYLE.lastIndex = m.index + 1
      continue
    }
    out += text.slice(from, m.index)
    from = SCRIPT_OR_STYLE.lastIndex = close.at + name.length + 3
  }
  return out + text.slice(from)
}

export function stripAllTags (text: string): string {
  return stripScripts(text).replace(/<[^>]*>?/g, '').trim()
}

/** Text after stripping tags cut to `words` words, with ` [&hellip;]` when cut. */
export function trimWords (text: string, words: number): string {
  const list = stripAllTags(text).split(/[\n\r\t ]+/).filter((w) => w !== '')
  if (list.length > words) return `${list.slice(0, Math.max(words, 0)).join(' ')} [&hellip;]`
  return list.join(' ')
}

const SUP_OPEN = /<sup\b/gi
const SUP_CLOSE = /<\/sup>/gi
const DATA_FN = /\Wdata-fn=/i

/**
 * Footnote references removed: `/<sup\b[^>]*\bdata-fn=[^>]*>.*?<\/sup>/gis`,
 * by a scan that reads each tag and each end tag once.
 */
function removeFootnoteRefs (text: string): string {
  if (!/data-fn=/i.test(text)) return text
  let out = ''
  let from = 0
  SUP_OPEN.lastIndex = 0
  for (let m = SUP_OPEN.exec(text); m !== null; m = SUP_OPEN.exec(text)) {
    const gt = text.indexOf('>', m.index + 4)
    if (gt < 0) break
    // From the `p` of `sup`: `\bdata-fn=` needs a non-word character before it.
    if (!DATA_FN.test(text.slice(m.index + 3, gt))) {
      // A later `<sup` before this `>` sees less of the same tag.
      SUP_OPEN.lastIndex = gt + 1
      continue
    }
    SUP_CLOSE.lastIndex = gt + 1
    const close = SUP_CLOSE.exec(text)
    if (close === null) break
    out += text.slice(from, m.index)
    from = SUP_OPEN.lastIndex = close.index + 6
  }
  return out + text.slice(from)
}

/** `excerpt.rendered`: the stored excerpt, or the trimmed teaser of the content. */
export function renderExcerpt (excerpt: string, content: string, length = 55, smilies = true): string {
  let text = excerpt
  if (excerpt.trim() === '') {
    let source = teaser(content)
    source = stripShortcodes(source)
    source = excerptRemoveBlocks(source)
    source = removeFootnoteRefs(source)
    source = renderContent(source, smilies).split(']]>').join(']]&gt;')
    text = trimWords(source, length)
  }
  if (text === '') return ''
  let s = texturize(text)
  if (smilies) s = convertSmilies(s)
  s = convertChars(s)
  s = autop(s)
  s = shortcodeUnautop(s)
  return s
}
