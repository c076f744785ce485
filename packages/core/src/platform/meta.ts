/**
 * Registered post and user meta: the keys the `meta` field shows and accepts, with
 * their schema (type, enum, default, context) and the sanitizer of what a
 * writer without `unfiltered_html` stores. Values are validated before
 * anything is written; unknown keys in a write are ignored.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import { CONTRIBUTED_BY, declareErrors, denied, invalidParam, RestError, type ErrorBody, type Principal } from '@cms/rest'
import type { JsonText } from '@cms/store/columns'
import { textPool } from '../text/text-pool.js'
import { sanitizeFootnotes, type Sanitized } from './meta-sanitizers.js'

export const metaErrors = declareErrors({
  rest_cannot_update: { status: 401, message: 'Sorry, you are not allowed to edit this custom field.' }
})

/**
 * Several errors reported at once, the first at the top level and the rest
 * under `additional_errors` (meta validation reports every failing key).
 * Each carries the failing parameter as extra data, as the core does.
 */
export class ChainedError extends RestError {
  constructor (readonly issues: Array<{ code: string, message: string, param: string }>, status = 400) {
    super(issues[0]!.code, issues[0]!.message, status)
  }

  override toBody (): ErrorBody {
    const [first, ...rest] = this.issues
    const body: ErrorBody = {
      code: first!.code,
      message: first!.message,
      data: { status: this.status },
      additional_data: [{ param: first!.param }]
    }
    if (rest.length > 0) {
      body.additional_errors = rest.map((i) => ({ code: i.code, message: i.message, data: { status: this.status, param: i.param } }))
    }
    return body
  }

  override withStatus (status: number): RestError {
    return new ChainedError(this.issues, status)
  }
}

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
   * May answer a promise: heavy filtering runs in the core's text pool
   * (`textPool`, text-pool.ts), off the request thread.
   */
  sanitize?: (value: unknown, param: string) => Sanitized | Promise<Sanitized>
}

export type MetaObjectType = 'post' | 'user' | 'comment'

/** Who may write a key, beyond the object's own update permission (the core's `auth_callback`). */
export type MetaAuthorize = (caller: Principal, object: { id: number, type: string } | undefined) => boolean

/** What a package gives `registerMeta` besides the schema. */
export interface MetaOptions {
  /** Contexts the key appears in (default: view and edit, as the `meta` field). */
  context?: readonly string[]
  /** Extra check before a write of this key (default: the post's or user's update permission suffices). */
  authorize?: MetaAuthorize
  /**
   * Cleans a value written by a caller without `unfiltered_html` (overrides
   * the schema's `sanitize`). A key that declares none and may hold markup
   * (anything but a string enum) gets the default: every string of the
   * value through the kses rules of its object (post content's for post
   * meta, the small inline set of user text fields for user meta).
   */
  sanitize?: MetaKey['sanitize']
}

interface RegisteredMeta extends MetaKey {
  owner: string
  authorize?: MetaAuthorize
}

/**
 * The post (or user) meta keys of one composed app: the core registers its own, each
 * package adds its keys through `registerMeta` while it registers. Keys are
 * listed in registration order (the order of the `meta` field). Registration
 * ends when the routes are built; a key registered twice is an error.
 */
export class MetaRegistry {
  private readonly keys = new Map<string, RegisteredMeta>()
  private sealed = false
  /** The views of {@link visible}, by the off set (the activation keeps one set per state). */
  private readonly views = new WeakMap<ReadonlySet<string>, MetaRegistry>()

  /** The object type whose keys this registry holds (`post`: posts and pages of cms/v2; `user`: cms/v2 users; `comment`: cms/v2 comments). */
  constructor (readonly objectType: MetaObjectType = 'post') {}

