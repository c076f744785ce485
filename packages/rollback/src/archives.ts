/**
 * rollback/v1 archives (seo-rollback-assistant-addons.md §2.5): the zips
 * the backup step makes of an installed version, recorded in
 * `rollback_archives` and kept under `<content dir>/rollback-archives/`.
 *
 *   GET    /archives                the paged list (profile B: `orderby`, `order`)
 *   GET    /archives/{id}/download  the zip, streamed, with a strong ETag and Range
 *   DELETE /archives/{id}           the record and the file
 *
 * Who may: `update_plugins` or `update_themes` (CONVENTIONS §4: the real
 * product's archives permission; download needs a signed-in caller, which
 * both imply).
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { and, asc, count, desc, eq } from 'drizzle-orm'
import { can, checkPage, endpoint, Enum, pagingParams, RestResponse, route, StreamBody, type RelativeRouteDecl, pageHeaders } from '@cms/rest'
import { findUserById } from '@cms/core'
import type { Store } from '@cms/store'
import { Type } from '@sinclair/typebox'
import type { PackageRegistry, PackageType } from '@cms/registry'
import { rollbackErrors } from './errors.js'
import { rollbackArchives } from './schema.js'

/** Archives kept per package by default; the oldest go first (the real product's Pro limit). */
export const KEEP_PER_PACKAGE = 25
export const ARCHIVE_DIR = 'rollback-archives'

export type ArchiveRow = typeof rollbackArchives.$inferSelect

/** §2.1: `update_plugins` or `update_themes` (the real product's archives permission). */
export const mayManageArchives = can(['update_plugins', 'update_themes'], {
  error: rollbackErrors.rest_forbidden,
  message: 'You do not have permission to manage archives.',
  why: '§2.1 archives: update_plugins or update_themes'
})

async function sha256Of (file: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(file), hash)
  return hash.digest('hex')
}

export interface Archives {
  /** The archive of a version, when its file is still there. */
  find: (type: PackageType, slug: string, version: string) => Promise<ArchiveRow | undefined>
  /** The versions of a package whose archive file is still there (each once). */
  versions: (type: PackageType, slug: string) => Promise<string[]>
  /** Zips the installed version (unless an archive of it exists) and records it. */
  backup: (type: PackageType, slug: string, userId: number) => Promise<{ created: boolean, archive: ArchiveRow }>
  pathOf: (row: ArchiveRow) => string
}

/** `keep`: how many archives of one package are kept (the site option `rollback_archives_per_package`). */
const ARCHIVE = Type.Object({
  id: Type.Integer(),
  type: Type.String({ description: 'plugin or theme.' }),
  name: Type.String(),
  slug: Type.String(),
  version: Type.String(),
  user: Type.Object({ id: Type.Integer(), name: Type.String(), avatar_url: Type.Null() }),
  created_at: Type.String({ description: 'UTC, `YYYY-MM-DD HH:MM:SS`.' }),
  file_size: Type.Integer(),
  file_size_formatted: Type.String(),
  file_exists: Type.Boolean(),
  download_url: Type.Union([Type.String(), Type.Null()]),
  asset_name: Type.String()
})

