/**
 * @cms/addons: the add-on widgets' namespaces `addons-a/v1` and
 * `addons-b/v1` (seo-rollback-assistant-addons.md §4). Their roots only for
 * now: the routes are issue 31.
 */
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'

export const addonsPackage = definePackage({
  name: '@cms/addons',
  dependencies: ['@cms/core'],
  namespaces: ['addons-a/v1', 'addons-b/v1'],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    api.namespace('addons-a/v1', () => [])
    api.namespace('addons-b/v1', () => [])
  }
})
