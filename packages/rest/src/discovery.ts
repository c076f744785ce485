/**
 * The discovery index (`GET /`, namespace roots, OPTIONS) derived from the
 * route declarations, in the core's format: arguments keep only the schema
 * keywords the core shows, followed by `required`; routes without variables
 * link to themselves.
 */
import { argsOf, patternOf, type RouteDecl } from './route.js'
import { restUrl } from './links.js'
import type { JsonSchema } from './schema.js'

const ARG_KEYS = [
  'title', 'description', 'default', 'type', 'format', 'enum', 'items', 'properties',
  'additionalProperties', 'patternProperties', 'minProperties', 'maxProperties', 'minimum',
  'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength',
  'pattern', 'minItems', 'maxItems', 'uniqueItems', 'anyOf', 'oneOf'
] as const

/** A nested schema as the core writes it: `required: true` on properties instead of a list. */
export function plainSchema (schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema)) return schema.map(plainSchema)
  if (typeof schema !== 'object' || schema === null) return schema
  const out: JsonSchema = {}
  const requiredList: string[] = Array.isArray(schema.required) ? schema.required : []
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'required' && Array.isArray(value)) continue
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      const props: JsonSchema = {}
      for (const [name, sub] of Object.entries(value as Record<string, JsonSchema>)) {
        const plain = plainSchema(sub)
        props[name] = requiredList.includes(name) ? { ...plain, required: true } : plain
      }
      out.properties = Object.keys(props).length === 0 ? [] : props
      continue
    }
    out[key] = typeof value === 'object' && value !== null ? plainSchema(value) : value
  }
  return out
}

export function argDescriptor (schema: JsonSchema, required: boolean): JsonSchema {
  const out: JsonSchema = {}
  for (const key of ARG_KEYS) {
    if (schema[key] === undefined) continue
    const value = schema[key]
    // An object argument's `required` list marks its properties (it sits beside them, not inside).
    if (key === 'properties') out.properties = plainSchema({ properties: value, required: schema.required }).properties
    else out[key] = typeof value === 'object' && value !== null ? plainSchema(value) : value
  }
  out.required = required
  return out
}

export interface EntryOptions {
  baseUrl: string
  /** `context=help` and OPTIONS add the item schema. */
  help?: boolean
}

export function routeEntry (decl: RouteDecl, { baseUrl, help = false }: EntryOptions): Record<string, unknown> {
  const endpoints = decl.endpoints.map((ep) => {
    const args = argsOf(ep).filter((a) => a.listed)
    const entry: Record<string, unknown> = { methods: [...ep.methods] }
    const batch = ep.allowBatch ?? decl.allowBatch
    if (batch === true) entry.allow_batch = { v1: true }
    entry.args = args.length === 0
      ? []
      : Object.fromEntries(args.map((a) => [a.name, argDescriptor(a.schema, a.required)]))
    return entry
  })
  const entry: Record<string, unknown> = {
    namespace: decl.namespace,
    methods: decl.endpoints.flatMap((ep) => ep.methods),
    endpoints
  }
  if (help && decl.schema !== undefined) entry.schema = plainSchema(decl.schema)
  if (!decl.path.includes('{')) entry._links = { self: [{ href: restUrl(baseUrl, decl.path) }] }
  return entry
}

export function routesIndex (routes: RouteDecl[], options: EntryOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const decl of routes) out[patternOf(decl)] = routeEntry(decl, options)
  return out
}
