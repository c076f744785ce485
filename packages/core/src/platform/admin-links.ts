/**
 * Links to admin screens. This service has no admin front end of its own
 * (only the sign-in and authorization pages): an answer that points at an
 * admin screen (a post's editor, a plugin's settings page) points under the
 * front end the deployer runs, `CMS_ADMIN_URL`, at the path documented in
 * docs/configuration.md; without that setting there is nothing to point at,
 * and the link is null (the caller leaves it out where its shape allows).
 */

/** `{CMS_ADMIN_URL}/{page}` (`page` may carry a query string), or null when no admin front end is configured. */
export function adminLink (settings: { adminUrl?: string }, page: string): string | null {
  return settings.adminUrl === undefined ? null : `${settings.adminUrl}/${page.replace(/^\/+/, '')}`
}
