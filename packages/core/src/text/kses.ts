/**
 * The core's HTML filtering on save for callers without `unfiltered_html`:
 * content and excerpts keep the allowed post markup, titles a small inline
 * set; everything else (scripts, frames, event handlers, unsafe URLs and
 * styles) goes. HTML comments are kept, as the core keeps them, so block
 * delimiters (`<!-- wp:paragraph -->`) and `<!--more-->` survive.
 */
import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import type sanitizeHtml from 'sanitize-html'
import { limitNesting } from './nesting.js'
import { htmlTokenizer } from './html-tokenizer.js'

// Attributes every allowed post tag accepts.
const GLOBAL_ATTRIBUTES = [
  'aria-controls', 'aria-current', 'aria-describedby', 'aria-details', 'aria-expanded', 'aria-hidden',
  'aria-label', 'aria-labelledby', 'aria-live', 'class', 'data-*', 'dir', 'hidden', 'id', 'lang',
  'style', 'title', 'role', 'xml:lang'
]

const ALIGN = ['align']
const TABLE_PART = ['align', 'char', 'charoff', 'valign']
const COLUMN = [...TABLE_PART, 'span', 'width']
const CELL = [
  'abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap',
  'rowspan', 'scope', 'valign', 'width'
]
const MEDIA = ['autoplay', 'controls', 'loop', 'muted', 'preload', 'src']

/**
 * The post markup the core allows, tag -> its own attributes. `object` is
 * left out: the core allows it only for PDFs of its media library, which
 * this service does not have.
 */
