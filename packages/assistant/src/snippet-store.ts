/**
 * Snippets and their files in the store (schema.ts). A save merges files
 * by name into the `dev` set; publishing copies `dev` to `prod`; the
 * deployment status is derived from the two sets' revisions (§3.2), in SQL
 * so a list filters by it. Every write touching several rows is one
 * transaction.
 */
import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { Store, Tx } from '@cms/store'
import { assistantErrors } from './errors.js'
import { assistantSnippetFiles as files, assistantSnippets as snippets } from './schema.js'
import type { SnippetFile } from './file-rules.js'

export const SNIPPET_TYPES = ['code-snippet', 'builder-widget', 'editor-block', 'popup', 'form', 'visual-app'] as const
export const DEPLOYMENT_STATUSES = ['not-deployed', 'test-only', 'changes-pending', 'deployed'] as const
export type DeploymentStatus = typeof DEPLOYMENT_STATUSES[number]
export const ARTIFACT_ID = /^[a-f0-9-]{1,64}$/

export type SnippetRow = typeof snippets.$inferSelect
export interface FileInfo { name: string, size: number, content?: string, modified: string }

const deploymentStatus: SQL<DeploymentStatus> = sql<DeploymentStatus>`case
  when ${snippets.devRev} = 0 and ${snippets.prodRev} = 0 then 'not-deployed'
  when ${snippets.prodRev} = 0 then 'test-only'
  when ${snippets.devRev} > ${snippets.prodRev} then 'changes-pending'
  else 'deployed' end`

/** `2025-05-01 10:00:00` (UTC), the product's date format. */
export function sqlDate (d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ')
}

/** The title as a slug (lowercase words joined by `-`), else `snippet-<id>`. */
export function slugOf (title: string, id: number): string {
  const slug = title.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 200)
  return slug === '' ? `snippet-${id}` : slug
}

function isUniqueViolation (err: unknown): boolean {
  for (let e: any = err; e !== undefined && e !== null; e = e.cause) if (e.code === '23505') return true
  return false
}

/** Ids past the column's range name no snippet: `404 snippet_not_found`, as any unknown id (not a 400 from the database). */
function knownId (id: number): number {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) throw assistantErrors.snippet_not_found()
  return id
}

