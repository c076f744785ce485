/**
 * The package registry (the API is described in api.ts). Files are the
 * truth for what is installed and at which version; the store keeps each
 * package's status, the operations log and the locks.
 *
 * Every change of files is made beside the target and renamed into place:
 * a package is unpacked into `plugins/.staging-<slug>-<random>/`, the
 * installed directory renamed to `.old-<slug>-<random>`, the new one renamed
 * to `<slug>`, then the old one removed. A failure before the second rename
 * leaves the previous version in place; a process stopped between the two
 * renames is repaired at the next start (`recover`, which also removes the
 * scratch directories a stopped process left).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { and, count, desc, eq, sql } from 'drizzle-orm'
import { resolveInside, type PackageSettings } from '@cms/core'
import { epochToken } from '@cms/rest'
import type { Store } from '@cms/store'
import type {
  Actor, InstalledPackage, Operation, OperationEntry, PackageManifest, PackageRegistry, PackageStatus, PackageType, ReplaceStep
} from './api.js'
import { seedFiles, type SeedPackage } from './catalogue.js'
import { registryErrors } from './errors.js'
import { registryLocks, registryOperations, registryPackages } from './schema.js'
import { packageSource } from './source.js'
import { compareVersions, SLUG, VERSION } from './versions.js'
import { checkManifest, extractZip, inspectZip, writeZip } from './zip.js'

export interface RegistryDeps {
  store: Store
  contentDir: string
  settings: PackageSettings
  /** The packages a fresh site has (catalogue.ts), for this deployment. */
  seeds: readonly SeedPackage[]
}

/** Points where tests stop an operation as a crash would. */
export interface RegistryHooks {
  /** After a package is unpacked beside its target, before it is renamed into place. */
  afterUnpack?: (type: PackageType, slug: string, staging: string) => Promise<void>
  /** A seed package written beside its target, before it is renamed into place. */
  beforeSeedPlace?: (type: PackageType, slug: string, staging: string) => Promise<void>
}

/** A lock older than this is taken over (its process is presumed gone). */
const LOCK_TTL_MINUTES = 15
const SCRATCH = '.registry'
/** How long a starting process waits before asking again for a seed package another one is placing. */
const SEED_WAIT_MS = 50
/** A scratch directory untouched this long is a stopped process's (sweepScratch). */
const SCRATCH_LEASE_MS = 2 * 60 * 60 * 1000

const folderOf = (type: PackageType): string => type === 'plugin' ? 'plugins' : 'themes'
const random = (): string => randomBytes(6).toString('hex')