  /** Registers `key` on this registry's object type. */
  register (objectType: MetaObjectType, key: string, schema: MetaKey, opts: MetaOptions & { owner?: string } = {}): void {
    if (objectType !== this.objectType) throw new TypeError(`meta of ${String(objectType)} objects cannot be registered here (${this.objectType} meta)`)
    if (this.sealed) throw new Error(`meta key ${key} registered after the routes were built`)
    if (this.keys.has(key)) throw new Error(`meta key ${key} is registered twice (by ${this.keys.get(key)!.owner} and ${opts.owner ?? 'another package'})`)
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(key)) throw new TypeError(`meta key ${JSON.stringify(key)} is not a plain name`)
    const context = opts.context ?? schema.context
    const markupFree = schema.type === 'string' && schema.enum !== undefined
    const sanitize = opts.sanitize ?? schema.sanitize ?? (markupFree ? undefined : defaultSanitizer(objectType))
    this.keys.set(key, {
      ...schema,
      ...(context === undefined ? {} : { context }),
      owner: opts.owner ?? 'unknown',
      ...(opts.authorize === undefined ? {} : { authorize: opts.authorize }),
      ...(sanitize === undefined ? {} : { sanitize })
    })
  }

  /** Ends registration (the item schema is derived from the keys once). */
  seal (): void { this.sealed = true }

  /**
   * The keys shown while the packages `off` names are switched off (a
   * deactivated plugin's: `req.registry.off(req)`): this registry when none
   * of its keys is theirs, else a sealed view without them, made once per set.
   * Reads and writes through the view treat their keys as unregistered; the
   * stored values stay.
   */
  visible (off: ReadonlySet<string>): MetaRegistry {
    if (off.size === 0) return this
    let view = this.views.get(off)
    if (view === undefined) {
      const kept = [...this.keys].filter(([, spec]) => !off.has(spec.owner))
      view = kept.length === this.keys.size ? this : new MetaRegistry(this.objectType)
      if (view !== this) {
        for (const [key, spec] of kept) view.keys.set(key, spec)
        view.sealed = true
      }
      this.views.set(off, view)
    }
    return view
  }

  get (key: string): RegisteredMeta | undefined { return this.keys.get(key) }
  get size (): number { return this.keys.size }
  entries (): IterableIterator<[string, RegisteredMeta]> { return this.keys.entries() }

  /** Keys copied to revisions. */
  get revisioned (): string[] { return [...this.keys].filter(([, k]) => k.revisioned === true).map(([name]) => name) }
}

/** Nesting deeper than this is refused rather than walked (a writer picks the depth). */
const MAX_DEPTH = 256

/**
 * The sanitizer of a key that declares none: a copy of the value with every
 * string through the post filter (titles' for user meta), keys kept, walked
 * without recursion. The strings with markup are filtered together in the
 * text pool (a cost per byte, off the request thread when large).
 */
function defaultSanitizer (objectType: MetaObjectType): NonNullable<MetaKey['sanitize']> {
  // User and comment text allow the small inline set; post meta the post content's markup.
  const kind = objectType === 'post' ? 'post' : 'title'
  return async (value) => {
    const slots: Array<[Record<string, unknown>, string]> = []
    const texts: string[] = []
    const copy = (v: unknown): unknown => Array.isArray(v) ? new Array(v.length) : typeof v === 'object' && v !== null ? {} : v
    const place = (target: Record<string, unknown>, key: string, v: unknown): void => {
      // Defined, not assigned: a `__proto__` key stays a plain key.
      Object.defineProperty(target, key, { value: v, enumerable: true, writable: true, configurable: true })
      if (typeof v === 'string' && MARKUP.test(v)) {
        slots.push([target, key])
        texts.push(v)
      }
    }
    const out: Record<string, unknown> = {}
    place(out, 'root', copy(value))
    const stack: Array<{ from: unknown, to: unknown, depth: number }> = [{ from: value, to: out.root, depth: 0 }]
    while (stack.length > 0) {
      const { from, to, depth } = stack.pop()!
      if (typeof from !== 'object' || from === null) continue
      if (depth >= MAX_DEPTH) return { invalid: `nested more than ${MAX_DEPTH} levels deep` }
      for (const key of Object.keys(from)) {
        const item = (from as Record<string, unknown>)[key]
        const made = copy(item)
        place(to as Record<string, unknown>, key, made)
        if (typeof item === 'object' && item !== null) stack.push({ from: item, to: made, depth: depth + 1 })
      }
    }
    const filtered = await textPool.filterMany(texts, kind)
    filtered.forEach((text, i) => {
      const [target, key] = slots[i]!
      Object.defineProperty(target, key, { value: text, enumerable: true, writable: true, configurable: true })
    })
    return { value: out.root }
  }
}

