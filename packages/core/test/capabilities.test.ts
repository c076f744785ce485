/**
 * The capability table of the five roles (cms-core.md §13, written out here
 * independently of the code) as the API reports it for a signed-in user
 * (`GET /users/me?context=edit`, field `capabilities`) and as `can` answers
 * it; then the meta rules for posts and users.
 */
import t from 'tap'
import { anonymousCaller, Caller, can, ROLES, type Role } from '../src/index.js'
import { call } from '@cms/rest/testing'
import { testApp, createCaller } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const POSTS = ['edit_posts', 'edit_others_posts', 'edit_published_posts', 'edit_private_posts', 'publish_posts',
  'read_private_posts', 'delete_posts', 'delete_others_posts', 'delete_published_posts', 'delete_private_posts']
const PAGES = POSTS.map((c) => c.replace('posts', 'pages'))
const ADMIN_ONLY = ['activate_plugins', 'create_users', 'delete_plugins', 'delete_themes', 'delete_users',
  'edit_dashboard', 'edit_files', 'edit_plugins', 'edit_theme_options', 'edit_themes', 'edit_users', 'export',
  'import', 'install_plugins', 'install_themes', 'list_users', 'manage_options', 'promote_users', 'remove_users',
  'switch_themes', 'unfiltered_upload', 'update_core', 'update_plugins', 'update_themes']

const expected: Record<Role, string[]> = {
  subscriber: ['read'],
  contributor: ['read', 'edit_posts', 'delete_posts'],
  author: ['read', 'upload_files', 'edit_posts', 'edit_published_posts', 'publish_posts', 'delete_posts', 'delete_published_posts'],
  editor: ['read', 'upload_files', 'unfiltered_html', 'moderate_comments', 'manage_categories', 'manage_links', ...POSTS, ...PAGES],
  administrator: ['read', 'upload_files', 'unfiltered_html', 'moderate_comments', 'manage_categories', 'manage_links', ...POSTS, ...PAGES, ...ADMIN_ONLY]
}
const ALL_CAPS = expected.administrator

t.test('the table itself', async (t) => {
  t.equal(ALL_CAPS.length, 50, 'administrators have the 50 core capabilities')
  t.same([...ROLES].sort(), Object.keys(expected).sort(), 'five roles')
})

t.test('each role has exactly its capabilities (over HTTP and through can)', async (t) => {
  const { app, store } = await testApp({ packages: [packageMeta], namespaces: ['cms/v2'], horizon: true })
  t.teardown(() => app.close())
  for (const role of ROLES) {
    const a = await createCaller(store, role, { login: `a-${role}` })
    const res = await call(app, 'GET', '/cms/v2/users/me', { as: a, query: { context: 'edit' } })
    t.equal(res.status, 200, `${role}: me`)
    const caps = res.body.capabilities as Record<string, boolean>
    t.same(res.body.roles, [role])
    t.same(res.body.extra_capabilities, { [role]: true })
    const caller = new Caller(a.user.id, a.user.login, [role])
    for (const cap of ALL_CAPS) {
      const has = expected[role].includes(cap)
      t.equal(caps[cap] === true, has, `${role} ${has ? 'has' : 'lacks'} ${cap} (API)`)
      t.equal(caller.can(cap), has, `${role} ${has ? 'has' : 'lacks'} ${cap} (can)`)
    }
    t.same(Object.keys(caps).sort(), [...expected[role], role].sort(), `${role}: nothing else`)
  }
})

