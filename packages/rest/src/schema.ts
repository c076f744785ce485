/**
 * Small TypeBox builders for argument shapes the core uses everywhere, so a
 * namespace writes `Enum([...])` rather than a raw schema.
 */
import { Type, type SchemaOptions, type TSchema, type TUnsafe } from '@sinclair/typebox'

/** A JSON schema object (e.g. produced by @sinclair/typebox). */
export type JsonSchema = Record<string, any>

/** A string limited to the given values; `enum` is shown in the index as the core shows it. */
export function Enum<const T extends readonly string[]> (values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] })
}

/** An untyped argument (the core's `context` on `/`, namespace roots). */
export function Untyped<T = unknown> (options: SchemaOptions = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ ...options })
}

/** `int[]`: also accepts comma lists and `a[]=1&a[]=2`. */
export function IntList (options: SchemaOptions = {}): TUnsafe<number[]> {
  return Type.Unsafe<number[]>({ ...options, type: 'array', items: { type: 'integer' } })
}

export function StringList (options: SchemaOptions = {}, items: SchemaOptions = {}): TUnsafe<string[]> {
  return Type.Unsafe<string[]>({ ...options, type: 'array', items: { ...items, type: 'string' } })
}

/** Any JSON schema written out by hand (multi-type values, oneOf...). */
export function Raw<T = unknown> (schema: Record<string, unknown>): TUnsafe<T> {
  return Type.Unsafe<T>(schema)
}

/** The `context` argument of a resource with the given contexts. */
export function ContextArg (contexts: readonly string[] = ['view', 'embed', 'edit'], def = 'view'): TUnsafe<string> {
  return Type.Unsafe<string>({
    description: 'Scope under which the request is made; determines fields present in response.',
    type: 'string',
    enum: [...contexts],
    default: def
  })
}

export type { TSchema }
