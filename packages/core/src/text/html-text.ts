/**
 * What analysis reads from stored HTML (the SEO head's texts, the links a
 * post makes), linear in its size (htmlparser2's tokenizer). Plain
 * functions so the text pool can run them in a thread (text-tasks.ts):
 * callers with a text of a request's size use `textPool.text` and
 * `textPool.links`.
 */
import { Parser } from 'htmlparser2'

/** The text of HTML: tags dropped, entities decoded, whitespace folded. */
export function htmlText (html: string): string {
  if (!html.includes('<') && !html.includes('&')) return html.replace(/\s+/g, ' ').trim()
  let out = ''
  const parser = new Parser({ ontext (data) { out += data } }, { decodeEntities: true })
  parser.write(html)
  parser.end()
  return out.replace(/\s+/g, ' ').trim()
}

/** The hrefs of the `a` elements of HTML, in order. */
export function htmlLinks (html: string): string[] {
  const out: string[] = []
  const parser = new Parser({ onopentag (name, attrs) { if (name === 'a' && typeof attrs.href === 'string' && attrs.href !== '') out.push(attrs.href) } }, { decodeEntities: true })
  parser.write(html)
  parser.end()
  return out
}