t.test('meta rules for posts: own versus others\', published versus draft', async (t) => {
  const ME = 7
  const OTHER = 8
  type Row = [Role, string, { author: number, status: string, type?: string }, boolean]
  const post = (author: number, status: string, type = 'post'): { author: number, status: string, type: string } => ({ author, status, type })
  const rows: Row[] = [
    // edit_post
    ['contributor', 'edit_post', post(ME, 'draft'), true],
    ['contributor', 'edit_post', post(ME, 'pending'), true],
    ['contributor', 'edit_post', post(ME, 'publish'), false],
    ['contributor', 'edit_post', post(OTHER, 'draft'), false],
    ['author', 'edit_post', post(ME, 'publish'), true],
    ['author', 'edit_post', post(ME, 'future'), true],
    ['author', 'edit_post', post(OTHER, 'draft'), false],
    ['author', 'edit_post', post(OTHER, 'publish'), false],
    ['editor', 'edit_post', post(OTHER, 'draft'), true],
    ['editor', 'edit_post', post(OTHER, 'publish'), true],
    ['editor', 'edit_post', post(OTHER, 'private'), true],
    ['subscriber', 'edit_post', post(ME, 'draft'), false],
    // delete_post
    ['contributor', 'delete_post', post(ME, 'draft'), true],
    ['contributor', 'delete_post', post(ME, 'publish'), false],
    ['author', 'delete_post', post(ME, 'publish'), true],
    ['author', 'delete_post', post(OTHER, 'draft'), false],
    ['editor', 'delete_post', post(OTHER, 'publish'), true],
    ['editor', 'delete_post', post(OTHER, 'private'), true],
    // read_post
    ['subscriber', 'read_post', post(OTHER, 'publish'), true],
    ['subscriber', 'read_post', post(OTHER, 'draft'), false],
    ['subscriber', 'read_post', post(OTHER, 'private'), false],
    ['subscriber', 'read_post', post(ME, 'private'), true],
    ['contributor', 'read_post', post(ME, 'draft'), true],
    ['contributor', 'read_post', post(OTHER, 'draft'), false],
    ['author', 'read_post', post(OTHER, 'private'), false],
    ['editor', 'read_post', post(OTHER, 'private'), true],
    ['editor', 'read_post', post(OTHER, 'draft'), true],
    // pages use the *_pages capabilities
    ['author', 'edit_post', post(ME, 'draft', 'page'), false],
    ['editor', 'edit_post', post(OTHER, 'publish', 'page'), true],
    // revisions are never deleted through delete_post
    ['administrator', 'delete_post', post(ME, 'inherit', 'revision'), false],
    // publishing
    ['contributor', 'publish_post', post(ME, 'draft'), false],
    ['author', 'publish_post', post(ME, 'draft'), true]
  ]
  for (const [role, cap, object, allowed] of rows) {
    const caller = new Caller(ME, 'me', [role])
    t.equal(caller.can(cap, { type: 'post', ...object }), allowed,
      `${role} ${allowed ? 'may' : 'may not'} ${cap} on ${object.author === ME ? 'own' : 'another\'s'} ${object.status} ${object.type ?? 'post'}`)
  }
  t.equal(can(anonymousCaller, 'read_post', post(OTHER, 'publish')), false, 'anonymous callers have not even read')
  t.equal(can(new Caller(ME, 'me', ['editor']), 'delete_post', { ...post(OTHER, 'publish', 'page'), isSpecialPage: true }), false,
    'the front page needs manage_options')
  t.equal(can(new Caller(ME, 'me', ['administrator']), 'delete_post', { ...post(OTHER, 'publish', 'page'), isSpecialPage: true }), true)
})

t.test('meta rules for users and application passwords', async (t) => {
  const ME = 3
  const rows: Array<[Role | 'none', string, number, boolean]> = [
    ['subscriber', 'edit_user', ME, true],
    ['none', 'edit_user', ME, true],
    ['subscriber', 'edit_user', 4, false],
    ['editor', 'edit_user', 4, false],
    ['administrator', 'edit_user', 4, true],
    ['subscriber', 'create_app_password', ME, true],
    ['subscriber', 'list_app_passwords', 4, false],
    ['administrator', 'delete_app_password', 4, true],
    ['subscriber', 'delete_user', ME, false],
    ['administrator', 'delete_user', 4, true],
    ['editor', 'promote_user', 4, false],
    ['administrator', 'promote_user', 4, true]
  ]
  for (const [role, cap, target, allowed] of rows) {
    const caller = new Caller(ME, 'me', role === 'none' ? [] : [role])
    t.equal(caller.can(cap, { id: target }), allowed, `${role} ${allowed ? 'may' : 'may not'} ${cap} on ${target === ME ? 'self' : 'another user'}`)
  }
  t.equal(anonymousCaller.can('edit_user', { id: 0 }), false, 'the anonymous caller is nobody')
})
