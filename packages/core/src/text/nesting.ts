/**
 * A bound on element nesting before HTML reaches the filter. htmlparser2's
 * tree builder (under sanitize-html) keeps its open elements in an array it
 * grows at the front, so every opening tag costs time in the current depth:
 * a megabyte of `<b>` (330,000 open elements) takes minutes. Browsers stop
 * nesting too (Chromium at 512 levels). Here the open elements are followed
 * the way the tree builder follows them (void elements, tags that close an
 * open `p`, `li`, `td` and the like, end tags that close up to their
 * element), with htmlparser2's own tokenizer in one pass, and opening tags
 * that would nest deeper than `MAX_DEPTH` are left out (their text stays).
 * Markup nested less deeply is returned unchanged.
 */
import { htmlTokenizer } from './html-tokenizer.js'

export const MAX_DEPTH = 512

const VOID = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr'])

const P = new Set(['p'])
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p'])
const FORM = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'])
const DD_DT = new Set(['dd', 'dt'])
const RT_RP = new Set(['rt', 'rp'])
const TABLE_SECTIONS = new Set(['thead', 'tbody'])

/** Open elements an opening tag closes first (htmlparser2's table). */
const OPEN_IMPLIES_CLOSE = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])], ['th', new Set(['th'])], ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])], ['a', new Set(['a'])], ['li', new Set(['li'])], ['p', P],
  ['h1', HEADINGS], ['h2', HEADINGS], ['h3', HEADINGS], ['h4', HEADINGS], ['h5', HEADINGS], ['h6', HEADINGS],
  ['select', FORM], ['input', FORM], ['output', FORM], ['button', FORM], ['datalist', FORM], ['textarea', FORM],
  ['option', new Set(['option'])], ['optgroup', new Set(['optgroup', 'option'])], ['dd', DD_DT], ['dt', DD_DT],
  ...['address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer',
    'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'].map((name): [string, Set<string>] => [name, P]),
  ['rt', RT_RP], ['rp', RT_RP], ['tbody', TABLE_SECTIONS], ['tfoot', TABLE_SECTIONS]
])

export function limitNesting (html: string, maxDepth = MAX_DEPTH): string {
  // Fewer opening tags than the limit cannot nest deeper than it.
  let opens = 0
  for (let at = html.indexOf('<'); at >= 0 && opens <= maxDepth; at = html.indexOf('<', at + 1)) opens++
  if (opens <= maxDepth) return html

  const stack: string[] = []
  const open = new Map<string, number>()
  const pop = (): void => {
    const name = stack.pop()!
    open.set(name, open.get(name)! - 1)
  }
  /** Source ranges of the opening tags left out. */
  const cut: Array<[number, number]> = []
  let tagStart = -1
  let tagName = ''
  const endOpenTag = (endIndex: number): void => {
    if (tagName === '' || VOID.has(tagName)) return
    if (stack.length >= maxDepth) {
      cut.push([tagStart, endIndex + 1])
      return
    }
    stack.push(tagName)
    open.set(tagName, (open.get(tagName) ?? 0) + 1)
  }
  const tokenizer = htmlTokenizer({
    onopentagname (start, end) {
      tagStart = start - 1
      tagName = html.slice(start, end).toLowerCase()
      const closes = OPEN_IMPLIES_CLOSE.get(tagName)
      if (closes !== undefined) while (stack.length > 0 && closes.has(stack[stack.length - 1]!)) pop()
    },
    onopentagend: endOpenTag,
    // In HTML `<b/>` opens an element like `<b>`.
    onselfclosingtag: endOpenTag,
    onclosetag (start, end) {
      const name = html.slice(start, end).toLowerCase()
      if ((open.get(name) ?? 0) === 0) return
      while (stack.length > 0) {
        const top = stack[stack.length - 1]
        pop()
        if (top === name) break
      }
    }
  })
  tokenizer.write(html)
  tokenizer.end()
  if (cut.length === 0) return html
  let out = ''
  let from = 0
  for (const [start, end] of cut) {
    out += html.slice(from, start)
    from = end
  }
  return out + html.slice(from)
}
