/**
 * Who may call the SEO routes: expected outcomes for anonymous and each
 * role, written from seo-rollback-assistant-addons.md §1.1 and §1.3 and
 * CONVENTIONS.md §4 (not from the code). The gateway's permission matrix
 * probes every served route against these. 'allowed' means the permission
 * check passed (a 4xx of the probe itself is fine).
 */
import type { PermissionCase, PermissionCases } from '@cms/core'

const A = 'allowed' as const
type Outcomes = Omit<PermissionCase, 'why' | 'probe'>
/** `manage_seo_options`: administrators. */
export const MANAGE_SEO: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: A }

export const seoPermissionCases: PermissionCases = {}