export function createRegistry (deps: RegistryDeps, hooks: RegistryHooks = {}): PackageRegistry {
  const { store, contentDir, settings } = deps
  const source = packageSource(settings)
  const limits = { maxBytes: settings.maxBytes, maxEntries: settings.maxEntries }
  const held = new AsyncLocalStorage<ReadonlySet<string>>()
  const seedOf = (type: PackageType, slug: string): SeedPackage | undefined => deps.seeds.find((s) => s.type === type && s.slug === slug)
  const dirOf = (type: PackageType, slug: string): string => join(contentDir, folderOf(type), slug)
  // One mark per seed package, written once it was placed: a deleted seed package is not placed again.
  // Per package, not per site: in a split deployment each process places the packages of the namespaces
  // it serves, in whatever order the processes start. (A site seeded before this kept one mark, `seeded`,
  // for all; it is no longer read, so a seed package deleted there comes back once.)
  const seededMark = (type: PackageType, slug: string): string => join(contentDir, SCRATCH, `seeded-${type}-${slug}`)
  const unplaced = (type: PackageType, slug: string): boolean => seedOf(type, slug) !== undefined && !existsSync(seededMark(type, slug))
  const replaceSteps: ReplaceStep[] = []

  // ---- start: seed a fresh site, repair an interrupted swap (once per process) ----

  let ready: Promise<void> | undefined
  const prepare = async (): Promise<void> => { ready ??= recover().then(seed); await ready.catch((err: unknown) => { ready = undefined; throw err }) }

  async function seed (): Promise<void> {
    for (const p of deps.seeds) if (unplaced(p.type, p.slug)) await seedOne(p)
  }

  /**
   * One seed package placed, under its package's lock: processes starting at once over one content
   * directory (replicas) place it once, and the staging directory is a busy one to the others' `recover`.
   * A process finding the lock held waits for its holder (until the package is placed or the lock free).
   */
  async function seedOne (p: SeedPackage): Promise<void> {
    for (;;) {
      try {
        await lock(p.type, p.slug, 'install', async () => {
          if (!unplaced(p.type, p.slug)) return
          const target = dirOf(p.type, p.slug)
          if (!existsSync(target)) {
            const staging = join(dirname(target), `.staging-${p.slug}-${random()}`)
            for (const [name, text] of Object.entries(seedFiles(p))) {
              await mkdir(dirname(join(staging, name)), { recursive: true })
              await writeFile(join(staging, name), text)
            }
            await hooks.beforeSeedPlace?.(p.type, p.slug, staging)
            await rename(staging, target)
          }
          await markSeeded(p.type, p.slug)
        })
        return
      } catch (err) {
        if ((err as { code?: string }).code !== 'package_operation_in_progress') throw err
        if (!unplaced(p.type, p.slug)) return
        await new Promise((resolve) => setTimeout(resolve, SEED_WAIT_MS))
      }
    }
  }

  async function markSeeded (type: PackageType, slug: string): Promise<void> {
    const mark = seededMark(type, slug)
    await mkdir(dirname(mark), { recursive: true })
    await writeFile(mark, `${new Date().toISOString()}\n`)
  }

  async function recover (): Promise<void> {
    // Another process on the same content directory (a replica) may be mid-operation: a package whose lock
    // is live keeps its staging and moved-aside directories; the lock's holder removes or renames them. The
    // locks this call holds (the first operation of a process runs this under its package's lock) are not another's.
    const mine = held.getStore() ?? new Set<string>()
    // The directories first, then the locks: a staging directory seen was made under a lock taken before it,
    // so that lock is in the list (or released, its directory renamed or removed by then).
    const folders: Array<[PackageType, string, string[]]> = []
    for (const type of ['plugin', 'theme'] as const) {
      const folder = join(contentDir, folderOf(type))
      try { folders.push([type, folder, await readdir(folder)]) } catch {}
    }
    const busy = new Set((await store.execute<{ type: string, slug: string }>(sql`
      select type, slug from registry_locks where acquired_at >= now() - make_interval(mins => ${LOCK_TTL_MINUTES})`))
      .map((r) => `${r.type}:${r.slug}`).filter((key) => !mine.has(key)))
    for (const [type, folder, names] of folders) {
      for (const name of names) {
        const owner = /^\.(?:staging|old)-(.+)-[0-9a-f]{12}$/.exec(name)
        if (owner !== null && busy.has(`${type}:${owner[1]!}`)) continue
        const staging = /^\.staging-/.test(name)
        const old = /^\.old-(.+)-[0-9a-f]{12}$/.exec(name)
        if (staging) await rm(join(folder, name), { recursive: true, force: true })
        if (old !== null) {
          // Stopped between the two renames: the old version goes back in place.
          if (!existsSync(join(folder, old[1]!))) await rename(join(folder, name), join(folder, old[1]!))
          else await rm(join(folder, name), { recursive: true, force: true })
        }
      }
    }
    await sweepScratch()
  }

  /**
   * Scratch directories (`.registry/tmp/op-*`) a stopped process left: those untouched for SCRATCH_LEASE_MS.
   * Not by process id: replicas sharing the content directory run in other containers or hosts, where a pid
   * says nothing (and is reused). By age: a scratch directory lives for one download (a request) or one
   * rollback, whose state expires an hour after it began (rollback's process.ts), and its time changes when the
   * zip is written into it; twice that is a lease no live operation outlasts. Only real directories directly
   * under the scratch root, which must itself be a real directory: a symbolic link is never followed (and
   * `rm` removes links inside without following them).
   */
  async function sweepScratch (): Promise<void> {
    const base = join(contentDir, SCRATCH)
    const root = join(base, 'tmp')
    try {
      if (!(await lstat(base)).isDirectory() || !(await lstat(root)).isDirectory()) return
    } catch { return }
    const before = Date.now() - SCRATCH_LEASE_MS
    for (const item of await readdir(root, { withFileTypes: true })) {
      if (!item.isDirectory() || !/^op-[A-Za-z0-9]{6}$/.test(item.name)) continue
      const dir = join(root, item.name)
      const st = await lstat(dir).catch(() => undefined)
      if (st?.isDirectory() === true && st.mtimeMs < before) await rm(dir, { recursive: true, force: true })
    }
  }

  // ---- reading ----

  async function manifestAt (dir: string): Promise<PackageManifest | null> {
    try {
      return checkManifest(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')))
    } catch {
      return null
    }
  }

  async function slugsOnDisk (type: PackageType): Promise<string[]> {
    try {
      const items = await readdir(join(contentDir, folderOf(type)), { withFileTypes: true })
      return items.filter((d) => d.isDirectory() && SLUG.test(d.name)).map((d) => d.name).sort()
    } catch {
      return []
    }
  }

  async function statuses (): Promise<Map<string, PackageStatus>> {
    const rows = await store.db.select().from(registryPackages)
    return new Map(rows.map((r) => [`${r.type}:${r.slug}`, r.status as PackageStatus]))
  }

  /**
   * Whether a package is installed and active, from the statuses read under
   * the token `validity` answers (the activation epoch, renewed with every
   * change of a status and every operation, migration 0001; the commit
   * horizon where there is none): re-read only once it moved (in any
   * process), so the requests that ask (every route of a package's
   * namespace, every package file, every create's lifecycle events) share
   * one read. The answer is the same function while nothing changed.
   */
  let kept: { validity: string, isActive: Promise<(type: PackageType, slug: string) => boolean> } | undefined
  async function activeNow (validity: () => Promise<string | undefined>): Promise<(type: PackageType, slug: string) => boolean> {
    const h = await validity()
    if (h !== undefined && kept?.validity === h) return await kept.isActive
    // Read after the token was taken: valid for as long as it reads the same.
    const isActive = statuses().then((rows) => {
      const installed = new Map<string, boolean>()
      return (type: PackageType, slug: string): boolean => {
        const key = `${type}:${slug}`
        let here = installed.get(key)
        if (here === undefined) {
          here = existsSync(join(dirOf(type, slug), 'manifest.json')) || unplaced(type, slug)
          installed.set(key, here)
        }
        return here && statusOf(type, slug, rows) === 'active'
      }
    })
    if (h !== undefined) kept = { validity: h, isActive }
    try {
      return await isActive
    } catch (err) {
      if (kept?.isActive === isActive) kept = undefined
      throw err
    }
  }

  /** A plugin without a row: active if it is a seed package. A theme: the seed theme is active when no theme row is. */
  function statusOf (type: PackageType, slug: string, rows: Map<string, PackageStatus>): PackageStatus {
    const row = rows.get(`${type}:${slug}`)
    if (row !== undefined) return row
    if (seedOf(type, slug) === undefined) return 'inactive'
    if (type === 'plugin') return 'active'
    return [...rows].some(([k, v]) => k.startsWith('theme:') && v === 'active') ? 'inactive' : 'active'
  }

  async function newest (type: PackageType, slug: string): Promise<string | null> {
    if (!source.configured()) return null
    try {
      return (await source.versions(type, slug)).at(-1)?.version ?? null
    } catch {
      return null // update information is advisory: an unreachable source hides it
    }
  }

  async function describe (type: PackageType, slug: string, rows: Map<string, PackageStatus>): Promise<InstalledPackage | null> {
    const dir = dirOf(type, slug)
    const manifest = await manifestAt(dir)
    if (manifest === null) return null
    const top = await newest(type, slug)
    return {
      type,
      slug,
      name: manifest.name,
      version: manifest.version,
      status: statusOf(type, slug, rows),
      newVersion: top !== null && compareVersions(top, manifest.version) > 0 ? top : null,
      manifest,
      dir
    }
  }

  async function get (type: PackageType, slug: string): Promise<InstalledPackage | null> {
    if (!SLUG.test(slug)) return null
    await prepare()
    return await describe(type, slug, await statuses())
  }

  async function installed (type: PackageType, slug: string): Promise<InstalledPackage> {
    const found = await get(type, slug)
    if (found === null) throw registryErrors.package_not_installed({ type, slug }, `The ${type} "${slug}" is not installed.`)
    return found
  }

  // ---- locks and the log ----

  async function lock<T> (type: PackageType, slug: string, operation: Operation, fn: () => Promise<T>): Promise<T> {
    const key = `${type}:${slug}`
    const current = held.getStore()
    if (current?.has(key) === true) return await fn()
    const token = randomUUID()
    const got = await store.execute<{ token: string }>(sql`
      insert into registry_locks (type, slug, token, operation) values (${type}, ${slug}, ${token}, ${operation})
      on conflict (type, slug) do update set token = excluded.token, operation = excluded.operation, acquired_at = now()
        where registry_locks.acquired_at < now() - make_interval(mins => ${LOCK_TTL_MINUTES})
      returning token`)
    if (got.length === 0) throw registryErrors.package_operation_in_progress({ type, slug })
    try {
      return await held.run(new Set([...(current ?? []), key]), fn)
    } finally {
      await store.db.delete(registryLocks).where(and(eq(registryLocks.type, type), eq(registryLocks.slug, slug), eq(registryLocks.token, token)))
    }
  }

  async function record (entry: Omit<OperationEntry, 'id' | 'time'>): Promise<void> {
    await store.db.insert(registryOperations).values({
      userId: entry.userId,
      operation: entry.operation,
      type: entry.type,
      slug: entry.slug,
      fromVersion: entry.fromVersion,
      toVersion: entry.toVersion,
      outcome: entry.outcome,
      message: entry.message.slice(0, 2000)
    })
  }

  /** Runs an operation under the package's lock and writes its outcome to the log. */
  async function logged (type: PackageType, slug: string, operation: Operation, actor: Actor, run: (note: { from: string | null, to: string | null }) => Promise<{ result: InstalledPackage, message: string }>): Promise<InstalledPackage> {
    // The start's seed before the package's lock: a seed waits for a seed package another process holds, and
    // two first operations each holding one the other waits for would wait for good.
    await prepare()
    return await lock(type, slug, operation, async () => {
      const note = { from: null as string | null, to: null as string | null }
      try {
        await prepare()
        const { result, message } = await run(note)
        await record({ userId: actor.userId, operation, type, slug, fromVersion: note.from, toVersion: note.to, outcome: 'success', message })
        return result
      } catch (err) {
        await record({ userId: actor.userId, operation, type, slug, fromVersion: note.from, toVersion: note.to, outcome: 'failure', message: (err as Error).message ?? String(err) }).catch(() => {})
        throw err
      }
    })
  }

  async function setStatus (type: PackageType, slug: string, status: PackageStatus): Promise<void> {
    await store.transaction(async (tx) => {
      if (type === 'theme' && status === 'active') {
        // One active theme: the others' rows say inactive (the seed theme's too, so its default stops applying).
        await tx.update(registryPackages).set({ status: 'inactive', updatedAt: new Date() }).where(eq(registryPackages.type, 'theme'))
        for (const s of deps.seeds.filter((p) => p.type === 'theme' && p.slug !== slug)) {
          await tx.insert(registryPackages).values({ type: 'theme', slug: s.slug, status: 'inactive' }).onConflictDoNothing()
        }
      }
      await tx.insert(registryPackages).values({ type, slug, status }).onConflictDoUpdate({
        target: [registryPackages.type, registryPackages.slug],
        set: { status, updatedAt: new Date() }
      })
    })
  }

  // ---- files ----

  async function scratchDir (): Promise<string> {
    const parent = join(contentDir, SCRATCH, 'tmp')
    await mkdir(parent, { recursive: true })
    return await mkdtemp(join(parent, 'op-'))
  }

  /** Unpacks `file` beside the package's directory and renames it into place (replacing what is there). */
  async function place (type: PackageType, slug: string, file: string, version: string | undefined, actor: Actor): Promise<PackageManifest> {
    const target = dirOf(type, slug)
    await mkdir(dirname(target), { recursive: true })
    const staging = join(dirname(target), `.staging-${slug}-${random()}`)
    try {
      const manifest = await extractZip(file, staging, limits, { slug, version })
      await hooks.afterUnpack?.(type, slug, staging)
      const old = join(dirname(target), `.old-${slug}-${random()}`)
      const had = existsSync(target)
      // The replaced version is kept first (a rollback archive), once the new one unpacked cleanly.
      if (had) for (const step of replaceSteps) await step(type, slug, actor)
      if (had) await rename(target, old)
      try {
        await rename(staging, target)
      } catch (err) {
        if (had) await rename(old, target)
        throw err
      }
      if (had) await rm(old, { recursive: true, force: true })
      return manifest
    } finally {
      await rm(staging, { recursive: true, force: true })
    }
  }

  /** Downloads a version from the source into a scratch directory and runs `use` on the zip; the scratch goes after. */
  async function withDownload<T> (type: PackageType, slug: string, version: string, use: (file: string) => Promise<T>): Promise<T> {
    // Both become part of a file name: their patterns first, then the name confined to the scratch directory.
    if (!SLUG.test(slug) || !VERSION.test(version)) throw registryErrors.package_version_not_found({ type, slug, version }, `The package source does not offer ${slug} ${version}.`)
    const scratch = await scratchDir()
    try {
      const file = await resolveInside(scratch, `${slug}.${version}.zip`)
      await source.download(type, slug, version, file)
      return await use(file)
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
  }

  async function versionToGet (type: PackageType, slug: string, version: string | undefined): Promise<string> {
    if (version !== undefined) return version
    const top = (await source.versions(type, slug)).at(-1)
    if (top === undefined) throw registryErrors.package_version_not_found({ type, slug }, `The package source does not offer the ${type} "${slug}".`)
    return top.version
  }

  const registry: PackageRegistry = {
    list: async (filter = {}) => {
      await prepare()
      const rows = await statuses()
      const out: InstalledPackage[] = []
      for (const type of ['plugin', 'theme'] as const) {
        if (filter.type !== undefined && filter.type !== type) continue
        for (const slug of await slugsOnDisk(type)) {
          const p = await describe(type, slug, rows)
          if (p !== null && (filter.status === undefined || filter.status.includes(p.status))) out.push(p)
        }
      }
      return out
    },
    get,
    installedSlugs: () => {
      const read = (type: PackageType): string[] => {
        const seeded = deps.seeds.filter((s) => s.type === type && unplaced(s.type, s.slug)).map((s) => s.slug)
        let names: string[] = []
        try {
          names = readdirSync(join(contentDir, folderOf(type)), { withFileTypes: true }).filter((d) => d.isDirectory() && SLUG.test(d.name)).map((d) => d.name)
        } catch {}
        return [...new Set([...seeded, ...names])].sort()
      }
      return { plugins: read('plugin'), themes: read('theme') }
    },
    activeDir: async (type, slug) => {
      if (!SLUG.test(slug)) return null
      await prepare()
      // Every package file asks: the statuses kept by the activation epoch.
      return (await activeNow(async () => epochToken(await store.snapshot(), 'activation')))(type, slug) ? dirOf(type, slug) : null
    },
    activeNow,
    activeTheme: async () => (await registry.list({ type: 'theme', status: ['active'] }))[0]?.slug ?? null,

    install: async (type, slug, opts) => await logged(type, slug, 'install', opts.actor, async (note) => {
      if (!SLUG.test(slug)) throw registryErrors.package_version_not_found({ type, slug }, `The package source does not offer the ${type} "${slug.slice(0, 100)}".`)
      if (await get(type, slug) !== null) throw registryErrors.package_already_installed({ type, slug }, `The ${type} "${slug}" is already installed.`)
      const version = await versionToGet(type, slug, opts.version)
      note.to = version
      await withDownload(type, slug, version, async (file) => await place(type, slug, file, version, opts.actor))
      await setStatus(type, slug, opts.activate === true ? 'active' : 'inactive')
      return { result: await installed(type, slug), message: `Installed ${slug} ${version}${opts.activate === true ? ' and activated it' : ''}.` }
    }),

    activate: async (type, slug, opts) => await logged(type, slug, 'activate', opts.actor, async (note) => {
      const p = await installed(type, slug)
      note.from = p.version
      note.to = p.version
      if (p.status !== 'active') await setStatus(type, slug, 'active')
      return { result: await installed(type, slug), message: p.status === 'active' ? `${slug} was already active.` : `Activated ${slug}.` }
    }),

    deactivate: async (type, slug, opts) => await logged(type, slug, 'deactivate', opts.actor, async (note) => {
      const p = await installed(type, slug)
      note.from = p.version
      note.to = p.version
      if (type === 'theme') throw registryErrors.package_theme_deactivate({ type, slug })
      if (p.status !== 'inactive') await setStatus(type, slug, 'inactive')
      return { result: await installed(type, slug), message: p.status === 'inactive' ? `${slug} was already inactive.` : `Deactivated ${slug}.` }
    }),

    upgrade: async (type, slug, opts) => await logged(type, slug, 'upgrade', opts.actor, async (note) => {
      const p = await installed(type, slug)
      note.from = p.version
      const version = await versionToGet(type, slug, opts.version)
      note.to = version
      await withDownload(type, slug, version, async (file) => await place(type, slug, file, version, opts.actor))
      if (opts.activate === true && p.status !== 'active') await setStatus(type, slug, 'active')
      return { result: await installed(type, slug), message: `Replaced ${slug} ${p.version} with ${version}.` }
    }),

    delete: async (type, slug, opts) => await logged(type, slug, 'delete', opts.actor, async (note) => {
      const p = await installed(type, slug)
      note.from = p.version
      if (p.status === 'active') throw registryErrors.package_is_active({ type, slug })
      const gone = join(dirname(p.dir), `.old-${slug}-${random()}`)
      await rename(p.dir, gone)
      await store.db.delete(registryPackages).where(and(eq(registryPackages.type, type), eq(registryPackages.slug, slug)))
      await rm(gone, { recursive: true, force: true })
      return { result: p, message: `Deleted ${slug} ${p.version}.` }
    }),

    source,
    inspect: async (file, expect) => await inspectZip(file, limits, expect),
    archive: async (type, slug, file) => {
      const p = await installed(type, slug)
      return { bytes: await writeZip(p.dir, file, slug), version: p.version }
    },
    swap: async (type, slug, file, opts) => await logged(type, slug, opts.operation ?? 'upgrade', opts.actor, async (note) => {
      const p = await installed(type, slug)
      note.from = p.version
      note.to = opts.version ?? null
      const manifest = await place(type, slug, file, opts.version, opts.actor)
      note.to = manifest.version
      return { result: await installed(type, slug), message: `Replaced ${slug} ${p.version} with ${manifest.version}.` }
    }),
    lock,
    scratchDir,
    beforeReplace: (step) => { replaceSteps.push(step) },

    log: {
      list: async (opts = {}) => {
        const limit = Math.min(Math.max(opts.limit ?? 100, 1), 1000)
        const rows = await store.db.select().from(registryOperations).orderBy(desc(registryOperations.id)).limit(limit).offset(Math.max(opts.offset ?? 0, 0))
        const [{ n }] = await store.db.select({ n: count() }).from(registryOperations) as [{ n: number }]
        return {
          total: Number(n),
          entries: rows.map((r) => ({
            id: r.id,
            time: r.createdAt.toISOString(),
            userId: r.userId,
            operation: r.operation as Operation,
            type: r.type as PackageType,
            slug: r.slug,
            fromVersion: r.fromVersion,
            toVersion: r.toVersion,
            outcome: r.outcome as 'success' | 'failure',
            message: r.message
          }))
        }
      },
      clear: async () => (await store.db.delete(registryOperations).returning({ id: registryOperations.id })).length,
      record
    }
  }
  return registry
}
