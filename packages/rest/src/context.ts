/**
 * `context` filtering: properties whose schema lists contexts that do not
 * include the requested one are removed, recursively.
 */
import type { JsonSchema } from './schema.js'

export function filterByContext (data: unknown, schema: JsonSchema, context: string): unknown {
  if (Array.isArray(data)) {
    const itemSchema = schema.type === 'array' ? schema.items ?? {} : schema
    return data.map((item) => filterByContext(item, itemSchema, context))
  }
  if (typeof data !== 'object' || data === null) return data
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  if (properties === undefined) return data
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data)) {
    const prop = properties[key]
    if (prop === undefined) {
      out[key] = value
      continue
    }
    if (Array.isArray(prop.context) && !prop.context.includes(context)) continue
    out[key] = (typeof value === 'object' && value !== null) ? filterByContext(value, prop, context) : value
  }
  return out
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
