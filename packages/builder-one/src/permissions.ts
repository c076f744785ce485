/**
 * Who may call builder-one/v1: expected outcomes for anonymous and each
 * role, written from builder-family.md §6 and CONVENTIONS.md §4 (not from
 * the code). Every capability involved (`manage_options`,
 * `activate_plugins`, `install_plugins`, `update_plugins`,
 * `install_themes`, `switch_themes`) is an administrator's. 'allowed'
 * means the permission check passed (a 4xx or 503 of the probe itself is
 * fine: most probes then meet an unconfigured upstream or package source).
 */
import type { PermissionCase, PermissionCases } from '@cms/core'

const A = 'allowed' as const
type Outcomes = Omit<PermissionCase, 'why' | 'probe'>
const ADMINS: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: A }

const c = (why: string, probe?: PermissionCase['probe']): PermissionCase => ({ why, ...ADMINS, ...(probe === undefined ? {} : { probe }) })

const O = '/builder-one/v1'

export const builderOnePermissionCases: PermissionCases = {
  [`POST ${O}/connect/authorize`]: c('§6 connect: manage_options'),
  [`POST ${O}/connect/disconnect`]: c('§6 connect: manage_options'),
  [`POST ${O}/connect/switch-domain`]: c('§6 connect: manage_options'),
  [`POST ${O}/connect/deactivate`]: c('§6 connect: manage_options'),
  [`GET ${O}/top-bar/notifications`]: c('§6 top bar: manage_options', { query: { app_name: 'probe', app_version: '1.0.0' } }),
  [`POST ${O}/top-bar/feedback`]: c('§6 top bar: manage_options', { body: { product: 'probe', subject: 'probe', title: 'probe', description: 'probe' } }),
  [`GET ${O}/settings`]: c('§6 settings: manage_options'),
  [`POST ${O}/settings`]: c('§6 settings: manage_options', { body: {} }),
  [`PUT ${O}/settings`]: c('§6 settings: manage_options', { body: {} }),
  [`PATCH ${O}/settings`]: c('§6 settings: manage_options', { body: {} }),
}
