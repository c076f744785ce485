/**
 * Who may call assistant/v1 (seo-rollback-assistant-addons.md §3.1,
 * CONVENTIONS.md §4): "manage snippets" is `manage_options` (snippets,
 * artifacts, dev mode, super-admin, settings and site options);
 * `use_assistant` (granted to administrators) or `manage_options` for the
 * front-end's token and the builder's post types. Refusals are
 * `rest_forbidden`: 401 anonymous, 403 signed in.
 */
import { can, type Permission } from '@cms/rest'
import { assistantErrors } from './errors.js'

export const USE_ASSISTANT = 'use_assistant'

function needs (why: string, ...capabilities: string[]): Permission {
  return can(capabilities, { error: assistantErrors.rest_forbidden, why })
}

export const mayManageSnippets = needs('§3.3 manage snippets (manage_options)', 'manage_options')
export const mayManageOptions = needs('§3.6 manage_options', 'manage_options')
export const mayEditThemeOptions = needs('§3.6 kit: edit_theme_options', 'edit_theme_options')
export const mayEditPosts = needs('§3.6 edit_posts', 'edit_posts')
export const mayUseAssistant = needs('§3.6 use_assistant or manage_options', USE_ASSISTANT, 'manage_options')
