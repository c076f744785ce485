/**
 * builder-one/v1 manage-dashboard-widget/state and logs (builder-family.md
 * §6). Administrators only (`manage_options`).
 *
 *   GET manage-dashboard-widget/state  `{state, isWidgetDelegated}` computed, never stored: the
 *       site-management plugin (`manage`) `not_installed`, `not_activated`, `not_connected`
 *       (the site has no connection), then `active` when its version takes the dashboard widget
 *       over (it ships the one-connection package), else `update_required`
 *   GET logs     `{entries}`: the package registry's operations log, newest first (at most 500)
 *   DELETE logs  empties it: `{success: true}`
 */
import { Type } from '@sinclair/typebox'
import { endpoint, route, type RelativeRouteDecl } from '@cms/rest'
import { compareVersions, type PackageRegistry } from '@cms/registry'
import { mayManageOptions } from './access.js'
import { ONE_PACKAGE_SINCE } from './slugs.js'
import type { OneState } from './state.js'

const LOG_LIMIT = 500

export function dashboardRoutes (registry: PackageRegistry, state: OneState): RelativeRouteDecl[] {
  return [
    route({
      path: '/manage-dashboard-widget/state',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'Whether the site-management plugin runs the dashboard widget',
        response: Type.Object({ state: Type.String({ description: 'not_installed, not_activated, not_connected, update_required or active.' }), isWidgetDelegated: Type.Boolean() }),
        permission: mayManageOptions,
        handler: async () => {
          const manage = await registry.get('plugin', 'manage')
          const delegated = manage !== null && compareVersions(manage.version, ONE_PACKAGE_SINCE) >= 0
          const s = manage === null
            ? 'not_installed'
            : manage.status !== 'active' ? 'not_activated' : !await state.connected() ? 'not_connected' : delegated ? 'active' : 'update_required'
          return { state: s, isWidgetDelegated: delegated }
        }
      })]
    }),
    route({
      path: '/logs',
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: {},
          summary: 'The plugin and theme operations log, newest first',
          response: Type.Object({ entries: Type.Array(Type.Object({ id: Type.Integer(), timestamp: Type.Unknown(), level: Type.String(), source: Type.String(), message: Type.String(), operation: Type.String() })) }),
          permission: mayManageOptions,
          handler: async () => {
            const { entries } = await registry.log.list({ limit: LOG_LIMIT })
            return {
              entries: entries.map((e) => ({
                id: e.id,
                timestamp: e.time,
                level: e.outcome === 'success' ? 'info' : 'error',
                source: `${e.type}:${e.slug}`,
                message: e.message,
                operation: e.operation,
                fromVersion: e.fromVersion,
                toVersion: e.toVersion,
                userId: e.userId
              }))
            }
          }
        }),
        endpoint({
          methods: ['DELETE'],
          args: {},
          summary: 'Empty the operations log',
          response: Type.Object({ success: Type.Boolean() }),
          permission: mayManageOptions,
          handler: async () => {
            await registry.log.clear()
            return { success: true }
          }
        })
      ]
    })
  ]
}
