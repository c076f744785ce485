/** The permissions the SEO routes share (seo-rollback-assistant-addons.md §1.3, CONVENTIONS.md §4). */
import { can } from '@cms/rest'
import { adminLink, type PackageApi } from '@cms/core'
import { seoErrors } from './errors.js'

export const MANAGE_SEO = 'manage_seo_options'

/** `manage_seo_options` (administrators). */
export const mayManageSeo = can(MANAGE_SEO, { error: seoErrors.rest_forbidden })
/** `edit_posts` (contributors and up). */
export const mayEditPosts = can('edit_posts', { error: seoErrors.rest_forbidden })
/** `edit_others_posts` (editors and administrators). */
export const mayEditOthersPosts = can('edit_others_posts', { error: seoErrors.rest_forbidden })
/** `read` (any signed-in user). */
export const mayRead = can('read', { error: seoErrors.rest_forbidden })

/** What `edit_post` needs to know of a post. */
export const postLike = (p: { type: string, author: number, status: string }): { type: string, author: number, status: string } => ({ type: p.type, author: p.author, status: p.status })

/** An admin screen under the deployer's admin front end (`CMS_ADMIN_URL`), or null when none is configured (core admin-links.ts). */
export function adminUrl (api: PackageApi, page: string): string | null {
  return adminLink(api.services.settings, page)
}
