/**
 * The permission functions the builder's routes share (builder-family.md
 * §1-§5, CONVENTIONS.md §4): a capability, else `rest_forbidden` (401
 * anonymous, 403 signed in).
 */
import { denied, type RestError, type RestRequest } from '@cms/rest'
import { builderErrors } from './errors.js'

export function needs (capability: string): (req: RestRequest<any>) => true | RestError {
  return (req) => req.user.can(capability) ? true : denied(builderErrors.rest_forbidden(), req.user.id)
}

export const mayEditPosts = needs('edit_posts')
export const mayManageOptions = needs('manage_options')
export const signedIn = needs('read')
