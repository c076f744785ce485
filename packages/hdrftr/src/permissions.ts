/**
 * Who may call hdrftr/v1: expected outcomes for anonymous and each role,
 * written from builder-family.md §7 and CONVENTIONS.md §4 (not from the
 * code). Every route needs `manage_options`; an anonymous caller gets 401,
 * never the product's 403. 'allowed' means the permission check passed (a
 * 4xx or 503 of the probe itself is fine).
 */
import type { PermissionCase, PermissionCases } from '@cms/core'

const A = 'allowed' as const
type Outcomes = Omit<PermissionCase, 'why' | 'probe'>
/** `manage_options`: administrators only. */
const MANAGE_OPTIONS: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: A }

const c = (why: string, probe?: PermissionCase['probe']): PermissionCase => ({ why, ...MANAGE_OPTIONS, ...(probe === undefined ? {} : { probe }) })

const H = '/hdrftr/v1'

export const hdrftrPermissionCases: PermissionCases = {
  [`GET ${H}/widgets`]: c('§7 widgets: manage_options (application passwords need no browser nonce, CONVENTIONS §4)'),
  [`GET ${H}/plugins`]: c('§7 plugin catalogue: manage_options'),
  [`GET ${H}/recommended-plugins`]: c('§7 recommended plugins: manage_options'),
  [`GET ${H}/templates`]: c('§7 starter templates status: manage_options'),
  [`POST ${H}/email-webhook`]: c('§7 newsletter opt-in: manage_options (an allowed probe may then meet the unconfigured subscription upstream: 503)', { body: { email: 'probe@example.com' } }),
  [`GET ${H}/mcp-abilities`]: c('§7 AI abilities: manage_options'),
  [`GET ${H}/mcp-settings`]: c('§7 AI tools settings: manage_options'),
  [`POST ${H}/mcp-settings`]: c('§7 AI tools settings: manage_options', { body: {} }),
  [`GET ${H}/get-learn-chapters`]: c('§7 learning chapters: manage_options (rest_cannot_view)'),
  [`POST ${H}/update-learn-progress`]: c('§7 learning progress: manage_options (the caller\'s own)', { body: { chapterId: 'create-header', stepId: 'setup-header', completed: false } })
}
