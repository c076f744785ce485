/**
 * What builder-one keeps, all in site options (`builder_one_*`, the real
 * package's `elementor_one_*`; builder-family.md §6):
 *
 *   builder_one_connection          the site's one connection: the client the
 *                                   connect service registered (its secret
 *                                   sealed), the pending authorization's
 *                                   state, the tokens (sealed), when it
 *                                   connected and whether a licence seat is held
 *   builder_one_migrated_plugins    the plugins using that connection
 *   builder_one_plugin_connections  plugins holding a connection or licence of
 *                                   their own (slug -> since, Unix seconds),
 *                                   written by those plugins (or `cms option
 *                                   set`); a forced migration releases it
 *   builder_one_onboarding_completed, builder_one_share_usage_data
 *                                   the settings route's own (settings.ts)
 *
 * Read-modify-writes of one option run in a transaction under a lock of
 * that option, so two at once both count.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { dbOf, type Queryable } from '@cms/store'
import type { PackageApi, PackageOption, Secrets } from '@cms/core'
import { MIGRATION_SLUGS } from './slugs.js'

export const CONNECTION = Type.Object({
  client_id: Type.String({ maxLength: 200 }),
  /** Sealed (`api.secrets`). */
  client_secret: Type.String({ maxLength: 4096 }),
  /** The pending authorization's state, '' when none. */
  state: Type.String({ maxLength: 200 }),
  state_expires: Type.Integer({ minimum: 0 }),
  /** The redirect URI the pending authorization named (the token exchange repeats it). */
  redirect_uri: Type.String({ maxLength: 2048 }),
  /** The token answer, sealed; '' when not connected. */
  tokens: Type.String({ maxLength: 65536 }),
  connected_at: Type.Integer({ minimum: 0 }),
  license_active: Type.Boolean()
}, { additionalProperties: false })
export type Connection = Static<typeof CONNECTION>

export const NO_CONNECTION: Connection = { client_id: '', client_secret: '', state: '', state_expires: 0, redirect_uri: '', tokens: '', connected_at: 0, license_active: false }

const MIGRATED = Type.Array(Type.Union(MIGRATION_SLUGS.map((s) => Type.Literal(s))), { maxItems: MIGRATION_SLUGS.length, uniqueItems: true })
const OWN_CONNECTIONS = Type.Record(Type.String({ pattern: '^[a-z0-9-]{1,100}$' }), Type.Integer({ minimum: 0 }), { maxProperties: 100 })

export interface OneState {
  connection: PackageOption<typeof CONNECTION>
  migrated: PackageOption<typeof MIGRATED>
  ownConnections: PackageOption<typeof OWN_CONNECTIONS>
  /** Whether the site holds the one connection (tokens kept). */
  connected: () => Promise<boolean>
  /** Changes one option under its lock: `change` gets the stored value and answers the new one. */
  update: <S extends TSchema>(option: PackageOption<S>, change: (value: Static<S>, tx: Queryable) => Static<S> | Promise<Static<S>>) => Promise<Static<S>>
}

export function oneState (api: PackageApi): OneState {
  const { store } = api.services
  const connection = api.option('builder_one_connection', CONNECTION, { default: NO_CONNECTION, description: 'The site\'s one connection to the connect service (secrets sealed).' })
  const migrated = api.option('builder_one_migrated_plugins', MIGRATED, { default: [], description: 'The plugins that use the site\'s one connection.' })
  const ownConnections = api.option('builder_one_plugin_connections', OWN_CONNECTIONS, { default: {}, description: 'Plugins holding a connection or licence of their own (slug -> since, Unix seconds).' })
  return {
    connection,
    migrated,
    ownConnections,
    connected: async () => (await connection.get()).tokens !== '',
    update: async (option, change) => await store.transaction(async (tx) => {
      await dbOf(tx).execute(sql`select pg_advisory_xact_lock(hashtext(${`option:${option.name}`}))`)
      return await option.set(await change(await option.get(tx), tx), tx)
    })
  }
}

/** The connection's access token, or '' when the site is not connected. */
export async function accessTokenOf (secrets: Secrets, c: Connection): Promise<string> {
  if (c.tokens === '') return ''
  const tokens = JSON.parse(await secrets.open(c.tokens)) as { access_token?: unknown }
  return typeof tokens.access_token === 'string' ? tokens.access_token : ''
}
