/**
 * @cms/assistant: the AI site assistant's namespace `assistant/v1`
 * (seo-rollback-assistant-addons.md §3). Its root only for now: the routes
 * are issue 30.
 */
import { Type } from '@sinclair/typebox'
import { definePackage } from '@cms/core'

export const assistantPackage = definePackage({
  name: '@cms/assistant',
  dependencies: ['@cms/core'],
  namespaces: ['assistant/v1'],
  options: Type.Object({}, { additionalProperties: false }),
  register (api) {
    api.namespace('assistant/v1', () => [])
  }
})
