/**
 * builder/v1 settings/{key} (builder-family.md §2.2): the builder's site
 * options, read and written by administrators (`manage_options`). Only
 * keys with the builder prefix: any other key is `400 rest_invalid_param`
 * (the real product means to refuse them and does not). The options are
 * those the package declares (each checked against its schema on write).
 * Any other builder key is, as in the real product, an option of its own:
 * `false` until written, then what was written (kept together in the
 * option `builder_other_settings`, at most 100 keys; nothing in the service
 * reads them: stored-only data). A write without `value` is a 400.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { dbOf, type Store } from '@cms/store'
import { endpoint, handlerChecked, invalidParam, route, type RelativeRouteDecl, successObject, anyValue } from '@cms/rest'
import type { PackageBase, PackageOption } from '@cms/core'
import { mayManageOptions } from './access.js'

export const SETTINGS_PREFIX = 'builder'

export type BuilderSettings = ReadonlyMap<string, PackageOption<TSchema>>

/** Where the builder keys no option declares are kept: key -> value. */
export const OTHER_SETTINGS = 'builder_other_settings'
const MAX_OTHER = 100
const OTHER_SCHEMA = Type.Record(Type.String({ pattern: `^${SETTINGS_PREFIX}[\\w-]{0,100}$` }), Type.Unknown(), { maxProperties: MAX_OTHER })

/** Declares the editor's site options (the notes' `elementor_*` keys, neutral names). */
export function declareSettings (api: PackageBase): Map<string, PackageOption<TSchema>> {
  const out = new Map<string, PackageOption<TSchema>>()
  const add = <S extends TSchema>(name: string, schema: S, def: any, description: string): PackageOption<S> => {
    const handle = api.option(name, schema, { default: def, description })
    out.set(name, handle as unknown as PackageOption<TSchema>)
    return handle
  }
  add('builder_font_display', Type.Union(['auto', 'block', 'swap', 'fallback', 'optional'].map((v) => Type.Literal(v))), 'auto', 'How the builder\'s web fonts load (CSS font-display).')
  add('builder_disable_color_schemes', Type.Union([Type.Literal(''), Type.Literal('yes')]), '', 'Whether the builder ignores the theme\'s colour schemes.')
  add('builder_disable_typography_schemes', Type.Union([Type.Literal(''), Type.Literal('yes')]), '', 'Whether the builder ignores the theme\'s typography schemes.')
  add('builder_load_fa4_shim', Type.Union([Type.Literal(''), Type.Literal('yes')]), '', 'Whether the builder loads the legacy icon font shim.')
  // Whether the builder may share usage data (builder-family.md: `elementor_allow_tracking`); off until an administrator opts in.
  add('builder_allow_tracking', Type.Boolean(), false, 'Whether the page builder may share anonymous usage data.')
  add(OTHER_SETTINGS, OTHER_SCHEMA, {}, 'Builder settings no other option declares, by key (written through builder/v1/settings; stored only).')
  add('builder_cpt_support', Type.Array(Type.String({ pattern: '^[a-z0-9_-]{1,20}$' }), { maxItems: 100 }), ['post', 'page'], 'Post types the builder edits.')
  return out
}

export function settingsRoutes (settings: BuilderSettings, store: Store): RelativeRouteDecl[] {
  const keyOf = (key: string): string => {
    if (!key.startsWith(SETTINGS_PREFIX)) throw invalidParam('key', `key must start with "${SETTINGS_PREFIX}".`)
    if (key === OTHER_SETTINGS) throw invalidParam('key', `${OTHER_SETTINGS} holds the other builder settings: name one of them.`)
    return key
  }
  const other = settings.get(OTHER_SETTINGS) as unknown as PackageOption<typeof OTHER_SCHEMA>
  // The declared option, or the undeclared key's place in `builder_other_settings` (the record itself is not a key).
  const optionOf = (key: string): Pick<PackageOption<TSchema>, 'get' | 'set'> => settings.get(key) ?? {
    get: async () => {
      const all = await other.get()
      return Object.hasOwn(all, key) ? all[key] : false
    },
    // Read and written under a lock: two writers of different keys both keep theirs.
    set: async (value: unknown) => await store.transaction(async (tx) => {
      await dbOf(tx).execute(sql`select pg_advisory_xact_lock(hashtext(${`option:${OTHER_SETTINGS}`}))`)
      const all = await other.get(tx)
      if (!Object.hasOwn(all, key) && Object.keys(all).length >= MAX_OTHER) throw invalidParam('key', `At most ${MAX_OTHER} builder settings besides the declared ones are kept.`)
      return (await other.set({ ...all, [key]: value }, tx))[key]
    })
  }
  return [route({
    path: '/settings/{key}',
    vars: { key: '[\\w_-]+' },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: {},
        summary: 'A builder site option (false when it is not set)',
        response: successObject({ data: Type.Object({ value: anyValue('The option\'s value; false when it is not set.') }) }),
        permission: mayManageOptions.because('§2.2 builder settings: manage_options').probing({ vars: { key: 'builder_font_display' } }),
        handler: async (req) => {
          return { success: true, data: { value: await optionOf(keyOf(String(req.params.key))).get() } }
        }
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: { value: handlerChecked('The new value (checked against the option\'s schema).') },
        summary: 'Write a builder site option',
        response: successObject({ data: Type.Optional(Type.Object({ message: Type.String() })) }, 'data is left out when the value did not change.'),
        permission: mayManageOptions.because('§2.2 builder settings: manage_options').probing({ vars: { key: 'builder_font_display' }, body: { value: 'swap' } }),
        handler: async (req) => {
          const key = keyOf(String(req.params.key))
          const params = req.params as Record<string, unknown>
          if (params.value === undefined) throw invalidParam('value', 'value is required.')
          const option = optionOf(key)
          const before = await option.get()
          if (JSON.stringify(before) === JSON.stringify(params.value)) return { success: true }
          // Checked against the option's schema: 400 rest_invalid_param naming it, nothing written.
          await option.set(params.value)
          return { success: true, data: { message: 'Setting updated successfully.' } }
        }
      })
    ]
  })]
}
