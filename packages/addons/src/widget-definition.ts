/**
 * The declared schema of a custom widget's definition (the widget builder,
 * seo-rollback-assistant-addons.md §4.3): what `save` accepts and stores.
 * HTML, CSS and JavaScript are kept as strings, never run by the service,
 * cleaned as the product cleans them (PHP tags out of the markup, tags out
 * of the CSS, `</script>` out of the JavaScript). Every limit is checked
 * before anything is written; a member that breaks one is a
 * `400 rest_invalid_param` naming its path
 * (`tabs.content[0].controls[1].type`). Where the real product silently
 * drops a section or control without a key, this refuses it (a key is a
 * required name). Unknown members are not stored.
 */
import { invalidParam, isPlainObject } from '@cms/rest'
import { addonsErrors } from './errors.js'

/** The control types the page builder offers a custom widget. */
export const CONTROL_TYPES = [
  'text', 'textarea', 'wysiwyg', 'code', 'number', 'slider', 'select', 'select2', 'choose', 'switcher',
  'color', 'media', 'gallery', 'url', 'icons', 'dimensions', 'typography', 'border', 'box_shadow',
  'text_shadow', 'background', 'date_time', 'hidden', 'heading', 'divider', 'raw_html'
] as const

/** Languages of a `code` control's editor: the product's list (and `xml`). */
export const CODE_LANGUAGES = [
  'html', 'css', 'sass', 'scss', 'javascript', 'json', 'less', 'markdown', 'php', 'python', 'mysql', 'sql',
  'svg', 'text', 'twig', 'typescript', 'xml'
] as const

const TABS = ['content', 'style', 'advanced'] as const

/** Sizes: each is checked before the next member is read. */
export const LIMITS = {
  title: 200,
  short: 200,
  description: 2000,
  code: 256 * 1024,
  includes: 20,
  url: 2048,
  sections: 50,
  controls: 100,
  /** Controls of the whole widget. */
  allControls: 500,
  options: 200,
  selectors: 50,
  selector: 1000,
  /** A control's default, as JSON. */
  defaultBytes: 64 * 1024
} as const

const KEY = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/
const SLUG = /^[A-Za-z0-9 _-]{0,100}$/

/** What is stored for a widget (the product's `wpr_custom_widget_data` shape, neutral names). */
export interface WidgetData {
  title: string
  icon: string
  categories: string[]
  push_id: number
  markup: string
  css: string
  js: string
  css_includes: string[]
  js_includes: string[]
  tabs: Record<typeof TABS[number], Section[]>
}

interface Section { key: string, label: string, description: string, controls: Control[] }
type Control = Record<string, unknown> & { key: string, type: string }

export const DEFAULT_ICON = 'icon-cog'
export const DEFAULT_CATEGORY = 'addons-widgets'

const fail = (path: string, message: string): never => { throw invalidParam(path, `${path} ${message}`) }

function str (v: unknown, path: string, max: number, fallback = ''): string {
  if (v === undefined || v === null) return fallback
  if (typeof v !== 'string') return fail(path, 'is not of type string.')
  if (v.length > max) return fail(path, `must be at most ${max} characters long.`)
  return v
}

function oneOf<T extends string> (v: unknown, path: string, allowed: readonly T[]): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) return fail(path, `is not one of ${allowed.join(', ')}.`)
  return v as T
}

/** A number, or a numeric string as a form field sends it (the product casts with floatval). */
function num (v: unknown, path: string): number {
  const n = typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v) ? Number(v) : v
  if (typeof n !== 'number' || !Number.isFinite(n)) return fail(path, 'is not of type number.')
  return n
}

/**
 * What the product does to the code it writes into the widget's files:
 * the markup loses PHP open and close tags (in this order, as its
 * str_replace), the CSS every tag (script and style elements with their
 * content, then any other tag; trimmed), the JavaScript every `</script>`.
 * Linear: each pass is one walk of the text.
 */
export function stripPhpTags (markup: string): string {
  let out = markup
  for (const tag of ['<?php', '<?=', '<?', '?>']) out = out.split(tag).join('')
  return out
}

