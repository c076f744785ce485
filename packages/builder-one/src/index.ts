/**
 * @cms/builder-one: `builder-one/v1` (profile B; builder-family.md §6), the
 * site's one connection to the builder's connect service and the
 * management of the builder family's plugins, one file per route family:
 *
 *   connect.ts    connect/authorize, disconnect, switch-domain, deactivate (the `builder-one` upstream),
 *                 and the browser's return from the connect service (/cms-admin/builder-one/connect)
 *   top-bar.ts    top-bar/notifications (`builder-one-notifications`), top-bar/feedback (`builder-one`)
 *   settings.ts   settings
 *
 * What it keeps is in site options (state.ts). The routes that act on
 * plugins and themes (themes, plugins and their migration,
 * manage-dashboard-widget/state, logs) come with the package registry.
 */
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { connect, connectCallback } from './connect.js'
import { builderOnePermissionCases } from './permissions.js'
import { settingsRoutes } from './settings.js'
import { oneState } from './state.js'
import { topBarRoutes } from './top-bar.js'

export const builderOnePackage = definePackage({
  name: '@cms/builder-one',
  dependencies: ['@cms/core'],
  namespaces: ['builder-one/v1'],
  options: Type.Object({}, { additionalProperties: false }),
  register (api, _options, app) {
    const state = oneState(api)
    const connector = connect(api, state)
    const settings = settingsRoutes(api, state)
    if (api.serves('builder-one/v1')) connectCallback(app, connector)
    api.namespace('builder-one/v1', () => [
      ...connector.routes(),
      ...topBarRoutes(api, state),
      ...settings
    ])
    api.permissionCases(builderOnePermissionCases)
  }
})
