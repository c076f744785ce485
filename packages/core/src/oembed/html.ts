/**
 * The markup oEmbed answers carry: the blockquote + sandboxed iframe of a
 * post of this site, and the `html` of remote embeds (kept for providers
 * the service trusts, rebuilt as a bare sandboxed iframe for discovered
 * ones).
 */
import { randomInt } from 'node:crypto'
import { htmlTokenizer } from '../text/html-tokenizer.js'

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** The per-response secret that pairs a blockquote with its iframe. */
export function embedSecret (): string {
  let out = ''
  for (let i = 0; i < 10; i++) out += ALNUM[randomInt(ALNUM.length)]
  return out
}

const ENTITY = /&(?:[A-Za-z][A-Za-z0-9]*|#\d+|#x[0-9A-Fa-f]+);/y

/** Escapes `&` (unless it starts an entity), `<`, `>` and quotes, for text and attribute values. */
export function escAttr (value: string): string {
  let out = ''
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!
    if (c === '&') {
      ENTITY.lastIndex = i
      out += ENTITY.test(value) ? '&' : '&amp;'
    } else if (c === '<') out += '&lt;'
    else if (c === '>') out += '&gt;'
    else if (c === '"') out += '&quot;'
    else if (c === "'") out += '&#039;'
    else out += c
  }
  return out
}

/** An http(s) URL made safe for an attribute; anything else becomes ''. */
export function escUrl (url: string): string {
  const cleaned = url.trim().replace(/[^A-Za-z0-9\-~+_.?#=!&;,/:%@$|*'()[\]\u0080-\uffff]/g, '')
  if (!/^https?:\/\//i.test(cleaned)) return ''
  return cleaned.replace(/&(?!#038;)/g, '&#038;').replace(/'/g, '&#039;')
}

// Listens for the embedded page's height messages and resizes the matching iframe.
const RESIZE_SCRIPT = '<script>!function(w,d){if(w.cmsEmbedResize)return;w.cmsEmbedResize=1;' +
  'w.addEventListener("message",function(e){var m=e.data;' +
  'if(!m||typeof m.secret!=="string"||!/^[A-Za-z0-9]{10}$/.test(m.secret)||m.message!=="height")return;' +
  'var f=d.querySelectorAll(\'iframe.cms-embedded-content[data-secret="\'+m.secret+\'"]\');' +
  'for(var i=0;i<f.length;i++){if(f[i].contentWindow!==e.source)continue;' +
  'var h=parseInt(m.value,10);if(h>=200&&h<=1000)f[i].height=String(h)}})}(window,document);</script>'

export interface LocalEmbed {
  permalink: string
  /** The rendered title (HTML, as the site shows it). */
  title: string
  siteName: string
  width: number
  height: number
}

/** Blockquote fallback, sandboxed iframe of the embed view, resize helper. */
export function localEmbedHtml ({ permalink, title, siteName, width, height }: LocalEmbed): string {
  const secret = embedSecret()
  const embedUrl = `${permalink}${permalink.includes('?') ? '&' : '?'}embed=true#?secret=${secret}`
  const frameTitle = `&#8220;${title}&#8221; &#8212; ${siteName}`
  return `<blockquote class="cms-embedded-content" data-secret="${secret}"><a href="${escUrl(permalink)}">${title}</a></blockquote>` +
    `<iframe sandbox="allow-scripts" security="restricted" src="${escUrl(embedUrl)}" width="${width}" height="${height}" ` +
    `title="${escAttr(frameTitle)}" data-secret="${secret}" frameborder="0" marginwidth="0" marginheight="0" ` +
    `scrolling="no" class="cms-embedded-content"></iframe>${RESIZE_SCRIPT}`
}

type Attributes = Record<string, string>

/**
 * The start tags named one of `names` (lower case) in `html`, in order, with
 * their attributes (names lower-cased, values entity-decoded, the first of
 * a repeated name kept), read by htmlparser2's tokenizer: one pass whatever
 * the markup (an unclosed `<link ` or `<iframe ` does not make every later
 * one read to the end), and no element tree (its parser's open-element
 * stack costs time in the nesting depth for every tag). `visit` returns true
 * to stop looking.
 */
export function eachTag (html: string, names: ReadonlySet<string>, visit: (name: string, attrs: Attributes) => boolean): void {
  let tag: string | null = null
  let attrs: Attributes = Object.create(null) as Attributes
  let attrName = ''
  let attrValue = ''
  let stopped = false
  const lengths = new Set([...names].map((name) => name.length))
  const finish = (): void => {
    if (tag !== null && !stopped && visit(tag, attrs)) {
      stopped = true
      tokenizer.pause()
    }
    tag = null
  }
  const tokenizer = htmlTokenizer({
    onopentagname (start, end) {
      tag = null
      // Most tags are not looked for: their name is not even copied.
      if (!lengths.has(end - start)) return
      const name = html.slice(start, end).toLowerCase()
      if (!names.has(name)) return
      tag = name
      attrs = Object.create(null) as Attributes
    },
    onattribname (start, end) {
      if (tag === null) return
      attrName = html.slice(start, end).toLowerCase()
      attrValue = ''
    },
    onattribdata (start, end) { if (tag !== null) attrValue += html.slice(start, end) },
    onattribentity (codepoint) { if (tag !== null) attrValue += String.fromCodePoint(codepoint) },
    onattribend () { if (tag !== null && !(attrName in attrs)) attrs[attrName] = attrValue },
    onopentagend: finish,
    onselfclosingtag: finish
  })
  tokenizer.write(html)
  // Paused when `visit` stopped: the rest is not read.
  tokenizer.end()
}

/** Attributes of the first tag named `tag` in `html`, lower-cased names, entity-decoded values. */
export function firstTagAttributes (html: string, tag: string): Attributes | null {
  let found: Attributes | null = null
  eachTag(html, new Set([tag.toLowerCase()]), (_name, attrs) => {
    found = attrs
    return true
  })
  return found
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }

export function decodeEntities (s: string): string {
  return s.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (all, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all
    }
    return NAMED[ref.toLowerCase()] ?? all
  })
}

const FRAME_ATTRIBUTES = ['width', 'height', 'title', 'frameborder', 'marginwidth', 'marginheight', 'scrolling'] as const

/**
 * The `html` of a provider the service does not trust: only its first
 * iframe survives, rebuilt from a few attributes, sandboxed. Null when it
 * has no iframe with an http(s) source.
 */
export function sandboxedFrame (html: string): string | null {
  const attrs = firstTagAttributes(html, 'iframe')
  if (attrs === null) return null
  const src = escUrl(attrs.src ?? '')
  if (src === '') return null
  const secret = embedSecret()
  let tag = `<iframe class="cms-embedded-content" sandbox="allow-scripts" security="restricted" src="${src}#?secret=${secret}" data-secret="${secret}"`
  for (const name of FRAME_ATTRIBUTES) {
    const value = attrs[name]
    if (value === undefined) continue
    if ((name === 'width' || name === 'height') && !/^\d{1,5}%?$/.test(value)) continue
    tag += ` ${name}="${escAttr(value)}"`
  }
  return `${tag}></iframe>`
}
