/**
 * @cms/builder: the page builder's namespaces, one file per route family:
 *
 *   builder/v1           globals.ts, kit-defaults.ts (the design kit, kit.ts), settings.ts,
 *                        post-search.ts, favorites.ts, user-data.ts, checklist.ts,
 *                        site-navigation.ts, templates.ts, library-connect.ts,
 *                        send-event.ts, cache.ts
 *   builder/v1/documents documents.ts (media import)
 *   builder-ai/v1        builder-ai.ts
 *   nps-survey/v1        nps-survey.ts
 *
 * It registers its post meta on cms/v2 (`_builder_*`, meta.ts), its site
 * options, its tables (migrations) and its permission cases. Per-user state
 * lives in the core's user meta (user-state.ts). `builder/v1/feedback`
 * answers its root route (the reference shows no other); `builder-one/v1`
 * is `@cms/builder-one`'s.
 */
import { fileURLToPath } from 'node:url'
import { Type, type TBoolean } from '@sinclair/typebox'
import { definePackage, type PackageOption } from '@cms/core'
import { builderAiRoutes } from './builder-ai.js'
import { cacheRoutes } from './cache.js'
import { checklistRoutes } from './checklist.js'
import { documentRoutes } from './documents.js'
import { favoritesRoutes } from './favorites.js'
import { globalsRoutes } from './globals.js'
import { builderService } from './api.js'
import { factorySettings, kitStore, LIBRARY_TYPE } from './kit.js'
import { kitDefaultsRoutes } from './kit-defaults.js'
import { libraryConnectRoutes } from './library-connect.js'
import { registerBuilderMeta } from './meta.js'
import { npsSurveyRoutes } from './nps-survey.js'
import { postSearchRoutes } from './post-search.js'
import { sendEventRoutes } from './send-event.js'
import { declareSettings, settingsRoutes } from './settings.js'
import { siteNavigationRoutes } from './site-navigation.js'
import { TEMPLATE_TYPES, templateRoutes } from './templates.js'
import { userDataRoutes } from './user-data.js'
import { userState } from './user-state.js'

export const builderPackage = definePackage({
  name: '@cms/builder',
  dependencies: ['@cms/core'],
  namespaces: ['builder/v1', 'builder/v1/documents', 'builder-ai/v1', 'nps-survey/v1', 'builder/v1/feedback'],
  // Served while the plugin `builder` is active (the registry's status).
  activation: [{ type: 'plugin', slug: 'builder' }],
  options: Type.Object({}, { additionalProperties: false }),
  // In every process: its meta, settings, kit store (the assistant's service) and post type.
  contribute (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    registerBuilderMeta(api)
    const settings = declareSettings(api)
    const kits = kitStore(api)
    api.provide(builderService, { kits, factorySettings, templateTypes: [...TEMPLATE_TYPES, 'kit'], setting: (name) => settings.get(name) })
    // The library's documents (templates, the kit) are posts of this type; /cms/v2/types lists it
    // with this namespace's collection (answered here or by the service serving builder/v1).
    api.postType({
      slug: LIBRARY_TYPE,
      name: 'My Templates',
      singularName: 'Template',
      restNamespace: 'builder/v1',
      restBase: 'template-library/templates',
      supports: ['title', 'thumbnail', 'author', 'builder'],
      // Templates are not pages of the site: kept out of search and navigation menus.
      viewable: false,
      showInNavMenus: false
    })
    return { settings, kits }
  },
  serve (api, _options, _app, { settings, kits }) {
    const tracking = settings.get('builder_allow_tracking') as unknown as PackageOption<TBoolean>
    const state = userState(api.services.store)
    api.namespace('builder/v1', () => [
      ...globalsRoutes(kits),
      ...kitDefaultsRoutes(kits),
      ...settingsRoutes(settings, api.services.store),
      ...postSearchRoutes(api),
      ...favoritesRoutes(state),
      ...userDataRoutes(api, state),
      ...checklistRoutes(api, kits, state),
      ...siteNavigationRoutes(api),
      ...templateRoutes(api),
      ...libraryConnectRoutes(api, state),
      ...sendEventRoutes(api, tracking),
      ...cacheRoutes(api)
    ])
    api.namespace('builder/v1/documents', () => documentRoutes(api))
    api.namespace('builder-ai/v1', () => builderAiRoutes())
    api.namespace('nps-survey/v1', () => npsSurveyRoutes(api))
  }
})

// For packages that build on the builder (the add-ons): its document type, its text filter and its renderer.
export { LIBRARY_TYPE } from './kit.js'
export { filterStrings } from './sanitize.js'
export { renderBuilderData } from './render.js'
// For the assistant: the kit and settings, as functions.
export { builderService, type BuilderService } from './api.js'
