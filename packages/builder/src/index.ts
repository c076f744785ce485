/**
 * @cms/builder: the page builder's namespaces. Registers its post meta on
 * cms/v2 (`_builder_*`) and nps-survey/v1 (two routes, one table, their
 * permission cases; ratings go to the `nps-survey` upstream). The other builder namespaces of the profiles answer
 * their root route until their routes are written.
 */
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'
import { npsSurveyRoutes } from './nps-survey.js'
import { registerBuilderMeta } from './meta.js'
import { builderPermissionCases } from './permissions.js'

export const builderPackage = definePackage({
  name: '@cms/builder',
  dependencies: ['@cms/core'],
  namespaces: ['builder/v1', 'builder/v1/documents', 'builder-ai/v1', 'nps-survey/v1', 'builder/v1/feedback', 'builder-one/v1'],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    registerBuilderMeta(api)
    api.namespace('nps-survey/v1', () => npsSurveyRoutes(api))
    api.permissionCases(builderPermissionCases)
    // Whether the builder may share usage data (builder-family.md: `elementor_allow_tracking`); off until an administrator opts in.
    api.option('builder_allow_tracking', Type.Boolean(), { default: false, description: 'Whether the page builder may share anonymous usage data.' })
  }
})
