/**
 * @cms/builder-one: `builder-one/v1` (profile B; builder-family.md §6), the
 * site's one connection to the builder's connect service and the
 * management of the builder family's plugins, one file per route family:
 *
 *   connect.ts    connect/authorize, disconnect, switch-domain, deactivate (the `builder-one` upstream),
 *                 and the browser's return from the connect service (/cms-admin/builder-one/connect)
 *   top-bar.ts    top-bar/notifications (`builder-one-notifications`), top-bar/feedback (`builder-one`)
 *   themes.ts     themes, themes/{slug}/activate              (the package registry)
 *   plugins.ts    plugins, plugins/{slug}/activate|deactivate|upgrade|migration/run|migration/rollback
 *   settings.ts   settings
 *   dashboard.ts  manage-dashboard-widget/state, logs (the registry's operations log)
 *
 * What it keeps is in site options (state.ts); plugins and themes are the
 * package registry's (`@cms/registry`).
 */
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { packageRegistry } from '@cms/registry'
import { CALLBACK_PATH, connect, connectCallback } from './connect.js'
import { dashboardRoutes } from './dashboard.js'
import { pluginRoutes } from './plugins.js'
import { settingsRoutes } from './settings.js'
import { oneState } from './state.js'
import { themeRoutes } from './themes.js'
import { topBarRoutes } from './top-bar.js'

export const builderOnePackage = definePackage({
  name: '@cms/builder-one',
  dependencies: ['@cms/core', '@cms/registry'],
  namespaces: ['builder-one/v1'],
  // The connect service sends the browser back here (connect.ts).
  pages: [CALLBACK_PATH],
  options: Type.Object({}, { additionalProperties: false }),
  serve (api, _options, app) {
    const registry = api.require(packageRegistry)
    const state = oneState(api)
    const connector = connect(api, state)
    const settings = settingsRoutes(api, state)
    if (api.serves('builder-one/v1')) connectCallback(app, connector)
    api.namespace('builder-one/v1', () => [
      ...connector.routes(),
      ...topBarRoutes(api, state),
      ...themeRoutes(registry),
      ...pluginRoutes(registry, state),
      ...settings,
      ...dashboardRoutes(registry, state)
    ])
  }
})