const POST_TAGS: Record<string, string[]> = {
  address: [],
  a: ['href', 'rel', 'rev', 'name', 'target', 'download'],
  abbr: [],
  acronym: [],
  area: ['alt', 'coords', 'href', 'nohref', 'shape', 'target'],
  article: ALIGN,
  aside: ALIGN,
  audio: MEDIA,
  b: [],
  bdo: [],
  big: [],
  blockquote: ['cite'],
  br: [],
  button: ['disabled', 'name', 'type', 'value', 'popovertarget', 'popovertargetaction', 'aria-haspopup'],
  caption: ALIGN,
  cite: [],
  code: [],
  col: COLUMN,
  colgroup: COLUMN,
  data: ['value'],
  del: ['datetime'],
  dd: [],
  dfn: [],
  details: ['align', 'open', 'name'],
  div: ['align', 'popover'],
  dialog: ['closedby', 'open', 'popover'],
  dl: [],
  dt: [],
  em: [],
  fieldset: [],
  figure: ALIGN,
  figcaption: ALIGN,
  font: ['color', 'face', 'size'],
  footer: ALIGN,
  h1: ALIGN,
  h2: ALIGN,
  h3: ALIGN,
  h4: ALIGN,
  h5: ALIGN,
  h6: ALIGN,
  header: ALIGN,
  hgroup: ALIGN,
  hr: ['align', 'noshade', 'size', 'width'],
  i: [],
  img: ['alt', 'align', 'border', 'height', 'hspace', 'loading', 'longdesc', 'vspace', 'src', 'usemap', 'width'],
  ins: ['datetime', 'cite'],
  kbd: [],
  label: ['for'],
  legend: ALIGN,
  li: ['align', 'value'],
  main: ALIGN,
  map: ['name'],
  mark: [],
  menu: ['type'],
  meter: ['high', 'low', 'max', 'min', 'optimum', 'value'],
  nav: ALIGN,
  p: ALIGN,
  pre: ['width'],
  progress: ['max', 'value'],
  q: ['cite'],
  rb: [],
  rp: [],
  rt: [],
  rtc: [],
  ruby: [],
  s: [],
  samp: [],
  search: [],
  span: ALIGN,
  section: ALIGN,
  small: [],
  strike: [],
  strong: [],
  sub: [],
  summary: ALIGN,
  sup: [],
  table: ['align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'rules', 'summary', 'width'],
  tbody: TABLE_PART,
  td: CELL,
  textarea: ['cols', 'rows', 'disabled', 'name', 'readonly'],
  tfoot: TABLE_PART,
  th: CELL,
  thead: TABLE_PART,
  time: ['datetime'],
  title: [],
  tr: ['align', 'bgcolor', 'char', 'charoff', 'valign'],
  track: ['default', 'kind', 'label', 'src', 'srclang'],
  tt: [],
  u: [],
  ul: ['type', 'popover', 'role'],
  ol: ['start', 'type', 'reversed'],
  var: [],
  video: [...MEDIA, 'height', 'playsinline', 'poster', 'width'],
  wbr: []
}

/** The inline markup a title may keep (no global attributes). */
const TITLE_TAGS: Record<string, string[]> = {
  a: ['href', 'title'],
  abbr: ['title'],
  acronym: ['title'],
  b: [],
  blockquote: ['cite'],
  cite: [],
  code: [],
  del: ['datetime'],
  em: [],
  i: [],
  q: ['cite'],
  s: [],
  strike: [],
  strong: []
}

/** URL schemes the core accepts in links, sources and CSS `url()`; relative URLs always pass. */
const PROTOCOLS = [
  'http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher', 'nntp', 'feed',
  'telnet', 'mms', 'rtsp', 'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn'
]

const CSS_PROPERTIES = new Set([
  'background', 'background-color', 'background-image', 'background-position', 'background-repeat',
  'background-size', 'background-attachment', 'background-blend-mode',
  'border', 'border-radius', 'border-width', 'border-color', 'border-style',
  ...['top', 'right', 'bottom', 'left'].flatMap((side) => [`border-${side}`, `border-${side}-color`, `border-${side}-style`, `border-${side}-width`]),
  'border-top-left-radius', 'border-top-right-radius', 'border-bottom-left-radius', 'border-bottom-right-radius',
  'border-spacing', 'border-collapse', 'caption-side',
  'columns', 'column-count', 'column-fill', 'column-gap', 'column-rule', 'column-span', 'column-width',
  'display', 'color', 'filter', 'font', 'font-family', 'font-size', 'font-style', 'font-variant', 'font-weight',
  'letter-spacing', 'line-height', 'text-align', 'text-decoration', 'text-indent', 'text-transform', 'white-space',
  'height', 'min-height', 'max-height', 'width', 'min-width', 'max-width',
  ...['margin', 'padding'].flatMap((box) => [
    box, `${box}-right`, `${box}-bottom`, `${box}-left`, `${box}-top`,
    `${box}-block-start`, `${box}-block-end`, `${box}-inline-start`, `${box}-inline-end`
  ]),
  'flex', 'flex-basis', 'flex-direction', 'flex-flow', 'flex-grow', 'flex-shrink', 'flex-wrap',
  'gap', 'row-gap', 'grid-template-columns', 'grid-auto-columns', 'grid-column-start', 'grid-column-end',
  'grid-column', 'grid-column-gap', 'grid-template-rows', 'grid-auto-rows', 'grid-row-start', 'grid-row-end',
  'grid-row', 'grid-row-gap', 'grid-gap',
  'justify-content', 'justify-items', 'justify-self', 'align-content', 'align-items', 'align-self',
  'clear', 'cursor', 'direction', 'float', 'list-style-type', 'object-fit', 'object-position', 'opacity',
  'overflow', 'vertical-align', 'writing-mode', 'position', 'top', 'right', 'bottom', 'left', 'z-index',
  'box-shadow', 'aspect-ratio', 'container-type'
])
const CSS_URL_PROPERTIES = new Set(['background', 'background-image', 'cursor', 'filter', 'list-style', 'list-style-image'])
const CSS_GRADIENT_PROPERTIES = new Set(['background', 'background-image'])
const CSS_CUSTOM_PROPERTY = /^--[a-zA-Z0-9_-]+$/
const CSS_GRADIENT = /^(?:repeating-)?(?:linear|radial|conic)-gradient\((?:[^()]|rgba?\([^()]*\))*\)$/
const CSS_FUNCTION = /\b(?:var|calc|min|max|minmax|clamp|repeat)\(/g
const CSS_UNSAFE = /[\\(&=}]|\/\*/

/** Whether a URL's scheme is one the core allows in links (none, or http, https, mailto...). */
export function allowedUrl (url: string): boolean {
  const compact = url.replace(/[\x00-\x20]+/g, '')
  if (compact === '' || compact.includes('\\')) return false
  const scheme = /^([^/?#]*?):/.exec(compact)?.[1]
  return scheme === undefined || PROTOCOLS.includes(scheme.toLowerCase())
}

/** Removes the allowed CSS functions (balanced, nested) so what is left can be checked. */
function withoutFunctions (value: string): string {
  let out = ''
  let from = 0
  CSS_FUNCTION.lastIndex = 0
  for (let m = CSS_FUNCTION.exec(value); m !== null; m = CSS_FUNCTION.exec(value)) {
    out += value.slice(from, m.index)
    let depth = 0
    let end = m.index + m[0].length - 1
    for (; end < value.length; end++) {
      if (value[end] === '(') depth++
      else if (value[end] === ')' && --depth === 0) break
    }
    // Unbalanced: keep the rest, its `(` fails the check.
    if (depth !== 0) return out + value.slice(m.index)
    from = end + 1
    CSS_FUNCTION.lastIndex = from
  }
  return out + value.slice(from)
}

/** One declaration, or undefined when its property or value is not allowed. */
function safeDeclaration (item: string): string | undefined {
  const colon = item.indexOf(':')
  if (colon < 0) return undefined
  const property = item.slice(0, colon).trim()
  const value = item.slice(colon + 1).trim()
  const custom = CSS_CUSTOM_PROPERTY.test(property)
  if (!custom && !CSS_PROPERTIES.has(property)) return undefined
  let test = value
  if (custom ? value.startsWith('url(') : CSS_URL_PROPERTIES.has(property)) {
    for (const call of value.match(/url\([^)]+\)/g) ?? []) {
      const url = /^url\(\s*(['"]?)(.*)\1\s*\)$/.exec(call)?.[2]?.trim()
      if (url === undefined || !allowedUrl(url)) return undefined
      test = test.replace(call, '')
    }
  }
  if ((custom ? value.includes('-gradient(') : CSS_GRADIENT_PROPERTIES.has(property)) && CSS_GRADIENT.test(value)) test = ''
  return CSS_UNSAFE.test(withoutFunctions(test)) ? undefined : item
}

/** A `style` attribute with the declarations the core does not allow removed. */
export function safeCss (style: string): string {
  return style.replace(/[\n\r\t]/g, '').trim().split(';')
    .map((item) => item.trim()).filter((item) => item !== '')
    .map(safeDeclaration).filter((item) => item !== undefined)
    .join(';')
}

const escapeText = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

// Loaded on the first filtered text (with its CSS parser, about 15 MB resident), synchronously, or before it by
// `loadFilter` (the text pool's `warm`, before the service listens: a 30-60 ms load beside a request otherwise).
let sanitizeModule: typeof sanitizeHtml | undefined
const sanitizer = (): typeof sanitizeHtml => (sanitizeModule ??= createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtml)

/** Loads the filter's module now; whether it was loaded already. */
export function loadFilter (): boolean {
  const loaded = sanitizeModule !== undefined
  sanitizer()
  return loaded
}

// sanitize-html 2.18 options its type package does not list yet.
type Options = sanitizeHtml.IOptions & { allowedEmptyAttributes: string[] }

function options (tags: Record<string, string[]>, global: string[], comment: (token: string) => string | undefined): Options {
  return {
    allowedTags: Object.keys(tags),
    allowedAttributes: { ...tags, '*': global },
    allowedSchemes: PROTOCOLS,
    allowProtocolRelative: true,
    // Boolean attributes (`hidden`, `open`, `download`) are allowed markup too.
    nonBooleanAttributes: [],
    allowedEmptyAttributes: ['alt', 'href', 'src', 'title', 'value'],
    selfClosing: [...sanitizer().defaults.selfClosing, 'wbr', 'track'],
    // Styles are checked declaration by declaration by `safeCss`, keeping the author's spelling.
    parseStyleAttributes: false,
    transformTags: {
      '*': (tagName, attribs) => {
        if (typeof attribs.style !== 'string') return { tagName, attribs }
        const style = safeCss(attribs.style)
        const { style: _dropped, ...rest } = attribs
        return { tagName, attribs: style === '' ? rest : { ...rest, style } }
      }
    },
    textFilter: (text, tag) => {
      // Comments come back only where they stood in text; a title element is text-only.
      const restored = tag === 'title' ? text : text.replace(TOKEN, (token) => comment(token) ?? token)
      return restored.replace(/\u00a0/g, '&nbsp;')
    }
  }
}

// A comment stands in the text as a private-use marker with a per-call key and its index.
const TOKEN = /\uE000[0-9a-f]{16}:\d+\uE001/g

/**
 * Filters `html` with the given allowed markup. sanitize-html drops comments,
 * so each is swapped for a marker first and put back afterwards, its inside
 * filtered the same way and `--` runs shortened so it cannot end early.
 */
function filter (html: string, tags: Record<string, string[]>, global: string[], key = randomBytes(8).toString('hex')): string {
  if (html === '') return ''
  const comments: string[] = []
  // A plain scan: a regular expression would go quadratic on many unclosed `<!--`.
  let marked = ''
  let from = 0
  for (let start = html.indexOf('<!--'); start >= 0; start = html.indexOf('<!--', from)) {
    const end = html.indexOf('-->', start + 4)
    if (end < 0) break
    comments.push(html.slice(start, end + 3))
    marked += `${html.slice(from, start)}\uE000${key}:${comments.length - 1}\uE001`
    from = end + 3
  }
  marked += html.slice(from)
  const lookup = (token: string): string | undefined => {
    const [tokenKey, index] = token.slice(1, -1).split(':')
    if (tokenKey !== key) return undefined
    return comments[Number(index)]
  }
  const commentHtml = (token: string): string | undefined => {
    const original = lookup(token)
    if (original === undefined) return undefined
    const raw = original.slice(4, -3)
    // Plain text (block delimiters) comes out of the filter unchanged: skip the work.
    const inside = (/[<>&\u00a0]/.test(raw) ? filter(raw, tags, global) : raw).replace(/--+/g, '-').replace(/-$/, '')
    return inside === '' ? '' : `<!--${inside}-->`
  }
  const clean = sanitizer()(limitNesting(marked), options(tags, global, commentHtml))
  // Markers left inside attribute values or text-only elements become the escaped comment text.
  return clean.replace(TOKEN, (token) => {
    const original = lookup(token)
    return original === undefined ? token : escapeText(original)
  })
}

/** Post content and excerpts of a caller without `unfiltered_html`. */
export function filterPostHtml (html: string): string {
  return filter(html, POST_TAGS, GLOBAL_ATTRIBUTES)
}

/** Text without markup characters comes out of the filter unchanged. */
const MARKUP = /[<>&\u00a0]/

/** Elements that never hold content (htmlparser2's list): they are never left open. */
const VOID = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr'])

/** Marks the end of the tokenizer's input: seen as text only when the input ends outside any tag, comment or declaration. */
const END = '\uE00F'

/**
 * Whether `html` can be filtered in one document with others: read alone,
 * it ends outside any tag, attribute, comment or declaration, with every
 * element it opened closed again (raw-text ones such as `script`
 * included), and each of its `<!--` closed within it (the comment scan of
 * `filter`). Such a text starts and ends in the state a document starts
 * in, so what is filtered before and after it cannot reach into it. The
 * elements are followed more strictly than the parser follows them (no
 * implied ends, `<x/>` counted open): a text that might not be isolated is
 * filtered alone, never wrongly together.
 */
export function isolated (html: string): boolean {
  for (let start = html.indexOf('<!--'); start >= 0; start = html.indexOf('<!--', start + 4)) {
    const end = html.indexOf('-->', start + 4)
    if (end < 0) return false
    start = end - 1
  }
  const open: string[] = []
  let name = ''
  let endsInText = false
  const tokenizer = htmlTokenizer({
    onopentagname (start, end) { name = html.slice(start, end).toLowerCase() },
    onopentagend () { if (!VOID.has(name)) open.push(name) },
    onselfclosingtag () { if (!VOID.has(name)) open.push(name) },
    onclosetag (start, end) {
      const closing = html.slice(start, end).toLowerCase()
      const at = open.lastIndexOf(closing)
      if (at >= 0) open.length = at
    },
    ontext (_start, end) { if (end === html.length + END.length) endsInText = true }
  })
  tokenizer.write(html + END)
  tokenizer.end()
  return endsInText && open.length === 0
}

/**
 * Many texts through the post filter, at a cost per byte rather than per
 * text: sanitize-html's setup costs about as much as filtering some
 * kilobytes, so thousands of short texts (builder settings) cost seconds
 * one by one. Texts without markup are kept as they are; isolated ones
 * (`isolated`) are joined with a keyed separator into documents of up to
 * `BATCH_CHARS` and filtered in one pass each, then split again; any other
 * text is filtered alone. Each result is what `filterPostHtml` gives for
 * that text alone.
 */
export function filterPostHtmlMany (texts: readonly string[]): string[] {
  const out = texts.slice()
  const key = randomBytes(8).toString('hex')
  const separator = `\uE002${key}\uE003`
  let batch: number[] = []
  let chars = 0
  const flush = (): void => {
    if (batch.length === 0) return
    const parts = filter(batch.map((i) => texts[i]!).join(separator), POST_TAGS, GLOBAL_ATTRIBUTES, key).split(separator)
    // A split that does not give one part per text means the texts met after all: each alone then.
    if (parts.length === batch.length) batch.forEach((i, n) => { out[i] = parts[n]! })
    else for (const i of batch) out[i] = filterPostHtml(texts[i]!)
    batch = []
    chars = 0
  }
  texts.forEach((text, i) => {
    if (!MARKUP.test(text)) return
    if (text.includes(separator) || !isolated(text)) {
      out[i] = filterPostHtml(text)
      return
    }
    batch.push(i)
    chars += text.length
    if (chars >= BATCH_CHARS) flush()
  })
  flush()
  return out
}

/** Characters per joined document: large enough that setup is negligible, small enough to keep the parse's memory modest. */
const BATCH_CHARS = 256 * 1024

/** Titles of a caller without `unfiltered_html`. */
export function filterTitleHtml (html: string): string {
  return filter(html, TITLE_TAGS, [])
}
