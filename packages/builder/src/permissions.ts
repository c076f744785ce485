/**
 * Who may call the builder's routes: expected outcomes for anonymous and
 * each role, written from builder-family.md and CONVENTIONS.md §4 (not
 * from the code). The gateway's permission matrix probes every served
 * route against these. 'allowed' means the permission check passed (a 4xx
 * or 503 of the probe itself is fine).
 */
import type { PermissionCase, PermissionCases } from '@cms/core'

const A = 'allowed' as const
type Outcomes = Omit<PermissionCase, 'why' | 'probe'>
/** `manage_options`: administrators only. */
const MANAGE_OPTIONS: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: A }
/** `edit_posts`: contributors and up. */
const EDIT_POSTS: Outcomes = { anonymous: 401, subscriber: 403, contributor: A, author: A, editor: A, administrator: A }
/** Any signed-in user. */
const SIGNED_IN: Outcomes = { anonymous: 401, subscriber: A, contributor: A, author: A, editor: A, administrator: A }
/** `upload_files` and `edit_post` on an administrator's published post: editors and administrators. */
const EDIT_OTHERS_UPLOAD: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: A, administrator: A }

const c = (why: string, outcomes: Outcomes, probe?: PermissionCase['probe']): PermissionCase => ({ why, ...outcomes, ...(probe === undefined ? {} : { probe }) })

const B = '/builder/v1'

