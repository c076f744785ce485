/**
 * Column types shared by the schema files of all packages
 * (`import { jsonb } from '@cms/store/columns'`).
 */
import { customType } from 'drizzle-orm/pg-core'

/**
 * A value whose JSON text is already made, off the request thread: the
 * `jsonb` column writes the text as it is. Builder data of 1.9 MB was
 * written as JSON (`JSON.stringify` of the value) on the request thread in
 * one task (issue 27); the text pool, which filtered it, writes its JSON
 * text too (core text/json-strings.ts). `json` must be one JSON value.
 */
export class JsonText {
  constructor (readonly json: string) {}
}

/**
 * A `jsonb` column that round-trips every JSON value. Use it instead of
 * drizzle's own `jsonb`, which parses a string value read back a second time
 * (both `pg` and PGlite already return parsed JSON), so the string "null"
 * comes back as null and "123" as 123. A `JsonText` is written as its text.
 *
 *   settings: jsonb().$type<Settings>().notNull()
 */
export const jsonb = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => 'jsonb',
  toDriver: (value) => value instanceof JsonText ? value.json : JSON.stringify(value),
  fromDriver: (value) => value
})
