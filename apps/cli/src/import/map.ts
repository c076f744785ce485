/**
 * The id map (table `import_map`, schema.ts; migrations/): per source site, what
 * each source record became here and the checksum of the record then.
 * Queries are SQL text with quoted literals (the command line has no query
 * builder of its own): `literal` quotes as PostgreSQL's quote_literal does.
 */
import { fileURLToPath } from 'node:url'
import type { MigrationSet, Queryable, Store } from '@cms/store'

export const importMigrations: MigrationSet = { name: '@cms/import', folder: fileURLToPath(new URL('../../migrations', import.meta.url)) }

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

/** A row to write (`put`), kept until the batch writes them all. */
interface Staged { kind: string, key: string, newId: number, checksum: string, sourceUrl?: string, newUrl?: string, pending?: Pending }

const keyOf = (kind: string, key: string): string => `${kind}\u0000${key}`

/**
 * The id map of one source site. Within a batch it answers from what it has
 * read or been given (`known`: a row, or null for a key it knows is not
 * there) and keeps the rows put (`staged`) until `flush` writes them in one
 * statement: a record costs no query of its own for the records it refers
 * to once `lookup` has read them for the whole batch. `forget` drops both
 * when the batch ends, so memory holds one batch's rows.
 */
export class IdMap {
  private readonly known = new Map<string, Mapped | null>()
  private staged: Staged[] = []

  constructor (private readonly source: string, private readonly run: Run) {}

  /** The rows of these keys of one kind (one query for those not known yet), by key. */
  async lookup (kind: string, keys: readonly string[]): Promise<Map<string, Mapped>> {
    const out = new Map<string, Mapped>()
    const unknown: string[] = []
    for (const key of new Set(keys)) {
      const hit = this.known.get(keyOf(kind, key))
      if (hit === undefined) unknown.push(key)
      else if (hit !== null) out.set(key, hit)
    }
    if (unknown.length === 0) return out
    const rows = await this.run<Row>(`select kind, source_key, new_id, checksum, new_url, pending from import_map where source = ${literal(this.source)} and kind = ${literal(kind)} and source_key in ${list(unknown)}`)
    for (const r of rows) out.set(r.source_key, rowOf(r))
    for (const key of unknown) this.known.set(keyOf(kind, key), out.get(key) ?? null)
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

  /** Rows whose source URL is one of `urls` (posts and attachments), by URL: those put in this batch, then the table's. */
  async byUrl (urls: readonly string[]): Promise<Map<string, Mapped>> {
    const out = new Map<string, Mapped>()
    const wanted = new Set(urls)
    for (const row of this.staged) {
      if (row.sourceUrl !== undefined && wanted.has(row.sourceUrl)) out.set(row.sourceUrl, mappedOf(row))
    }
    const rest = [...wanted].filter((u) => !out.has(u))
    if (rest.length === 0) return out
    const rows = await this.run<Row & { source_url: string }>(`select kind, source_key, new_id, checksum, new_url, pending, source_url from import_map where source = ${literal(this.source)} and source_url in ${list(rest)}`)
    for (const r of rows) out.set(r.source_url, rowOf(r))
    return out
  }

  /** Keeps a row for `flush` (checked now: a text the table cannot hold fails its record, not the batch). */
  put (row: Staged): void {
    for (const v of [row.kind, row.key, row.checksum, row.sourceUrl ?? '', row.newUrl ?? '']) literal(v)
    this.staged.push(row)
    this.known.set(keyOf(row.kind, row.key), mappedOf(row))
  }

  /** Where the rows put so far end: a record that fails after putting rows takes them back with `undo`. */
  mark (): number {
    return this.staged.length
  }

  undo (mark: number): void {
    for (const row of this.staged.splice(mark)) this.known.delete(keyOf(row.kind, row.key))
  }

  /** Writes the rows put (one statement), in the batch's transaction. */
  async flush (): Promise<void> {
    // The last row of a key wins (a record put twice in a batch).
    const rows = [...new Map(this.staged.map((r) => [keyOf(r.kind, r.key), r])).values()]
    this.staged = []
    if (rows.length === 0) return
    const url = (v: string | undefined): string => v === undefined ? 'NULL' : literal(v)
    const values = rows.map((r) => `(${literal(this.source)}, ${literal(r.kind)}, ${literal(r.key)}, ${Math.trunc(r.newId)}, ${literal(r.checksum)}, ${url(r.sourceUrl)}, ${url(r.newUrl)}, ${pendingOf(r.pending)})`)
    await this.run(`insert into import_map (source, kind, source_key, new_id, checksum, source_url, new_url, pending) values ${values.join(', ')}
      on conflict (source, kind, source_key) do update set new_id = excluded.new_id, checksum = excluded.checksum, source_url = excluded.source_url, new_url = excluded.new_url, pending = excluded.pending, updated_at = now()`)
  }

  /** Drops what this batch knew (its end, committed or rolled back). */
  forget (): void {
    this.known.clear()
    this.staged = []
  }

  async clearPending (kind: string, key: string): Promise<void> {
    await this.run(`update import_map set pending = NULL where source = ${literal(this.source)} and kind = ${literal(kind)} and source_key = ${literal(key)}`)
    const hit = this.known.get(keyOf(kind, key))
    if (hit != null) hit.pending = null
  }

  /** Rows with unresolved references, `limit` at a time after `afterKey` (keyset). */
  async pendingAfter (afterKey: string, limit: number): Promise<Mapped[]> {
    const rows = await this.run<Row>(`select kind, source_key, new_id, checksum, new_url, pending from import_map where source = ${literal(this.source)} and kind = 'post' and pending is not null and source_key > ${literal(afterKey)} order by source_key limit ${Math.trunc(limit)}`)
    return rows.map(rowOf)
  }
}

function pendingOf (pending: Pending | undefined): string {
  return pending === undefined || Object.keys(pending).length === 0 ? 'NULL' : `${literal(JSON.stringify(pending))}::jsonb`
}

function mappedOf (r: Staged): Mapped {
  return { kind: r.kind, key: r.key, newId: r.newId, checksum: r.checksum, newUrl: r.newUrl ?? null, pending: r.pending === undefined || Object.keys(r.pending).length === 0 ? null : r.pending }
}
