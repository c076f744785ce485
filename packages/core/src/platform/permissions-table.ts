/**
 * Who may call what: the expected outcome of every route and method for an
 * anonymous caller and for a user of each of the five roles. Written from
 * the behaviour notes (cms-core.md §7-10 content, §12 application
 * passwords, §13 capabilities, §14 oEmbed) and CONVENTIONS.md §4, not read
 * from the implementation: the gateway's permission matrix test probes every
 * served route with each caller and fails on any difference, and on any
 * served route missing here. A new route needs its row. The root route of
 * every served namespace (public) is added by the platform, not listed here;
 * other packages keep their cases beside their routes.
 *
 * Outcomes: 'allowed' means the permission check passed (any status but 401
 * and 403: a 400 or 404 from the probe itself is fine); 401 and 403 are the
 * refusals for anonymous and signed-in callers.
 *
 * A probe acts on fresh objects the harness makes first, named in `vars`:
 *   post / page            a published post / page by an administrator
 *   post.revision          a revision of that post (page.revision likewise)
 *   post.autosave          an administrator's autosave of it (page.autosave)
 *   category / tag         a term made by an administrator
 *   user                   another user (a subscriber without published posts)
 *   user.app-password      an application password of that user
 *   media                  an administrator's upload (a 1x1 PNG, unattached)
 *   self.app-password      an application password of the probing caller
 * Any other value (`me`, `1`) is used as written. Arguments a probe does not
 * give are filled with valid values from the route's declaration.
 */
import type { Role } from '../users/capabilities.js'

export type Outcome = 'allowed' | 401 | 403
export type CallerKind = 'anonymous' | Role

export interface Probe {
  vars?: Record<string, string>
  query?: Record<string, unknown>
  /** Query parameters whose value is a fixture object's id, named as in `vars` (`{ post_id: 'post' }`). */
  queryVars?: Record<string, string>
  body?: Record<string, unknown>
}

export type PermissionCase = Readonly<Record<CallerKind, Outcome>> & {
  /** Where the rule comes from. */
  readonly why: string
  readonly probe?: Probe
}

const A = 'allowed' as const
type Row = readonly [anonymous: Outcome, subscriber: Outcome, contributor: Outcome, author: Outcome, editor: Outcome, administrator: Outcome]

function row (why: string, outcomes: Row, probe?: Probe): PermissionCase {
  const [anonymous, subscriber, contributor, author, editor, administrator] = outcomes
  return { why, anonymous, subscriber, contributor, author, editor, administrator, ...(probe === undefined ? {} : { probe }) }
}

//                                   anon  subscr contrib author editor admin
const EVERYONE: Row = /*          */ [A, A, A, A, A, A]
const SIGNED_IN: Row = /*         */ [401, A, A, A, A, A]
const EDIT_POSTS: Row = /*        */ [401, 403, A, A, A, A]
const EDITORS: Row = /*           */ [401, 403, 403, 403, A, A]
const ADMINS: Row = /*            */ [401, 403, 403, 403, 403, A]
const NOBODY_SIGNED_IN: Row = /*  */ [401, 403, 403, 403, 403, 403]

/** Posts and pages share one rule set with their own capabilities (§13: pages use the *_pages equivalents). */
function contentRows (type: 'posts' | 'pages', item: 'post' | 'page'): Record<string, PermissionCase | PermissionCase[]> {
  const base = `/cms/v2/${type}`
  const own = { vars: { id: item } }
  const create = type === 'posts'
    ? [
        row('§13 create: edit_posts', EDIT_POSTS, { body: { title: 'Probe', status: 'draft' } }),
        row('§13 create published: publish_posts', [401, 403, 403, A, A, A], { body: { title: 'Probe', status: 'publish' } })
      ]
    : [row('§13 pages: create needs edit_pages (editors, administrators)', EDITORS, { body: { title: 'Probe', status: 'draft' } })]
  const edit = row(`§13 edit_post on another's published ${item}: edit_others + edit_published`, EDITORS, { ...own, body: { title: 'Probe edit' } })
  const revisions = { vars: { parent: item } }
  return {
    [`GET ${base}`]: row('§13 list published: nobody needs anything', EVERYONE),
    [`POST ${base}`]: create,
    [`GET ${base}/{id}`]: row('§13 read published: nobody needs anything', EVERYONE, own),
    [`POST ${base}/{id}`]: edit,
    [`PUT ${base}/{id}`]: edit,
    [`PATCH ${base}/{id}`]: edit,
    [`DELETE ${base}/{id}`]: row(`§13 delete_post on another's published ${item}: delete_others + delete_published`, EDITORS, own),
    [`GET ${base}/{parent}/revisions`]: row('§9 revisions need edit_post on the parent', EDITORS, revisions),
    [`GET ${base}/{parent}/revisions/{id}`]: row('§9 revisions need edit_post on the parent', EDITORS, { vars: { parent: item, id: `${item}.revision` } }),
    [`DELETE ${base}/{parent}/revisions/{id}`]: row('CONVENTIONS §5: with force=true whoever may delete the parent deletes its revision', EDITORS,
      { vars: { parent: item, id: `${item}.revision` }, query: { force: true } }),
    [`GET ${base}/{id}/autosaves`]: row('§10 autosave list needs edit_post on the parent', EDITORS, own),
    [`POST ${base}/{id}/autosaves`]: row('§10 autosave = the parent\'s update permission', EDITORS, { ...own, body: { title: 'Probe autosave' } }),
    [`GET ${base}/{parent}/autosaves/{id}`]: row('§10 autosaves need edit_post on the parent', EDITORS, { vars: { parent: item, id: `${item}.autosave` } })
  }
}

