/**
 * Schema normalisation of the kernel's validator: every declared schema node
 * read once into the form the validator and sanitizer walk (TypeBox /
 * draft-6 keywords mapped onto the core's), and the lookups both make in it.
 */
import type { JsonSchema } from './schema.js'
import { hasOwn, isPlainObject, isset, MAX_DEPTH } from './php.js'
import { matchesPattern } from './patterns.js'

const SIMPLE_BRANCH_KEYS = new Set(['type', 'const', 'title', 'description', '$id', 'examples', 'default'])

/**
 * A shallow copy of the schema with:
 * - `const` read as a one-value `enum`;
 * - an `anyOf` whose branches are only literals (`{const, type?}`) and/or bare
 *   types (`{type}`) replaced by the equivalent `enum`/`type` keywords when the
 *   parent has neither (TypeBox Union of Literals, Enum, nullable unions).
 *   Unions of literals plus a bare `null` become an enum that includes null.
 */
export function normalizeSchema (schema: unknown): JsonSchema {
  if (!isPlainObject(schema)) return EMPTY_SCHEMA
  let args = normalized.get(schema)
  if (args === undefined) {
    args = normalizeOnce(schema)
    normalized.set(schema, args)
  }
  return args
}

/**
 * Normalized schemas by declared schema: every schema node is normalized once
 * (the first request, or `compileSchema` at registration), never per value.
 * Declared schemas are not changed after registration; the normalized copies
 * are shared, so callers never change them either (they copy to narrow `type`).
 */
const normalized = new WeakMap<object, JsonSchema>()
const EMPTY_SCHEMA: JsonSchema = Object.freeze({}) as JsonSchema

function normalizeOnce (schema: Record<string, unknown>): JsonSchema {
  const args: JsonSchema = { ...schema }
  if (hasOwn(args, 'const') && !Array.isArray(args.enum)) args.enum = [args.const]

  const branches = args.anyOf
  if (Array.isArray(branches) && branches.length > 0 && !isset(args.type) && !Array.isArray(args.enum) &&
      branches.every((b) => isPlainObject(b) && Object.keys(b).every((k) => SIMPLE_BRANCH_KEYS.has(k)) &&
        (hasOwn(b, 'const') || typeof b.type === 'string'))) {
    const literals = branches.filter((b) => hasOwn(b, 'const'))
    const bare = branches.filter((b) => !hasOwn(b, 'const'))
    const types: string[] = []
    let typed = true
    for (const b of branches) {
      if (typeof b.type === 'string') {
        if (!types.includes(b.type)) types.push(b.type)
      } else {
        typed = false
      }
    }
    let collapse = false
    if (literals.length === 0) {
      collapse = true
    } else if (bare.every((b) => b.type === 'null')) {
      args.enum = [...literals.map((b) => b.const), ...(bare.length > 0 ? [null] : [])]
      collapse = true
    }
    if (collapse) {
      delete args.anyOf
      if (typed) args.type = types.length === 1 ? types[0] : types
    }
  }
  return args
}

/**
 * Normalizes a declared schema and every schema inside it, once (at
 * registration): requests then find each node ready.
 */
export function compileSchema (schema: unknown, depth = 0): void {
  if (!isPlainObject(schema) || depth > MAX_DEPTH) return
  const args = normalizeSchema(schema)
  const children: unknown[] = [args.items, args.additionalProperties]
  if (isPlainObject(args.properties)) children.push(...Object.values(args.properties))
  if (isPlainObject(args.patternProperties)) children.push(...Object.values(args.patternProperties))
  for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(args[key])) children.push(...(args[key] as unknown[]))
  for (const child of children) compileSchema(child, depth + 1)
}

/** A branch of anyOf/oneOf with the parent's type when it has none (copies made once per branch and type). */
export function withInheritedType (sub: unknown, args: JsonSchema): JsonSchema {
  if (!isPlainObject(sub)) return isset(args.type) ? { type: args.type } : {}
  if (isset(sub.type) || !isset(args.type)) return sub
  let byType = inherited.get(sub)
  if (byType === undefined) {
    byType = new Map()
    inherited.set(sub, byType)
  }
  const key = JSON.stringify(args.type)
  let schema = byType.get(key)
  if (schema === undefined) {
    schema = { ...sub, type: args.type }
    byType.set(key, schema)
  }
  return schema
}

const inherited = new WeakMap<object, Map<string, JsonSchema>>()

/**
 * True when no member of an object value can have a schema of its own or be
 * refused (no `properties`, `patternProperties`, or `additionalProperties`
 * that is `false` or a schema): validating and sanitizing it need not visit
 * its members. A builder's element tree of tens of thousands of members took
 * 40-80 ms of the request thread in one piece to be walked for nothing
 * (issue 27).
 */
export function membersOpen (args: JsonSchema): boolean {
  const { properties, patternProperties, additionalProperties } = args
  if (isPlainObject(properties) && Object.keys(properties).length > 0) return false
  if (isPlainObject(patternProperties) && Object.keys(patternProperties).length > 0) return false
  return additionalProperties !== false && !isPlainObject(additionalProperties)
}

/** The schema of `property` among patternProperties, or null. */
export function patternPropertySchema (property: string, args: JsonSchema): unknown {
  if (isPlainObject(args.patternProperties)) {
    for (const [pattern, child] of Object.entries(args.patternProperties)) {
      if (matchesPattern(pattern, property)) return child
    }
  }
  return null
}

export function propertySchema (args: JsonSchema, property: string): unknown {
  const props = args.properties
  if (isPlainObject(props) && hasOwn(props, property) && isset(props[property])) return props[property]
  return undefined
}

/** `memberSchema`: no schema describes the member (it is kept as it is). */
export const UNDESCRIBED = Symbol('undescribed')
/** `memberSchema`: `additionalProperties: false` forbids the member. */
export const FORBIDDEN = Symbol('forbidden')

/**
 * The schema an object's member is checked against, in the core's order:
 * its property's, else the first matching pattern's, else an
 * `additionalProperties` schema; or FORBIDDEN, or UNDESCRIBED.
 */
export function memberSchema (args: JsonSchema, property: string): unknown {
  const ps = propertySchema(args, property)
  if (ps !== undefined) return ps
  const pp = patternPropertySchema(property, args)
  if (pp !== null) return pp
  if (args.additionalProperties === false) return FORBIDDEN
  return isPlainObject(args.additionalProperties) ? args.additionalProperties : UNDESCRIBED
}
