/**
 * The site's design kit (builder-family.md §1 "Where the builder keeps
 * site-wide design data"): a post of the library type whose template type
 * is `kit`, referenced by the `builder_active_kit` option. Its page settings
 * (`_builder_page_settings`) hold the global colours and typography (system
 * and custom lists of rows with `_id` and `title`); its per-element defaults
 * are `_builder_elements_default_values`. Created with the factory defaults
 * on first use. Reads go through the core's content functions.
 */
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import type { PackageBase } from '@cms/core'
import { dbOf } from '@cms/store'

export const LIBRARY_TYPE = 'builder_library'
export const DEFAULTS_META = '_builder_elements_default_values'

export type Row = Record<string, unknown> & { _id: string, title: string }

export interface KitSettings extends Record<string, unknown> {
  system_colors: Row[]
  custom_colors: Row[]
  system_typography: Row[]
  custom_typography: Row[]
}

export interface Kit {
  id: number
  settings: KitSettings
  defaults: Record<string, Record<string, unknown>>
}

/** The product's factory defaults (§2.1). */
export function factorySettings (): KitSettings {
  const font = (id: string, title: string, family: string, weight: string): Row =>
    ({ _id: id, title, typography_typography: 'custom', typography_font_family: family, typography_font_weight: weight })
  return {
    system_colors: [
      { _id: 'primary', title: 'Primary', color: '#6EC1E4' },
      { _id: 'secondary', title: 'Secondary', color: '#54595F' },
      { _id: 'text', title: 'Text', color: '#7A7A7A' },
      { _id: 'accent', title: 'Accent', color: '#61CE70' }
    ],
    custom_colors: [],
    system_typography: [
      font('primary', 'Primary', 'Roboto', '600'),
      font('secondary', 'Secondary', 'Roboto Slab', '400'),
      font('text', 'Text', 'Roboto', '400'),
      font('accent', 'Accent', 'Roboto', '500')
    ],
    custom_typography: []
  }
}

const rows = (v: unknown): Row[] => Array.isArray(v) ? v.filter((r): r is Row => typeof r === 'object' && r !== null && typeof (r as Row)._id === 'string') : []

export interface KitStore {
  /** The active kit, created with the factory defaults when there is none. */
  load: (siteUrl: string) => Promise<Kit>
  /** The active kit, or undefined when none was made yet (nothing created). */
  current: () => Promise<Kit | undefined>
  saveSettings: (kit: Kit) => Promise<void>
  saveDefaults: (kit: Kit) => Promise<void>
}

export function kitStore (api: PackageBase): KitStore {
  const active = api.option('builder_active_kit', Type.Integer({ minimum: 0 }), { default: 0, description: 'The post id of the site\'s active design kit (0: made on first use).' })
  let creating: Promise<Kit> | undefined

  async function read (id: number): Promise<Kit | undefined> {
    if (id === 0) return undefined
    const found = await api.content.post(id)
    if (found === undefined || found.post.type !== LIBRARY_TYPE || found.meta._builder_template_type !== 'kit' || found.post.status === 'trash') return undefined
    const s = (typeof found.meta._builder_page_settings === 'object' && found.meta._builder_page_settings !== null ? found.meta._builder_page_settings : {}) as Record<string, unknown>
    const factory = factorySettings()
    const settings: KitSettings = {
      ...s,
      // A system list never saved reads as the factory one (§2.1: "or the control default when never saved").
      system_colors: s.system_colors === undefined ? factory.system_colors : rows(s.system_colors),
      custom_colors: rows(s.custom_colors),
      system_typography: s.system_typography === undefined ? factory.system_typography : rows(s.system_typography),
      custom_typography: rows(s.custom_typography)
    }
    const d = found.meta[DEFAULTS_META]
    return { id, settings, defaults: typeof d === 'object' && d !== null && !Array.isArray(d) ? d as Kit['defaults'] : {} }
  }

  /**
   * A kit when the option still names `seen` (none, or one that is gone),
   * made once across processes: replicas asking at the same moment wait on
   * one lock, and those after the first find the option changed (the post
   * and the option naming it are committed together). Answers the kit made
   * here, or the id another process made.
   */
  async function create (siteUrl: string, seen: number): Promise<Kit | number> {
    return await api.services.store.transaction(async (tx) => {
      await dbOf(tx).execute(sql`select pg_advisory_xact_lock(hashtext('builder:active-kit'))`)
      const now = await active.get(tx)
      if (now !== seen) return now
      const settings = factorySettings()
      const post = await api.content.createPost({
        type: LIBRARY_TYPE,
        title: 'Default Kit',
        status: 'publish',
        author: 0,
        siteUrl,
        meta: { _builder_template_type: 'kit', _builder_edit_mode: 'builder', _builder_page_settings: settings, [DEFAULTS_META]: {} }
      }, tx)
      await active.set(post.id, tx)
      return { id: post.id, settings, defaults: {} }
    })
  }

  /** The kit made here or by another process (retried while the one named vanishes before it is read). */
  async function settle (siteUrl: string, seen: number): Promise<Kit> {
    for (let tries = 1; ; tries++) {
      const made = await create(siteUrl, seen)
      if (typeof made !== 'number') return made
      const kit = await read(made)
      if (kit !== undefined) return kit
      if (tries === 3) throw new Error(`the active design kit ${made} keeps vanishing`)
      seen = made
    }
  }

  return {
    async current () {
      return await read(await active.get())
    },
    async load (siteUrl) {
      const seen = await active.get()
      const kit = await read(seen)
      if (kit !== undefined) return kit
      // One creation at a time in this process (other processes wait on the lock in create()).
      creating ??= settle(siteUrl, seen).finally(() => { creating = undefined })
      return await creating
    },
    async saveSettings (kit) {
      await api.content.updateMeta(kit.id, { _builder_page_settings: kit.settings })
    },
    async saveDefaults (kit) {
      await api.content.updateMeta(kit.id, { [DEFAULTS_META]: kit.defaults })
    }
  }
}