/** Text without markup characters comes out of the filters unchanged. */
const MARKUP = /[<>&\u00a0]/

const CORE = '@cms/core'

/** The core's own keys. */
export function registerCoreMeta (registry: MetaRegistry): void {
  registry.register('post', 'footnotes', { type: 'string', default: '', description: 'Footnotes of the content (JSON).', revisioned: true, sanitize: sanitizeFootnotes }, { owner: CORE })
}

/** The `meta` property of the item schema. */
export function metaSchema (registry: MetaRegistry): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  for (const [key, spec] of registry.entries()) {
    const prop: Record<string, unknown> = { type: spec.type }
    if (spec.description !== undefined) prop.description = spec.description
    prop.default = spec.default
    if (spec.enum !== undefined) prop.enum = [...spec.enum]
    if (spec.properties !== undefined) prop.properties = spec.properties
    if (spec.additionalProperties !== undefined) prop.additionalProperties = spec.additionalProperties
    if (spec.context !== undefined) prop.context = [...spec.context]
    // A package's key leaves the schemas the kernel shows while the package is off (discovery.ts).
    if (spec.owner !== CORE) prop[CONTRIBUTED_BY] = spec.owner
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
  /** Values whose JSON text a sanitizer had made off the request thread (`Sanitized.stored`), with the value they are of. */
  stored?: Map<string, { value: unknown, stored: JsonText }>
}

/**
 * The column value of each of `set`'s values: the JSON text made off the
 * request thread when `stored` holds one for that very value (a caller may
 * have replaced it since), else the value.
 */
export function storedValues (set: Record<string, unknown>, stored: MetaChanges['stored']): Record<string, unknown> {
  if (stored === undefined || stored.size === 0) return set
  const out = { ...set }
  for (const [key, s] of stored) if (Object.hasOwn(out, key) && out[key] === s.value) out[key] = s.stored
  return out
}

/** Values `answeredAsWritten` looks at before it gives up (the caller then reads the meta back). */
const AS_WRITTEN_LOOK = 256

/**
 * Whether meta values read back from their `jsonb` column as they were
 * written, so that a create may answer them without reading them back:
 * jsonb orders an object's keys its own way, so a value holding an object
 * of two keys or more may not (strings, numbers, booleans and arrays do).
 * Looks at `AS_WRITTEN_LOOK` values at most: a large value is read back.
 */
export function answeredAsWritten (set: Record<string, unknown>): boolean {
  const pending: unknown[] = Object.values(set)
  for (let seen = 0; pending.length > 0; seen++) {
    if (seen >= AS_WRITTEN_LOOK) return false
    const value = pending.pop()
    if (typeof value !== 'object' || value === null) continue
    if (Array.isArray(value)) {
      if (value.length > AS_WRITTEN_LOOK) return false
      pending.push(...value)
      continue
    }
    let keys = 0
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue
      if (++keys > 1) return false
      pending.push((value as Record<string, unknown>)[k])
    }
  }
  return true
}

/**
 * Validates the `meta` parameter. It must be an object (else the request
 * fails like any invalid parameter); each known key is checked and every
 * failure reported at once; `null` deletes the key. Values of a writer
 * without `unfiltered_html` go through their key's sanitizer.
 */
