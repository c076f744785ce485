/**
 * builder-one/v1 settings (builder-family.md §6): the package's own
 * settings, each stored as the site option `builder_one_<snake_name>`.
 * GET answers them by their camelCase names; a write (POST, PUT, PATCH)
 * takes camelCase keys, converts each to snake_case, ignores those that
 * are not writable settings, checks every value against its option's
 * schema before anything is written (`400 rest_invalid_param` naming it),
 * writes them in one transaction and answers the settings as they now are.
 * `migratedPlugins` is read-only here (the migration routes change it).
 * Administrators only (`manage_options`).
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { endpoint, invalidParam, isPlainObject, RestError, route, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi, PackageOption } from '@cms/core'
import { mayManageOptions } from './access.js'
import type { OneState } from './state.js'

const PREFIX = 'builder_one_'

/** `onboardingCompleted` -> `onboarding_completed`. */
export function snakeCase (key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/** `onboarding_completed` -> `onboardingCompleted`. */
export function camelCase (key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}

const SETTINGS = Type.Object({ onboardingCompleted: Type.Boolean(), shareUsageData: Type.Boolean(), migratedPlugins: Type.Array(Type.String()) }, { description: 'The settings, camelCase keys.' })

export function settingsRoutes (api: PackageApi, state: OneState): RelativeRouteDecl[] {
  const writable = new Map<string, PackageOption<TSchema>>()
  const add = (name: string, schema: TSchema, def: unknown, description: string): void => {
    writable.set(name, api.option(`${PREFIX}${name}`, schema, { default: def, description }) as PackageOption<TSchema>)
  }
  add('onboarding_completed', Type.Boolean(), false, 'Whether an administrator finished the connect onboarding.')
  add('share_usage_data', Type.Boolean(), false, 'Whether the site shares anonymous usage data with the connect service.')

  const read = async (): Promise<Record<string, unknown>> => {
    const out: Record<string, unknown> = {}
    for (const [name, option] of writable) out[camelCase(name)] = await option.get()
    out.migratedPlugins = await state.migrated.get()
    return out
  }
  const { store } = api.services

  return [route({
    path: '/settings',
    endpoints: [
      endpoint({ methods: ['GET'], args: {}, summary: 'The package\'s settings', response: SETTINGS, permission: mayManageOptions, handler: read }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: {},
        summary: 'Change the package\'s settings (camelCase keys; unknown ones ignored)',
        response: SETTINGS,
        permission: mayManageOptions,
        handler: async (req) => {
          const body = isPlainObject(req.sentBody) ? req.sentBody : {}
          const changes: Array<[PackageOption<TSchema>, unknown]> = []
          for (const [key, value] of Object.entries(body)) {
            const option = writable.get(snakeCase(key))
            // Checked before anything is written: one bad value writes nothing.
            if (option === undefined) continue
            try {
              changes.push([option, api.services.options.check(option.name, value)])
            } catch (err) {
              // Named as the client sent it (camelCase), not by the option's stored name.
              if (!(err instanceof RestError) || err.code !== 'rest_invalid_param') throw err
              const why = String((err.data.params as Record<string, unknown> | undefined)?.[option.name] ?? '').replace(/^Invalid value for option [\w-]+: /, '')
              throw invalidParam(key, `${key} is invalid: ${why}`)
            }
          }
          if (changes.length > 0) {
            await store.transaction(async (tx) => {
              for (const [option, value] of changes) await option.set(value, tx)
            })
          }
          return await read()
        }
      })
    ]
  })]
}
