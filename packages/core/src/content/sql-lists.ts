/**
 * A list a request names (ids, slugs) as one array parameter of a
 * statement, `column = any($n::type[])`, not `in ($1, …, $n)`: drizzle
 * builds each parameter of an `inArray` with a walk of its own
 * (`buildQueryFromSourceParams`, `is`, `prepareTyping`), 13-24 ms of the
 * request thread for the hundreds of ids a 6,000-character query string
 * holds (issue 27). The same rows: an empty list is never passed (the
 * callers leave the condition out), and no list holds a null.
 */
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm'

/** `column = any(values)`: the column's value is one of `values` (integers or texts). */
export function anyOf (column: SQLWrapper, values: readonly number[] | readonly string[], type: 'int' | 'text'): SQL {
  return sql`${column} = any(${sql.param([...values])}::${sql.raw(type)}[])`
}

/** `not (column = any(values))`: `notInArray`'s rows (a null column matches neither). */
export function noneOf (column: SQLWrapper, values: readonly number[] | readonly string[], type: 'int' | 'text'): SQL {
  return sql`not (${anyOf(column, values, type)})`
}
