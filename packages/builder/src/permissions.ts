/**
 * Who may call the builder's routes: expected outcomes for anonymous and
 * each role, written from builder-family.md (not from the code). The
 * gateway's permission matrix probes every served route against these.
 */
import type { PermissionCases } from '@cms/core'

const A = 'allowed' as const
/** `manage_options`: administrators only (builder-family.md §5). */
const MANAGE_OPTIONS = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: A } as const

export const builderPermissionCases: PermissionCases = {
  'POST /nps-survey/v1/rating': { why: '§5 nps-survey: manage_options (an allowed probe may then meet the unconfigured metrics upstream: 503)', ...MANAGE_OPTIONS, probe: { body: { plugin_slug: 'probe', rating: 9 } } },
  'POST /nps-survey/v1/dismiss-nps-survey': { why: '§5 nps-survey: manage_options', ...MANAGE_OPTIONS, probe: { body: { plugin_slug: 'probe', dismiss_timespan: 60 } } }
}
