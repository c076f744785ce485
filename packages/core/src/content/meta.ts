/**
 * Registered post meta: the keys the `meta` field shows and accepts, with
 * their schema (type, enum, default, context) and the sanitizer of what a
 * writer without `unfiltered_html` stores. Values are validated before
 * anything is written; unknown keys in a write are ignored.
 */
import type { Principal } from '@cms/rest'
import { ChainedError, invalidParam } from './errors.js'
import { sanitizeBuilderData, sanitizeBuilderObject, sanitizeFootnotes, type Sanitized } from './meta-sanitizers.js'

export interface MetaKey {
  type: 'string' | 'object'
  default: unknown
  enum?: readonly string[]
  context?: readonly string[]
  description?: string
  /** Object keys: sub-properties with their own enums; others allowed. */
  properties?: Record<string, { type: 'string', enum?: readonly string[] }>
  additionalProperties?: boolean
  /** Copied to revisions; a change makes a new revision. */
  revisioned?: boolean
  /**
   * Cleans a valid value written by a caller without `unfiltered_html`
   * (`param` is `meta.<key>`, for messages). Every key users may write
   * declares one unless its schema already excludes markup (an enum).
   */
  sanitize?: (value: unknown, param: string) => Sanitized
}

const TEMPLATE_TYPES = ['post', 'cms-post', 'cms-page', 'kit', 'not-supported', 'page', 'section', 'container', 'floating-buttons', 'cloud-template-preview', ''] as const

export const META_KEYS: Record<string, MetaKey> = {
  footnotes: { type: 'string', default: '', description: 'Footnotes of the content (JSON).', revisioned: true, sanitize: sanitizeFootnotes },
  _builder_edit_mode: { type: 'string', default: '', enum: ['', 'builder'], context: ['edit'], description: 'Whether the page builder edits this content.' },
  _builder_template_type: { type: 'string', default: '', enum: TEMPLATE_TYPES, context: ['edit'], description: 'Page-builder template type.' },
  _builder_data: { type: 'string', default: '', context: ['edit'], description: 'Page-builder data (JSON carried as a string).', sanitize: sanitizeBuilderData },
  _builder_page_settings: {
    type: 'object',
    default: {},
    context: ['edit'],
    description: 'Page-builder page settings.',
    properties: { hide_title: { type: 'string', enum: ['yes', 'no'] } },
    additionalProperties: true,
    sanitize: sanitizeBuilderObject
  }
}

export const REVISIONED_META = Object.keys(META_KEYS).filter((k) => META_KEYS[k]!.revisioned === true)

/** The `meta` property of the item schema. */
export function metaSchema (): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  for (const [key, spec] of Object.entries(META_KEYS)) {
    const prop: Record<string, unknown> = { type: spec.type }
    if (spec.description !== undefined) prop.description = spec.description
    prop.default = spec.default
    if (spec.enum !== undefined) prop.enum = [...spec.enum]
    if (spec.properties !== undefined) prop.properties = spec.properties
    if (spec.additionalProperties !== undefined) prop.additionalProperties = spec.additionalProperties
    if (spec.context !== undefined) prop.context = [...spec.context]
    properties[key] = prop
  }
  return properties
}

/** `A`, `A and B`, `A, B, and C` (empty members print as nothing). */
export function listWords (items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? ''
  if (items.length === 2) return `${items[0]} and ${items[1]}`
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`
}

function enumMessage (param: string, values: readonly string[]): string {
  return values.length === 1 ? `${param} is not ${values[0]}.` : `${param} is not one of ${listWords(values)}.`
}

const isObjectLike = (v: unknown): boolean => (typeof v === 'object' && v !== null) || v === ''

interface Issue { code: string, message: string, param: string }

function checkValue (key: string, spec: MetaKey, value: unknown): { value: unknown } | Issue {
  const param = `meta.${key}`
  if (spec.type === 'string') {
    if (typeof value !== 'string') return { code: 'rest_invalid_type', message: `${param} is not of type string.`, param }
    if (spec.enum !== undefined && !spec.enum.includes(value)) return { code: 'rest_not_in_enum', message: enumMessage(param, spec.enum), param }
    return { value }
  }
  if (!isObjectLike(value)) return { code: 'rest_invalid_type', message: `${param} is not of type object.`, param }
  const obj: Record<string, unknown> = value === '' || Array.isArray(value) ? Object.fromEntries(Object.entries(value as object)) : { ...(value as Record<string, unknown>) }
  for (const [prop, sub] of Object.entries(spec.properties ?? {})) {
    if (!(prop in obj)) continue
    const v = obj[prop]
    const name = `${param}[${prop}]`
    if (typeof v !== 'string') return { code: 'rest_invalid_type', message: `${name} is not of type string.`, param }
    if (sub.enum !== undefined && !sub.enum.includes(v)) return { code: 'rest_not_in_enum', message: enumMessage(name, sub.enum), param }
  }
  if (spec.additionalProperties === false) {
    for (const prop of Object.keys(obj)) {
      if (!(prop in (spec.properties ?? {}))) return { code: 'rest_additional_properties_forbidden', message: `${prop} is not a valid property of Object.`, param }
    }
  }
  return { value: obj }
}

/** What a write does to meta: values to store, keys to delete. */
export interface MetaChanges {
  set: Record<string, unknown>
  remove: string[]
}

/**
 * Validates the `meta` parameter. It must be an object (else the request
 * fails like any invalid parameter); each known key is checked and every
 * failure reported at once; `null` deletes the key. Values of a writer
 * without `unfiltered_html` go through their key's sanitizer.
 */
export function parseMetaParam (input: unknown, writer: Principal): MetaChanges {
  if (typeof input !== 'object' || input === null) throw invalidParam('meta', 'Invalid parameter.')
  const changes: MetaChanges = { set: {}, remove: [] }
  const issues: Issue[] = []
  const trusted = writer.can('unfiltered_html')
  for (const [key, value] of Object.entries(input)) {
    const spec = META_KEYS[key]
    if (spec === undefined) continue
    if (value === null) {
      changes.remove.push(key)
      continue
    }
    const r = checkValue(key, spec, value)
    if ('code' in r) {
      issues.push(r)
      continue
    }
    const clean = spec.sanitize === undefined || trusted ? r : spec.sanitize(r.value, `meta.${key}`)
    if ('invalid' in clean) issues.push({ code: 'rest_invalid_param', message: clean.invalid, param: `meta.${key}` })
    else changes.set[key] = clean.value
  }
  if (issues.length > 0) throw new ChainedError(issues)
  return changes
}

/** The `meta` field: every registered key, stored value or default (stored values that no longer fit read as null). */
export function metaResponse (stored: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, spec] of Object.entries(META_KEYS)) {
    if (!(key in stored)) {
      out[key] = spec.default
      continue
    }
    const r = checkValue(key, spec, stored[key])
    out[key] = 'code' in r ? null : r.value
  }
  return out
}

/** Whether two meta values are the same (JSON equality). */
export function sameValue (a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
