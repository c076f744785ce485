/**
 * Who may call assistant/v1: expected outcomes for anonymous and each role,
 * written from seo-rollback-assistant-addons.md §3 and CONVENTIONS.md §4
 * (not from the code). "Manage snippets" and the settings routes are
 * `manage_options`; the kit routes `edit_theme_options`; both are
 * administrators' only. `use_assistant` is granted to administrators.
 * The super-admin execute, list and read routes need the feature flag (off
 * on a fresh site), the capability and an execution token: refused to
 * everyone here. 'allowed' means the permission check passed (a 4xx, 501
 * or 503 of the probe itself is fine).
 */
import type { PermissionCase, PermissionCases } from '@cms/core'

const A = 'allowed' as const
type Outcomes = Omit<PermissionCase, 'why' | 'probe'>
const ADMINS: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: A }
const EDITORS: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: A, administrator: A }
const EDIT_POSTS: Outcomes = { anonymous: 401, subscriber: 403, contributor: A, author: A, editor: A, administrator: A }
const NOBODY: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: 403 }

const c = (why: string, outcomes: Outcomes = ADMINS, probe?: PermissionCase['probe']): PermissionCase => ({ why, ...outcomes, ...(probe === undefined ? {} : { probe }) })

const S = '/assistant/v1'
const FILES = { files: [{ name: 'main.php', content: '<?php echo 1;' }] }
const SNIPPET = { vars: { id: '999999' } }
const ARTIFACT = { vars: { artifact_id: 'ffffffff-0000' } }

export const assistantPermissionCases: PermissionCases = {
  // Snippets and artifacts (§3.3): manage snippets = manage_options.
  [`GET ${S}/snippets`]: c('§3.3 snippets: manage snippets (manage_options)'),
  [`POST ${S}/snippets`]: c('§3.3 snippets: manage snippets', ADMINS, { body: { title: 'Probe' } }),
  [`POST ${S}/snippets/validate`]: c('§3.3 validate: manage snippets', ADMINS, { body: FILES }),
  [`DELETE ${S}/snippets/{id}`]: c('§3.3 delete: manage snippets (no ownership check)', ADMINS, SNIPPET),
  ...Object.fromEntries(['POST', 'PUT', 'PATCH'].map((m) => [`${m} ${S}/snippets/{id}/artifact`, c('§3.3 link an artifact: manage snippets (then the author only)', ADMINS, { ...SNIPPET, body: { artifact_id: 'ffffffff-0000' } })])),
  [`GET ${S}/snippets/{id}/files`]: c('§3.3 files: manage snippets', ADMINS, SNIPPET),
  [`PUT ${S}/snippets/{id}/files`]: c('§3.3 files: manage snippets', ADMINS, { ...SNIPPET, body: FILES }),
  [`PATCH ${S}/snippets/{id}/files`]: c('§3.3 files: manage snippets', ADMINS, { ...SNIPPET, body: FILES }),
  [`GET ${S}/snippets/{id}/files/{filename}`]: c('§3.3 one file: manage snippets', ADMINS, { vars: { id: '999999', filename: 'main.php' } }),
  [`POST ${S}/snippets/{id}/publish`]: c('§3.3 publish: manage snippets', ADMINS, SNIPPET),
  ...Object.fromEntries(['POST', 'PUT', 'PATCH'].map((m) => [`${m} ${S}/artifacts/{artifact_id}/rename`, c('§3.3 rename by artifact: manage snippets', ADMINS, { ...ARTIFACT, body: { title: 'Probe' } })])),
  [`PUT ${S}/artifacts/{artifact_id}/files`]: c('§3.3 files by artifact: manage snippets', ADMINS, { ...ARTIFACT, body: FILES }),
  [`PATCH ${S}/artifacts/{artifact_id}/files`]: c('§3.3 files by artifact: manage snippets', ADMINS, { ...ARTIFACT, body: FILES }),
  [`DELETE ${S}/artifacts/{artifact_id}`]: c('§3.3 delete by artifact: manage snippets', ADMINS, ARTIFACT),
  ...Object.fromEntries(['POST', 'PUT', 'PATCH'].map((m) => [`${m} ${S}/artifacts/{artifact_id}`, c('§3.3 publish by artifact: manage snippets', ADMINS, ARTIFACT)])),

  // Dev mode (§3.4): manage snippets.
  [`POST ${S}/dev-mode`]: c('§3.4 dev mode: manage snippets', ADMINS, { body: { enabled: false } }),
  [`GET ${S}/dev-mode/status`]: c('§3.4 dev mode status: manage snippets'),

  // Super-admin (§3.5).
  [`GET ${S}/super-admin/status`]: c('§3.5 status: manage_options'),
  [`POST ${S}/super-admin/opt-in`]: c('§3.5 opt-in: manage_options'),
  [`POST ${S}/super-admin/execute`]: c('§3.5 execute: the flag (off on a fresh site), manage_options and an execution token: refused to all', NOBODY, { body: { code: '1' } }),
  [`GET ${S}/super-admin/list`]: c('§3.5 list: the flag (off), manage_options and an execution token: refused to all', NOBODY, { query: { path: '.' } }),
  [`GET ${S}/super-admin/read`]: c('§3.5 read: the flag (off), manage_options and an execution token: refused to all', NOBODY, { query: { path: 'x' } }),

  // Settings and site routes (§3.6).
  [`GET ${S}/settings/{name}`]: c('§3.6 settings: manage_options', ADMINS, { vars: { name: 'probe' } }),
  [`POST ${S}/settings/{name}`]: c('§3.6 settings: manage_options', ADMINS, { vars: { name: 'probe' }, body: { value: { a: 1 } } }),
  [`GET ${S}/website-uuid`]: c('§3.6 website uuid: manage_options'),
  [`GET ${S}/cms-options`]: c('§3.6 site options: manage_options'),
  [`POST ${S}/cms-options`]: c('§3.6 site options: manage_options', ADMINS, { body: { options: { posts_per_page: 10 } } }),
  [`GET ${S}/cms-options/health`]: c('§3.6 site health: manage_options'),
  [`GET ${S}/token`]: c('§3.6 token: use_assistant or manage_options (administrators; the probe then meets the unconfigured upstream: 503)'),
  [`POST ${S}/consent`]: c('§3.6 consent: manage_options'),
  [`GET ${S}/page-templates`]: c('§3.6 page templates: the post type\'s edit capability (pages: edit_pages, editors and administrators)', EDITORS),
  [`GET ${S}/builder-settings/supported-post-types`]: c('§3.6 builder post types: use_assistant (administrators)'),
  [`GET ${S}/builder-kit`]: c('§3.6 kit: edit_theme_options (administrators)'),
  [`POST ${S}/builder-kit`]: c('§3.6 kit: edit_theme_options (administrators)', ADMINS, { body: {} }),
  [`GET ${S}/builder-kit/schema`]: c('§3.6 kit schema: edit_theme_options'),
  [`GET ${S}/builder-kit/fonts`]: c('§3.6 fonts: edit_theme_options'),
  [`GET ${S}/builder-library/template-types`]: c('§3.6 template types: edit_posts', EDIT_POSTS),
  [`POST ${S}/builder-library/{id}/sync-type`]: c('§3.6 sync type: edit_post on that id (another\'s published post: editors and administrators)', EDITORS, { vars: { id: 'post' }, body: { template_type: 'page' } })
}