export function archiveStore (store: Store, contentDir: string, registry: PackageRegistry, keep: () => Promise<number> = async () => KEEP_PER_PACKAGE): Archives {
  const pathOf = (row: ArchiveRow): string => join(contentDir, row.file)
  const exists = async (row: ArchiveRow): Promise<boolean> => await stat(pathOf(row)).then((s) => s.isFile(), () => false)
  const archives: Archives = {
    pathOf,
    find: async (type, slug, version) => {
      const rows = await store.db.select().from(rollbackArchives)
        .where(and(eq(rollbackArchives.type, type), eq(rollbackArchives.slug, slug), eq(rollbackArchives.version, version)))
        .orderBy(desc(rollbackArchives.id))
      for (const row of rows) if (await exists(row)) return row
      return undefined
    },
    versions: async (type, slug) => {
      const rows = await store.db.select().from(rollbackArchives)
        .where(and(eq(rollbackArchives.type, type), eq(rollbackArchives.slug, slug)))
      const out = new Set<string>()
      for (const row of rows) if (!out.has(row.version) && await exists(row)) out.add(row.version)
      return [...out]
    },
    backup: async (type, slug, userId) => {
      const installed = await registry.get(type, slug)
      if (installed === null) throw rollbackErrors.asset_not_found({ type, slug })
      const known = await archives.find(type, slug, installed.version)
      if (known !== undefined) return { created: false, archive: known }
      await mkdir(join(contentDir, ARCHIVE_DIR), { recursive: true })
      const file = `${ARCHIVE_DIR}/${slug}-${installed.version}-${Date.now().toString(36)}.zip`
      const { bytes } = await registry.archive(type, slug, join(contentDir, file))
      const [row] = await store.db.insert(rollbackArchives).values({
        type, slug, name: installed.name, version: installed.version, userId, file, fileSize: bytes, sha256: await sha256Of(join(contentDir, file))
      }).returning()
      // At most `keep` archives of one package: the oldest go.
      const old = await store.db.select().from(rollbackArchives)
        .where(and(eq(rollbackArchives.type, type), eq(rollbackArchives.slug, slug)))
        .orderBy(desc(rollbackArchives.id)).offset(await keep())
      for (const o of old) {
        await rm(pathOf(o), { force: true })
        await store.db.delete(rollbackArchives).where(eq(rollbackArchives.id, o.id))
      }
      return { created: true, archive: row! }
    }
  }
  return archives
}

