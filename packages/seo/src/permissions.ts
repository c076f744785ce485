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

/** `edit_posts`: contributors and up. */
const EDIT_POSTS: Outcomes = { anonymous: 401, subscriber: 403, contributor: A, author: A, editor: A, administrator: A }

const c = (why: string, outcomes: Outcomes, probe?: PermissionCase['probe']): PermissionCase => ({ why, ...outcomes, ...(probe === undefined ? {} : { probe }) })

const S = '/seo/v1'
const INDEXING = ['prepare', 'terms', 'posts', 'post-type-archives', 'general', 'indexables-complete', 'complete']

export const seoPermissionCases: PermissionCases = {
  ...Object.fromEntries(INDEXING.map((step) => [`POST ${S}/indexing/${step}`, c('§1.3 indexing: edit_posts', EDIT_POSTS)])),
  [`POST ${S}/link-indexing/posts`]: c('§1.3 link indexing: edit_posts', EDIT_POSTS),
  [`POST ${S}/link-indexing/terms`]: c('§1.3 link indexing: edit_posts', EDIT_POSTS)
}
