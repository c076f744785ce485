/**
 * rollback/v1 fetch-info, rollback-steps and process-rollback
 * (seo-rollback-assistant-addons.md §2.2 to §2.4; profile A).
 *
 * A rollback is six requests to process-rollback, one per step; what a step
 * produces for the next is kept in `rollback_state` per type and slug (an
 * abandoned rollback expires after an hour; one rollback per package at a
 * time). Maintenance mode lasts ten minutes at most and never past the
 * rollback's lease; a window that ended so takes the expired state with it
 * (the maintenance read's `onLapse`). Unlike the real product, a step that fails answers a 4xx in the
 * error shape, never 200 with `success: false`, and lifts maintenance mode:
 *
 *   maintenance-mode  on while the package is active (always succeeds)
 *   download-asset    the version from the package source (or its archive) into a scratch directory
 *   backup-asset      a zip archive of the installed version (archives.ts)
 *   validate-package  a sound zip inside its root, no bomb, the manifest of this slug and version
 *   replace-asset     the registry's atomic swap; maintenance lifted after it
 *   cleanup           maintenance off, scratch files and state removed (also the abort; always succeeds)
 *
 * fetch-info lists the versions the package source offers and those kept
 * as archives (download-asset uses an archive as it is); without a source,
 * the archives and the installed version (`isPro`, the real product's
 * premium path).
 *
 * Who may: `update_plugins` for plugins, `update_themes` for themes
 * (process-rollback as in the real product; fetch-info and rollback-steps,
 * nonce-only there, the same: CONVENTIONS §4).
 */
import { copyFile, rm } from 'node:fs/promises'
import { and, eq, lt } from 'drizzle-orm'
import { check, denied, endpoint, Enum, route, who, type RelativeRouteDecl, type RestError, type RestRequest } from '@cms/rest'
import { Type } from '@sinclair/typebox'
import { resolveInside, type MaintenanceMode } from '@cms/core'
import type { Store } from '@cms/store'
import { compareVersions, VERSION_PATTERN, type PackageRegistry, type PackageType } from '@cms/registry'
import type { Archives } from './archives.js'
import { rollbackErrors } from './errors.js'
import { rollbackState } from './schema.js'

export const STEPS = [
  { id: 'maintenance-mode', rollbackProcessingMessage: 'Enabling maintenance mode…' },
  { id: 'download-asset', rollbackProcessingMessage: 'Download requested version…' },
  { id: 'backup-asset', rollbackProcessingMessage: 'Creating version archive…' },
  { id: 'validate-package', rollbackProcessingMessage: 'Validating package integrity…' },
  { id: 'replace-asset', rollbackProcessingMessage: 'Replacing files…' },
  { id: 'cleanup', rollbackProcessingMessage: 'Cleaning up temporary files…' }
] as const

type Step = typeof STEPS[number]['id']
const STATE_TTL_MS = 60 * 60 * 1000
const MAINTENANCE_SECONDS = 600

interface StateData {
  /** Scratch directory of this rollback (from registry.scratchDir). */
  scratch?: string
  /** The downloaded package zip. */
  package?: string
  maintenance?: boolean
  validated?: boolean
  replaced?: boolean
}

const capabilityOf = (type: unknown): string => type === 'theme' ? 'update_themes' : 'update_plugins'

/** §2.1: `update_plugins` for a plugin, `update_themes` for a theme (the probes roll a plugin back). */
const mayUpdate = check((req: RestRequest<any>): true | RestError => {
  const type = (req.params as { type?: unknown }).type
  // The Allow header asks without arguments: either capability answers for the route.
  const ok = type === undefined ? req.user.can('update_plugins') || req.user.can('update_themes') : req.user.can(capabilityOf(type))
  return ok ? true : denied(rollbackErrors.rest_forbidden(), req.user.id)
}, who.can('update_plugins', '§2.1: update_plugins for plugins, update_themes for themes'))

export interface ProcessDeps {
  store: Store
  registry: PackageRegistry
  maintenance: MaintenanceMode
  archives: Archives
}

