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
  /** `utf8`: the UTF-8 bytes of `json`, made with it (PostgreSQL is sent them as they are: `Utf8Text`). */
  constructor (readonly json: string, readonly utf8?: Uint8Array) {}
}

/**
 * A text parameter with its UTF-8 bytes, made off the request thread (the
 * text pool): PostgreSQL is sent those bytes, a long one as a write of its
 * own, neither encoded nor copied on the request thread (pg-bind.ts; issue
 * 27). PGlite, which takes parameters in this process, is given the text.
 * For a `text` or `jsonb` parameter alike: it is sent in the text format.
 * `utf8` must be the UTF-8 encoding of `text`.
 *
 *   sql`select ${new Utf8Text(text, bytes)}::text`
 */
export class Utf8Text {
  constructor (readonly text: string, readonly utf8: Uint8Array) {}
  /** What a driver that does not know this class sends (pg's `prepareValue`, PGlite's serializers). */
  toString (): string { return this.text }
  toPostgres (): string { return this.text }
}

/**
 * A `jsonb` column that round-trips every JSON value. Use it instead of
 * drizzle's own `jsonb`, which parses a string value read back a second time
 * (both `pg` and PGlite already return parsed JSON), so the string "null"
 * comes back as null and "123" as 123. A `JsonText` is written as its text
 * (with its UTF-8 bytes, as those: `Utf8Text`).
 *
 *   settings: jsonb().$type<Settings>().notNull()
 */
export const jsonb = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => 'jsonb',
  toDriver: (value) => value instanceof JsonText
    ? (value.utf8 === undefined ? value.json : new Utf8Text(value.json, value.utf8))
    : JSON.stringify(value),
  fromDriver: (value) => value
})
