/**
 * builder-ai/v1 permissions (builder-family.md §4): tells the site planner
 * that the "connect" feature exists. Administrators (`manage_options`).
 */
import { Type } from '@sinclair/typebox'
import { endpoint, route, type RelativeRouteDecl, successObject } from '@cms/rest'
import { mayManageOptions } from './access.js'

export function builderAiRoutes (): RelativeRouteDecl[] {
  return [route({
    path: '/permissions',
    endpoints: [endpoint({
      methods: ['GET'],
      args: {},
      summary: 'Which site planner features this site offers',
      response: successObject({ data: Type.Object({ site_planner_connect: Type.Boolean() }) }),
      permission: mayManageOptions.because('§4 site planner connect: manage_options'),
      handler: () => ({ success: true, data: { site_planner_connect: true } })
    })]
  })]
}