export function stripCssTags (css: string): string {
  let out = css
  for (const name of ['script', 'style']) {
    const lower = out.toLowerCase()
    let kept = ''
    let from = 0
    for (let at = lower.indexOf(`<${name}`, from); at >= 0; at = lower.indexOf(`<${name}`, from)) {
      const close = lower.indexOf(`</${name}>`, lower.indexOf('>', at) + 1)
      // An element left open stays (its opening tag goes with the other tags below); none later closes either.
      if (lower.indexOf('>', at) < 0 || close < 0) break
      kept += out.slice(from, at)
      from = close + name.length + 3
    }
    out = kept + out.slice(from)
  }
  return out.replace(/<[^\s>][^>]*(?:>|$)/g, '').trim()
}

export function stripScriptClose (js: string): string {
  return js.split('</script>').join('')
}

function list (v: unknown, path: string, max: number): unknown[] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) return fail(path, 'is not of type array.')
  if (v.length > max) return fail(path, `must contain at most ${max} items.`)
  return v as unknown[]
}

function object (v: unknown, path: string): Record<string, unknown> {
  if (!isPlainObject(v)) return fail(path, 'is not of type object.')
  return v as Record<string, unknown>
}

function urls (v: unknown, path: string): string[] {
  return list(v, path, LIMITS.includes).map((u, i) => {
    const s = str(u, `${path}[${i}]`, LIMITS.url)
    let ok = false
    try { ok = ['http:', 'https:'].includes(new URL(s).protocol) } catch { ok = false }
    return ok ? s : fail(`${path}[${i}]`, 'is not a valid http(s) URL.')
  })
}

function options (v: unknown, path: string): Record<string, unknown> {
  const o = object(v, path)
  const entries = Object.entries(o)
  if (entries.length > LIMITS.options) fail(path, `must have at most ${LIMITS.options} members.`)
  const out: Record<string, unknown> = {}
  for (const [value, label] of entries) {
    if (value.length > LIMITS.short) fail(path, `has a value longer than ${LIMITS.short} characters.`)
    const at = `${path}.${value}`
    const kept = typeof label === 'string'
      ? str(label, at, LIMITS.short)
      : (() => { const l = object(label, at); return { title: str(l.title, `${at}.title`, LIMITS.short), icon: str(l.icon, `${at}.icon`, LIMITS.short) } })()
    Object.defineProperty(out, value, { value: kept, enumerable: true, writable: true, configurable: true })
  }
  return out
}

