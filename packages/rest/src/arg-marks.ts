/**
 * An endpoint's arguments as the kernel reads them (`argsOf`), and the marks
 * an argument's schema may carry: checked by the handler (`unvalidated`),
 * left out of the index (`unlisted`), a secret never recorded (`secret`).
 */
import { OptionalKind, type TProperties, type TSchema } from '@sinclair/typebox'
import type { JsonSchema } from './schema.js'

export interface ArgInfo {
  name: string
  schema: JsonSchema
  required: boolean
  validate: boolean
  /** Shown in the discovery index (see `unlisted`). */
  listed: boolean
  /** A secret (see `secret`): its value is never kept or shown, only its name. */
  secret: boolean
}

/** Marks a schema with a key of its own: not enumerable, so the index, validation and OpenAPI never see it. */
function mark<T extends TSchema> (schema: T, key: symbol): T {
  Object.defineProperty(schema, key, { value: true, enumerable: false })
  return schema
}

const UNVALIDATED = Symbol.for('cms.rest.unvalidated')

/**
 * An argument the handler checks itself (the core's title, content, meta:
 * a string or an object, nulls that delete). It is still declared and shown
 * with its schema; the kernel passes its value on as sent.
 */
export function unvalidated<T extends TSchema> (schema: T): T {
  return mark(schema, UNVALIDATED)
}

export function isUnvalidated (schema: object): boolean {
  return UNVALIDATED in schema
}

const UNLISTED = Symbol.for('cms.rest.unlisted')

/**
 * An argument the real product reads from the request without declaring it
 * (the reference's route listing does not show it): declared here all the
 * same, so it is validated and reaches the handler (handlers see declared
 * arguments only), documented in the OpenAPI document, and left out of the
 * discovery index, which shows the reference's arguments.
 */
export function unlisted<T extends TSchema> (schema: T): T {
  return mark(schema, UNLISTED)
}

const SECRET = Symbol.for('cms.rest.secret')

/**
 * An argument whose value is a secret (a password, a token, a key): what
 * records requests (the audit log) keeps its name, never its value. The
 * mark is not enumerable, so it changes nothing the index, validation or
 * OpenAPI show; wrap the outermost schema (`secret(Type.Optional(...))`),
 * as TypeBox's modifiers copy a schema without it. An item-schema field
 * marked so stays marked in `argsFromSchema`'s arguments.
 */
export function secret<T extends TSchema> (schema: T): T {
  return mark(schema, SECRET)
}

export function isSecret (schema: object): boolean {
  return SECRET in schema
}

/** The arguments of an endpoint in declaration order, with WordPress' `required` flag. */
export function argsOf (decl: { args?: TProperties }): ArgInfo[] {
  const args = (decl.args ?? {}) as Record<string, TSchema>
  return Object.entries(args).map(([name, schema]) => ({
    name,
    schema: schema as JsonSchema,
    required: !(OptionalKind in schema) && !('default' in schema),
    validate: !isUnvalidated(schema),
    listed: !(UNLISTED in schema),
    secret: isSecret(schema)
  }))
}