function formatSize (bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = -1
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++ }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]!}`
}

const ORDER_COLUMNS = {
  name: rollbackArchives.name,
  version: rollbackArchives.version,
  user_id: rollbackArchives.userId,
  created_at: rollbackArchives.createdAt,
  file_size: rollbackArchives.fileSize
} as const

/** `Range: bytes=a-b` of a file of `size` bytes: the range, `null` for the whole file, or 'unsatisfiable'. */
function rangeOf (header: unknown, size: number): { start: number, end: number } | null | 'unsatisfiable' {
  if (typeof header !== 'string') return null
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  // Several ranges or another unit: the whole file (allowed by RFC 9110).
  if (m === null || (m[1] === '' && m[2] === '')) return null
  let start: number
  let end: number
  if (m[1] === '') {
    const suffix = Number(m[2])
    if (suffix === 0) return 'unsatisfiable'
    start = Math.max(0, size - suffix)
    end = size - 1
  } else {
    start = Number(m[1])
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  }
  if (start >= size || start > end) return 'unsatisfiable'
  return { start, end }
}

export function archiveRoutes (store: Store, contentDir: string, options: Record<string, unknown>): RelativeRouteDecl[] {
  const sorting = options.archiveSorting === true
  const load = async (id: number): Promise<ArchiveRow> => {
    const [row] = await store.db.select().from(rollbackArchives).where(eq(rollbackArchives.id, id))
    if (row === undefined) throw rollbackErrors.archive_not_found({ id })
    return row
  }
  const listArgs = {
    ...pagingParams(),
    type: Type.Optional(Enum(['plugin', 'theme'], { description: 'Limit results to archives of plugins or of themes.' })),
    ...(sorting
      ? {
          orderby: Enum(['name', 'version', 'user_id', 'created_at', 'file_size'], { default: 'created_at', description: 'Sort the archives by this field.' }),
          order: Enum(['ASC', 'DESC'], { default: 'DESC', description: 'Sort direction.' })
        }
      : {})
  }
  return [
    route({
      path: '/archives',
      endpoints: [endpoint({
        methods: ['GET'],
        args: listArgs,
        summary: 'List the archived versions of plugins and themes',
        response: Type.Object({ items: Type.Array(ARCHIVE), total: Type.Integer(), pages: Type.Integer() }),
        permission: mayManageArchives,
        handler: async (req) => {
          const p = req.params as { page: number, per_page: number, type?: string, orderby?: keyof typeof ORDER_COLUMNS, order?: 'ASC' | 'DESC' }
          const where = p.type === undefined ? undefined : eq(rollbackArchives.type, p.type)
          const [{ n }] = await store.db.select({ n: count() }).from(rollbackArchives).where(where) as [{ n: number }]
          const info = { total: Number(n), perPage: p.per_page, page: p.page }
          checkPage(info, rollbackErrors.rollback_invalid_page_number)
          const column = ORDER_COLUMNS[p.orderby ?? 'created_at']
          const direction = (p.order ?? 'DESC') === 'ASC' ? asc : desc
          const rows = await store.db.select().from(rollbackArchives).where(where)
            .orderBy(direction(column), direction(rollbackArchives.id)).limit(p.per_page).offset((p.page - 1) * p.per_page)
          const items = []
          for (const row of rows) {
            const user = await findUserById(store, row.userId)
            const present = await stat(join(contentDir, row.file)).then((s) => s.isFile(), () => false)
            items.push({
              id: row.id,
              type: row.type,
              name: row.name,
              slug: row.slug,
              version: row.version,
              user: { id: row.userId, name: user?.displayName ?? '', avatar_url: null },
              created_at: row.createdAt.toISOString().slice(0, 19).replace('T', ' '),
              file_size: row.fileSize,
              file_size_formatted: formatSize(row.fileSize),
              file_exists: present,
              download_url: present ? `${req.baseUrl}/index.php?rest_route=/rollback/v1/archives/${row.id}/download` : null,
              asset_name: row.slug
            })
          }
          const pages = Math.ceil(info.total / info.perPage)
          return new RestResponse({ items, total: info.total, pages }, 200, pageHeaders(req, info))
        }
      })]
    }),
    route({
      path: '/archives/{id}/download',
      vars: { id: '[\\d]+' },
      endpoints: [endpoint({
        methods: ['GET'],
        args: { id: Type.Optional(Type.Integer({ description: 'The archive id.' })) },
        summary: 'Download an archived version (a zip)',
        produces: 'application/zip',
        permission: mayManageArchives.because('§2.1 archive download: update_plugins or update_themes, signed in').probing({ vars: { id: '999999' } }),
        handler: async (req) => {
          const row = await load(Number(req.params.id))
          const file = join(contentDir, row.file)
          const size = await stat(file).then((s) => s.size, () => -1)
          if (size < 0) throw rollbackErrors.file_not_found({ id: row.id })
          const etag = `"${row.sha256}"`
          const common = {
            ETag: etag,
            'Accept-Ranges': 'bytes',
            'Content-Disposition': `attachment; filename="${row.slug}-${row.version}.zip"`,
            'Cache-Control': 'no-cache, must-revalidate, max-age=0'
          }
          const inm = req.headers['if-none-match']
          if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')) return new RestResponse(null, 304, common)
          // If-Range with another tag: the whole (changed) file.
          const ifRange = req.headers['if-range']
          const range = typeof ifRange === 'string' && ifRange.trim() !== etag ? null : rangeOf(req.headers.range, size)
          if (range === 'unsatisfiable') {
            // RFC 9110 §15.5.17: the 416 says the file's length, so the client can ask again.
            const error = rollbackErrors.rest_range_not_satisfiable({ size }, undefined)
            return new RestResponse(error.toBody(), 416, { 'Content-Range': `bytes */${size}` })
          }
          if (range === null) {
            return new RestResponse(new StreamBody(() => createReadStream(file), 'application/zip'), 200, { ...common, 'Content-Length': size })
          }
          return new RestResponse(new StreamBody(() => createReadStream(file, { start: range.start, end: range.end }), 'application/zip'), 206, {
            ...common, 'Content-Length': range.end - range.start + 1, 'Content-Range': `bytes ${range.start}-${range.end}/${size}`
          })
        }
      })]
    }),
    route({
      path: '/archives/{id}',
      vars: { id: '[\\d]+' },
      endpoints: [endpoint({
        methods: ['DELETE'],
        args: { id: Type.Optional(Type.Integer({ description: 'The archive id.' })) },
        summary: 'Delete an archive (its record and its file)',
        response: Type.Object({ success: Type.Boolean(), message: Type.String() }),
        permission: mayManageArchives.because('§2.1 archive delete: update_plugins or update_themes').probing({ vars: { id: '999999' } }),
        handler: async (req) => {
          const row = await load(Number(req.params.id))
          await store.db.delete(rollbackArchives).where(eq(rollbackArchives.id, row.id))
          await rm(join(contentDir, row.file), { force: true })
          return { success: true, message: 'Archive deleted successfully.' }
        }
      })]
    })
  ]
}
