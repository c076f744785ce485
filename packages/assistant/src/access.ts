/**
 * Who may call assistant/v1 (seo-rollback-assistant-addons.md §3.1,
 * CONVENTIONS.md §4): "manage snippets" is `manage_options` (snippets,
 * artifacts, dev mode, super-admin, settings and site options);
 * `use_assistant` (granted to administrators) or `manage_options` for the
 * front-end's token and the builder's post types. Refusals are
 * `rest_forbidden`: 401 anonymous, 403 signed in.
 */
import { denied, type RestError, type RestRequest } from '@cms/rest'
import { assistantErrors } from './errors.js'

export const USE_ASSISTANT = 'use_assistant'

type Check = (req: RestRequest<any>) => true | RestError

function needs (...capabilities: string[]): Check {
  return (req) => capabilities.some((c) => req.user.can(c)) ? true : denied(assistantErrors.rest_forbidden(), req.user.id)
}

export const mayManageSnippets = needs('manage_options')
export const mayManageOptions = needs('manage_options')
export const mayEditThemeOptions = needs('edit_theme_options')
export const mayEditPosts = needs('edit_posts')
export const mayUseAssistant = needs(USE_ASSISTANT, 'manage_options')
