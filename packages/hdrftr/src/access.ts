/**
 * Who may call hdrftr/v1 (builder-family.md §7, CONVENTIONS.md §4):
 * administrators (`manage_options`), else the family's error, 401 for an
 * anonymous caller and 403 for a signed-in one. The real product also
 * wants a browser nonce; application-password callers have none and need
 * none (CONVENTIONS.md §4).
 */
import { denied, type RestError, type RestRequest } from '@cms/rest'
import { hdrftrErrors } from './errors.js'

type Check = (req: RestRequest<any>) => true | RestError

function manageOptions (error: () => RestError): Check {
  return (req) => req.user.can('manage_options') ? true : denied(error(), req.user.id)
}

/** The settings routes (widgets, catalogues, templates, e-mail webhook, MCP). */
export const mayManageSettings = manageOptions(() => hdrftrErrors.hdrftr_rest_not_allowed())
/** Reading the learning chapters. */
export const mayViewLearn = manageOptions(() => hdrftrErrors.rest_cannot_view())
/** Saving one's learning progress. */
export const mayUpdateLearn = manageOptions(() => hdrftrErrors.rest_forbidden())
