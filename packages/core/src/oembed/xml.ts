/**
 * `format=xml` on `/oembed/1.0/embed`: the answer (data or error) written
 * as `<oembed>` XML, through the endpoint's serializer.
 */
import type { Serializer } from '@cms/rest'

const XML_NAMED: Record<string, number> = {
  nbsp: 160,
  copy: 169,
  reg: 174,
  hellip: 8230,
  ndash: 8211,
  mdash: 8212,
  lsquo: 8216,
  rsquo: 8217,
  ldquo: 8220,
  rdquo: 8221,
  laquo: 171,
  raquo: 187,
  trade: 8482,
  bull: 8226,
  middot: 183,
  times: 215
}
const XML_PREDEFINED = new Set(['amp', 'lt', 'gt', 'quot', 'apos'])

/**
 * Text content: HTML-escaped as the core escapes it (existing entities
 * kept), then made well-formed XML: HTML named entities become numeric
 * references, and so does every non-ASCII character.
 */
function xmlText (value: unknown): string {
  const text = value === true ? '1' : value === false || value === null || value === undefined ? '' : String(value)
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '&') {
      const m = /^&(?:([A-Za-z][A-Za-z0-9]*)|#(\d+)|#x([0-9A-Fa-f]+));/.exec(text.slice(i, i + 40))
      if (m === null) {
        out += '&amp;'
      } else if (m[1] !== undefined && !XML_PREDEFINED.has(m[1])) {
        const code = XML_NAMED[m[1].toLowerCase()]
        out += code === undefined ? `&amp;${m[1]};` : `&#${code};`
        i += m[0].length - 1
      } else {
        out += m[0]
        i += m[0].length - 1
      }
    } else if (c === '<') out += '&lt;'
    else if (c === '>') out += '&gt;'
    else if (c === '"') out += '&quot;'
    else if (c === "'") out += '&#039;'
    else if (c.charCodeAt(0) < 0x20 && c !== '\n' && c !== '\t' && c !== '\r') out += ''
    else if (c.charCodeAt(0) > 0x7e) {
      const code = text.codePointAt(i)!
      out += `&#${code};`
      if (code > 0xffff) i++
    } else out += c
  }
  return out
}

/** A key as an element name; list members are `<oembed>` elements, as the core writes them. */
function elementName (key: string, inList: boolean): string {
  if (inList) return 'oembed'
  const name = key.replace(/[^A-Za-z0-9_.-]/g, '_')
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`
}

function children (value: Record<string, unknown> | unknown[]): string {
  const list = Array.isArray(value)
  let out = ''
  for (const [key, item] of Object.entries(value)) {
    const name = elementName(key, list)
    if (typeof item === 'object' && item !== null) {
      const inner = children(item as Record<string, unknown>)
      out += inner === '' ? `<${name}/>` : `<${name}>${inner}</${name}>`
    } else {
      const text = xmlText(item)
      out += text === '' ? `<${name}/>` : `<${name}>${text}</${name}>`
    }
  }
  return out
}

export function toOembedXml (data: unknown): string {
  const body = typeof data === 'object' && data !== null ? children(data as Record<string, unknown>) : ''
  return `<?xml version="1.0"?>\n<oembed>${body}</oembed>\n`
}

/** The embed endpoint's representation: XML when asked for, JSON otherwise. */
export const oembedSerializer: Serializer = (query, _status, body) =>
  query.format === 'xml' ? { contentType: 'text/xml; charset=UTF-8', payload: toOembedXml(body) } : undefined