/** Categories and tags: manage_categories for every change (core taxonomy caps), reading is public. */
function termRows (taxonomy: 'categories' | 'tags', item: 'category' | 'tag'): Record<string, PermissionCase> {
  const base = `/cms/v2/${taxonomy}`
  const edit = row('§13 terms: edit_term maps to manage_categories', EDITORS, { vars: { id: item }, body: { description: 'Probe' } })
  return {
    [`GET ${base}`]: row('terms are public', EVERYONE),
    [`POST ${base}`]: taxonomy === 'categories'
      ? row('§13 creating categories: manage_categories', EDITORS, { body: { name: `Probe ${item}` } })
      // Tags are flat: whoever may assign them (edit_posts) may add new ones while writing, as the core
      // does for non-hierarchical taxonomies (§13 names manage_categories for categories only).
      : row('§13 tags: creating a flat-taxonomy term needs assign_terms (edit_posts)', EDIT_POSTS, { body: { name: `Probe ${item}` } }),
    [`GET ${base}/{id}`]: row('terms are public', EVERYONE, { vars: { id: item } }),
    [`POST ${base}/{id}`]: edit,
    [`PUT ${base}/{id}`]: edit,
    [`PATCH ${base}/{id}`]: edit,
    [`DELETE ${base}/{id}`]: row('§13 terms: delete_term maps to manage_categories', EDITORS, { vars: { id: item }, query: { force: true } })
  }
}

/**
 * Media (the core's attachments controller): reading follows the file's
 * status (an unattached upload is public), uploading needs upload_files,
 * editing and deleting another's file edit_others_posts / delete_others_posts.
 * The probe's file is an administrator's upload.
 */
function mediaRows (): Record<string, PermissionCase> {
  const own = { vars: { id: 'media' } }
  const edit = row("§13 edit_post on another's attachment: edit_others_posts", EDITORS, { ...own, body: { title: 'Probe edit' } })
  return {
    'GET /cms/v2/media': row('media lists are public', EVERYONE),
    'POST /cms/v2/media': row('§13 uploading needs upload_files (authors and up)', [401, 403, 403, A, A, A]),
    'GET /cms/v2/media/{id}': row('an unattached upload is as public as a published post', EVERYONE, own),
    'POST /cms/v2/media/{id}': edit,
    'PUT /cms/v2/media/{id}': edit,
    'PATCH /cms/v2/media/{id}': edit,
    'DELETE /cms/v2/media/{id}': row("§13 delete_post on another's attachment: delete_others_posts", EDITORS, { ...own, query: { force: true } }),
    'POST /cms/v2/media/{id}/post-process': row('regenerating sizes is editing the attachment', EDITORS, { ...own, body: { action: 'create-image-subsizes' } })
  }
}

function appPasswordRows (): Record<string, PermissionCase | PermissionCase[]> {
  const base = '/cms/v2/users/{user_id}/application-passwords'
  const mine = (why: string, probe: Probe = {}): PermissionCase => row(`§12 ${why}: every signed-in user manages their own`, SIGNED_IN, { ...probe, vars: { user_id: 'me', ...probe.vars } })
  const others = (why: string, probe: Probe = {}): PermissionCase => row(`§12 ${why}: another user's need edit_users`, ADMINS, { ...probe, vars: { user_id: 'user', ...probe.vars } })
  const item = (why: string, probe: Probe = {}): PermissionCase[] => [
    mine(why, { ...probe, vars: { uuid: 'self.app-password' } }),
    others(why, { ...probe, vars: { uuid: 'user.app-password' } })
  ]
  return {
    [`GET ${base}`]: [mine('list'), others('list')],
    [`POST ${base}`]: [mine('create', { body: { name: 'Probe' } }), others('create', { body: { name: 'Probe' } })],
    [`DELETE ${base}`]: [mine('delete all'), others('delete all')],
    [`GET ${base}/introspect`]: [
      mine('introspect the password of this request'),
      row('§12 introspecting another user\'s password is refused to everyone', NOBODY_SIGNED_IN, { vars: { user_id: 'user' } })
    ],
    [`GET ${base}/{uuid}`]: item('read'),
    [`POST ${base}/{uuid}`]: item('rename', { body: { name: 'Renamed' } }),
    [`PUT ${base}/{uuid}`]: item('rename', { body: { name: 'Renamed' } }),
    [`PATCH ${base}/{uuid}`]: item('rename', { body: { name: 'Renamed' } }),
    [`DELETE ${base}/{uuid}`]: item('delete')
  }
}

