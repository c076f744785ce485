/** The permission checks the SEO routes share (permissions.ts lists who passes each). */
import { denied, type RestError, type RestRequest } from '@cms/rest'
import { seoErrors } from './errors.js'

export const MANAGE_SEO = 'manage_seo_options'

const check = (cap: string) => (req: RestRequest): true | RestError => req.user.can(cap) || denied(seoErrors.rest_forbidden(), req.user.id)

/** `manage_seo_options` (administrators). */
export const mayManageSeo = check(MANAGE_SEO)
/** `edit_posts` (contributors and up). */
export const mayEditPosts = check('edit_posts')
/** `edit_others_posts` (editors and administrators). */
export const mayEditOthersPosts = check('edit_others_posts')
/** `read` (any signed-in user). */
export const mayRead = check('read')

/** What `edit_post` needs to know of a post. */
export const postLike = (p: { type: string, author: number, status: string }): { type: string, author: number, status: string } => ({ type: p.type, author: p.author, status: p.status })

/** The admin screen URL of the service (`{site}/cms-admin/<page>`). */
export function adminUrl (req: RestRequest, page: string): string {
  return `${req.siteUrl.replace(/\/+$/, '')}/cms-admin/${page}`
}
