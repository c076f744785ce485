/**
 * Column types shared by the schema files of all packages
 * (`import { jsonb } from '@cms/store/columns'`).
 */
import { customType } from 'drizzle-orm/pg-core'

/**
 * A `jsonb` column that round-trips every JSON value. Use it instead of
 * drizzle's own `jsonb`, which parses a string value read back a second time
 * (both `pg` and PGlite already return parsed JSON), so the string "null"
 * comes back as null and "123" as 123.
 *
 *   settings: jsonb().$type<Settings>().notNull()
 */
export const jsonb = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => 'jsonb',
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => value,
})
