/**
 * The id map (table `import_map`, migrations/import): per source site, what
 * each source record became here and the checksum of the record then.
 * Queries are SQL text with quoted literals (the command line has no query
 * builder of its own): `literal` quotes as PostgreSQL's quote_literal does.
 */
import { fileURLToPath } from 'node:url'
import type { MigrationSet, Queryable, Store } from '@cms/store'

export const importMigrations: MigrationSet = { name: '@cms/import', folder: fileURLToPath(new URL('../../migrations/import', import.meta.url)) }

/** A string as an SQL literal (E'' when it holds a backslash, so it is right whatever standard_conforming_strings says). */
export function literal (value: string): string {
  if (value.includes('\u0000')) throw new Error('a text with a NUL character')
  const quoted = value.replace(/'/g, "''")
  return value.includes('\\') ? `E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`
}

function list (values: readonly string[]): string {
  return values.length === 0 ? '(NULL)' : `(${values.map(literal).join(', ')})`
}

export interface Mapped {
  kind: string
  key: string
  newId: number
  checksum: string
  newUrl: string | null
  pending: Pending | null
}

/** References a record could not resolve when written. */
export interface Pending {
  parent?: string
  featured?: string
  /** Links in its content to records not imported yet. */
  content?: boolean
  /** Image ids in its content, none rewritten yet. */
  ids?: boolean
  /** The post's type (its route). */
  type?: string
}

/** Runs SQL on the store or on a transaction. */
export type Run = <T extends Record<string, unknown>>(query: string) => Promise<T[]>

export function runOn (target: Store | Queryable): Run {
  if ('transaction' in target && 'kind' in target && 'db' in target) return async (q) => await (target as Store).execute(q)
  return async <T>(q: string) => ((await (target as Queryable).execute(q)) as unknown as { rows: T[] }).rows
}

type Row = { kind: string, source_key: string, new_id: number, checksum: string, new_url: string | null, pending: Pending | null }

const rowOf = (r: Row): Mapped => ({ kind: r.kind, key: r.source_key, newId: Number(r.new_id), checksum: r.checksum, newUrl: r.new_url, pending: r.pending })

export class IdMap {
  constructor (private readonly source: string, private readonly run: Run) {}

  /** The rows of these keys of one kind (one query), by key. */
  async lookup (kind: string, keys: readonly string[]): Promise<Map<string, Mapped>> {
    const out = new Map<string, Mapped>()
    if (keys.length === 0) return out
    const rows = await this.run<Row>(`select kind, source_key, new_id, checksum, new_url, pending from import_map where source = ${literal(this.source)} and kind = ${literal(kind)} and source_key in ${list([...new Set(keys)])}`)
    for (const r of rows) out.set(r.source_key, rowOf(r))
    return out
  }

  /** Whether nothing of this source was imported yet (a dry run then need not look anything up). */
  async isEmpty (): Promise<boolean> {
    const rows = await this.run<{ n: number }>(`select count(*)::int as n from (select 1 from import_map where source = ${literal(this.source)} limit 1) x`)
    return Number(rows[0]?.n ?? 0) === 0
  }

  async get (kind: string, key: string): Promise<Mapped | undefined> {
    return (await this.lookup(kind, [key])).get(key)
  }

  /** Rows whose source URL is one of `urls` (posts and attachments), by URL. */
  async byUrl (urls: readonly string[]): Promise<Map<string, Mapped>> {
    const out = new Map<string, Mapped>()
    if (urls.length === 0) return out
    const rows = await this.run<Row & { source_url: string }>(`select kind, source_key, new_id, checksum, new_url, pending, source_url from import_map where source = ${literal(this.source)} and source_url in ${list([...new Set(urls)])}`)
    for (const r of rows) out.set(r.source_url, rowOf(r))
    return out
  }

  async put (row: { kind: string, key: string, newId: number, checksum: string, sourceUrl?: string, newUrl?: string, pending?: Pending }): Promise<void> {
    const pending = row.pending === undefined || Object.keys(row.pending).length === 0 ? 'NULL' : `${literal(JSON.stringify(row.pending))}::jsonb`
    const url = (v: string | undefined): string => v === undefined ? 'NULL' : literal(v)
    await this.run(`insert into import_map (source, kind, source_key, new_id, checksum, source_url, new_url, pending) values (${literal(this.source)}, ${literal(row.kind)}, ${literal(row.key)}, ${Math.trunc(row.newId)}, ${literal(row.checksum)}, ${url(row.sourceUrl)}, ${url(row.newUrl)}, ${pending})
      on conflict (source, kind, source_key) do update set new_id = excluded.new_id, checksum = excluded.checksum, source_url = excluded.source_url, new_url = excluded.new_url, pending = excluded.pending, updated_at = now()`)
  }

  async clearPending (kind: string, key: string, pending?: Pending): Promise<void> {
    const value = pending === undefined || Object.keys(pending).length === 0 ? 'NULL' : `${literal(JSON.stringify(pending))}::jsonb`
    await this.run(`update import_map set pending = ${value} where source = ${literal(this.source)} and kind = ${literal(kind)} and source_key = ${literal(key)}`)
  }

  /** Rows with unresolved references, `limit` at a time after `afterKey` (keyset). */
  async pendingAfter (afterKey: string, limit: number): Promise<Mapped[]> {
    const rows = await this.run<Row>(`select kind, source_key, new_id, checksum, new_url, pending from import_map where source = ${literal(this.source)} and kind = 'post' and pending is not null and source_key > ${literal(afterKey)} order by source_key limit ${Math.trunc(limit)}`)
    return rows.map(rowOf)
  }
}
