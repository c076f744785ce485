/**
 * PGlite's serializers of parameters, with `Utf8Text` (columns.ts) given as
 * its text. PGlite takes parameters in this process and encodes them
 * itself: it has no use for bytes made elsewhere. Its serializers of most
 * types call a value's `toString`, which is the text; those of `json` and
 * `jsonb` write any value but a string as JSON, so they are wrapped.
 */
import { Utf8Text } from './columns.js'

type Serializer = (value: any) => string

/** `defaults`: PGlite's own (`types.serializers` of `@electric-sql/pglite`, loaded with it). */
export function pgliteSerializers (defaults: Record<number, Serializer>): Record<number, Serializer> {
  const out: Record<number, Serializer> = {}
  for (const oid of [JSON_OID, JSONB_OID]) {
    const own = defaults[oid]
    if (own !== undefined) out[oid] = (value: unknown) => value instanceof Utf8Text ? value.text : own(value)
  }
  return out
}

const JSON_OID = 114
const JSONB_OID = 3802