export const builderPermissionCases: PermissionCases = {
  'POST /nps-survey/v1/rating': c('§5 nps-survey: manage_options (an allowed probe may then meet the unconfigured metrics upstream: 503)', MANAGE_OPTIONS, { body: { plugin_slug: 'probe', rating: 9 } }),
  'POST /nps-survey/v1/dismiss-nps-survey': c('§5 nps-survey: manage_options', MANAGE_OPTIONS, { body: { plugin_slug: 'probe', dismiss_timespan: 60 } }),
  'GET /builder-ai/v1/permissions': c('§4 site planner connect: manage_options', MANAGE_OPTIONS),
  'POST /builder/v1/documents/{id}/media/import': c('§3 media import: edit_post on the document (an administrator\'s published post) and upload_files', EDIT_OTHERS_UPLOAD, { vars: { id: 'post' } }),

  [`GET ${B}/globals`]: c('§2.1 globals read: edit_posts', EDIT_POSTS),
  [`GET ${B}/globals/colors`]: c('§2.1 globals read: edit_posts', EDIT_POSTS),
  [`GET ${B}/globals/typography`]: c('§2.1 globals read: edit_posts', EDIT_POSTS),
  [`GET ${B}/globals/colors/{id}`]: c('§2.1 globals read: edit_posts', EDIT_POSTS, { vars: { id: 'primary' } }),
  [`POST ${B}/globals/colors/{id}`]: c('§2.1 globals write: manage_options', MANAGE_OPTIONS, { vars: { id: 'probe' }, body: { title: 'Probe', value: '#000000' } }),
  [`DELETE ${B}/globals/colors/{id}`]: c('§2.1 globals delete: manage_options', MANAGE_OPTIONS, { vars: { id: 'nothere' } }),
  [`GET ${B}/globals/typography/{id}`]: c('§2.1 globals read: edit_posts', EDIT_POSTS, { vars: { id: 'primary' } }),
  [`POST ${B}/globals/typography/{id}`]: c('§2.1 globals write: manage_options', MANAGE_OPTIONS, { vars: { id: 'probe' }, body: { title: 'Probe', value: { typography_font_family: 'Roboto' } } }),
  [`DELETE ${B}/globals/typography/{id}`]: c('§2.1 globals delete: manage_options', MANAGE_OPTIONS, { vars: { id: 'nothere' } }),

  [`GET ${B}/kit-elements-defaults`]: c('§2.5 kit element defaults read: edit_posts', EDIT_POSTS),
  [`POST ${B}/kit-elements-defaults/{type}`]: c('§2.5 kit element defaults write: manage_options (POST = PUT)', MANAGE_OPTIONS, { vars: { type: 'button' }, body: { settings: { text: 'Go' } } }),
  [`PUT ${B}/kit-elements-defaults/{type}`]: c('§2.5 kit element defaults write: manage_options', MANAGE_OPTIONS, { vars: { type: 'button' }, body: { settings: { text: 'Go' } } }),
  [`PATCH ${B}/kit-elements-defaults/{type}`]: c('§2.5 kit element defaults write: manage_options', MANAGE_OPTIONS, { vars: { type: 'button' }, body: { settings: { text: 'Go' } } }),
  [`DELETE ${B}/kit-elements-defaults/{type}`]: c('§2.5 kit element defaults delete: manage_options', MANAGE_OPTIONS, { vars: { type: 'button' } }),

  [`GET ${B}/settings/{key}`]: c('§2.2 builder settings: manage_options', MANAGE_OPTIONS, { vars: { key: 'builder_font_display' } }),
  [`POST ${B}/settings/{key}`]: c('§2.2 builder settings: manage_options', MANAGE_OPTIONS, { vars: { key: 'builder_font_display' }, body: { value: 'swap' } }),
  [`PUT ${B}/settings/{key}`]: c('§2.2 builder settings: manage_options', MANAGE_OPTIONS, { vars: { key: 'builder_font_display' }, body: { value: 'swap' } }),
  [`PATCH ${B}/settings/{key}`]: c('§2.2 builder settings: manage_options', MANAGE_OPTIONS, { vars: { key: 'builder_font_display' }, body: { value: 'swap' } }),

  [`GET ${B}/post`]: c('§2.3 link search: edit_posts (application passwords need no browser nonce, CONVENTIONS §4)', EDIT_POSTS, { query: { term: 'probe' } }),

  [`GET ${B}/favorites`]: c('§2.4 favorites: edit_posts (the current user\'s own)', EDIT_POSTS),
  [`POST ${B}/favorites/{id}`]: c('§2.4 favorites: edit_posts', EDIT_POSTS, { vars: { id: 'widgets' }, body: { favorite: 'heading' } }),
  [`DELETE ${B}/favorites/{id}`]: c('§2.4 favorites: edit_posts', EDIT_POSTS, { vars: { id: 'widgets' }, body: { favorite: 'heading' } }),

  [`GET ${B}/site-navigation/recent-posts`]: c('§2.6 recent builder documents: edit_posts', EDIT_POSTS, { query: { posts_per_page: 5 } }),
  [`POST ${B}/site-navigation/add-new-post`]: c('§2.6 add new: the type\'s create capability (posts: edit_posts)', EDIT_POSTS, { body: { post_type: 'post' } }),

  [`GET ${B}/checklist`]: c('§2.7 checklist: manage_options', MANAGE_OPTIONS),
  [`GET ${B}/checklist/{id}`]: c('§2.7 checklist: manage_options', MANAGE_OPTIONS, { vars: { id: '1' } }),
  [`GET ${B}/checklist/steps`]: c('§2.7 checklist: manage_options', MANAGE_OPTIONS),
  [`GET ${B}/checklist/steps/{id}`]: c('§2.7 checklist: manage_options', MANAGE_OPTIONS, { vars: { id: '1' } }),
  [`POST ${B}/checklist/steps/{id}`]: c('§2.7 checklist: manage_options (POST = PUT)', MANAGE_OPTIONS, { vars: { id: 'add_logo' }, body: { is_marked_completed: true } }),
  [`PUT ${B}/checklist/steps/{id}`]: c('§2.7 checklist: manage_options', MANAGE_OPTIONS, { vars: { id: 'add_logo' }, body: { is_marked_completed: true } }),
  [`PATCH ${B}/checklist/steps/{id}`]: c('§2.7 checklist: manage_options', MANAGE_OPTIONS, { vars: { id: 'add_logo' }, body: { is_marked_completed: true } }),
  [`GET ${B}/checklist/user-progress`]: c('§2.7 checklist: manage_options', MANAGE_OPTIONS),
  [`POST ${B}/checklist/user-progress`]: c('§2.7 checklist: manage_options (POST = PUT)', MANAGE_OPTIONS, { body: { is_popup_minimized: true } }),
  [`PUT ${B}/checklist/user-progress`]: c('§2.7 checklist: manage_options', MANAGE_OPTIONS, { body: { is_popup_minimized: true } }),
  [`PATCH ${B}/checklist/user-progress`]: c('§2.7 checklist: manage_options', MANAGE_OPTIONS, { body: { is_popup_minimized: true } }),

  [`GET ${B}/template-library/templates`]: c('§2.8 template library: edit_posts', EDIT_POSTS),
  [`POST ${B}/template-library/templates`]: c('§2.8 template library: edit_posts', EDIT_POSTS, { body: { type: 'section', title: 'Probe', content: [] } }),

  [`GET ${B}/user-data/current-user`]: c('§2.9 current user data: signed in', SIGNED_IN),
  [`PATCH ${B}/user-data/current-user`]: c('§2.9 current user data: signed in (the user\'s own)', SIGNED_IN, { body: { suppressedMessages: ['probe'] } }),

  [`POST ${B}/library/connect`]: c('§2.10 library connect: manage_options (an allowed probe may then meet the unconfigured library upstream: 503)', MANAGE_OPTIONS, { body: { token: 'probe-token' } }),
  [`DELETE ${B}/library/connect`]: c('§2.10 library disconnect: manage_options', MANAGE_OPTIONS),

  [`GET ${B}/send-event`]: c('§2.11 events: manage_options (the real product refuses everyone)', MANAGE_OPTIONS),
  [`POST ${B}/send-event`]: c('§2.11 events: manage_options (the real product refuses everyone)', MANAGE_OPTIONS, { body: { event_data: { name: 'probe' } } }),

  [`DELETE ${B}/cache`]: c('§2.12 clear files and data: manage_options', MANAGE_OPTIONS)
}
