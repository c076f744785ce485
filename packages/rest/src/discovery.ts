/**
 * The discovery index (`GET /`, namespace roots, OPTIONS) derived from the
 * route declarations, in the core's format: arguments keep only the schema
 * keywords the core shows, followed by `required`; routes without variables
 * link to themselves. Schema properties a package contributed (post meta,
 * registered fields) carry its name under {@link CONTRIBUTED_BY}: left out
 * while that package's contributions are off, the keyword itself never shown.
 */
import { argsOf } from './arg-marks.js'
import { patternOf } from './route-path.js'
import type { RouteDecl } from './route.js'
import { restUrl } from './links.js'
import type { JsonSchema } from './schema.js'

const ARG_KEYS = [
  'title', 'description', 'default', 'type', 'format', 'enum', 'items', 'properties',
  'additionalProperties', 'patternProperties', 'minProperties', 'maxProperties', 'minimum',
  'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength',
  'pattern', 'minItems', 'maxItems', 'uniqueItems', 'anyOf', 'oneOf'
] as const

/**
 * The keyword naming the package that contributed a schema property (a meta
 * key, a registered field): the property leaves what the kernel shows while
 * the package's name is in the activation's off set (`KernelOptions.activation`).
 */
export const CONTRIBUTED_BY = 'x-cms-package'

const NONE: ReadonlySet<string> = new Set()

/** Whether `schema` is a property contributed by a package whose contributions are off. */
export function contributedByOff (schema: unknown, off: ReadonlySet<string>): boolean {
  if (off.size === 0 || typeof schema !== 'object' || schema === null) return false
  const owner = (schema as Record<string, unknown>)[CONTRIBUTED_BY]
  return typeof owner === 'string' && off.has(owner)
}

/**
 * A nested schema as the core writes it: `required: true` on properties
 * instead of a list; properties contributed by packages in `off` left out.
 */
export function plainSchema (schema: JsonSchema, off: ReadonlySet<string> = NONE): JsonSchema {
  if (Array.isArray(schema)) return schema.map((s) => plainSchema(s, off))
  if (typeof schema !== 'object' || schema === null) return schema
  const out: JsonSchema = {}
  const requiredList: string[] = Array.isArray(schema.required) ? schema.required : []
  for (const [key, value] of Object.entries(schema)) {
    if (key === CONTRIBUTED_BY || (key === 'required' && Array.isArray(value))) continue
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      const props: JsonSchema = {}
      for (const [name, sub] of Object.entries(value as Record<string, JsonSchema>)) {
        if (contributedByOff(sub, off)) continue
        const plain = plainSchema(sub, off)
        props[name] = requiredList.includes(name) ? { ...plain, required: true } : plain
      }
      out.properties = Object.keys(props).length === 0 ? [] : props
      continue
    }
    out[key] = typeof value === 'object' && value !== null ? plainSchema(value, off) : value
  }
  return out
}

export function argDescriptor (schema: JsonSchema, required: boolean, off: ReadonlySet<string> = NONE): JsonSchema {
  const out: JsonSchema = {}
  for (const key of ARG_KEYS) {
    if (schema[key] === undefined) continue
    const value = schema[key]
    // An object argument's `required` list marks its properties (it sits beside them, not inside).
    if (key === 'properties') out.properties = plainSchema({ properties: value, required: schema.required }, off).properties
    else out[key] = typeof value === 'object' && value !== null ? plainSchema(value, off) : value
  }
  out.required = required
  return out
}

export interface EntryOptions {
  baseUrl: string
  /** `context=help` and OPTIONS add the item schema. */
  help?: boolean
  /** The activation's off set (`Registry.off`): contributed properties of the packages it names are left out. */
  off?: ReadonlySet<string>
}

export function routeEntry (decl: RouteDecl, { baseUrl, help = false, off = NONE }: EntryOptions): Record<string, unknown> {
  const endpoints = decl.endpoints.map((ep) => {
    const args = argsOf(ep).filter((a) => a.listed && !contributedByOff(a.schema, off))
    const entry: Record<string, unknown> = { methods: [...ep.methods] }
    const batch = ep.allowBatch ?? decl.allowBatch
    if (batch === true) entry.allow_batch = { v1: true }
    entry.args = args.length === 0
      ? []
      : Object.fromEntries(args.map((a) => [a.name, argDescriptor(a.schema, a.required, off)]))
    return entry
  })
  const entry: Record<string, unknown> = {
    namespace: decl.namespace,
    methods: decl.endpoints.flatMap((ep) => ep.methods),
    endpoints
  }
  if (help && decl.schema !== undefined) entry.schema = plainSchema(decl.schema, off)
  if (!decl.path.includes('{')) entry._links = { self: [{ href: restUrl(baseUrl, decl.path) }] }
  return entry
}

export function routesIndex (routes: RouteDecl[], options: EntryOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const decl of routes) out[patternOf(decl)] = routeEntry(decl, options)
  return out
}