function userRows (): Record<string, PermissionCase | PermissionCase[]> {
  const other = { vars: { id: 'user' } }
  const editOther = row('edit_user on another user: edit_users', ADMINS, { ...other, body: { description: 'Probe' } })
  const editSelf = row('edit_user on oneself needs nothing (§12, as the core allows); anonymous: rest_not_logged_in', SIGNED_IN, { body: { description: 'Probe' } })
  return {
    'GET /cms/v2/users': row('anyone may list users (only authors of published posts are shown without list_users)', EVERYONE),
    'POST /cms/v2/users': row('create_users', ADMINS),
    'GET /cms/v2/users/{id}': row('a user without published posts is visible to list_users / edit_user holders only', ADMINS, other),
    'POST /cms/v2/users/{id}': editOther,
    'PUT /cms/v2/users/{id}': editOther,
    'PATCH /cms/v2/users/{id}': editOther,
    'DELETE /cms/v2/users/{id}': row('delete_users', ADMINS, { ...other, query: { force: true } }),
    'GET /cms/v2/users/me': row('§12 `me` while anonymous: 401 rest_not_logged_in', SIGNED_IN),
    'POST /cms/v2/users/me': editSelf,
    'PUT /cms/v2/users/me': editSelf,
    'PATCH /cms/v2/users/me': editSelf,
    'DELETE /cms/v2/users/me': row('deleting oneself still needs delete_users', ADMINS, { query: { force: true } })
  }
}

export const permissionsTable: Readonly<Record<string, PermissionCase | readonly PermissionCase[]>> = {
  'GET /': row('the site index is public', EVERYONE),
  'POST /batch/v1': row('§11 anyone may send a batch; each request checks its own permission', EVERYONE,
    { body: { requests: [{ method: 'POST', path: '/cms/v2/posts', body: { title: 'Probe' } }] } }),

  'GET /oembed/1.0/embed': row('§14 embed is public', EVERYONE, { query: { url: 'http://cms.test/?p=1' } }),
  'GET /oembed/1.0/proxy': row('§14 proxy needs edit_posts', EDIT_POSTS, { query: { url: 'http://cms.test/?p=1' } }),

  ...contentRows('posts', 'post'),
  ...contentRows('pages', 'page'),
  'GET /cms/v2/types': row('types are public (the edit context needs a type\'s edit_posts)', EVERYONE),
  'GET /cms/v2/types/{type}': row('a type is public (the edit context needs its edit_posts)', EVERYONE, { vars: { type: 'post' } }),
  'GET /cms/v2/statuses': row('statuses are public (only publish for callers who edit no type)', EVERYONE),
  'GET /cms/v2/statuses/{status}': [
    row('the public status is readable by anyone', EVERYONE, { vars: { status: 'publish' } }),
    row('another status needs edit_posts of some type', EDIT_POSTS, { vars: { status: 'draft' } })
  ],
  'GET /cms/v2/taxonomies': row('taxonomies are public (the edit context needs assign_terms)', EVERYONE),
  'GET /cms/v2/taxonomies/{taxonomy}': [
    row('a taxonomy is public', EVERYONE, { vars: { taxonomy: 'post_tag' } }),
    row('its edit context needs assign_terms (assign_post_tags: edit_posts; `category` names a fixture here)', EDIT_POSTS, { vars: { taxonomy: 'post_tag' }, query: { context: 'edit' } })
  ],
  ...termRows('categories', 'category'),
  ...termRows('tags', 'tag'),
  ...mediaRows(),
  ...userRows(),
  ...appPasswordRows(),
  'GET /cms/v2/search': row('search is public (it finds only what the caller may read)', EVERYONE, { query: { search: 'probe' } }),
  'GET /cms/v2/settings': row('CONVENTIONS §4: site settings need manage_options', ADMINS),
  'POST /cms/v2/settings': row('CONVENTIONS §4: site settings need manage_options', ADMINS, { body: { description: 'Probe tagline' } }),
  'PUT /cms/v2/settings': row('CONVENTIONS §4: site settings need manage_options', ADMINS, { body: { description: 'Probe tagline' } }),
  'PATCH /cms/v2/settings': row('CONVENTIONS §4: site settings need manage_options', ADMINS, { body: { description: 'Probe tagline' } })
}

/** The cases of a row, one or several. */
export function casesOf (entry: PermissionCase | readonly PermissionCase[]): readonly PermissionCase[] {
  return Array.isArray(entry) ? entry : [entry as PermissionCase]
}
