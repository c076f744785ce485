/**
 * @cms/themes: the themes' namespaces.
 *
 *   theme-a/v1       theme-a.ts (reset; profile A)
 *   theme-helper/v1  its root route only (profile B; the reference shows no other route)
 */
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { themeAOptions, themeARoutes } from './theme-a.js'

export const themesPackage = definePackage({
  name: '@cms/themes',
  dependencies: ['@cms/core'],
  namespaces: ['theme-a/v1', 'theme-helper/v1'],
  // theme-a/v1 while theme-a is the active theme; theme-helper/v1, its companion plugin's, while
  // that plugin is active and its theme is the active one.
  activation: [{ type: 'theme', slug: 'theme-a' }, { type: 'plugin', slug: 'theme-helper', namespaces: ['theme-helper/v1'] }],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    const options = themeAOptions(api)
    api.namespace('theme-a/v1', () => themeARoutes(options))
    api.namespace('theme-helper/v1', () => [])
  }
})
