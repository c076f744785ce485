/**
 * `context` filtering: properties whose schema lists contexts that do not
 * include the requested one are removed, recursively.
 *
 * The schema is read once per (schema, context): a plan says which keys an
 * object drops and which values may hold something to drop, so filtering an
 * answer visits only those (a subtree that hides nothing is kept as it is,
 * not copied). Measured on a 10-post page (docs/benchmarks.md).
 */
import type { JsonSchema } from './schema.js'

/** What filtering by one context does to values of one schema. */
export interface ContextPlan {
  /** Keys of an object this context drops. */
  readonly hidden: ReadonlySet<string>
  /** Keys whose values may hold something to drop, with their plans. */
  readonly nested: ReadonlyMap<string, ContextPlan>
  /** Both in one map (one lookup a key): null for a dropped key, else the value's plan. */
  readonly keys: ReadonlyMap<string, ContextPlan | null>
  /** An array's items' plan (the schema itself when it is not an array's). */
  readonly items: ContextPlan | undefined
  /** The schema declares properties (an object without them is kept whole). */
  readonly hasProperties: boolean
  /** Nothing under this schema is ever dropped: values pass as they are. */
  readonly inert: boolean
}

const plans = new WeakMap<JsonSchema, Map<string, ContextPlan>>()
const INERT: ContextPlan = { hidden: new Set(), nested: new Map(), keys: new Map(), items: undefined, hasProperties: false, inert: true }

/** The plan of `schema` for `context`, made once and kept with the schema. */
export function contextPlan (schema: JsonSchema, context: string): ContextPlan {
  let byContext = plans.get(schema)
  if (byContext === undefined) {
    byContext = new Map()
    plans.set(schema, byContext)
  }
  let plan = byContext.get(context)
  if (plan === undefined) {
    plan = makePlan(schema, context, new Set())
    byContext.set(context, plan)
  }
  return plan
}

function makePlan (schema: JsonSchema, context: string, seen: Set<JsonSchema>): ContextPlan {
  // A schema that refers to itself (none does today) is walked as the unplanned filter did, once deep.
  if (seen.has(schema)) return INERT
  seen.add(schema)
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  const hidden = new Set<string>()
  const nested = new Map<string, ContextPlan>()
  if (properties !== undefined) {
    for (const [key, prop] of Object.entries(properties)) {
      if (Array.isArray(prop.context) && !prop.context.includes(context)) {
        hidden.add(key)
        continue
      }
      const sub = makePlan(prop, context, seen)
      if (!sub.inert) nested.set(key, sub)
    }
  }
  // An array's items without a schema are kept as they are.
  const items = schema.type !== 'array' ? undefined : typeof schema.items === 'object' && schema.items !== null ? makePlan(schema.items as JsonSchema, context, seen) : INERT
  seen.delete(schema)
  const inert = hidden.size === 0 && nested.size === 0 && (items === undefined || items.inert)
  const keys = new Map<string, ContextPlan | null>([...[...hidden].map((k): [string, null] => [k, null]), ...nested])
  return { hidden, nested, keys, items, hasProperties: properties !== undefined, inert }
}

/** `data` as `plan` shows it: a new object where something is dropped below it, else `data` itself. */
export function applyContext (data: unknown, plan: ContextPlan): unknown {
  if (plan.inert || typeof data !== 'object' || data === null) return data
  if (Array.isArray(data)) {
    // An array is filtered by its items' schema (a schema given for the items themselves when it is not an array's).
    const itemPlan = plan.items ?? plan
    return itemPlan.inert ? data : data.map((item) => applyContext(item, itemPlan))
  }
  if (!plan.hasProperties) return data
  return copyInContext(data as Record<string, unknown>, plan)
}

/**
 * A new object of `source`'s keys in its order, as `plan` shows them (all
 * of them without a plan), `omit` left out: one copy where filtering and
 * then copying the item would make two.
 */
export function copyInContext (source: Record<string, unknown>, plan: ContextPlan | undefined, omit?: string): Record<string, unknown> {
  const filtering = plan !== undefined && plan.hasProperties && !plan.inert
  const names = Object.keys(source)
  // Past DICTIONARY_AFTER keys, gathered first and set on a template (below).
  const many = names.length > DICTIONARY_AFTER
  const keys: string[] = []
  const values: unknown[] = []
  const out: Record<string, unknown> = {}
  for (const key of names) {
    if (key === omit) continue
    let value: unknown
    if (!filtering) value = source[key]
    else {
      const sub = plan.keys.get(key)
      if (sub === null) continue
      value = sub === undefined ? source[key] : applyContext(source[key], sub)
    }
    if (!many) out[key] = value
    else {
      keys.push(key)
      values.push(value)
    }
  }
  return many ? objectOf(keys, values, plan ?? NO_PLAN) : out
}

/**
 * Keys set one by one under computed names make V8 keep an object as a
 * dictionary once it has more than 16 of them (4 in the object, 12 beside
 * it): slower to fill, to walk and to serialize (a post has 25; a 10-post
 * page of them took 1.4x as long to JSON.stringify, docs/benchmarks.md).
 * Such a copy is made from a template instead: an object of the same keys
 * in the same order, made once (by JSON.parse, whose objects V8 keeps in
 * fast mode), spread and filled. The same keys, order and values.
 */
const DICTIONARY_AFTER = 16

/** Templates by the plan they were made for (`NO_PLAN` without one); a few key lists each, the first met. */
const templates = new WeakMap<object, Array<{ keys: string[], object: Record<string, unknown> }>>()
const NO_PLAN = {}
const TEMPLATES_PER_PLAN = 16

function objectOf (keys: string[], values: unknown[], owner: object): Record<string, unknown> {
  const template = keys.length > DICTIONARY_AFTER ? templateOf(keys, owner) : undefined
  if (template !== undefined) {
    const out = { ...template }
    for (let i = 0; i < keys.length; i++) out[keys[i]!] = values[i]
    return out
  }
  const out: Record<string, unknown> = {}
  for (let i = 0; i < keys.length; i++) out[keys[i]!] = values[i]
  return out
}

function templateOf (keys: string[], owner: object): Record<string, unknown> | undefined {
  let known = templates.get(owner)
  if (known === undefined) {
    known = []
    templates.set(owner, known)
  }
  for (const t of known) if (sameKeys(t.keys, keys)) return t.object
  // `__proto__` set on a plain object is its prototype, not a key: such a copy is made key by key, as before.
  if (known.length >= TEMPLATES_PER_PLAN || keys.includes('__proto__')) return undefined
  const object = JSON.parse(`{${keys.map((k) => `${JSON.stringify(k)}:0`).join(',')}}`) as Record<string, unknown>
  known.push({ keys: [...keys], object })
  return object
}

function sameKeys (a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export function filterByContext (data: unknown, schema: JsonSchema, context: string): unknown {
  return applyContext(data, contextPlan(schema, context))
}

/** The union of every `context` list in a schema, sorted descending: `view, embed, edit`. */
export function contextsOf (schema: JsonSchema): string[] {
  const found = new Set<string>()
  const walk = (s: JsonSchema): void => {
    if (Array.isArray(s.context)) for (const c of s.context) found.add(c)
    for (const child of Object.values((s.properties ?? {}) as Record<string, JsonSchema>)) walk(child)
    if (s.items !== undefined && typeof s.items === 'object') walk(s.items)
  }
  walk(schema)
  return [...found].sort().reverse()
}
