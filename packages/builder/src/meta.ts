/**
 * The page builder's post meta, registered on cms/v2 posts and pages (edit
 * context only): whether the builder edits a post, its template type, its
 * data and its page settings.
 */
import type { PackageApi } from '@cms/core'
import { builderDataSanitizer, sanitizeBuilderObject } from './sanitize.js'

const TEMPLATE_TYPES = ['post', 'cms-post', 'cms-page', 'kit', 'not-supported', 'page', 'section', 'container', 'floating-buttons', 'cloud-template-preview', ''] as const

export function registerBuilderMeta (api: PackageApi): void {
  const edit = { context: ['edit'] }
  api.registerMeta('post', '_builder_edit_mode', { type: 'string', default: '', enum: ['', 'builder'], description: 'Whether the page builder edits this content.' }, edit)
  api.registerMeta('post', '_builder_template_type', { type: 'string', default: '', enum: TEMPLATE_TYPES, description: 'Page-builder template type.' }, edit)
  // Writers without unfiltered_html: the data's strings filtered (sanitize.ts), within the deployment's text limits.
  const sanitize = builderDataSanitizer(api.services.settings.textLimits)
  api.registerMeta('post', '_builder_data', { type: 'string', default: '', description: 'Page-builder data (JSON carried as a string).', sanitize }, edit)
  api.registerMeta('post', '_builder_page_settings', {
    type: 'object',
    default: {},
    description: 'Page-builder page settings.',
    properties: { hide_title: { type: 'string', enum: ['yes', 'no'] } },
    additionalProperties: true,
    sanitize: sanitizeBuilderObject
  }, edit)
}
