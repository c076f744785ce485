/**
 * The permission functions the builder's routes share (builder-family.md
 * §1-§5, CONVENTIONS.md §4): a capability, else `rest_forbidden` (401
 * anonymous, 403 signed in).
 */
import { can, type Permission } from '@cms/rest'
import { builderErrors } from './errors.js'

export function needs (capability: string, why: string): Permission {
  return can(capability, { error: builderErrors.rest_forbidden, why })
}

export const mayEditPosts = needs('edit_posts', 'builder-family.md §2: edit_posts')
export const mayManageOptions = needs('manage_options', 'builder-family.md §2: manage_options')
export const signedIn = needs('read', '§2.9 current user data: signed in')
