/**
 * A kept statement's rows, mapped to objects as drizzle's `mapResultRow`
 * maps them, with the per-column decisions taken once per statement instead
 * of once per value: which decoder a column has (drizzle asks `is(field,
 * Column)`, then `SQL`, then `Subquery` for every value of every row; for a
 * field that is not a column each answer walks its class chain) and which
 * table it belongs to for a left join's nulls.
 */
import { Column, getTableName, is, SQL, Subquery } from 'drizzle-orm'

/** One selected field as drizzle's prepared query lists it (`orderSelectedFields`). */
export interface SelectedField { path: string[], field: unknown }

interface Decoder { mapFromDriverValue: (value: unknown) => unknown }

interface Planned {
  path: string[]
  last: string
  decoder: Decoder
  /** The column's table, for the nulls of a left-joined table (only with a join map, for `{ table: { column } }` paths). */
  table: string | undefined
}

function decoderOf (field: unknown): { decoder: Decoder, column: Column | undefined } {
  if (is(field, Column)) return { decoder: field as unknown as Decoder, column: field }
  if (is(field, SQL)) return { decoder: (field as unknown as { decoder: Decoder }).decoder, column: undefined }
  if (is(field, Subquery)) return { decoder: (field as unknown as { _: { sql: { decoder: Decoder } } })._.sql.decoder, column: undefined }
  return { decoder: (field as { sql: { decoder: Decoder } }).sql.decoder, column: undefined }
}

/**
 * The mapper of one statement's rows (in array mode): the same objects, the
 * same values and the same nulled left-joined tables as `mapResultRow`.
 */
export function compiledRowMapper (fields: readonly SelectedField[], joinsNotNullableMap: Record<string, boolean> | undefined): (rows: unknown[][]) => Array<Record<string, unknown>> {
  const plan: Planned[] = fields.map(({ path, field }) => {
    const { decoder, column } = decoderOf(field)
    return {
      path,
      last: path[path.length - 1]!,
      decoder,
      table: joinsNotNullableMap !== undefined && column !== undefined && path.length === 2 ? getTableName(column.table) : undefined
    }
  })
  const nulls = joinsNotNullableMap !== undefined && plan.some((p) => p.table !== undefined)
  const mapRow = (row: unknown[]): Record<string, unknown> => {
    const result: Record<string, unknown> = {}
    const nullify: Record<string, string | false> | undefined = nulls ? {} : undefined
    for (let i = 0; i < plan.length; i++) {
      const p = plan[i]!
      let node = result
      for (let j = 0; j < p.path.length - 1; j++) {
        const chunk = p.path[j]!
        if (!(chunk in node)) node[chunk] = {}
        node = node[chunk] as Record<string, unknown>
      }
      const raw = row[i]
      const value = node[p.last] = raw === null ? null : p.decoder.mapFromDriverValue(raw)
      if (nullify !== undefined && p.table !== undefined) {
        const objectName = p.path[0]!
        if (!(objectName in nullify)) nullify[objectName] = value === null ? p.table : false
        else if (typeof nullify[objectName] === 'string' && nullify[objectName] !== p.table) nullify[objectName] = false
      }
    }
    if (nullify !== undefined) {
      for (const objectName in nullify) {
        const table = nullify[objectName]
        if (typeof table === 'string' && joinsNotNullableMap?.[table] !== true) result[objectName] = null
      }
    }
    return result
  }
  return (rows) => rows.map(mapRow)
}