export function snippetStore (services: { readonly store: Store }) {
  async function lockedRow (tx: Tx, id: number): Promise<SnippetRow> {
    const [row] = await tx.select().from(snippets).where(eq(snippets.id, knownId(id))).for('update')
    if (row === undefined) throw assistantErrors.snippet_not_found()
    return row
  }

  return {
    async list (filter: { type?: string, statuses?: readonly DeploymentStatus[] }) {
      const where: SQL[] = []
      if (filter.type !== undefined) where.push(eq(snippets.type, filter.type))
      if (filter.statuses !== undefined) where.push(sql`(${deploymentStatus}) in (${sql.join(filter.statuses.map((s) => sql`${s}`), sql`, `)})`)
      const rows = await services.store.db.select({ row: snippets, status: deploymentStatus }).from(snippets).where(and(...where)).orderBy(asc(snippets.title), asc(snippets.id))
      const sizes = rows.length === 0
        ? []
        : await services.store.db.select({ snippetId: files.snippetId, name: files.name, size: files.size }).from(files)
          .where(and(eq(files.env, 'dev'), inArray(files.snippetId, rows.map((r) => r.row.id)))).orderBy(asc(files.snippetId), asc(files.name))
      const byId = new Map<number, Array<{ name: string, size: number }>>()
      for (const f of sizes) {
        const list = byId.get(f.snippetId) ?? []
        list.push({ name: f.name, size: f.size })
        byId.set(f.snippetId, list)
      }
      return rows.map((r) => ({ ...r.row, status: r.status, files: byId.get(r.row.id) ?? [] }))
    },

    async get (id: number): Promise<SnippetRow> {
      const [row] = await services.store.db.select().from(snippets).where(eq(snippets.id, knownId(id)))
      if (row === undefined) throw assistantErrors.snippet_not_found()
      return row
    },

    async byArtifact (artifactId: string): Promise<SnippetRow> {
      const [row] = await services.store.db.select().from(snippets).where(eq(snippets.artifactId, artifactId))
      if (row === undefined) throw assistantErrors.snippet_not_found(undefined, `No snippet found for artifact: ${artifactId}`)
      return row
    },

    async create (input: { title: string, type: string | null, artifactId: string | null, version: number | null, author: number }): Promise<SnippetRow> {
      try {
        const [row] = await services.store.db.insert(snippets).values(input).returning()
        return row!
      } catch (err) {
        if (isUniqueViolation(err)) throw assistantErrors.artifact_snippet_exists()
        throw err
      }
    },

    async remove (id: number): Promise<void> {
      const gone = await services.store.db.delete(snippets).where(eq(snippets.id, knownId(id))).returning({ id: snippets.id })
      if (gone.length === 0) throw assistantErrors.snippet_not_found()
    },

    async rename (id: number, title: string): Promise<void> {
      await services.store.db.update(snippets).set({ title }).where(eq(snippets.id, id))
    },

    /** Links an artifact: the owner only, once, and one snippet per artifact. */
    async link (id: number, artifactId: string, userId: number): Promise<void> {
      try {
        await services.store.transaction(async (tx) => {
          const row = await lockedRow(tx, id)
          if (row.author !== userId) throw assistantErrors.snippet_not_owned()
          if (row.artifactId !== null && row.artifactId !== artifactId) throw assistantErrors.snippet_already_linked()
          await tx.update(snippets).set({ artifactId }).where(eq(snippets.id, id))
        })
      } catch (err) {
        if (isUniqueViolation(err)) throw assistantErrors.artifact_snippet_exists()
        throw err
      }
    },

    /** The names stored in the dev set. */
    async names (id: number): Promise<string[]> {
      const rows = await services.store.db.select({ name: files.name }).from(files).where(and(eq(files.snippetId, id), eq(files.env, 'dev')))
      return rows.map((r) => r.name)
    },

    /** Merges `given` into the dev set by name (nothing removed); sets the type and version when given. Answers the set's size. */
    async save (id: number, given: readonly SnippetFile[], set: { type?: string, version?: number }): Promise<number> {
      return await services.store.transaction(async (tx) => {
        const row = await lockedRow(tx, id)
        const now = new Date()
        for (const f of given) {
          const content = Buffer.from(f.content, 'utf8')
          await tx.insert(files).values({ snippetId: id, env: 'dev', name: f.name, content, size: content.length, modifiedAt: now })
            .onConflictDoUpdate({ target: [files.snippetId, files.env, files.name], set: { content, size: content.length, modifiedAt: now } })
        }
        await tx.update(snippets).set({
          devRev: row.devRev + 1,
          devModified: now,
          ...(set.type === undefined ? {} : { type: set.type }),
          ...(set.version === undefined ? {} : { version: set.version })
        }).where(eq(snippets.id, id))
        const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(files).where(and(eq(files.snippetId, id), eq(files.env, 'dev')))
        return count!.n
      })
    },

    /** Copies the dev set to prod (§3.3 publish); `400 no_files` when there is none. Answers the count. */
    async publish (id: number): Promise<{ row: SnippetRow, files: number }> {
      return await services.store.transaction(async (tx) => {
        const row = await lockedRow(tx, id)
        const now = new Date()
        const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(files).where(and(eq(files.snippetId, id), eq(files.env, 'dev')))
        const n = count!.n
        if (n === 0) throw assistantErrors.no_files()
        await tx.delete(files).where(and(eq(files.snippetId, id), eq(files.env, 'prod')))
        await tx.insert(files).select(tx.select({ snippetId: files.snippetId, env: sql<string>`'prod'`.as('env'), name: files.name, content: files.content, size: files.size, modifiedAt: sql<Date>`${now}`.as('modified_at') })
          .from(files).where(and(eq(files.snippetId, id), eq(files.env, 'dev'))))
        await tx.update(snippets).set({ prodRev: row.devRev, prodModified: now }).where(eq(snippets.id, id))
        return { row, files: n }
      })
    },

    async files (id: number, withContent: boolean): Promise<FileInfo[]> {
      const rows = await services.store.db.select({ name: files.name, size: files.size, modifiedAt: files.modifiedAt, ...(withContent ? { content: files.content } : {}) })
        .from(files).where(and(eq(files.snippetId, id), eq(files.env, 'dev'))).orderBy(asc(files.name))
      return rows.map((r) => ({ name: r.name, size: r.size, modified: sqlDate(r.modifiedAt), ...(withContent ? { content: Buffer.from((r as { content: Uint8Array }).content).toString('utf8') } : {}) }))
    },

    async file (id: number, name: string): Promise<{ name: string, content: string, size: number }> {
      const [row] = await services.store.db.select({ name: files.name, content: files.content, size: files.size }).from(files)
        .where(and(eq(files.snippetId, id), eq(files.env, 'dev'), eq(files.name, name)))
      if (row === undefined) throw assistantErrors.file_not_found()
      return { name: row.name, content: Buffer.from(row.content).toString('utf8'), size: row.size }
    },

    async statusOf (id: number): Promise<DeploymentStatus> {
      const [row] = await services.store.db.select({ status: deploymentStatus }).from(snippets).where(eq(snippets.id, id))
      if (row === undefined) throw assistantErrors.snippet_not_found()
      return row.status
    }
  }
}

export type SnippetStore = ReturnType<typeof snippetStore>
