/**
 * @cms/addons: the add-on widgets' namespaces (seo-rollback-assistant-addons.md
 * §4), one file per route family:
 *
 *   addons-a/v1  ajaxselect2.ts (the builder's select-box lookups),
 *                megamenu.ts (a menu item's mega-menu panel; menus.ts keeps the menus,
 *                written with `cms menu`: commands.ts)
 *   addons-b/v1  widget-builder.ts (custom widgets, versioned; widget-definition.ts
 *                is the schema of a definition)
 *
 * Its tables (schema.ts, migrations) hold the widgets with their versions
 * and the navigation menus; it builds on @cms/builder (its library
 * templates, text filter and renderer) through that package's exports.
 */
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { ajaxSelect2Routes } from './ajaxselect2.js'
import { addonsCommands } from './commands.js'
import { megaMenuRoutes } from './megamenu.js'
import { menus } from './menus.js'
import { widgetBuilderRoutes } from './widget-builder.js'

export const addonsPackage = definePackage({
  name: '@cms/addons',
  dependencies: ['@cms/core', '@cms/builder'],
  namespaces: ['addons-a/v1', 'addons-b/v1'],
  // Served while the plugin `addons` is active (the registry's status).
  activation: [{ type: 'plugin', slug: 'addons' }],
  options: Type.Object({}, { additionalProperties: false }),
  commands: addonsCommands,
  register (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    const menuStore = menus(() => api.services.store)
    api.namespace('addons-a/v1', () => [...ajaxSelect2Routes(api, menuStore), ...megaMenuRoutes(api, menuStore)])
    api.namespace('addons-b/v1', () => widgetBuilderRoutes(api))
  }
})
