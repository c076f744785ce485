/**
 * Builder data (the element tree kept in `_builder_data`) as HTML, for what
 * shows a builder document outside the editor (the add-ons' mega menu).
 * Containers, sections and columns become nested `div`s; the widgets this
 * builder knows (elements.ts) their markup; unknown widgets render as an
 * empty wrapper. Text settings are written as stored: stored data was
 * filtered on the way in for writers without `unfiltered_html`
 * (sanitize.ts), as post content is. URLs are escaped and a refused scheme
 * dropped. Walked without recursion, each element once: linear in the data.
 */
import { allowedUrl } from '@cms/core'
import { MAX_DEPTH } from './sanitize.js'

const escapeAttr = (v: string): string => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'div', 'span', 'p'])
const CLASS = /^[\w-]{1,100}$/

type Settings = Record<string, unknown>

const text = (v: unknown): string => typeof v === 'string' ? v : typeof v === 'number' ? String(v) : ''

function url (v: unknown): string {
  const raw = typeof v === 'string' ? v : typeof v === 'object' && v !== null ? text((v as Settings).url) : ''
  return raw !== '' && allowedUrl(raw) ? escapeAttr(raw) : ''
}

/** The inner markup of a widget of a known type. */
function widgetHtml (type: string, s: Settings): string {
  switch (type) {
    case 'heading': {
      const tag = HEADING_TAGS.has(text(s.header_size)) ? text(s.header_size) : 'h2'
      const href = url(s.link)
      const title = href === '' ? text(s.title) : `<a href="${href}">${text(s.title)}</a>`
      return `<${tag} class="builder-heading-title">${title}</${tag}>`
    }
    case 'text-editor': return text(s.editor)
    case 'html': return text(s.html)
    case 'button': {
      const href = url(s.link)
      return `<a class="builder-button"${href === '' ? '' : ` href="${href}"`}><span class="builder-button-text">${text(s.text)}</span></a>`
    }
    case 'image': {
      const src = url(s.image)
      const alt = typeof s.image === 'object' && s.image !== null ? escapeAttr(text((s.image as Settings).alt)) : ''
      return src === '' ? '' : `<img src="${src}" alt="${alt}">`
    }
    case 'spacer': return '<div class="builder-spacer"></div>'
    case 'divider': return '<hr class="builder-divider">'
    default: return ''
  }
}

/** HTML of builder data given as parsed JSON or as its JSON text; '' for anything that is not an element list. */
export function renderBuilderData (data: unknown): string {
  let tree = data
  if (typeof tree === 'string') {
    try { tree = JSON.parse(tree) } catch { return '' }
  }
  if (!Array.isArray(tree)) return ''
  const out: string[] = []
  // Each entry opens an element (then its children, then its closing tag) or writes a closing tag.
  const stack: Array<{ el: unknown, depth: number } | string> = []
  for (let i = tree.length - 1; i >= 0; i--) stack.push({ el: tree[i], depth: 0 })
  while (stack.length > 0) {
    const top = stack.pop()!
    if (typeof top === 'string') {
      out.push(top)
      continue
    }
    const { el, depth } = top
    if (typeof el !== 'object' || el === null || Array.isArray(el) || depth >= MAX_DEPTH) continue
    const e = el as Settings
    const kind = text(e.elType)
    const id = CLASS.test(text(e.id)) ? text(e.id) : ''
    const settings = typeof e.settings === 'object' && e.settings !== null && !Array.isArray(e.settings) ? e.settings as Settings : {}
    const idClass = id === '' ? '' : ` builder-element-${id}`
    if (kind === 'widget') {
      const type = CLASS.test(text(e.widgetType)) ? text(e.widgetType) : 'unknown'
      out.push(`<div class="builder-element${idClass} builder-widget builder-widget-${type}">${widgetHtml(type, settings)}</div>`)
      continue
    }
    if (!['container', 'section', 'column'].includes(kind)) continue
    out.push(`<div class="builder-element${idClass} builder-${kind}">`)
    stack.push('</div>')
    const children = Array.isArray(e.elements) ? e.elements as unknown[] : []
    for (let i = children.length - 1; i >= 0; i--) stack.push({ el: children[i], depth: depth + 1 })
  }
  return out.join('')
}