export function processRoutes (deps: ProcessDeps): RelativeRouteDecl[] {
  const { store, registry, maintenance, archives } = deps
  const holder = (type: string, slug: string): string => `rollback:${type}:${slug}`
  const slugs = registry.installedSlugs()
  const slugEnum = [...new Set([...slugs.plugins, ...slugs.themes])].sort()

  async function discard (type: string, slug: string, data: StateData | undefined): Promise<void> {
    if (data?.scratch !== undefined) await rm(data.scratch, { recursive: true, force: true })
    await store.db.delete(rollbackState).where(and(eq(rollbackState.type, type), eq(rollbackState.slug, slug)))
  }

  /** Abandoned rollbacks (older than an hour) go, with their files and maintenance. */
  async function expire (): Promise<void> {
    const old = await store.db.select().from(rollbackState).where(lt(rollbackState.expiresAt, new Date()))
    for (const row of old) {
      await maintenance.disable(holder(row.type, row.slug))
      await discard(row.type, row.slug, row.data as StateData)
    }
  }

  // A window that ends by itself (its lease passed while the client was away) takes its rollback's state
  // with it, at the first read of maintenance after: no statement on the requests between.
  maintenance.onLapse(async (h) => { if (h.startsWith('rollback:')) await expire() })

  /** The rollback of this package: its state and the end of its lease, made when absent; another version's live rollback is a 409. */
  async function leaseFor (type: string, slug: string, version: string, userId: number): Promise<{ data: StateData, expiresAt: Date }> {
    const [row] = await store.db.select().from(rollbackState).where(and(eq(rollbackState.type, type), eq(rollbackState.slug, slug)))
    if (row !== undefined) {
      if (row.version !== version) throw rollbackErrors.rollback_in_progress({ type, slug, version: row.version })
      return { data: row.data as StateData, expiresAt: row.expiresAt }
    }
    const data: StateData = {}
    const expiresAt = new Date(Date.now() + STATE_TTL_MS)
    const inserted = await store.db.insert(rollbackState).values({ type, slug, version, userId, data, expiresAt }).onConflictDoNothing().returning()
    if (inserted.length === 0) throw rollbackErrors.rollback_in_progress({ type, slug })
    return { data, expiresAt }
  }

  const stateFor = async (type: string, slug: string, version: string, userId: number): Promise<StateData> => (await leaseFor(type, slug, version, userId)).data

  async function save (type: string, slug: string, data: StateData): Promise<void> {
    await store.db.update(rollbackState).set({ data }).where(and(eq(rollbackState.type, type), eq(rollbackState.slug, slug)))
  }

  async function existing (type: string, slug: string): Promise<StateData | undefined> {
    const [row] = await store.db.select().from(rollbackState).where(and(eq(rollbackState.type, type), eq(rollbackState.slug, slug)))
    return row?.data as StateData | undefined
  }

  async function installedOr404 (type: PackageType, slug: string): Promise<NonNullable<Awaited<ReturnType<PackageRegistry['get']>>>> {
    const p = await registry.get(type, slug)
    if (p === null) throw rollbackErrors.asset_not_found({ type, slug }, `Could not find installed ${type}.`)
    return p
  }

  type Result = { meta: Record<string, unknown>, message: string }

  /** The download-asset step's work, under the package's lock: the state read there, its scratch directory reused. */
  async function download (type: PackageType, slug: string, version: string, userId: number): Promise<Result> {
    const data = await stateFor(type, slug, version, userId)
    const scratch = data.scratch ?? await registry.scratchDir()
    // The version was checked against its pattern; the name is still confined to the scratch directory.
    const file = await resolveInside(scratch, `${slug}.${version}.zip`)
    await rm(file, { force: true })
    await save(type, slug, { ...data, scratch, package: undefined, validated: false })
    // An archived version is used as it is (the real product's premium path); else the package source.
    const archived = await archives.find(type, slug, version)
    if (archived !== undefined) await copyFile(archives.pathOf(archived), file)
    else await registry.source.download(type, slug, version, file)
    await save(type, slug, { ...data, scratch, package: file, validated: false })
    return { meta: { source: archived === undefined ? 'package-source' : 'archive' }, message: `Downloaded version ${version}.` }
  }

  const steps: Record<Step, (type: PackageType, slug: string, version: string, userId: number) => Promise<Result>> = {
    'maintenance-mode': async (type, slug, version, userId) => {
      const p = await installedOr404(type, slug)
      const { data, expiresAt } = await leaseFor(type, slug, version, userId)
      if (p.status !== 'active') return { meta: { maintenance_status: 'skipped_inactive' }, message: 'The package is not active: maintenance mode is not needed.' }
      const already = data.maintenance === true
      // Ten minutes (the real product's marker), never past the rollback's lease: a client that went away
      // leaves no maintenance behind it, whatever request comes next (the window's end is in its file).
      const seconds = Math.max(1, Math.min(MAINTENANCE_SECONDS, Math.ceil((expiresAt.getTime() - Date.now()) / 1000)))
      await maintenance.enable(holder(type, slug), { seconds, message: `Rolling back ${p.name}` })
      await save(type, slug, { ...data, maintenance: true })
      return { meta: { maintenance_status: already ? 'already_active' : 'enabled' }, message: already ? 'Maintenance mode is already active.' : 'Maintenance mode enabled.' }
    },
    'download-asset': async (type, slug, version, userId) => {
      await installedOr404(type, slug)
      await stateFor(type, slug, version, userId)
      // One download of a package at a time (the registry's lock; another answers 409): concurrent ones each made
      // a scratch directory and only the last was recorded, the others (a package each) left behind for good.
      return await registry.lock(type, slug, 'rollback', async () => await download(type, slug, version, userId))
    },
    'backup-asset': async (type, slug, version, userId) => {
      await stateFor(type, slug, version, userId)
      const { created, archive } = await registry.lock(type, slug, 'rollback', async () => await archives.backup(type, slug, userId))
      return { meta: { archive_id: archive.id, archived_version: archive.version }, message: created ? 'Archive created successfully.' : 'Archive already exists for this version.' }
    },
    'validate-package': async (type, slug, version) => {
      const data = await existing(type, slug)
      if (data?.package === undefined) throw rollbackErrors.rollback_package_missing({ type, slug })
      try {
        const manifest = await registry.inspect(data.package, { type, slug, version })
        await save(type, slug, { ...data, validated: true })
        return { meta: { validation_status: 'passed', manifest_version: manifest.version }, message: 'Package validated.' }
      } catch (err) {
        // A package that failed validation cannot be used by replace-asset.
        await rm(data.package, { force: true })
        await save(type, slug, { ...data, package: undefined, validated: false })
        throw err
      }
    },
    'replace-asset': async (type, slug, version, userId) => {
      const data = await existing(type, slug)
      if (data?.package === undefined) throw rollbackErrors.rollback_package_missing({ type, slug })
      const before = await installedOr404(type, slug)
      let after
      try {
        after = await registry.swap(type, slug, data.package, { actor: { userId }, operation: 'rollback', version })
      } catch (err) {
        // A package the swap refused is not tried again.
        if ((err as { code?: string }).code === 'rest_invalid_package') {
          await rm(data.package, { force: true })
          await save(type, slug, { ...data, package: undefined, validated: false })
        }
        throw err
      }
      // The site is whole again: maintenance ends here, cleanup only removes files.
      await maintenance.disable(holder(type, slug))
      await save(type, slug, { ...data, replaced: true, maintenance: false })
      return { meta: { asset_path: `${type === 'plugin' ? 'plugins' : 'themes'}/${slug}`, previous_version: before.version, current_version: after.version }, message: `Rolled back to version ${after.version}.` }
    },
    cleanup: async (type, slug) => {
      const data = await existing(type, slug)
      const lifted = await maintenance.disable(holder(type, slug))
      await discard(type, slug, data)
      return {
        meta: { maintenance_disabled: true, warnings: [], cleaned_items: { maintenance_file: lifted, package_file: data?.package !== undefined, transients: data !== undefined } },
        message: 'Cleanup completed.'
      }
    }
  }

  return [
    route({
      path: '/fetch-info',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {
          type: Enum(['plugin', 'theme'], { description: 'The type of asset.' }),
          slug: Type.String({ maxLength: 200, description: 'The slug of the installed plugin or theme.' })
        },
        summary: 'The versions the package source offers for an installed plugin or theme',
        response: Type.Object({ success: Type.Boolean(), data: Type.Object({ name: Type.String(), slug: Type.String(), version: Type.String(), currentVersion: Type.String(), versions: Type.Record(Type.String(), Type.Object({ file: Type.String(), downloadUrl: Type.Union([Type.String(), Type.Null()]), released: Type.Null() }), { description: 'The versions offered, keyed by version.' }), isPro: Type.Boolean(), hasVersions: Type.Boolean(), type: Type.String() }) }),
        permission: mayUpdate.because('§2.1 fetch-info: nonce-only in the product; update_plugins here (CONVENTIONS §4)').probing({ query: { type: 'plugin', slug: 'rollback' } }),
        handler: async (req) => {
          const type = req.params.type as PackageType
          const p = await installedOr404(type, req.params.slug)
          const configured = registry.source.configured()
          const offered = configured ? await registry.source.versions(type, p.slug) : []
          const listed = new Map<string, string | null>(offered.map((v) => [v.version, v.url]))
          // The archived versions too: download-asset takes them from their archive (the real product's premium
          // path, which without a package source lists the archives and the installed version).
          for (const v of await archives.versions(type, p.slug)) if (!listed.has(v)) listed.set(v, null)
          if (!configured && !listed.has(p.version)) listed.set(p.version, null)
          const versions: Record<string, { file: string, downloadUrl: string | null, released: null }> = {}
          for (const v of [...listed.keys()].sort(compareVersions)) versions[v] = { file: `${p.slug}.${v}.zip`, downloadUrl: listed.get(v) ?? null, released: null }
          const manifest = p.manifest
          const text = (key: string): string => typeof manifest[key] === 'string' ? manifest[key] : ''
          return {
            success: true,
            data: {
              name: p.name,
              slug: p.slug,
              version: p.version,
              currentVersion: p.version,
              author: text('author'),
              versions,
              isPro: !configured,
              // Something to roll to: a version besides the installed one.
              hasVersions: Object.keys(versions).some((v) => v !== p.version),
              description: text('description'),
              pluginURI: text('uri'),
              authorURI: text('authorUri'),
              supportURL: text('supportUrl'),
              requiresWP: manifest.requires?.cms ?? '',
              requiresPHP: '',
              banners: {},
              changelog: text('changelog'),
              type,
              testUpToWpVersion: '',
              screenshotUrl: '',
              authorAvatar: '',
              lastUpdated: ''
            }
          }
        }
      })]
    }),
    route({
      path: '/rollback-steps',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The steps of a rollback, in order',
        response: Type.Object({ success: Type.Boolean(), steps: Type.Array(Type.Object({ id: Type.String() })) }),
        permission: mayUpdate.because('§2.1 rollback-steps: nonce-only in the product; update_plugins or update_themes here'),
        handler: async () => ({ success: true, steps: STEPS })
      })]
    }),
    route({
      path: '/process-rollback',
      endpoints: [endpoint({
        methods: ['POST'],
        args: {
          type: Enum(['plugin', 'theme'], { description: 'The type of asset to roll back.' }),
          version: Type.String({ maxLength: 64, pattern: VERSION_PATTERN, description: 'The version to roll back to.' }),
          step: Enum(STEPS.map((s) => s.id), { description: 'The rollback step to run.' }),
          slug: Enum(slugEnum, { description: 'The installed plugin or theme to roll back.' })
        },
        summary: 'Run one step of a rollback',
        response: Type.Object({ success: Type.Boolean(), data: Type.Object({ assetType: Type.String(), assetSlug: Type.String(), assetVersion: Type.String(), assetName: Type.String(), meta: Type.Record(Type.String(), Type.Unknown(), { description: 'What the step did.' }) }), message: Type.String() }),
        permission: mayUpdate.because('§2.1 process-rollback: update_plugins for plugins').probing({ body: { type: 'plugin', slug: 'rollback', version: '0.0.1', step: 'cleanup' } }),
        handler: async (req) => {
          const type = req.params.type as PackageType
          const { slug, version } = req.params
          const step = req.params.step as Step
          await expire()
          const p = await registry.get(type, slug)
          try {
            const result = await steps[step](type, slug, version, req.user.id)
            return {
              success: true,
              data: { assetType: type, assetSlug: slug, assetVersion: version, assetName: p?.name ?? '', meta: result.meta },
              message: result.message
            }
          } catch (err) {
            // Another rollback's request, or a request that found the package busy (a concurrent step of this
            // rollback, an upgrade): the maintenance and state are the running operation's, kept while it runs.
            const code = (err as { code?: string }).code
            if (code === 'rollback_in_progress' || code === 'package_operation_in_progress') throw err
            // Any failure lifts maintenance mode: the installed version is still the working one.
            await maintenance.disable(holder(type, slug))
            const data = await existing(type, slug)
            if (data?.maintenance === true) await save(type, slug, { ...data, maintenance: false })
            throw err
          }
        }
      })]
    })
  ]
}
