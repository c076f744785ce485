/**
 * How the store reads the epochs (`cms_epochs`, the core's migration 0013:
 * a value per kind of change, renewed by triggers in the transaction of
 * each such change): one JSON object column beside whatever else a
 * statement reads. Used by the commit horizon's snapshot (db.ts) and by a
 * shared transaction's items (joined.ts).
 */

/** The epochs as one column: `json_object_agg(name, value)`, null without rows. */
export const EPOCHS_COLUMN = '(select json_object_agg(name, value::text) from cms_epochs)'

/** The column's value as a record (the drivers answer JSON parsed or as text). */
export function epochsOf (value: unknown): Record<string, string> {
  return (typeof value === 'string' ? JSON.parse(value) : value ?? {}) as Record<string, string>
}

/** @internal Where a store says whether its database has the epochs table, once a snapshot found out (db.ts). */
export const epochsKnownKey: unique symbol = Symbol.for('@cms/store.epochsKnown')

/**
 * Whether the store's database has the epochs table: true or false once a
 * snapshot read found out (and migrations ran since none did), undefined
 * before (the caller asks a snapshot).
 */
export function epochsKnown (store: object): boolean | undefined {
  return (store as { [epochsKnownKey]?: () => boolean | undefined })[epochsKnownKey]?.()
}
