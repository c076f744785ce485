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
  [`POST ${O}/themes`]: c('§6 theme install: install_themes (and switch_themes to activate)', { body: { slug: 'probe-theme' } }),
  [`POST ${O}/themes/{slug}/activate`]: c('§6 theme switch: switch_themes', { vars: { slug: 'probe-theme' } }),
  [`GET ${O}/plugins`]: c('§6 plugins list: activate_plugins (rest_cannot_view_plugins)'),
  [`POST ${O}/plugins`]: c('§6 plugin install: install_plugins (and activate_plugins to activate)', { body: { slug: 'mailer' } }),
  [`POST ${O}/plugins/{slug}/activate`]: c('§6 plugin activate: manage_options (unauthorized / forbidden)', { vars: { slug: 'mailer' } }),
  [`POST ${O}/plugins/{slug}/deactivate`]: c('§6 plugin deactivate: manage_options (unauthorized / forbidden)', { vars: { slug: 'mailer' } }),
  [`POST ${O}/plugins/{slug}/upgrade`]: c('§6 plugin upgrade: update_plugins (and activate_plugins to activate)', { vars: { slug: 'mailer' } }),
  [`POST ${O}/plugins/{slug}/migration/run`]: c('§6 migration: manage_options', { vars: { slug: 'mailer' } }),
  [`POST ${O}/plugins/{slug}/migration/rollback`]: c('§6 migration rollback: manage_options', { vars: { slug: 'mailer' } }),
  [`GET ${O}/settings`]: c('§6 settings: manage_options'),
  [`POST ${O}/settings`]: c('§6 settings: manage_options', { body: {} }),
  [`PUT ${O}/settings`]: c('§6 settings: manage_options', { body: {} }),
  [`PATCH ${O}/settings`]: c('§6 settings: manage_options', { body: {} }),
  [`GET ${O}/manage-dashboard-widget/state`]: c('§6 dashboard widget state: manage_options'),
  [`GET ${O}/logs`]: c('§6 operations log: manage_options'),
  [`DELETE ${O}/logs`]: c('§6 operations log: manage_options')
}
