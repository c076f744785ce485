/**
 * Who may call hdrftr/v1 (builder-family.md §7, CONVENTIONS.md §4):
 * administrators (`manage_options`), else the family's error, 401 for an
 * anonymous caller and 403 for a signed-in one. The real product also
 * wants a browser nonce; application-password callers have none and need
 * none (CONVENTIONS.md §4).
 */
import { can } from '@cms/rest'
import { hdrftrErrors } from './errors.js'

/** The settings routes (widgets, catalogues, templates, e-mail webhook, MCP). */
export const mayManageSettings = can('manage_options', { error: hdrftrErrors.hdrftr_rest_not_allowed, why: '§7 settings: manage_options (application passwords need no browser nonce, CONVENTIONS §4)' })
/** Reading the learning chapters. */
export const mayViewLearn = can('manage_options', { error: hdrftrErrors.rest_cannot_view, why: '§7 learning chapters: manage_options (rest_cannot_view)' })
/** Saving one's learning progress. */
export const mayUpdateLearn = can('manage_options', {
  error: hdrftrErrors.rest_forbidden,
  why: "§7 learning progress: manage_options (the caller's own)",
  probe: { body: { chapterId: 'create-header', stepId: 'setup-header', completed: false } }
})
