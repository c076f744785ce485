/**
 * Who may call rollback/v1 (seo-rollback-assistant-addons.md §2.1,
 * CONVENTIONS §4): `update_plugins` (plugins) or `update_themes` (themes),
 * which only administrators hold. Written from the notes, not the code.
 */
import type { PermissionCase, PermissionCases } from '@cms/core'

const ADMIN = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: 'allowed' } as const
const c = (why: string, probe?: PermissionCase['probe']): PermissionCase => ({ why, ...ADMIN, ...(probe === undefined ? {} : { probe }) })

export const rollbackPermissionCases: PermissionCases = {
  'GET /rollback/v1/archives': c('§2.1 archives: update_plugins or update_themes'),
  'GET /rollback/v1/archives/{id}/download': c('§2.1 archive download: update_plugins or update_themes, signed in', { vars: { id: '999999' } }),
  'DELETE /rollback/v1/archives/{id}': c('§2.1 archive delete: update_plugins or update_themes', { vars: { id: '999999' } }),
  'GET /rollback/v1/fetch-info': c('§2.1 fetch-info: nonce-only in the product; update_plugins here (CONVENTIONS §4)', { query: { type: 'plugin', slug: 'rollback' } }),
  'GET /rollback/v1/rollback-steps': c('§2.1 rollback-steps: nonce-only in the product; update_plugins or update_themes here'),
  'POST /rollback/v1/process-rollback': c('§2.1 process-rollback: update_plugins for plugins', { body: { type: 'plugin', slug: 'rollback', version: '0.0.1', step: 'cleanup' } })
}