export async function parseMetaParam (registry: MetaRegistry, input: unknown, writer: Principal, object?: { id: number, type: string }): Promise<MetaChanges> {
  if (typeof input !== 'object' || input === null) throw invalidParam('meta', 'Invalid parameter.')
  const changes: MetaChanges = { set: {}, remove: [] }
  const issues: Issue[] = []
  const trusted = writer.can('unfiltered_html')
  for (const [key, value] of Object.entries(input)) {
    const spec = registry.get(key)
    if (spec === undefined) continue
    if (spec.authorize !== undefined && !spec.authorize(writer, object)) throw denied(metaErrors.rest_cannot_update(), writer.id)
    if (value === null) {
      changes.remove.push(key)
      continue
    }
    const r = checkValue(key, spec, value)
    if ('code' in r) {
      issues.push(r)
      continue
    }
    const clean = spec.sanitize === undefined || trusted ? r : await spec.sanitize(r.value, `meta.${key}`)
    if ('invalid' in clean) issues.push({ code: 'rest_invalid_param', message: clean.invalid, param: `meta.${key}` })
    else {
      changes.set[key] = clean.value
      // A long string's column text (its JSON) made in the text pool, when its sanitizer (builder data) did not make it.
      const stored = ('stored' in clean ? clean.stored : undefined) ?? await textPool.storedJson(clean.value)
      if (stored !== undefined) (changes.stored ??= new Map()).set(key, { value: clean.value, stored })
    }
  }
  if (issues.length > 0) throw new ChainedError(issues)
  return changes
}

/** The `meta` field: every registered key, stored value or default (stored values that no longer fit read as null). */
export function metaResponse (registry: MetaRegistry, stored: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, spec] of registry.entries()) {
    if (!(key in stored)) {
      out[key] = spec.default
      continue
    }
    const r = checkValue(key, spec, stored[key])
    out[key] = 'code' in r ? null : r.value
  }
  return out
}

/** Values compared between turns of the event loop (`sameValue`). */
export const SAME_SLICE = 2000

/** Turns `sameValue` took: for tests that count the work, never for timing. */
export const sameCounts = { turns: 0 }

const plainObject = (v: unknown): v is Record<string, unknown> | unknown[] => {
  if (typeof v !== 'object' || v === null) return false
  const proto = Object.getPrototypeOf(v) as unknown
  return proto === Object.prototype || proto === Array.prototype || proto === null
}

/**
 * Whether two meta values are the same (JSON equality: their JSON texts
 * are equal), without writing either as JSON: a megabyte of meta was two
 * whole `JSON.stringify` calls on the request thread (issue 27). Strings
 * compare as they are (a string's JSON is that string quoted and escaped,
 * one to one, and no other value's JSON starts with a quote); lists member
 * by member; objects key by key in their order (JSON's); other values by
 * their JSON (a number's, `null`'s). `SAME_SLICE` values a turn of the
 * event loop; the first difference ends the walk.
 */
export async function sameValue (a: unknown, b: unknown): Promise<boolean> {
  const pairs: Array<[unknown, unknown]> = [[a, b]]
  let visited = 0
  while (pairs.length > 0) {
    const [x, y] = pairs.pop()!
    if (++visited % SAME_SLICE === 0) {
      sameCounts.turns++
      await nextTurn()
    }
    if (x === y) continue
    if (typeof x === 'string' || typeof y === 'string') return false
    if (!plainObject(x) || !plainObject(y)) {
      if (JSON.stringify(x) !== JSON.stringify(y)) return false
      continue
    }
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) pairs.push([x[i], y[i]])
      continue
    }
    // A member whose value writes nothing (undefined, a function) is left out of JSON: compared as JSON then.
    const kx = Object.keys(x).filter((k) => writes(x[k]))
    const ky = Object.keys(y).filter((k) => writes(y[k]))
    if (kx.length !== ky.length) return false
    for (let i = 0; i < kx.length; i++) {
      if (kx[i] !== ky[i]) return false
      pairs.push([x[kx[i]!], y[ky[i]!]])
    }
  }
  return true
}

const writes = (v: unknown): boolean => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol'