function control (v: unknown, path: string, keys: Set<string>): Control {
  const c = object(v, path)
  const key = c.key === undefined ? fail(`${path}.key`, 'is a required property.') : str(c.key, `${path}.key`, 64)
  if (!KEY.test(key)) fail(`${path}.key`, 'must start with a letter and hold only letters, digits, _ and -.')
  if (keys.has(key)) fail(`${path}.key`, `repeats the key ${key}.`)
  keys.add(key)
  const type = oneOf(c.type, `${path}.type`, CONTROL_TYPES)
  const out: Control = { key, label: str(c.label, `${path}.label`, LIMITS.short), type }
  if (c.default !== undefined) {
    if (JSON.stringify(c.default).length > LIMITS.defaultBytes) fail(`${path}.default`, `must be at most ${LIMITS.defaultBytes} characters as JSON.`)
    out.default = c.default
  } else out.default = ''
  if (c.selector !== undefined) out.selector = str(c.selector, `${path}.selector`, LIMITS.selector)
  if (c.separator !== undefined) out.separator = oneOf(c.separator, `${path}.separator`, ['before', 'after'])
  if (c.options !== undefined) out.options = options(c.options, `${path}.options`)
  if (c.condition !== undefined) {
    const cond = object(c.condition, `${path}.condition`)
    const ck = str(cond.key, `${path}.condition.key`, 64)
    if (!KEY.test(ck)) fail(`${path}.condition.key`, 'is not a control key.')
    const value = cond.value
    if (value !== undefined && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') fail(`${path}.condition.value`, 'is not a string, number or boolean.')
    out.condition = { key: ck, value: value ?? '' }
  }
  for (const n of ['slider_min', 'slider_max', 'slider_step'] as const) if (c[n] !== undefined && c[n] !== null && c[n] !== '') out[n] = num(c[n], `${path}.${n}`)
  if (c.no_units !== undefined) {
    // As the product reads it: any non-empty scalar is true ("1", 1, "yes"); false, 0, "0", "" and null are false.
    const v = c.no_units
    if (v !== null && typeof v === 'object') fail(`${path}.no_units`, 'is not of type boolean.')
    out.no_units = !(v === false || v === null || v === 0 || v === '' || v === '0')
  }
  if (c.allowed_dimensions !== undefined) out.allowed_dimensions = oneOf(c.allowed_dimensions, `${path}.allowed_dimensions`, ['vertical', 'horizontal'])
  if (c.language !== undefined) out.language = oneOf(c.language, `${path}.language`, CODE_LANGUAGES)
  if (c.selectors !== undefined) {
    const s = object(c.selectors, `${path}.selectors`)
    const entries = Object.entries(s)
    if (entries.length > LIMITS.selectors) fail(`${path}.selectors`, `must have at most ${LIMITS.selectors} members.`)
    const kept: Record<string, string> = {}
    for (const [sel, css] of entries) {
      if (sel.length > LIMITS.selector) fail(`${path}.selectors`, `has a selector longer than ${LIMITS.selector} characters.`)
      Object.defineProperty(kept, sel, { value: str(css, `${path}.selectors`, LIMITS.description * 5), enumerable: true, writable: true, configurable: true })
    }
    out.selectors = kept
  }
  return out
}

/**
 * The definition of a save's body, checked against the declared schema;
 * `id` is the widget's (stored as `push_id`), `now` names an untitled one.
 */
export function parseDefinition (body: unknown, id: number, now: Date): WidgetData {
  // An empty or non-object body: the product's "Invalid data.", as a proper 400.
  if (!isPlainObject(body) || Object.keys(body).length === 0) throw addonsErrors.invalid_data()
  const b = body as Record<string, unknown>
  const title = str(b.title, 'title', LIMITS.title).trim()
  const icon = str(b.icon, 'icon', 100, DEFAULT_ICON)
  if (!SLUG.test(icon)) fail('icon', 'holds only letters, digits, spaces, _ and -.')
  const category = str(b.category, 'category', 100, DEFAULT_CATEGORY)
  if (!SLUG.test(category)) fail('category', 'holds only letters, digits, spaces, _ and -.')
  const tabsIn = b.tabs === undefined || b.tabs === null ? {} : object(b.tabs, 'tabs')
  const keys = new Set<string>()
  const sectionKeys = new Set<string>()
  const tabs = {} as WidgetData['tabs']
  for (const tab of TABS) {
    tabs[tab] = list(tabsIn[tab], `tabs.${tab}`, LIMITS.sections).map((v, i) => {
      const path = `tabs.${tab}[${i}]`
      const s = object(v, path)
      const key = s.key === undefined ? fail(`${path}.key`, 'is a required property.') : str(s.key, `${path}.key`, 64)
      if (!KEY.test(key)) fail(`${path}.key`, 'must start with a letter and hold only letters, digits, _ and -.')
      if (sectionKeys.has(key)) fail(`${path}.key`, `repeats the key ${key}.`)
      sectionKeys.add(key)
      const controls = list(s.controls, `${path}.controls`, LIMITS.controls).map((c, j) => control(c, `${path}.controls[${j}]`, keys))
      if (keys.size > LIMITS.allControls) fail(`${path}.controls`, `make the widget hold more than ${LIMITS.allControls} controls.`)
      return { key, label: str(s.label, `${path}.label`, LIMITS.short), description: str(s.description, `${path}.description`, LIMITS.description), controls }
    })
  }
  return {
    title: title === '' ? `Custom Widget #${Math.floor(now.getTime() / 1000)}` : title,
    icon,
    categories: [category],
    push_id: id,
    markup: stripPhpTags(str(b.markup, 'markup', LIMITS.code)),
    css: stripCssTags(str(b.css, 'css', LIMITS.code)),
    js: stripScriptClose(str(b.js, 'js', LIMITS.code)),
    css_includes: urls(b.css_includes, 'css_includes'),
    js_includes: urls(b.js_includes, 'js_includes'),
    tabs
  }
}
